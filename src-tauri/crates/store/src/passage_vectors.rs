//! Passage vectors: each passage as the chosen embeddings model sees it, quantized
//! (`maru_retrieval::vectors`), for search by meaning. What is left to embed is read from the
//! tables, never remembered elsewhere: passages with no row for the model.

use rusqlite::{params, Connection};

use super::attachments::Hit;
use crate::error::Result;
use maru_retrieval::vectors::{Quantized, TopK};

/// Which model the vectors come from: a server (`connections.id`) and the model's name there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorModel {
    pub connection_id: i64,
    pub model: String,
}

/// A passage to embed: its id and the text the model reads (its headings, then its text).
#[derive(Debug, Clone, PartialEq)]
pub struct ToEmbed {
    pub passage_id: i64,
    pub text: String,
}

/// Drops the vectors of every other model (the user chose another): they are embedded again.
/// Returns how many went.
pub fn keep_only(conn: &Connection, model: &VectorModel) -> Result<usize> {
    Ok(conn.execute("DELETE FROM passage_vectors WHERE connection_id <> ?1 OR model <> ?2", params![model.connection_id, model.model])?)
}

/// Drops every vector (no model is chosen any more, or the model's width changed).
pub fn clear(conn: &Connection) -> Result<usize> {
    Ok(conn.execute("DELETE FROM passage_vectors", [])?)
}

/// Up to `n` passages past `after` (a passage id) with no vector yet, in id order: the caller
/// goes on from the last it got, so a pass over every passage reads each once.
pub fn missing(conn: &Connection, after: i64, n: usize) -> Result<Vec<ToEmbed>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.id, p.heading, p.text FROM passages p
         WHERE p.id > ?1 AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id)
         ORDER BY p.id LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![after, n as i64], |r| {
            let heading: Option<String> = r.get(1)?;
            let text: String = r.get(2)?;
            // The headings say what a passage is about, as they do for the word index.
            let text = match heading {
                Some(h) if !h.is_empty() => format!("{h}\n{text}"),
                _ => text,
            };
            Ok(ToEmbed { passage_id: r.get(0)?, text })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Stores vectors; `None` marks a passage the server would not embed (not asked again). A
/// passage deleted meanwhile is skipped. Returns how many were stored.
pub fn put(conn: &Connection, model: &VectorModel, vectors: &[(i64, Option<Quantized>)]) -> Result<usize> {
    let mut add = conn.prepare_cached(
        "INSERT OR REPLACE INTO passage_vectors (passage_id, connection_id, model, dim, scale, vector)
         SELECT id, ?2, ?3, ?4, ?5, ?6 FROM passages WHERE id = ?1",
    )?;
    let mut stored = 0;
    for (id, v) in vectors {
        let (dim, scale, bytes) = match v {
            Some(q) => (q.values.len() as i64, q.scale, q.bytes()),
            None => (0, 0.0, vec![]),
        };
        stored += add.execute(params![id, model.connection_id, model.model, dim, scale, bytes])?;
    }
    Ok(stored)
}

/// The width of the model's stored vectors (the most common one), if any are stored.
pub fn width(conn: &Connection, model: &VectorModel) -> Result<Option<usize>> {
    let dim: Option<i64> = conn
        .prepare_cached(
            "SELECT dim FROM passage_vectors WHERE connection_id = ?1 AND model = ?2 AND dim > 0 GROUP BY dim ORDER BY count(*) DESC LIMIT 1",
        )?
        .query_row(params![model.connection_id, model.model], |r| r.get(0))
        .ok();
    Ok(dim.map(|d| d as usize))
}

/// How far embedding has come: (passages with a vector of the model or marked unembeddable,
/// all passages).
pub fn progress(conn: &Connection, model: &VectorModel) -> Result<(u64, u64)> {
    let done = conn.query_row(
        "SELECT count(*) FROM passage_vectors WHERE connection_id = ?1 AND model = ?2",
        params![model.connection_id, model.model],
        |r| r.get::<_, i64>(0),
    )?;
    let all = conn.query_row("SELECT count(*) FROM passages", [], |r| r.get::<_, i64>(0))?;
    Ok((done as u64, all as u64))
}

/// The `k` passages closest in meaning to `query`, only from files the session can see (its
/// own and its project's), optionally only from files named `file`: an exact scan of every
/// vector in that scope. Best first, with their cosines.
///
/// Reading the rows costs far more than comparing them: `tests::scan_through_sqlite` (release,
/// a shared 2-core machine) takes about half a second for 200,000 vectors of 576 dimensions,
/// where the comparisons alone take 56 ms (`maru_retrieval::vectors`).
pub fn nearest(
    conn: &Connection,
    model: &VectorModel,
    query: &Quantized,
    session_id: i64,
    project_id: i64,
    file: Option<&str>,
    k: usize,
) -> Result<Vec<(i64, f32)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT v.passage_id, v.scale, v.vector
         FROM attachments a
         JOIN passages p ON p.blob_sha256 = a.blob_sha256
         JOIN passage_vectors v ON v.passage_id = p.id
         WHERE (a.session_id = ?1 OR a.project_id = ?2) AND (?3 IS NULL OR a.name = ?3)
           AND v.connection_id = ?4 AND v.model = ?5 AND v.dim = ?6",
    )?;
    let mut rows = stmt.query(params![session_id, project_id, file, model.connection_id, model.model, query.values.len() as i64])?;
    let mut top = TopK::new(k);
    // A content linked twice in scope (the same file in the chat and its project) is one passage.
    // Told apart here, not with DISTINCT, which would sort every row, vector and all (twice as slow).
    let mut seen = std::collections::HashSet::new();
    while let Some(r) = rows.next()? {
        let (id, scale): (i64, f64) = (r.get(0)?, r.get(1)?);
        if !seen.insert(id) {
            continue;
        }
        // Borrowed straight from SQLite's row: a scan copies no vector.
        let bytes = r.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
        if let Some(cosine) = query.cosine(scale as f32, bytes) {
            top.push(cosine, id);
        }
    }
    Ok(top.into_sorted())
}

