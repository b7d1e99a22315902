//! A text split into passages of a few paragraphs: small enough that a search returns what the
//! model needs and not the whole file, large enough to keep a paragraph's context. Each passage
//! starts with the last paragraph of the one before (the overlap), so a sentence that crosses a
//! boundary is found whole in one of them. Pages are never mixed: a PDF passage has one page.

use super::extract::Text;

/// A passage aims at this many characters; a longer paragraph is cut at line ends.
pub const TARGET_CHARS: usize = 1_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub page: Option<i64>,
    /// 1-based, inclusive, within the page (or the file).
    pub line_start: i64,
    pub line_end: i64,
    pub text: String,
}

pub fn split(text: &Text) -> Vec<Passage> {
    match text {
        Text::Whole(t) => split_page(t, None),
        Text::Pages(pages) => pages.iter().enumerate().flat_map(|(i, p)| split_page(p, Some(i as i64 + 1))).collect(),
    }
}

/// A paragraph: consecutive non-blank lines, cut into pieces of at most TARGET_CHARS.
struct Para {
    first: i64,
    last: i64,
    text: String,
}

fn paragraphs(text: &str) -> Vec<Para> {
    let mut out: Vec<Para> = vec![];
    let mut current: Option<Para> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i as i64 + 1;
        if line.trim().is_empty() {
            out.extend(current.take());
            continue;
        }
        let p = current.get_or_insert_with(|| Para { first: n, last: n, text: String::new() });
        if !p.text.is_empty() && p.text.len() + line.len() > TARGET_CHARS {
            out.extend(current.replace(Para { first: n, last: n, text: String::new() }));
        }
        let p = current.as_mut().expect("just set");
        if !p.text.is_empty() {
            p.text.push('\n');
        }
        p.text.push_str(line);
        p.last = n;
    }
    out.extend(current);
    out
}

fn split_page(text: &str, page: Option<i64>) -> Vec<Passage> {
    let paras = paragraphs(text);
    let mut out = vec![];
    let mut start = 0;
    while start < paras.len() {
        let mut end = start;
        let mut len = paras[start].text.len();
        while end + 1 < paras.len() && len + paras[end + 1].text.len() <= TARGET_CHARS {
            end += 1;
            len += paras[end].text.len();
        }
        let text = paras[start..=end].iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n\n");
        out.push(Passage { page, line_start: paras[start].first, line_end: paras[end].last, text });
        // Overlap: the next passage begins with this one's last paragraph, unless it is alone.
        start = if end > start { end } else { end + 1 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_keep_lines_and_overlap_by_a_paragraph() {
        let para = |n: usize| format!("paragraph {n} {}", "words ".repeat(60));
        let text = (0..6).map(para).collect::<Vec<_>>().join("\n\n");
        let out = split(&Text::Whole(text.clone()));
        assert!(out.len() >= 2, "a long text is several passages");
        assert_eq!(out[0].line_start, 1);
        let last_of_first = out[0].text.rsplit("\n\n").next().unwrap();
        assert!(out[1].text.starts_with(last_of_first), "the next passage repeats the last paragraph");
        for p in &out {
            assert!(p.text.len() <= 2 * TARGET_CHARS, "passages stay small: {}", p.text.len());
        }
        let covered: std::collections::HashSet<i64> = out.iter().flat_map(|p| p.line_start..=p.line_end).collect();
        assert!(text.lines().enumerate().all(|(i, l)| l.is_empty() || covered.contains(&(i as i64 + 1))), "no line is left out");
    }

    #[test]
    fn pages_are_never_mixed() {
        let out = split(&Text::Pages(vec!["first page".into(), String::new(), "third page".into()]));
        assert_eq!(out.iter().map(|p| (p.page, p.text.as_str())).collect::<Vec<_>>(), [(Some(1), "first page"), (Some(3), "third page")]);
    }
}
