//! Files attached to a session or a project: checked, stored once by content, their text read
//! and split into passages in the background, and searched by the model through
//! `search_attachment`. A keyword index the model queries itself; how text is cut into passages
//! and analysed for the index is `maru_retrieval`'s.
//!
//! - `kinds`: what a file is, and what is refused before anything is stored
//! - `blobs`: the files on disk, by sha256
//! - `extract`: a file's text (PDFs in a child process)
//! - `embedding`: the passages embedded in the background, for search by meaning
//! - `hybrid`: how a search ranks: by the words, fused with the meaning, reranked
//! - `tool`: `search_attachment`

pub mod blobs;
pub mod embedding;
pub mod extract;
pub mod hybrid;
pub mod kinds;
pub mod tool;

use crate::error::ReasonCode;
use std::path::Path;

use crate::error::{Code, Error, Result};
pub use crate::store::attachments::Kind;
use crate::store::attachments::{self as table, Attachment, NewAttachment, NewPassage};
use crate::store::{projects, sessions, Store};
use blobs::Blobs;
use extract::PdfReader;
use maru_retrieval::{analysis, chunks};

/// All files of one session, or of one project, together.
pub const SCOPE_MAX_BYTES: i64 = 1 << 30;

/// Where a file is attached.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    Session(i64),
    Project(i64),
}

/// The attachments of one data folder: where their files live and how PDFs are read.
pub struct Files {
    pub blobs: Blobs,
    pdf: PdfReader,
}

impl Files {
    pub fn new(data_dir: &Path) -> Files {
        Files { blobs: Blobs::new(data_dir), pdf: PdfReader::detect() }
    }

    /// At start: removes files no row records, and returns the contents whose indexing a
    /// previous run did not finish (to index again).
    pub fn recover(&self, store: &Store) -> Result<Vec<(String, Kind)>> {
        let recorded = store.read_now(table::all_blobs)?;
        let swept = self.blobs.sweep(&recorded);
        if swept > 0 {
            tracing::info!(swept, "removed stored files that no attachment links to");
        }
        store.read_now(table::unindexed)
    }

    /// Checks and stores a file, links it to `scope`, and returns it with whether its content is
    /// new (and so needs indexing). Nothing is stored when a check fails.
    pub fn add(&self, store: &Store, scope: Scope, name: &str, bytes: &[u8], file_max_bytes: u64) -> Result<(Attachment, bool)> {
        self.store_file(store, scope, kinds::clean_name(name)?, bytes, file_max_bytes, None)
    }

    /// A file of a project's folder, named by its path there (`rel`), in place of the copy that
    /// mirrored the same path before (`replaces`), in one transaction.
    pub fn add_from_folder(
        &self,
        store: &Store,
        project_id: i64,
        rel: &str,
        bytes: &[u8],
        file_max_bytes: u64,
        replaces: Option<i64>,
    ) -> Result<(Attachment, bool)> {
        let name = crate::store::text::one_line(rel, kinds::NAME_MAX_CHARS, Code::InvalidFileName, "a file name")?;
        self.store_file(store, Scope::Project(project_id), name, bytes, file_max_bytes, Some((rel, replaces)))
    }

