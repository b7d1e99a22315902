//! Search across chats: sessions whose messages or title match, best first, each with the
//! matching passage of its best message and where the words are in it (the UI highlights those
//! ranges as text, never as HTML).

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use super::terms;
use crate::error::Result;

/// Characters of context on each side of the first match.
const CONTEXT_CHARS: usize = 60;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ChatHit {
    pub session_id: i64,
    pub project_id: i64,
    pub title: String,
    /// The best matching message, to open the chat at; absent when only the title matched.
    pub message_id: Option<i64>,
    /// A short excerpt of that message (or the title) around the first match.
    pub snippet: String,
    /// `[start, end)` character ranges of the matched words in `snippet`.
    pub highlights: Vec<[usize; 2]>,
}

/// Up to `limit` sessions matching `query`, in every project.
pub fn chats(conn: &Connection, query: &str, limit: usize) -> Result<Vec<ChatHit>> {
    let Some(any) = terms::query(query) else { return Ok(vec![]) };
    let all = terms::query_all(query).unwrap_or_else(|| any.clone());
    let words = terms::words(query);
    let mut hits = message_hits(conn, &all, &words, limit)?;
    if hits.len() < limit && all != any {
        for hit in message_hits(conn, &any, &words, limit)? {
            if hits.len() < limit && !hits.iter().any(|h| h.session_id == hit.session_id) {
                hits.push(hit);
            }
        }
    }
    // Titles that match but whose messages did not.
    add_titles(conn, query, &words, limit, &mut hits)?;
    Ok(hits)
}

/// The best message of each of the best `limit` chats matching the FTS5 `fts`.
fn message_hits(conn: &Connection, fts: &str, words: &[&str], limit: usize) -> Result<Vec<ChatHit>> {
    let mut stmt = conn.prepare_cached(
        "WITH hits AS MATERIALIZED (
             SELECT rowid AS id, bm25(messages_fts) AS rank FROM messages_fts WHERE messages_fts MATCH ?1 ORDER BY rank LIMIT 2000)
         SELECT m.session_id, s.project_id, s.title, m.id, m.content, min(h.rank) AS best
         FROM hits h JOIN messages m ON m.id = h.id AND m.on_path = 1 JOIN sessions s ON s.id = m.session_id
         GROUP BY m.session_id
         ORDER BY best
         LIMIT ?2",
    )?;
    let hits = stmt
        .query_map(params![fts, limit as i64], |r| {
            let content: String = r.get(4)?;
            let (snippet, highlights) = excerpt(&content, words);
            Ok(ChatHit { session_id: r.get(0)?, project_id: r.get(1)?, title: r.get(2)?, message_id: Some(r.get(3)?), snippet, highlights })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(hits)
}

fn add_titles(conn: &Connection, query: &str, words: &[&str], limit: usize, hits: &mut Vec<ChatHit>) -> Result<()> {
    let mut titles = conn.prepare_cached(
        "SELECT id, project_id, title FROM sessions WHERE instr(lower(title), lower(?1)) > 0 ORDER BY updated_at DESC LIMIT ?2",
    )?;
    let by_title = titles
        .query_map(params![query.trim(), limit as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for (session_id, project_id, title) in by_title {
        if hits.len() >= limit || hits.iter().any(|h| h.session_id == session_id) {
            continue;
        }
        let (snippet, highlights) = excerpt(&title, words);
        hits.push(ChatHit { session_id, project_id, title, message_id: None, snippet, highlights });
    }
    Ok(())
}

/// The text around the first occurrence of any of `words` (ignoring case), and where each
/// occurrence is within it, in characters.
pub fn excerpt(text: &str, words: &[&str]) -> (String, Vec<[usize; 2]>) {
    let chars: Vec<char> = text.chars().collect();
    let needles: Vec<Vec<char>> =
        words.iter().map(|w| w.chars().flat_map(char::to_lowercase).collect()).filter(|w: &Vec<char>| !w.is_empty()).collect();
    let first = occurrences(text, &needles).first().map_or(0, |f| f[0]);
    let start = first.saturating_sub(CONTEXT_CHARS);
    let end = (first + CONTEXT_CHARS * 2).min(chars.len());
    let mut snippet: String = chars[start..end].iter().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ");
    // Whitespace was collapsed: the ranges are found again in the snippet as shown.
    let mut highlights = occurrences(&snippet, &needles);
    if start > 0 {
        snippet.insert(0, '…');
        highlights.iter_mut().for_each(|h| {
            h[0] += 1;
            h[1] += 1;
        });
    }
    if end < chars.len() {
        snippet.push('…');
    }
    (snippet, highlights)
}

/// Where the (lower-case) `needles` occur in `text`, ignoring case, in characters, in order.
/// Nothing when lower-casing changes the text's length (rare): the ranges would not line up.
fn occurrences(text: &str, needles: &[Vec<char>]) -> Vec<[usize; 2]> {
    let lower: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    if lower.len() != text.chars().count() {
        return vec![];
    }
    let mut found = vec![];
    for needle in needles {
        let mut i = 0;
        while i + needle.len() <= lower.len() {
            if lower[i..i + needle.len()] == needle[..] {
                found.push([i, i + needle.len()]);
                i += needle.len();
            } else {
                i += 1;
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::excerpt;

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
