//! A file's text cut into passages of a few paragraphs: small enough that a search returns what
//! the model needs and not the whole file, large enough to keep a paragraph's context.
//!
//! Passages follow the document's structure. In Markdown (and HTML, read as Markdown) a heading
//! always starts a passage, and every passage keeps the path of headings it sits under
//! ("Installing Python › Pinning a version"): the index reads the path with the text, so a
//! question in the words of a section's title finds the section's paragraphs, and the model is
//! told where a passage comes from. Within a section, a passage starts with the last paragraph
//! of the one before (the overlap), so a sentence that crosses a boundary is found whole in one
//! of them. Pages are never mixed: a PDF passage has one page.

/// A passage aims at this many bytes; a longer paragraph is cut at line ends.
pub const TARGET_CHARS: usize = 1_000;
/// Heading paths are cut to this many bytes (a "heading" of a whole paragraph is not a title).
const HEADING_MAX: usize = 300;
/// Between the headings of a path, as the model and the index read it.
pub const HEADING_SEPARATOR: &str = " › ";

#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub page: Option<i64>,
    /// 1-based, inclusive, within the page (or the file).
    pub line_start: i64,
    pub line_end: i64,
    /// The headings the passage sits under, outermost first, joined by [`HEADING_SEPARATOR`].
    pub heading: Option<String>,
    pub text: String,
}

/// Cuts one file's text into passages, piece after piece (a file is read in pieces that end at
/// line ends). It remembers the headings seen so far and whether a code block is open, so a
/// piece that starts in the middle of a section still knows the section.
#[derive(Debug, Default)]
pub struct Chunker {
    /// Whether `#` lines are headings (Markdown, HTML) or, say, comments (code, plain text).
    structured: bool,
    headings: Vec<(usize, String)>,
    in_fence: bool,
    /// Inside a YAML front matter block at the top of a Markdown file (`---` … `---`).
    in_front_matter: bool,
    /// No line of the file has been read yet.
    at_start: bool,
}

/// A paragraph: consecutive non-blank lines, cut into pieces of at most TARGET_CHARS, or a
/// heading line on its own.
struct Para {
    first: i64,
    last: i64,
    text: String,
    /// The heading path from this paragraph on, when the paragraph is a heading.
    heading: Option<Option<String>>,
}

impl Chunker {
    pub fn new(structured: bool) -> Chunker {
        Chunker { structured, at_start: true, ..Chunker::default() }
    }

    /// The passages of `text`, which starts on line `first_line` of `page` (or of the file).
    pub fn split(&mut self, text: &str, page: Option<i64>, first_line: i64) -> Vec<Passage> {
        let mut under = self.path();
        let paras = self.paragraphs(text, first_line);
        let mut out = vec![];
        let mut start = 0;
        while start < paras.len() {
            if let Some(path) = &paras[start].heading {
                under = path.clone();
            }
            let mut end = start;
            let mut len = paras[start].text.len();
            // Headings with nothing under them yet (a title, then its first section's heading)
            // stay with what follows; any other heading starts a passage of its own.
            let mut only_headings = paras[start].heading.is_some();
            while end + 1 < paras.len() && len + paras[end + 1].text.len() <= TARGET_CHARS {
                let next = &paras[end + 1];
                if next.heading.is_some() && !only_headings {
                    break;
                }
                end += 1;
                len += next.text.len();
                only_headings &= next.heading.is_some();
                if let Some(path) = &next.heading {
                    under = path.clone();
                }
            }
            let text = paras[start..=end].iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n\n");
            out.push(Passage { page, line_start: paras[start].first, line_end: paras[end].last, heading: under.clone(), text });
            // Overlap: the next passage begins with this one's last paragraph, unless it is alone
            // or a heading comes next (a section does not begin with its neighbour's words).
            let heading_next = paras.get(end + 1).is_some_and(|p| p.heading.is_some());
            start = if end > start && !heading_next { end } else { end + 1 };
        }
        out
    }

    fn path(&self) -> Option<String> {
        let titles: Vec<&str> = self.headings.iter().map(|(_, t)| t.as_str()).collect();
        (!titles.is_empty()).then(|| titles.join(HEADING_SEPARATOR))
    }