    fn store_file(
        &self,
        store: &Store,
        scope: Scope,
        name: String,
        bytes: &[u8],
        file_max_bytes: u64,
        folder: Option<(&str, Option<i64>)>,
    ) -> Result<(Attachment, bool)> {
        if bytes.len() as u64 > file_max_bytes {
            return Err(Error::invalid(
                Code::FileTooLarge,
                format!("{name} is {} MB; files can be at most {} MB (a setting)", bytes.len() >> 20, file_max_bytes >> 20),
            )
            .with("file", &name)
            .with("max_mb", file_max_bytes >> 20));
        }
        let (kind, mime) = kinds::detect(&name, bytes)?;
        let (session_id, project_id) = match scope {
            Scope::Session(id) => (Some(id), None),
            Scope::Project(id) => (None, Some(id)),
        };
        // Check the scope before writing the file, and again (with the limit) when linking it.
        store.read_now(|c| check_scope(c, scope))?;
        let sha = self.blobs.write(bytes)?;
        let (attached, _) = store.with_then(
            |tx| {
                check_scope(tx, scope)?;
                let released = match folder.and_then(|(_, replaces)| replaces) {
                    Some(old) => table::delete(tx, old)?.filter(|s| *s != sha),
                    None => None,
                };
                let used = table::scope_bytes(tx, session_id, project_id)?;
                if used + bytes.len() as i64 > SCOPE_MAX_BYTES {
                    return Err(Error::invalid(
                        Code::ScopeFull,
                        format!(
                            "the files here already take {} MB of the {} MB allowed; remove some first",
                            used >> 20,
                            SCOPE_MAX_BYTES >> 20
                        ),
                    ));
                }
                let new = table::put_blob(tx, &sha, bytes.len() as i64)?;
                // Under the writer, after any delete that released this content and removed its file.
                self.blobs.ensure(&sha, bytes)?;
                let a = table::insert(
                    tx,
                    &NewAttachment {
                        sha256: &sha,
                        session_id,
                        project_id,
                        name: &name,
                        kind,
                        mime,
                        size: bytes.len() as i64,
                        folder_path: folder.map(|(rel, _)| rel),
                    },
                )?;
                Ok(((a, new), released))
            },
            |(_, released)| self.blobs.remove(released.as_slice()),
        )?;
        Ok(attached)
    }

    /// Reads a content's text and indexes it; every file with that content becomes ready (or
    /// failed, with a note saying why).
    pub async fn index(&self, store: &Store, sha256: &str, kind: Kind) -> Result<()> {
        let sha = sha256.to_string();
        let Some(run) = store.write(move |tx| table::begin_indexing(tx, &sha)).await? else { return Ok(()) };
        let sha = sha256.to_string();
        if kind == Kind::Image {
            let path = self.blobs.path(sha256);
            let made = tokio::task::spawn_blocking(move || {
                std::fs::read(&path)
                    .map_err(|e| extract::Note::new(ReasonCode::StoredFileUnreadable, format!("the stored image cannot be read: {e}")))
                    .and_then(|b| extract::thumbnail(&b))
            })
            .await
            .map_err(|e| anyhow::anyhow!("making a thumbnail failed: {e}"))?;
            return store
                .write(move |tx| match made {
                    Ok(png) => {
                        table::set_thumbnail(tx, &sha, &png)?;
                        table::finish_indexing(tx, &sha, run, None, None)
                    }
                    Err(note) => table::fail_indexing(tx, &sha, run, &note),
                })
                .await;
        }
        let max_chars = store.read(|c| Ok(crate::store::settings::load(c)?.attachment_text_max_chars)).await? as usize;
        // Passages go into the index a batch at a time as the text is read, each batch in its
        // own short transaction: neither the text nor its passages are ever held whole, and
        // the writer is never held for long. The run's token (`run`) tells it from a later run
        // of the same content (deleted and attached again meanwhile), which takes over.
        let (pieces, mut arriving) = tokio::sync::mpsc::channel(4);
        let reading = extract::read(kind, self.blobs.path(sha256), &self.pdf, max_chars, pieces);
        let indexing = async {
            // (the content is still there, it has any passage): stops as soon as it is gone.
            let (mut batch, mut size, mut seq) = (vec![], 0, 0i64);
            // Headings are Markdown's (an HTML page is read as Markdown); in code a `#` is a comment.
            let mut chunker = chunks::Chunker::new(matches!(kind, Kind::Markdown | Kind::Html));
            while let Some(piece) = arriving.recv().await {
                size += piece.text.len();
                batch.push(piece);
                if size >= BATCH_BYTES {
                    size = 0;
                    if !add_batch(store, sha256, run, &mut seq, &mut chunker, std::mem::take(&mut batch)).await? {
                        return Ok::<_, crate::error::Error>((false, seq > 0));
                    }
                }
            }
            let there = batch.is_empty() || add_batch(store, sha256, run, &mut seq, &mut chunker, batch).await?;
            Ok((there, seq > 0))
        };
        let (read, indexed) = tokio::join!(reading, indexing);
        let (still_there, any) = indexed?;
        let sha = sha256.to_string();
        if !still_there {
            return Ok(());
        }
        let read = match read {
            Err(note) => return store.write(move |tx| table::fail_indexing(tx, &sha, run, &note)).await,
            Ok(read) => read,
        };
        if !any {
            let note = match read.pages {
                Some(_) => extract::Note::new(
                    ReasonCode::NoTextInPages,
                    "no text could be read from any page (a scanned PDF has only images of text)",
                ),
                None => extract::Note::new(ReasonCode::NoText, "the file has no text"),
            };
            return store.write(move |tx| table::fail_indexing(tx, &sha, run, &note)).await;
        }
        let note = read.cut.map(|(kept, page)| cut_note(kept, page, max_chars)).or_else(|| unread_pages_note(&read.empty_pages));
        store.write(move |tx| table::finish_indexing(tx, &sha, run, read.pages, note.as_ref())).await
    }
}

