//! Rules for the text users type into one-line fields (names, titles) and for comparing names.
//!
//! Names are stored in Unicode NFC, so "Café" typed on macOS (NFD) and on Linux (NFC) is one
//! name, and compared by a key that also folds case and compatibility forms. A name must show
//! something: invisible characters (zero-width spaces, byte-order marks, bidi controls) and
//! lone combining marks are not a name, and line or paragraph separators have no place in one.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::error::{Error, Result};

/// Counts characters, not bytes: limits are stated to users in characters.
pub(crate) fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Controls, line and paragraph separators, and the bidi overrides that make a name read as
/// something else: nothing a one-line label may hold.
fn is_forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Shows nothing on its own: whitespace, combining marks, format characters (zero-width
/// spaces and joiners, byte-order marks).
fn is_invisible(c: char) -> bool {
    c.is_whitespace() || is_combining_mark(c) || is_format(c)
}

fn is_format(c: char) -> bool {
    !c.is_control() && c.general_category_group() == GeneralCategoryGroup::Other
}

/// A one-line label (a name, a title): NFC, trimmed, at most `max` characters, no line breaks,
/// controls or invisible formatting (it is shown in lists and in prompt headers). Empty stays
/// empty (the caller decides whether that is allowed); text with nothing visible is refused.
/// `what` names it in the error, e.g. "a project name".
pub(crate) fn one_line(raw: &str, max: usize, code: &'static str, what: &str) -> Result<String> {
    let text: String = raw.nfc().collect();
    let text = text.trim();
    let len = char_len(text);
    if len > max {
        return Err(Error::invalid(code, format!("{what} can have at most {max} characters (this one has {len})")));
    }
    if text.chars().any(is_forbidden) {
        return Err(Error::invalid(code, format!("{what} cannot contain line breaks, control characters or invisible formatting")));
    }
    if !text.is_empty() && text.chars().all(is_invisible) {
        return Err(Error::invalid(code, format!("{what} needs at least one visible character")));
    }
    Ok(text.to_string())
}

/// The label `raw` made safe without asking: controls and separators become spaces, invisible
/// formatting goes, whitespace collapses. For text the user did not type as a label (a title
/// taken from a message); empty when nothing visible is left.
pub(crate) fn as_one_line(raw: &str, max: usize) -> String {
    let cleaned: String = raw.nfc().filter(|&c| !is_format(c) || c == '\u{200d}').map(|c| if is_forbidden(c) { ' ' } else { c }).collect();
    let joined = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().all(is_invisible) {
        return String::new();
    }
    joined.chars().take(max).collect()
}

/// What two names are compared by: compatibility-normalised and case-folded, so "Café" in NFC
/// and NFD, "ＷＯＲＫ" and "work" are the same name.
pub(crate) fn name_key(name: &str) -> String {
    name.nfkc().collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &str) -> Result<String> {
        one_line(raw, 200, "invalid_name", "a project name")
    }

    #[test]
    fn invisible_only_names_are_refused() {
        for raw in ["\u{200b}\u{200b}", "\u{feff}\u{200c}", "\u{0301}", "\u{0301}\u{0308}", " \u{2060} "] {
            assert!(check(raw).is_err(), "{raw:?} shows nothing in a list and must be refused");
        }
    }

    #[test]
    fn separators_and_controls_are_refused() {
        for raw in ["a\u{2028}b", "a\u{2029}b", "a\nb", "\u{1b}]0;pwned\u{7}", "a\u{202e}b"] {
            assert!(check(raw).is_err(), "{raw:?} would break a one-line label or spoof its text");
        }
    }

    #[test]
    fn ordinary_names_pass_in_nfc() {
        assert_eq!(check("  가족 일정 ").unwrap(), "가족 일정");
        assert_eq!(check("Cafe\u{0301}").unwrap(), "Café", "stored in NFC");
        assert_eq!(check("👩‍💻 work").unwrap(), "👩‍💻 work", "emoji joined by ZWJ are visible text");
        assert_eq!(check("").unwrap(), "", "empty is the caller's decision");
    }

    #[test]
    fn keys_fold_normalisation_and_case() {
        assert_eq!(name_key("Café"), name_key("Cafe\u{0301}"), "NFC and NFD are one name");
        assert_eq!(name_key("ＷＯＲＫ"), name_key("work"), "full-width letters are the same name");
    }

    #[test]
    fn titles_from_text_drop_what_a_label_cannot_hold() {
        assert_eq!(as_one_line("\u{1b}]0;pwned\u{7} hello\u{2028}world", 200), "]0;pwned hello world");
        assert_eq!(as_one_line("\u{200b}\u{200b}", 200), "", "nothing visible: no title");
        assert_eq!(as_one_line("a\u{200b}b", 200), "ab");
    }
}