    /// `line` as a Markdown heading: its level and title. A front matter's `title:` (Jekyll,
    /// Hugo, Docusaurus pages, npm's own docs) is the page's title, above every `#` heading.
    fn heading(&mut self, line: &str) -> Option<(usize, String)> {
        if !self.structured {
            return None;
        }
        let first = std::mem::take(&mut self.at_start);
        if line.trim_end() == "---" && (first || self.in_front_matter) {
            self.in_front_matter = first;
            return None;
        }
        if self.in_front_matter {
            let title = line.strip_prefix("title:")?.trim().trim_matches(['"', '\'']);
            return (!title.is_empty()).then(|| (0, cut(title, HEADING_MAX).to_string()));
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.in_fence = !self.in_fence;
            return None;
        }
        if self.in_fence || line.len() - trimmed.len() > 3 {
            return None;
        }
        let level = trimmed.bytes().take_while(|&b| b == b'#').count();
        let rest = &trimmed[level..];
        if !(1..=6).contains(&level) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            return None;
        }
        let title = rest.trim().trim_end_matches('#').trim();
        let title = cut(title, HEADING_MAX);
        (!title.is_empty()).then(|| (level, title.to_string()))
    }

    fn paragraphs(&mut self, text: &str, first_line: i64) -> Vec<Para> {
        let mut out: Vec<Para> = vec![];
        let mut current: Option<Para> = None;
        let lines = text.lines().enumerate().flat_map(|(i, l)| line_pieces(l).into_iter().map(move |p| (i as i64 + first_line, p)));
        for (n, line) in lines {
            if line.trim().is_empty() {
                out.extend(current.take());
                continue;
            }
            if let Some((level, title)) = self.heading(line) {
                out.extend(current.take());
                self.headings.retain(|(l, _)| *l < level);
                self.headings.push((level, title));
                out.push(Para { first: n, last: n, text: line.to_string(), heading: Some(self.path()) });
                continue;
            }
            let p = current.get_or_insert_with(|| Para { first: n, last: n, text: String::new(), heading: None });
            if !p.text.is_empty() && p.text.len() + line.len() > TARGET_CHARS {
                out.extend(current.replace(Para { first: n, last: n, text: String::new(), heading: None }));
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
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut at = max.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    &s[..at]
}

/// A line longer than a passage, in pieces of at most TARGET_CHARS bytes, cut after a space
/// where there is one (a file of one huge line is still many small passages).
fn line_pieces(line: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut rest = line;
    while rest.len() > TARGET_CHARS {
        let mut at = cut(rest, TARGET_CHARS).len();
        if let Some(space) = rest[..at].rfind(' ').filter(|&i| i > TARGET_CHARS / 2) {
            at = space + 1;
        }
        out.push(&rest[..at]);
        rest = &rest[at..];
    }
    out.push(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str) -> Vec<Passage> {
        Chunker::new(false).split(text, None, 1)
    }

    fn markdown(text: &str) -> Vec<Passage> {
        Chunker::new(true).split(text, None, 1)
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
        let out = Chunker::new(false).split("first\n\nsecond", Some(3), 41);
        assert_eq!(out[0].page, Some(3));
        assert_eq!((out[0].line_start, out[0].line_end), (41, 43), "lines are the page's, not the piece's");
    }

    /// The shape of a real documentation page (uv's docs/concepts/python-versions.md).
    const PAGE: &str = "# Python versions\n\nA Python version is composed of an interpreter and a standard library.\n\n\
        ## Requesting a version\n\nA specific Python version can be requested with the `--python` flag.\n\n\
        ### Pinning a version\n\nThe `.python-version` file pins the default Python version of a project.\n\n\
        ```bash\n# not a heading: a comment in a code block\nuv python pin 3.11\n```\n\n\
        ## Managed installations\n\nuv downloads Python when it is needed.\n";

    #[test]
    fn a_heading_starts_a_passage_that_keeps_its_path() {
        let out = markdown(PAGE);
        let pin = out.iter().find(|p| p.text.contains(".python-version")).expect("the pinning paragraph is in a passage");
        assert_eq!(
            pin.heading.as_deref(),
            Some("Python versions › Requesting a version › Pinning a version"),
            "a passage says which section it is from, outermost heading first"
        );
        assert!(pin.text.starts_with("### Pinning a version"), "the section starts its own passage: {:?}", pin.text);
        assert!(pin.text.contains("uv python pin 3.11"), "a code block stays with its section");
        let managed = out.iter().find(|p| p.text.contains("downloads Python")).unwrap();
        assert_eq!(
            managed.heading.as_deref(),
            Some("Python versions › Managed installations"),
            "a heading of the same level replaces the one before, and deeper ones go"
        );
        assert!(!managed.text.contains(".python-version"), "a section does not begin with its neighbour's words");
        let title = out.iter().find(|p| p.text.contains("composed of")).unwrap();
        assert!(title.text.starts_with("# Python versions"), "a title stays with the text under it");
    }

    #[test]
    fn code_and_plain_text_have_no_headings() {
        let out = whole("# a comment in a shell script\necho hello\n");
        assert_eq!(out[0].heading, None, "a `#` line of code is not a heading");
        let out = markdown("```python\n# a comment\nx = 1\n```\n\nafter");
        assert!(out.iter().all(|p| p.heading.is_none()), "a `#` line inside a code block is not a heading");
    }

    #[test]
    fn a_section_read_in_a_later_piece_keeps_its_heading() {
        let mut chunker = Chunker::new(true);
        chunker.split("# Guide\n\n## Setup\n\nfirst part", None, 1);
        let later = chunker.split("second part of the setup", None, 6);
        assert_eq!(later[0].heading.as_deref(), Some("Guide › Setup"), "the headings carry over from piece to piece");
    }

    #[test]
    fn a_front_matter_title_heads_the_page() {
        let page = "---\ntitle: npm-install\nsection: 1\n---\n\n### Synopsis\n\n```bash\nnpm install\n```\n";
        let out = markdown(page);
        let synopsis = out.iter().find(|p| p.text.contains("Synopsis")).unwrap();
        assert_eq!(synopsis.heading.as_deref(), Some("npm-install › Synopsis"), "the page's title is part of every section's path");
        let out = markdown("text\n\n---\n\ntitle: not front matter\n");
        assert!(out.iter().all(|p| p.heading.is_none()), "a rule later in the text does not open a front matter");
    }

    #[test]
    fn a_huge_heading_is_cut() {
        let line = format!("# {}", "제목 ".repeat(1_000));
        let out = markdown(&line);
        assert!(out[0].heading.as_ref().unwrap().len() <= HEADING_MAX, "a heading path stays short");
    }
}