/// Whether a passage the session can see (its own files and its project's, or those named
/// `file`) has no vector yet.
pub fn any_missing(conn: &Connection, session_id: i64, project_id: i64, file: Option<&str>) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM attachments a JOIN passages p ON p.blob_sha256 = a.blob_sha256
             WHERE (a.session_id = ?1 OR a.project_id = ?2) AND (?3 IS NULL OR a.name = ?3)
               AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id))",
        )?
        .query_row(params![session_id, project_id, file], |r| r.get(0))?)
}

/// The passages `ids` as search hits (in the order given), those in the session's scope only;
/// `rank` is minus the cosine given with each id (lower is better, as BM25's).
pub fn hits(conn: &Connection, ids: &[(i64, f32)], session_id: i64, project_id: i64, file: Option<&str>) -> Result<Vec<Hit>> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.id, a.name, p.page, p.line_start, p.line_end, p.heading, p.text
         FROM passages p JOIN attachments a ON a.blob_sha256 = p.blob_sha256
         WHERE p.id = ?1 AND (a.session_id = ?2 OR a.project_id = ?3) AND (?4 IS NULL OR a.name = ?4)
         ORDER BY a.session_id IS NULL, a.id LIMIT 1",
    )?;
    let mut out = Vec::with_capacity(ids.len());
    for (id, cosine) in ids {
        let mut rows = stmt.query(params![id, session_id, project_id, file])?;
        if let Some(r) = rows.next()? {
            out.push(Hit {
                attachment_id: r.get(0)?,
                name: r.get(1)?,
                page: r.get(2)?,
                line_start: r.get(3)?,
                line_end: r.get(4)?,
                heading: r.get(5)?,
                text: r.get(6)?,
                rank: -f64::from(*cosine),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::{self, Kind, NewAttachment, NewPassage};
    use crate::sessions::{self, NewSession};
    use crate::Store;
    use maru_retrieval::vectors::quantize;

    fn file(store: &Store, session_id: i64, name: &str, texts: &[&str]) -> i64 {
        store
            .with(|c| {
                let sha = format!("{name:0>64}");
                attachments::put_blob(c, &sha, 1)?;
                let a = attachments::insert(
                    c,
                    &NewAttachment {
                        sha256: &sha,
                        session_id: Some(session_id),
                        project_id: None,
                        name,
                        kind: Kind::Text,
                        mime: "text/plain",
                        size: 1,
                        folder_path: None,
                    },
                )?;
                let run = attachments::begin_indexing(c, &sha)?.unwrap();
                let rows: Vec<NewPassage> = texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| NewPassage {
                        page: None,
                        line_start: i as i64 + 1,
                        line_end: i as i64 + 1,
                        heading: None,
                        text: t,
                        terms: t,
                    })
                    .collect();
                attachments::add_passages(c, &sha, run, 0, &rows)?;
                Ok(a.id)
            })
            .unwrap()
    }

    #[test]
    fn vectors_are_found_in_scope_resume_where_they_stopped_and_go_with_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("maru.db")).unwrap();
        let mine = store.with(|c| sessions::create(c, &NewSession { title: "a".into(), project_id: None, temporary: false })).unwrap().id;
        let other = store.with(|c| sessions::create(c, &NewSession { title: "b".into(), project_id: None, temporary: false })).unwrap().id;
        let kept = file(&store, mine, "mine.txt", &["north", "east"]);
        file(&store, other, "theirs.txt", &["north too"]);
        let model = VectorModel { connection_id: 1, model: "e".into() };

        let first = store.with(|c| missing(c, 0, 2)).unwrap();
        assert_eq!(first.len(), 2, "a batch is at most what was asked");
        let rest = store.with(|c| missing(c, first[1].passage_id, 10)).unwrap();
        assert_eq!(rest.len(), 1, "the next batch goes on after the last one");
        let dirs = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]];
        let all: Vec<(i64, Option<Quantized>)> = first.iter().chain(&rest).zip(dirs).map(|(p, d)| (p.passage_id, quantize(&d))).collect();
        assert_eq!(store.with(|c| put(c, &model, &all)).unwrap(), 3);
        assert!(store.with(|c| missing(c, 0, 10)).unwrap().is_empty(), "a restart finds nothing left to embed");
        assert_eq!(store.with(|c| progress(c, &model)).unwrap(), (3, 3));
        assert_eq!(store.with(|c| width(c, &model)).unwrap(), Some(2));

        let north = quantize(&[1.0, 0.0]).unwrap();
        let found = store.with(|c| nearest(c, &model, &north, mine, -1, None, 5)).unwrap();
        assert_eq!(found.len(), 2, "only the session's own passages are compared: {found:?}");
        let hits = store.with(|c| hits(c, &found, mine, -1, None)).unwrap();
        assert_eq!(hits[0].text, "north", "the closest in meaning comes first");
        assert_eq!(hits[0].name, "mine.txt");
        let wider = quantize(&[1.0, 0.0, 0.0]).unwrap();
        assert!(store.with(|c| nearest(c, &model, &wider, mine, -1, None, 5)).unwrap().is_empty(), "another width is another model");

        store.with(|c| attachments::delete(c, kept)).unwrap();
        assert_eq!(store.with(|c| progress(c, &model)).unwrap(), (1, 1), "a deleted file's vectors go with its passages");
        assert_eq!(store.with(|c| keep_only(c, &VectorModel { connection_id: 1, model: "f".into() })).unwrap(), 1, "another model's go");
    }

    /// How long a scan of 200,000 stored vectors takes, reading included: run with
    /// `cargo test -p maru-store scan_through_sqlite -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn scan_through_sqlite() {
        let (dim, count) = (576usize, 200_000usize);
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("maru.db")).unwrap();
        let session =
            store.with(|c| sessions::create(c, &NewSession { title: "a".into(), project_id: None, temporary: false })).unwrap().id;
        file(&store, session, "big.txt", &[]);
        let model = VectorModel { connection_id: 1, model: "e".into() };
        let mut seed = 1u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        store
            .with(|c| {
                let sha = format!("{:0>64}", "big.txt");
                let run = attachments::begin_indexing(c, &sha)?.unwrap();
                let rows: Vec<NewPassage> = (0..count)
                    .map(|_| NewPassage { page: None, line_start: 1, line_end: 1, heading: None, text: "x", terms: "x" })
                    .collect();
                attachments::add_passages(c, &sha, run, 0, &rows)?;
                let ids: Vec<i64> = c.prepare("SELECT id FROM passages")?.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
                let vectors: Vec<(i64, Option<Quantized>)> =
                    ids.into_iter().map(|id| (id, quantize(&(0..dim).map(|_| next()).collect::<Vec<_>>()))).collect();
                put(c, &model, &vectors)?;
                Ok(())
            })
            .unwrap();
        let query = quantize(&(0..dim).map(|_| next()).collect::<Vec<_>>()).unwrap();
        // As a search meets them: written some time ago (checkpointed out of the WAL), read on a
        // connection of its own.
        let conn = rusqlite::Connection::open(dir.path().join("maru.db")).unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        for _ in 0..3 {
            let started = std::time::Instant::now();
            let found = nearest(&conn, &model, &query, session, -1, None, 20).unwrap();
            eprintln!("{count} vectors of {dim} dimensions through SQLite: {:?} ({} kept)", started.elapsed(), found.len());
        }
    }
}
