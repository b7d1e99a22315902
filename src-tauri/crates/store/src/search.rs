//! Search across chats: sessions whose messages or title match, best first, each with the
//! matching passage of its best message and where the words are in it (the UI highlights those
//! ranges as text, never as HTML).

use std::time::Instant;

use rusqlite::{params, Connection};

use crate::error::Result;
use maru_retrieval::analysis;

pub use maru_types::search::*;

/// Characters of context on each side of the first match.
const CONTEXT_CHARS: usize = 60;

/// Up to `limit` sessions matching `query`, in every project, within [`super::SEARCH_BUDGET`];
/// with `versions`, earlier versions of messages count too.
pub fn chats(conn: &Connection, query: &str, limit: usize, versions: bool) -> Result<Vec<ChatHit>> {
    let Some(any) = analysis::query(query) else { return Ok(vec![]) };
    let all = analysis::query_all(query).unwrap_or_else(|| any.clone());
    let words = Words::new(&analysis::query_words(query));
    let deadline = Instant::now() + super::SEARCH_BUDGET;
    let mut hits = message_hits(conn, &all, &words, limit, versions, deadline)?;
    if hits.len() < limit && all != any {
        for hit in message_hits(conn, &any, &words, limit, versions, deadline)? {
            if hits.len() < limit && !hits.iter().any(|h| h.session_id == hit.session_id) {
                hits.push(hit);
            }
        }
    }
    // Titles that match but whose messages did not.
    add_titles(conn, query, &words, limit, &mut hits, deadline)?;
    Ok(hits)
}

/// The best message of each of the best `limit` chats matching the FTS5 `fts`: ranked when that
/// fits the ranking budget, else the newest matches; none when even that runs out of time.
fn message_hits(conn: &Connection, fts: &str, words: &Words, limit: usize, versions: bool, deadline: Instant) -> Result<Vec<ChatHit>> {
    let rows = super::ranked_or_not(conn, deadline, |ranked| {
        let candidates = match ranked {
            true => "SELECT rowid AS id, bm25(messages_fts) AS rank FROM messages_fts WHERE messages_fts MATCH ?1 ORDER BY rank LIMIT 2000",
            false => "SELECT rowid AS id, -rowid AS rank FROM messages_fts WHERE messages_fts MATCH ?1 ORDER BY rowid DESC LIMIT 2000",
        };
        let mut stmt = conn.prepare_cached(&format!(
            "WITH hits AS MATERIALIZED ({candidates})
             SELECT m.session_id, s.project_id, s.title, m.id, m.content, min(h.rank) AS best, m.on_path
             FROM hits h JOIN messages m ON m.id = h.id AND (m.on_path = 1 OR ?3) JOIN sessions s ON s.id = m.session_id AND s.temporary = 0
             GROUP BY m.session_id
             ORDER BY best
             LIMIT ?2"
        ))?;
        let rows = stmt.query_map(params![fts, limit as i64, versions], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
                !r.get::<_, bool>(6)?,
            ))
        })?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
    })?;
    // Excerpts outside the deadline: linear in each message, and at most `limit` of them.
    Ok(rows
        .into_iter()
        .map(|(session_id, project_id, title, message_id, content, earlier_version)| {
            let (snippet, highlights) = words.excerpt(&content);
            ChatHit { session_id, project_id, title, message_id: Some(message_id), snippet, highlights, earlier_version }
        })
        .collect())
}

