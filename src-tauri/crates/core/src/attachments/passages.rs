//! A text split into passages of a few paragraphs: small enough that a search returns what the
//! model needs and not the whole file, large enough to keep a paragraph's context. Each passage
//! starts with the last paragraph of the one before (the overlap), so a sentence that crosses a
//! boundary is found whole in one of them. Pages are never mixed: a PDF passage has one page.

use super::extract::Piece;

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

/// The passages of one piece of a file's text (pieces end at line ends, so a paragraph is cut
/// only where a piece is, past a quarter of a megabyte without a line break).
pub fn split(piece: &Piece) -> Vec<Passage> {
    split_page(&piece.text, piece.page, piece.first_line)
}

/// A paragraph: consecutive non-blank lines, cut into pieces of at most TARGET_CHARS.
struct Para {
    first: i64,
    last: i64,
    text: String,
}

/// A line longer than a passage, in pieces of at most TARGET_CHARS bytes, cut after a space
/// where there is one (a file of one huge line is still many small passages).
fn line_pieces(line: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut rest = line;
    while rest.len() > TARGET_CHARS {
        let mut at = TARGET_CHARS;
        while !rest.is_char_boundary(at) {
            at -= 1;
        }
        if let Some(space) = rest[..at].rfind(' ').filter(|&i| i > TARGET_CHARS / 2) {
            at = space + 1;
        }
        out.push(&rest[..at]);
        rest = &rest[at..];
    }
    out.push(rest);
    out
}

fn paragraphs(text: &str, first_line: i64) -> Vec<Para> {
    let mut out: Vec<Para> = vec![];
    let mut current: Option<Para> = None;
    for (n, line) in text.lines().enumerate().flat_map(|(i, l)| line_pieces(l).into_iter().map(move |p| (i as i64 + first_line, p))) {
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

fn split_page(text: &str, page: Option<i64>, first_line: i64) -> Vec<Passage> {
    let paras = paragraphs(text, first_line);
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

    fn whole(text: &str) -> Vec<Passage> {
        split(&Piece { page: None, first_line: 1, text: text.into() })
    }

    #[test]
    fn passages_keep_lines_and_overlap_by_a_paragraph() {
        let para = |n: usize| format!("paragraph {n} {}", "words ".repeat(60));
        let text = (0..6).map(para).collect::<Vec<_>>().join("\n\n");
        let out = whole(&text);
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
    fn one_huge_line_is_many_small_passages() {
        let line = "마루 word ".repeat(50_000);
        let out = whole(&line);
        assert!(out.len() > 100, "a file of one long line is still searchable in parts");
        assert!(out.iter().all(|p| p.text.len() <= 2 * TARGET_CHARS && p.line_start == 1), "each passage stays small, on line 1");
        let joined: String = out.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().concat();
        assert!(joined.len() >= line.trim_end().len(), "nothing of the line is lost");
    }

    #[test]
    fn a_later_piece_counts_its_lines_from_where_it_starts() {
        let out = split(&Piece { page: Some(3), first_line: 41, text: "first\n\nsecond".into() });
        assert_eq!(out[0].page, Some(3));
        assert_eq!((out[0].line_start, out[0].line_end), (41, 43), "lines are the page's, not the piece's");
    }
}
