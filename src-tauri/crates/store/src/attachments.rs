//! Attachments: files linked to a session or a project, their content rows (`blobs`, one per
//! sha256) and the passages of their text with the search index. The files themselves live in
//! the data folder's `blobs/` (see `attachments::blobs`); these tables say what exists.

use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use super::{found, now_ms};
use crate::error::{Code, Error, Reason, ReasonCode, Result};
use maru_retrieval::analysis;

pub use maru_types::attachments::*;

/// Why a file's text could not be read: a code the UI words in its language, and the English.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub reason: Reason,
    pub text: String,
}

impl Note {
    pub fn new(code: ReasonCode, text: impl Into<String>) -> Note {
        Note { reason: Reason::new(code), text: text.into() }
    }
}

pub struct NewAttachment<'a> {
    pub sha256: &'a str,
    pub session_id: Option<i64>,
    pub project_id: Option<i64>,
    pub name: &'a str,
    pub kind: Kind,
    pub mime: &'a str,
    pub size: i64,
    /// The project folder's file it mirrors (relative), for a project's file.
    pub folder_path: Option<&'a str>,
}

/// One passage of a file's text, as indexed.
pub struct NewPassage<'a> {
    pub page: Option<i64>,
    pub line_start: i64,
    pub line_end: i64,
    /// The headings the passage sits under (`maru_retrieval::chunks`).
    pub heading: Option<&'a str>,
    pub text: &'a str,
    /// The text as the index reads it (`maru_retrieval::analysis`).
    pub terms: &'a str,
}

/// A passage found by a search, with where it comes from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Hit {
    pub attachment_id: i64,
    pub name: String,
    pub page: Option<i64>,
    pub line_start: i64,
    pub line_end: i64,
    pub heading: Option<String>,
    pub text: String,
    /// BM25: lower is better.
    pub rank: f64,
}

const SELECT: &str =
    "SELECT id, session_id, project_id, name, kind, mime, size, pages, blob_sha256, status, note, created_at, note_reason, folder_path
     FROM attachments";

fn from_row(r: &Row) -> rusqlite::Result<Attachment> {
    Ok(Attachment {
        id: r.get(0)?,
        session_id: r.get(1)?,
        project_id: r.get(2)?,
        name: r.get(3)?,
        kind: r.get(4)?,
        mime: r.get(5)?,
        size: r.get(6)?,
        pages: r.get(7)?,
        sha256: r.get(8)?,
        status: r.get(9)?,
        note: r.get(10)?,
        created_at: r.get(11)?,
        note_reason: r.get::<_, Option<String>>(12)?.and_then(|j| serde_json::from_str(&j).ok()),
        folder_path: r.get(13)?,
    })
}

pub fn get(conn: &Connection, id: i64) -> Result<Attachment> {
    found(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row), "attachment", id)
}

/// The files mirroring a project's folder: (folder path, attachment id, content sha256).
pub fn folder_files(conn: &Connection, project_id: i64) -> Result<Vec<(String, i64, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT folder_path, id, blob_sha256 FROM attachments WHERE project_id = ?1 AND folder_path IS NOT NULL ORDER BY folder_path",
    )?;
    let rows = stmt.query_map([project_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Records a content whose file is already written; true when it is new (needs indexing).
pub fn put_blob(conn: &Connection, sha256: &str, size: i64) -> Result<bool> {
    let n = conn.execute("INSERT OR IGNORE INTO blobs (sha256, size, created_at) VALUES (?1, ?2, ?3)", params![sha256, size, now_ms()])?;
    Ok(n == 1)
}

pub fn blob_exists(conn: &Connection, sha256: &str) -> Result<bool> {
    Ok(conn.query_row("SELECT 1 FROM blobs WHERE sha256 = ?1", [sha256], |_| Ok(())).optional()?.is_some())
}

pub fn insert(conn: &Connection, new: &NewAttachment) -> Result<Attachment> {
    // A content already indexed is ready at once; a new one is indexed in the background.
    type Known = (IndexStatus, Option<i64>, Option<String>, Option<String>);
    let (status, pages, note, note_reason): Known = conn
        .query_row(
            "SELECT status, pages, note, note_reason FROM attachments WHERE blob_sha256 = ?1 AND status <> 'indexing' ORDER BY id DESC LIMIT 1",
            [new.sha256],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .unwrap_or((IndexStatus::Indexing, None, None, None));
    conn.execute(
        "INSERT INTO attachments (blob_sha256, session_id, project_id, name, kind, mime, size, pages, status, note, created_at, note_reason,
             folder_path)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            new.sha256,
            new.session_id,
            new.project_id,
            new.name,
            new.kind,
            new.mime,
            new.size,
            pages,
            status,
            note,
            now_ms(),
            note_reason,
            new.folder_path
        ],
    )?;
    get(conn, conn.last_insert_rowid())
}

/// A session's own files (not its project's), oldest first.
pub fn list_for_session(conn: &Connection, session_id: i64) -> Result<Vec<Attachment>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} WHERE session_id = ?1 ORDER BY id"))?;
    let rows = stmt.query_map([session_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn list_for_project(conn: &Connection, project_id: i64) -> Result<Vec<Attachment>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} WHERE project_id = ?1 ORDER BY id"))?;
    let rows = stmt.query_map([project_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Everything a session can see: its own files, then its current project's.
pub fn in_scope(conn: &Connection, session_id: i64, project_id: i64) -> Result<Vec<Attachment>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} WHERE session_id = ?1 OR project_id = ?2 ORDER BY session_id IS NULL, id"))?;
    let rows = stmt.query_map(params![session_id, project_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Whether the session can see any file (its own or its project's).
pub fn any_in_scope(conn: &Connection, session_id: i64, project_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM attachments WHERE session_id = ?1 OR project_id = ?2)")?
        .query_row(params![session_id, project_id], |r| r.get(0))?)
}

/// Total bytes attached in a scope, for its limit.
pub fn scope_bytes(conn: &Connection, session_id: Option<i64>, project_id: Option<i64>) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT coalesce(sum(size), 0) FROM attachments WHERE session_id IS ?1 AND project_id IS ?2",
        params![session_id, project_id],
        |r| r.get(0),
    )?)
}

