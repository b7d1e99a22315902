//! Rules for the text users type into one-line fields (names, titles) and for comparing names.
//!
//! Names are stored in Unicode NFC, so "Café" typed on macOS (NFD) and on Linux (NFC) is one
//! name, and compared by a key that also folds case and compatibility forms. A name must show
//! something: invisible characters (zero-width spaces, byte-order marks, bidi controls) and
//! lone combining marks are not a name, and line or paragraph separators have no place in one.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::error::{Code, Error, Result};

/// Counts characters, not bytes: limits are stated to users in characters.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Controls, line and paragraph separators, and the bidi overrides that make a name read as
/// something else: nothing a one-line label may hold.
fn is_forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Shows nothing on its own: whitespace, combining marks, format characters (zero-width
/// spaces and joiners, byte-order marks) and blank fillers.
fn is_invisible(c: char) -> bool {
    c.is_whitespace() || is_combining_mark(c) || is_format(c) || is_filler(c)
}

fn is_format(c: char) -> bool {
    !c.is_control() && c.general_category_group() == GeneralCategoryGroup::Other
}

/// A format character (zero-width, soft hyphen, direction marks and overrides): invisible.
pub fn is_format_char(c: char) -> bool {
    is_format(c) || is_filler(c)
}

/// Letters and symbols that draw nothing: the Hangul fillers, the braille blank, the combining
/// grapheme joiner.
fn is_filler(c: char) -> bool {
    matches!(c, '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' | '\u{2800}' | '\u{034f}' | '\u{17b4}' | '\u{17b5}')
}

/// Drawn as nothing and meaning nothing in a label: format characters (soft hyphens, zero-width
/// spaces, direction marks) and fillers. The zero-width joiner stays between two visible
/// characters, where it joins an emoji (👩‍💻).
fn strip_invisible(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let shows = |i: usize| chars.get(i).is_some_and(|&c| !is_invisible(c) || is_combining_mark(c));
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| match c {
            '\u{200d}' => i > 0 && shows(i - 1) && shows(i + 1),
            c => !((is_format(c) && !is_forbidden(c)) || is_filler(c)),
        })
        .map(|(_, &c)| c)
        .collect()
}

/// Free text (a memory): NFC, with the characters that draw nothing taken out, so that text made
/// only of them is empty.
pub fn visible_text(raw: &str) -> String {
    strip_invisible(&raw.nfc().collect::<String>())
}

/// A one-line label (a name, a title): NFC, trimmed, at most `max` characters, no line breaks,
/// controls or invisible formatting (it is shown in lists and in prompt headers). Empty stays
/// empty (the caller decides whether that is allowed); text with nothing visible is refused.
/// `what` names it in the error, e.g. "a project name".
pub fn one_line(raw: &str, max: usize, code: Code, what: &str) -> Result<String> {
    // Invisible characters go: a name that differs from another only by them is the same name,
    // and a name made only of them is empty.
    let text = strip_invisible(&raw.nfc().collect::<String>());
    let text = text.trim();
    let len = char_len(text);
    if len > max {
        return Err(Error::invalid(code, format!("{what} can have at most {max} characters (this one has {len})")));
    }
    if text.chars().any(is_forbidden) {
        return Err(Error::invalid(code, format!("{what} cannot contain line breaks, control characters or invisible formatting")));
    }
    // Typed, but nothing of it shows (or only marks with nothing to sit on): not a label.
    if (text.is_empty() && !raw.trim().is_empty()) || (!text.is_empty() && text.chars().all(is_invisible)) {
        return Err(Error::invalid(code, format!("{what} needs at least one visible character")));
    }
    Ok(text.to_string())
}

/// The label `raw` made safe without asking: controls and separators become spaces, invisible
/// formatting goes, whitespace collapses. For text the user did not type as a label (a title
/// taken from a message); empty when nothing visible is left.
pub fn as_one_line(raw: &str, max: usize) -> String {
    let cleaned: String = raw.nfc().filter(|&c| !is_format(c) || c == '\u{200d}').map(|c| if is_forbidden(c) { ' ' } else { c }).collect();
    let joined = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().all(is_invisible) {
        return String::new();
    }
    joined.chars().take(max).collect()
}

/// What two names are compared by: compatibility-normalised and case-folded, so "Café" in NFC
/// and NFD, "ＷＯＲＫ" and "work" are the same name.
pub fn name_key(name: &str) -> String {
    let folded = name.nfkc().collect::<String>().to_lowercase();
    folded.chars().filter(|&c| !(is_format(c) || is_filler(c))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &str) -> Result<String> {
        one_line(raw, 200, Code::InvalidName, "a project name")
    }

    #[test]
    fn invisible_only_names_are_refused() {
        for raw in [
            "\u{0301}",
            "\u{0301}\u{0308}",
            "\u{200b}\u{200b}",
            "\u{feff}\u{200c}",
            " \u{2060} ",
            "\u{ad}",
            "\u{200e}\u{200f}",
            "\u{3164}",
            "\u{115f}\u{2800}",
        ] {
            assert!(check(raw).is_err(), "{raw:?} is made only of characters that draw nothing: an empty name, refused");
        }
    }

    #[test]
    fn names_differing_only_by_invisible_characters_are_one_name() {
        for raw in ["Wo\u{200b}rk", "Work\u{ad}", "\u{200e}Work", "W\u{2060}ork\u{feff}", "Work\u{3164}"] {
            assert_eq!(check(raw).unwrap(), "Work", "{raw:?} shows as Work and is stored as Work");
            assert_eq!(name_key(raw), name_key("Work"), "{raw:?} must count as taken when Work exists");
        }
        assert_eq!(check("👩\u{200d}💻 work").unwrap(), "👩\u{200d}💻 work", "the joiner inside an emoji stays");
        assert_eq!(visible_text("\u{200b}\u{ad}\u{200f}"), "", "a memory of invisible characters is empty");
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
