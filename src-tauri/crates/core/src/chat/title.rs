//! A session's automatic title, from its first message: no extra round trip to the model.

const MAX_CHARS: usize = 60;

/// The first non-empty line, whitespace collapsed, cut at a word boundary.
pub fn from_first_message(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_CHARS {
        return line;
    }
    let head: String = line.chars().take(MAX_CHARS).collect();
    let cut = head.rfind(' ').filter(|&p| p > head.len() / 2).map_or(head.as_str(), |p| &head[..p]);
    format!("{}…", cut.trim_end_matches([',', '.', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::from_first_message;

    #[test]
    fn titles_are_short_single_lines() {
        assert_eq!(from_first_message("\n  How do I   set up vLLM?\nmore"), "How do I set up vLLM?");
        let long = "Please review this long function that parses configuration files and tell me what breaks";
        let t = from_first_message(long);
        assert!(t.ends_with('…') && t.chars().count() <= 61, "{t}");
        assert!(long.starts_with(t.trim_end_matches('…')), "cut at a word boundary: {t}");
        assert_eq!(from_first_message("가".repeat(100).as_str()).chars().count(), 61);
    }
}