/// Unlinks a file. Returns its content's sha256 when this was the last link (the content row
/// and its passages went with it; the caller removes the file after the commit).
pub fn delete(conn: &Connection, id: i64) -> Result<Option<String>> {
    let a = get(conn, id)?;
    conn.execute("DELETE FROM attachments WHERE id = ?1", [id])?;
    Ok((!blob_exists(conn, &a.sha256)?).then_some(a.sha256))
}

/// The contents linked from a session's own files: what deleting the session may release.
pub fn session_blobs(conn: &Connection, session_id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT DISTINCT blob_sha256 FROM attachments WHERE session_id = ?1")?;
    let rows = stmt.query_map([session_id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Of `shas`, those no longer recorded (their files can go).
pub fn released(conn: &Connection, shas: Vec<String>) -> Result<Vec<String>> {
    let mut gone = vec![];
    for sha in shas {
        if !blob_exists(conn, &sha)? {
            gone.push(sha);
        }
    }
    Ok(gone)
}

/// Every recorded content, for the sweep of orphan files at start.
pub fn all_blobs(conn: &Connection) -> Result<std::collections::HashSet<String>> {
    let mut stmt = conn.prepare("SELECT sha256 FROM blobs")?;
    let rows = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// A project is being deleted: each of its files becomes a file of each of `sessions` (the chats
/// that were in it; a new link to the same content, which is stored once), and the images their
/// messages carried point at the chat's own copy. Returns the contents no file links to any more
/// (a project without chats).
pub fn give_project_files_to_sessions(conn: &Connection, project_id: i64, sessions: &[i64]) -> Result<Vec<String>> {
    let files = list_for_project(conn, project_id)?;
    let mut copy = conn.prepare_cached(
        "INSERT INTO attachments (blob_sha256, session_id, project_id, name, kind, mime, size, pages, status, note, created_at, note_reason)
         SELECT blob_sha256, ?2, NULL, name, kind, mime, size, pages, status, note, created_at, note_reason FROM attachments WHERE id = ?1",
    )?;
    let mut repoint = conn.prepare_cached(
        "UPDATE message_images SET attachment_id = ?1
         WHERE attachment_id = ?2 AND message_id IN (SELECT id FROM messages WHERE session_id = ?3)",
    )?;
    for file in &files {
        for &session_id in sessions {
            copy.execute(params![file.id, session_id])?;
            repoint.execute(params![conn.last_insert_rowid(), file.id, session_id])?;
        }
    }
    conn.execute("DELETE FROM attachments WHERE project_id = ?1", [project_id])?;
    let mut shas: Vec<String> = files.into_iter().map(|f| f.sha256).collect();
    shas.sort();
    shas.dedup();
    released(conn, shas)
}

/// Contents still waiting to be indexed (at start: an indexing run was cut short).
pub fn unindexed(conn: &Connection) -> Result<Vec<(String, Kind)>> {
    let mut stmt = conn.prepare("SELECT DISTINCT blob_sha256, kind FROM attachments WHERE status = 'indexing'")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// An indexing run of a content begins: its passages so far go (a run cut short left some).
/// Returns the run's token, or `None` when the content is gone. A later run of the same content
/// takes over; this one then stops at its next write.
pub fn begin_indexing(conn: &Connection, sha256: &str) -> Result<Option<i64>> {
    let run = rand::random::<i64>() & i64::MAX;
    if conn.execute("UPDATE blobs SET indexing_run = ?2 WHERE sha256 = ?1", params![sha256, run])? == 0 {
        return Ok(None);
    }
    conn.execute("DELETE FROM passages WHERE blob_sha256 = ?1", [sha256])?;
    Ok(Some(run))
}

/// Whether `run` still indexes `sha256`: false once the content was deleted (and perhaps
/// attached again) or another run began.
fn run_current(conn: &Connection, sha256: &str, run: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM blobs WHERE sha256 = ?1 AND indexing_run = ?2")?
        .query_row(params![sha256, run], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Adds passages `first`, `first + 1`, … of a content's text to the index. False when the run is
/// over (the content was deleted while it was read): stop reading.
pub fn add_passages(conn: &Connection, sha256: &str, run: i64, first: i64, passages: &[NewPassage]) -> Result<bool> {
    if !run_current(conn, sha256, run)? {
        return Ok(false);
    }
    let mut add = conn.prepare_cached(
        "INSERT INTO passages (blob_sha256, seq, page, line_start, line_end, heading, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut index = conn.prepare_cached("INSERT INTO passages_fts (rowid, terms) VALUES (?1, ?2)")?;
    for (seq, p) in (first..).zip(passages) {
        add.execute(params![sha256, seq, p.page, p.line_start, p.line_end, p.heading, p.text])?;
        index.execute(params![conn.last_insert_rowid(), p.terms])?;
    }
    Ok(true)
}

/// The run is done: every file with that content is ready, with what could not be read.
pub fn finish_indexing(conn: &Connection, sha256: &str, run: i64, pages: Option<i64>, note: Option<&Note>) -> Result<()> {
    if !run_current(conn, sha256, run)? {
        return Ok(()); // deleted while it was being read
    }
    conn.execute(
        "UPDATE attachments SET status = 'ready', pages = ?2, note = ?3, note_reason = ?4 WHERE blob_sha256 = ?1",
        params![sha256, pages, note.map(|n| &n.text), note.map(|n| reason_json(&n.reason))],
    )?;
    Ok(())
}

/// No text could be read: the files stay attached, marked failed with why, and nothing of the
/// content is searchable.
pub fn fail_indexing(conn: &Connection, sha256: &str, run: i64, note: &Note) -> Result<()> {
    if !run_current(conn, sha256, run)? {
        return Ok(());
    }
    conn.execute("DELETE FROM passages WHERE blob_sha256 = ?1", [sha256])?;
    conn.execute(
        "UPDATE attachments SET status = 'failed', note = ?2, note_reason = ?3 WHERE blob_sha256 = ?1",
        params![sha256, note.text, reason_json(&note.reason)],
    )?;
    Ok(())
}

fn reason_json(r: &Reason) -> String {
    serde_json::to_string(r).expect("a reason serialises")
}

/// Stores an image's thumbnail (PNG) with its content.
pub fn set_thumbnail(conn: &Connection, sha256: &str, png: &[u8]) -> Result<()> {
    conn.execute("UPDATE blobs SET thumbnail = ?2 WHERE sha256 = ?1", params![sha256, png])?;
    Ok(())
}

/// A file's thumbnail, when it is an image that could be read.
pub fn thumbnail(conn: &Connection, id: i64) -> Result<Option<Vec<u8>>> {
    let a = get(conn, id)?;
    Ok(conn.query_row("SELECT thumbnail FROM blobs WHERE sha256 = ?1", [&a.sha256], |r| r.get(0)).optional()?.flatten())
}

/// The images `ids` as a message in `session_id` may carry: attached to the session or its
/// current project, and images. In the order given.
pub fn images_in_scope(conn: &Connection, ids: &[i64], session_id: i64, project_id: i64) -> Result<Vec<Attachment>> {
    let mut out = vec![];
    for &id in ids {
        let a = get(conn, id)?;
        if a.session_id != Some(session_id) && a.project_id != Some(project_id) {
            return Err(
                Error::invalid(Code::ImageNotHere, format!("{} is not attached to this chat or its project", a.name)).with("file", &a.name)
            );
        }
        if a.kind != Kind::Image {
            return Err(Error::invalid(
                Code::NotAnImage,
                format!("{} is not an image; the model reads files with search_attachment", a.name),
            )
            .with("file", &a.name));
        }
        out.push(a);
    }
    Ok(out)
}

/// Ranked passages for what was asked, only from files the session can see (its own and its
/// current project's), optionally only from files named `file`, within [`super::SEARCH_BUDGET`].
///
/// Passages with every word come first; only when there are too few are passages with any of
/// them searched. The index holds every file of every project: the best-ranked candidates are
/// taken first (a bounded sort inside FTS5) and filtered by scope, and only when that leaves too
/// few is the whole match list filtered.
pub fn search(conn: &Connection, asked: &str, session_id: i64, project_id: i64, file: Option<&str>, limit: usize) -> Result<Found> {
    search_within(conn, asked, (session_id, project_id), file, limit, super::SEARCH_BUDGET)
}

/// [`search`] within `budget`.
pub(crate) fn search_within(
    conn: &Connection,
    asked: &str,
    scope: (i64, i64),
    file: Option<&str>,
    limit: usize,
    budget: Duration,
) -> Result<Found> {
    let (session_id, project_id) = scope;
    let deadline = std::time::Instant::now() + budget;
    let mut found = Found { hits: vec![], unranked: false };
    for query in [analysis::query_all(asked), analysis::query(asked)].into_iter().flatten() {
        for candidates in [(limit * 40).max(200) as i64, -1] {
            let among = |ranked| search_among(conn, &query, session_id, project_id, file, limit, candidates, ranked);
            let (hits, ranked) = super::ranked_or_said(conn, deadline, among)?;
            for hit in hits {
                if found.hits.len() < limit && !found.hits.iter().any(|h: &Hit| h.text == hit.text && h.name == hit.name) {
                    found.hits.push(hit);
                    found.unranked |= !ranked;
                }
            }
            if found.hits.len() >= limit || std::time::Instant::now() >= deadline {
                return Ok(never_nothing(conn, found, asked, session_id, project_id, file, limit));
            }
        }
    }
    Ok(found)
}

/// A search whose budget ran out before it found anything (every word required took it all, on a
/// busy machine) still gives the first passages with any of the words, unranked and said so: it
/// never answers "no passage matches" while the words are there. Bounded without a deadline: the
/// index yields its first matches and stops at the candidates' limit.
fn never_nothing(
    conn: &Connection,
    found: Found,
    asked: &str,
    session_id: i64,
    project_id: i64,
    file: Option<&str>,
    limit: usize,
) -> Found {
    if !found.hits.is_empty() {
        return found;
    }
    let Some(query) = analysis::query(asked) else { return found };
    let candidates = (limit * 40).max(200) as i64;
    match search_among(conn, &query, session_id, project_id, file, limit, candidates, false) {
        Ok(hits) => Found { unranked: !hits.is_empty(), hits },
        Err(e) => {
            tracing::warn!("the search's last try failed: {e}");
            found
        }
    }
}

/// What a search found.
#[derive(Debug, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Some passages were taken as they matched, not best first: ranking every match of common
    /// words would have taken longer than a search may. The model is told so.
    pub unranked: bool,
}

/// `search` over the `candidates` best matches (-1: all of them), or the first ones in the
/// index's order when not `ranked`.
#[allow(clippy::too_many_arguments)]
fn search_among(
    conn: &Connection,
    query: &str,
    session_id: i64,
    project_id: i64,
    file: Option<&str>,
    limit: usize,
    candidates: i64,
    ranked: bool,
) -> rusqlite::Result<Vec<Hit>> {
    let matches = match ranked {
        true => "SELECT rowid AS id, rank FROM passages_fts WHERE passages_fts MATCH ?1 ORDER BY rank LIMIT ?6",
        false => "SELECT rowid AS id, 0.0 AS rank FROM passages_fts WHERE passages_fts MATCH ?1 LIMIT ?6",
    };
    // MATERIALIZED: bm25() only works where FTS5 computes the match, not in a flattened join.
    let mut stmt = conn.prepare_cached(&format!(
        "WITH hits AS MATERIALIZED ({matches})
         SELECT a.id, a.name, p.page, p.line_start, p.line_end, p.heading, p.text, min(h.rank) AS best
         FROM hits h
         JOIN passages p ON p.id = h.id
         JOIN attachments a ON a.blob_sha256 = p.blob_sha256
         WHERE (a.session_id = ?2 OR a.project_id = ?3) AND (?4 IS NULL OR a.name = ?4)
         GROUP BY p.id
         ORDER BY best
         LIMIT ?5"
    ))?;
    let rows = stmt
        .query_map(params![query, session_id, project_id, file, limit as i64, candidates], |r| {
            Ok(Hit {
                attachment_id: r.get(0)?,
                name: r.get(1)?,
                page: r.get(2)?,
                line_start: r.get(3)?,
                line_end: r.get(4)?,
                heading: r.get(5)?,
                text: r.get(6)?,
                rank: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}