/// Up to `limit` files of every chat and project whose text matches `query`, best first, each
/// with its best passage, within [`super::SEARCH_BUDGET`].
pub fn files(conn: &Connection, query: &str, limit: usize) -> Result<Vec<FileHit>> {
    let words = Words::new(&analysis::query_words(query));
    let deadline = Instant::now() + super::SEARCH_BUDGET;
    let mut hits: Vec<FileHit> = vec![];
    for fts in [analysis::query_all(query), analysis::query(query)].into_iter().flatten() {
        let rows = super::ranked_or_not(conn, deadline, |ranked| {
            let candidates = match ranked {
                true => "SELECT rowid AS id, rank FROM passages_fts WHERE passages_fts MATCH ?1 ORDER BY rank LIMIT 2000",
                false => "SELECT rowid AS id, 0.0 AS rank FROM passages_fts WHERE passages_fts MATCH ?1 LIMIT 2000",
            };
            let mut stmt = conn.prepare_cached(&format!(
                "WITH hits AS MATERIALIZED ({candidates})
                 SELECT a.id, a.name, a.session_id, coalesce(a.project_id, s.project_id), p.page, p.line_start, p.text, min(h.rank) AS best
                 FROM hits h
                 JOIN passages p ON p.id = h.id
                 JOIN attachments a ON a.blob_sha256 = p.blob_sha256
                 LEFT JOIN sessions s ON s.id = a.session_id
                 WHERE s.temporary IS NOT 1
                 GROUP BY a.id
                 ORDER BY best
                 LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![fts, limit as i64], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        for (attachment_id, name, session_id, project_id, page, line, text) in rows {
            if hits.len() < limit && !hits.iter().any(|h| h.attachment_id == attachment_id) {
                let (snippet, highlights) = words.excerpt(&text);
                hits.push(FileHit { attachment_id, name, session_id, project_id, page, line, snippet, highlights });
            }
        }
        if hits.len() >= limit || Instant::now() >= deadline {
            break;
        }
    }
    Ok(hits)
}

fn add_titles(conn: &Connection, query: &str, words: &Words, limit: usize, hits: &mut Vec<ChatHit>, deadline: Instant) -> Result<()> {
    let query = query.trim();
    // A query longer than any title cannot be inside one.
    if query.is_empty() || query.chars().count() > super::sessions::TITLE_MAX_CHARS {
        return Ok(());
    }
    let by_title = super::until(conn, deadline, || {
        let mut titles = conn.prepare_cached(
            "SELECT id, project_id, title FROM sessions WHERE temporary = 0 AND instr(lower(title), lower(?1)) > 0 ORDER BY updated_at DESC LIMIT ?2",
        )?;
        let rows =
            titles.query_map(params![query, limit as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
    })?
    .unwrap_or_default();
    for (session_id, project_id, title) in by_title {
        if hits.len() >= limit || hits.iter().any(|h| h.session_id == session_id) {
            continue;
        }
        let (snippet, highlights) = words.excerpt(&title);
        hits.push(ChatHit { session_id, project_id, title, message_id: None, snippet, highlights, earlier_version: false });
    }
    Ok(())
}

/// The words searched for, found in a text ignoring case in one pass (a regular expression of
/// the alternatives, longest first): the cost of an excerpt is linear in the message, whatever
/// the number of words.
pub struct Words(Option<regex::Regex>);

impl Words {
    pub fn new(words: &[&str]) -> Words {
        let mut words: Vec<&str> = words.iter().copied().filter(|w| !w.is_empty()).collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        let pattern = words.iter().map(|w| regex::escape(w)).collect::<Vec<_>>().join("|");
        Words((!words.is_empty()).then(|| regex::RegexBuilder::new(&pattern).case_insensitive(true).build()).and_then(|r| r.ok()))
    }

    /// The text around the first occurrence of any word, whitespace collapsed, and where each
    /// occurrence is within it, as `[start, end)` character ranges.
    pub fn excerpt(&self, text: &str) -> (String, Vec<[usize; 2]>) {
        let found = self.0.as_ref().and_then(|r| r.find(text));
        let (first, first_end) = found.map_or((0, 0), |m| (m.start(), m.end()));
        // CONTEXT_CHARS characters before the match and twice that after, as byte offsets...
        let mut start = text[..first].char_indices().rev().nth(CONTEXT_CHARS - 1).map_or(0, |(i, _)| i);
        let mut end = text[first..].char_indices().nth(CONTEXT_CHARS * 2).map_or(text.len(), |(i, _)| first + i);
        // ...moved to the edge of the word they fall in, when there is one in the window (text
        // without spaces, as in Chinese, is cut where it is).
        if start > 0 && !text[..start].ends_with(char::is_whitespace) {
            if let Some(gap) = text[start..first].find(char::is_whitespace) {
                start += gap;
            }
        }
        if end < text.len() && !text[end..].starts_with(char::is_whitespace) {
            if let Some(gap) = text[first_end.min(end)..end].rfind(char::is_whitespace) {
                end = first_end.min(end) + gap;
            }
        }
        let mut snippet = plain(&text[start..end]).split_whitespace().collect::<Vec<_>>().join(" ");
        if start > 0 {
            snippet.insert(0, '…');
        }
        if end < text.len() {
            snippet.push('…');
        }
        // Whitespace was collapsed: the ranges are found again in the snippet as shown.
        let highlights = match &self.0 {
            Some(r) => r
                .find_iter(&snippet)
                .map(|m| {
                    let a = snippet[..m.start()].chars().count();
                    [a, a + m.as_str().chars().count()]
                })
                .collect(),
            None => vec![],
        };
        (snippet, highlights)
    }
}

/// Markdown as the plain text it reads as: no emphasis or code marks, a link as its words, no
/// heading, quote or list markers. A snippet is shown as text, where `**` would show as is.
fn plain(markdown: &str) -> String {
    use std::sync::LazyLock;
    static LINK: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(r"!?\[([^\]]*)\]\([^)]*\)").expect("link pattern"));
    static LINE_MARK: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"(?m)^[ \t]{0,3}(?:#{1,6}|>+|[-*+]|\d{1,9}[.)])[ \t]+").expect("line mark pattern"));
    static MARKS: LazyLock<regex::Regex> = LazyLock::new(|| regex::Regex::new(r"\*\*|__|~~|`+").expect("marks pattern"));
    static EMPHASIS: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"(^|[^\w*])[*_]([^\s*_](?:[^*_]*[^\s*_])?)[*_]($|[^\w*])").expect("emphasis pattern"));
    let text = LINK.replace_all(markdown, "$1");
    let text = LINE_MARK.replace_all(&text, "");
    let text = MARKS.replace_all(&text, "");
    EMPHASIS.replace_all(&text, "$1$2$3").into_owned()
}

/// [`Words::excerpt`] for words given once.
pub fn excerpt(text: &str, words: &[&str]) -> (String, Vec<[usize; 2]>) {
    Words::new(words).excerpt(text)
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn snippets_are_plain_text_cut_at_word_edges() {
        let (s, h) = excerpt("# Plan\n\n**Bold** words, `code`, a [link](http://x) and *the budget* list:\n- one item", &["budget"]);
        assert_eq!(s, "Plan Bold words, code, a link and the budget list: one item", "no Markdown marks show in a snippet");
        assert_eq!(s.chars().skip(h[0][0]).take(6).collect::<String>(), "budget", "and the highlight is where the word is");
        let long = format!("{} the budget {}", "alpha beta gamma ".repeat(20), "delta epsilon zeta ".repeat(20));
        let (s, _) = excerpt(&long, &["budget"]);
        let inner = s.trim_start_matches('…').trim_end_matches('…');
        for word in inner.split(' ') {
            assert!(
                ["alpha", "beta", "gamma", "the", "budget", "delta", "epsilon", "zeta"].contains(&word),
                "{word:?} is a cut word in {s:?}"
            );
        }
        let (s, _) = excerpt(&format!("{}예산{}", "가".repeat(100), "나".repeat(200)), &["예산"]);
        assert!(s.contains("예산") && s.chars().count() < 200, "text without spaces is still cut: {s}");
    }

    #[test]
    fn excerpts_mark_every_word_in_characters() {
        let (s, h) = excerpt("지난주 회의록을 정리했고 Meeting notes are here", &["회의록", "meeting"]);
        assert_eq!(s, "지난주 회의록을 정리했고 Meeting notes are here");
        let marked: Vec<String> = h.iter().map(|[a, b]| s.chars().skip(*a).take(b - a).collect()).collect();
        assert_eq!(marked, ["회의록", "Meeting"]);
        let long = format!("{} needle {}", "x ".repeat(200), "y ".repeat(200));
        let (s, h) = excerpt(&long, &["needle"]);
        assert!(s.starts_with('…') && s.ends_with('…') && s.chars().count() < 200, "{s}");
        assert_eq!(s.chars().skip(h[0][0]).take(6).collect::<String>(), "needle");
    }
}