/// Pieces of text split and written together: one short transaction per quarter megabyte or so.
const BATCH_BYTES: usize = 256 * 1024;

/// Splits `pieces` into passages and adds them to the index as passages `seq`, `seq + 1`, …;
/// false when the run is over (the content was deleted while it was read).
async fn add_batch(
    store: &Store,
    sha256: &str,
    run: i64,
    seq: &mut i64,
    chunker: &mut chunks::Chunker,
    pieces: Vec<extract::Piece>,
) -> Result<bool> {
    // The chunker goes to the blocking thread and comes back with the headings it has seen.
    let mut cutting = std::mem::take(chunker);
    let (found, cutting) = tokio::task::spawn_blocking(move || {
        let found = pieces
            .iter()
            .flat_map(|piece| cutting.split(&piece.text, piece.page, piece.first_line))
            .map(|p| (analysis::index_terms(&analysis::passage_terms(p.heading.as_deref(), &p.text)), p))
            .collect::<Vec<_>>();
        (found, cutting)
    })
    .await
    .map_err(|e| anyhow::anyhow!("splitting a file failed: {e}"))?;
    *chunker = cutting;
    let (first, sha) = (*seq, sha256.to_string());
    *seq += found.len() as i64;
    store
        .write(move |tx| {
            let rows: Vec<NewPassage> = found
                .iter()
                .map(|(terms, p)| NewPassage {
                    page: p.page,
                    line_start: p.line_start,
                    line_end: p.line_end,
                    heading: p.heading.as_deref(),
                    text: &p.text,
                    terms,
                })
                .collect();
            table::add_passages(tx, &sha, run, first, &rows)
        })
        .await
}

/// "only the first 10,000,000 characters were indexed": the code carries `chars` (kept), `max`
/// (the setting) and, for a PDF, `page` (where the text was cut).
fn cut_note(kept: usize, page: Option<i64>, max: usize) -> extract::Note {
    let mut reason = crate::error::Reason::new(ReasonCode::TextCut).with("chars", kept).with("max", max);
    let where_ = match page {
        Some(p) => {
            reason = reason.with("page", p);
            format!(" (up to page {p})")
        }
        None => String::new(),
    };
    let text = format!(
        "only the first {kept} characters of its text were indexed{where_}; the rest cannot be searched (raise the limit in Settings to index more)"
    );
    extract::Note { reason, text }
}

fn check_scope(conn: &rusqlite::Connection, scope: Scope) -> Result<()> {
    match scope {
        Scope::Session(id) => sessions::get(conn, id).map(|_| ()),
        Scope::Project(id) => projects::get(conn, id).map(|_| ()),
    }
}

/// "no text could be read from page 12" (or pages 3, 4 and 7); the code carries `pages` (the
/// first ten, comma-separated) and `more` (how many past them).
fn unread_pages_note(pages: &[usize]) -> Option<extract::Note> {
    let shown: Vec<String> = pages.iter().take(10).map(|p| p.to_string()).collect();
    let more = pages.len().saturating_sub(10);
    let text = match pages {
        [] => return None,
        [one] => format!("no text could be read from page {one}"),
        _ if more > 0 => format!("no text could be read from pages {} and {more} more", shown.join(", ")),
        _ => format!("no text could be read from pages {}", shown.join(", ")),
    };
    let reason = crate::error::Reason::new(ReasonCode::UnreadPages).with("pages", shown.join(", ")).with("more", more);
    Some(extract::Note { reason, text })
}
