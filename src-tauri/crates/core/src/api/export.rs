//! What leaves Maru as a file, and comes back: a chat as Markdown or JSON, a project as a zip;
//! a chat exported as JSON, another app's export, a project's zip coming in. The whole data
//! folder's backup is `api::backup`.

use std::io::{Seek, Write};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::backup::{zip_options, Spool};
use crate::error::{Error, Result};
use crate::store::exports::{self, ChatExport};
use crate::store::messages::{Role, Status};
use crate::store::sessions::{self, Session};
use crate::store::{attachments, projects};

pub const PROJECT_FORMAT: &str = "maru-project";

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    #[default]
    Markdown,
    Json,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `markdown` (the default) or `json` (which Maru can import again).
    pub format: Option<ExportFormat>,
}

/// A file to download: its name, type and bytes.
pub struct Download {
    pub name: String,
    pub mime: &'static str,
    pub body: DownloadBody,
}

pub enum DownloadBody {
    Bytes(Vec<u8>),
    /// Spooled to disk (zips can be as large as the data folder); already unlinked where the OS
    /// allows, so it goes when the download ends.
    File(std::fs::File),
}

/// A chat as Markdown (to read) or JSON (to import again).
pub async fn export_chat(app: &App, session_id: i64, q: ExportQuery) -> Result<Download> {
    let chat = app.store.read(move |c| exports::chat(c, session_id)).await?;
    let stem = file_stem(&chat.session.title, &format!("chat-{session_id}"));
    Ok(match q.format.unwrap_or_default() {
        ExportFormat::Markdown => Download {
            name: format!("{stem}.md"),
            mime: "text/markdown; charset=utf-8",
            body: DownloadBody::Bytes(markdown(&chat).into_bytes()),
        },
        ExportFormat::Json => Download {
            name: format!("{stem}.json"),
            mime: "application/json",
            body: DownloadBody::Bytes(serde_json::to_vec_pretty(&chat).map_err(anyhow::Error::from)?),
        },
    })
}

/// What `POST /api/import` takes as `multipart/form-data`: the file in a part named `file`
/// (ChatGPT's or Claude's export as downloaded, its `conversations.json`, or a chat Maru exported
/// as JSON), and where an export's chats go.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportUpload {
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// The project an export's chats go to; absent: "Imported from ChatGPT" (or Claude), made
    /// when there is none.
    pub project_id: Option<i64>,
}

/// What an import is: a chat Maru exported, added at once; or another app's export, whose
/// chats are stored in the background.
pub enum Imported {
    Chat(Session),
    Export(crate::imports::jobs::ImportJob),
}

/// Imports an upload (a file in the data folder, removed when done): a chat Maru exported as
/// JSON as a new chat (in `project_id`, else in the project of its name, else in Default), or ChatGPT's or Claude's export, checked whole first
/// (a damaged, cut, unknown or too large one changes nothing) and then stored in the background
/// into `project_id` or the app's "Imported from …" project. `json_body`: the upload came as a
/// JSON body, whose malformed JSON is `invalid_json` as on every other route.
#[instrument(skip(app, upload), err(level = Level::WARN))]
pub async fn import(app: &Arc<App>, upload: Spool, project_id: Option<i64>, json_body: bool) -> Result<Imported> {
    let shared = app.clone();
    blocking(move || {
        let app = shared;
        let export = match crate::imports::check(upload.path())? {
            crate::imports::Upload::Object => {
                use std::io::Read;
                let mut bytes = vec![];
                let file = std::fs::File::open(upload.path()).map_err(anyhow::Error::from)?;
                file.take(ENTRY_MAX_BYTES + 1).read_to_end(&mut bytes).map_err(anyhow::Error::from)?;
                if bytes.len() as u64 > ENTRY_MAX_BYTES {
                    return Err(Error::invalid(
                        crate::error::Code::FileTooLarge,
                        format!("the chat is larger than Maru imports ({} MB)", ENTRY_MAX_BYTES >> 20),
                    )
                    .with("file", "chat.json")
                    .with("max_mb", ENTRY_MAX_BYTES >> 20));
                }
                let code = if json_body { crate::error::Code::InvalidJson } else { crate::error::Code::InvalidImport };
                let value = serde_json::from_slice(&bytes).map_err(|e| Error::invalid(code, format!("the chat is not whole JSON: {e}")))?;
                let chat = exports::parse(value)?;
                let session = app.store.with(|tx| {
                    let id = match project_id {
                        Some(p) => exports::import_into(tx, &chat, projects::get(tx, p)?.id)?,
                        None => exports::import(tx, &chat)?,
                    };
                    sessions::get(tx, id)
                })?;
                return Ok(Imported::Chat(session));
            }
            crate::imports::Upload::Export(export) => export,
        };
        let name = export.source.project_name();
        let project_id = app.store.with(|tx| match project_id {
            Some(p) => Ok(projects::get(tx, p)?.id),
            None => match projects::find_by_name(tx, name)? {
                Some(p) => Ok(p.id),
                None => Ok(projects::create(tx, &projects::NewProject { name: name.into(), instructions: String::new() })?.id),
            },
        })?;
        let job = app.imports.start(app.store.clone(), export, project_id, upload)?;
        Ok(Imported::Export(job))
    })
    .await
}

/// How far an import of another app's export is.
pub async fn import_job(app: &App, id: i64) -> Result<crate::imports::jobs::ImportJob> {
    app.imports.get(id)
}

/// A project as a zip: `project.json`, each chat as JSON and Markdown under `chats/`, and the
/// attached files under `files/` (a chat's own files in a folder named like the chat).
pub async fn export_project(app: &Arc<App>, project_id: i64) -> Result<Download> {
    let app = app.clone();
    blocking(move || {
        let (project, chats, project_files, chat_files) = app.store.read_now(|c| {
            let project = projects::get(c, project_id)?;
            let mut ids = vec![];
            let mut cursor = None;
            loop {
                let page = sessions::list(c, project_id, cursor.as_deref(), Some(200))?;
                ids.extend(page.sessions.iter().map(|s| s.id));
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            let chats = ids.iter().map(|&id| exports::chat(c, id)).collect::<Result<Vec<_>>>()?;
            let chat_files = ids.iter().map(|&id| attachments::list_for_session(c, id)).collect::<Result<Vec<_>>>()?;
            Ok((project, chats, attachments::list_for_project(c, project_id)?, chat_files))
        })?;
        let (spool, file) = Spool::create(&app.data_dir, "export")?;
        let mut zip = zip::ZipWriter::new(file);
        let manifest = serde_json::json!({
            "format": PROJECT_FORMAT,
            "version": 1,
            "exported_at": crate::store::now_ms(),
            "name": project.name,
            "instructions": project.instructions,
        });
        add(&mut zip, "project.json", &serde_json::to_vec_pretty(&manifest).map_err(anyhow::Error::from)?)?;
        let mut stems = Names::default();
        for (chat, files) in chats.iter().zip(&chat_files) {
            let stem = stems.unique(file_stem(&chat.session.title, "chat"));
            add(&mut zip, &format!("chats/{stem}.json"), &serde_json::to_vec_pretty(chat).map_err(anyhow::Error::from)?)?;
            add(&mut zip, &format!("chats/{stem}.md"), markdown(chat).as_bytes())?;
            let mut names = Names::default();
            for a in files {
                let name = names.unique(file_stem(&a.name, "file"));
                add_blob(&app, &mut zip, &format!("files/{stem}/{name}"), &a.sha256)?;
            }
        }
        let mut names = Names::default();
        for a in &project_files {
            let name = names.unique(file_stem(&a.name, "file"));
            add_blob(&app, &mut zip, &format!("files/{name}"), &a.sha256)?;
        }
        let file = finish(zip)?;
        drop(spool);
        let name = format!("{}.zip", file_stem(&project.name, "project"));
        Ok(Download { name, mime: "application/zip", body: DownloadBody::File(file) })
    })
    .await
}

/// What `POST /api/import/project` takes, as `multipart/form-data`: the zip in a part named `file`.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProjectZip {
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// What importing a project did.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportedProject {
    /// The new project (named as exported, with a number when that name is taken).
    pub project: crate::store::projects::Project,
    pub chats: usize,
    pub files: usize,
    /// Entries of the zip left out, each with why.
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Skipped {
    pub entry: String,
    /// The error's code (`file_too_large`, `binary_file`, `invalid_import`, …).
    pub code: String,
}

/// A zip entry read whole at most (a chat's JSON, `project.json`); files have the file limit.
const ENTRY_MAX_BYTES: u64 = 64 << 20;

/// Adds a project exported as a zip ([`export_project`]) as a new project: its instructions, its
/// chats (marked as imported copies) and their files, and its own files. The project and its
/// chats are one transaction; each file is then stored on its own, and one that cannot be (too
/// large, not a kind Maru reads) is left out and said, never failing the rest.
#[instrument(skip_all, err(level = Level::WARN))]
pub async fn import_project(app: &Arc<App>, zip_bytes: Vec<u8>) -> Result<ImportedProject> {
    let shared = app.clone();
    let (imported, new_contents) = blocking(move || {
        let app = shared;
        let refuse = |why: String| Error::invalid(crate::error::Code::InvalidImport, why);
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(zip_bytes)).map_err(|e| refuse(format!("this is not a zip file: {e}")))?;
        let manifest: serde_json::Value =
            serde_json::from_slice(&read_entry(&mut zip, "project.json", ENTRY_MAX_BYTES)?.ok_or_else(|| {
                Error::invalid(crate::error::Code::UnsupportedImport, "this zip is not a project exported by Maru (it has no project.json)")
            })?)
            .map_err(|e| refuse(format!("project.json is not JSON: {e}")))?;
        if manifest["format"] != PROJECT_FORMAT {
            return Err(Error::invalid(crate::error::Code::UnsupportedImport, "this zip is not a project exported by Maru"));
        }
        if manifest["version"] != 1 {
            return Err(Error::invalid(crate::error::Code::UnsupportedImportVersion, "this project was exported by a newer Maru"));
        }
        let name = manifest["name"].as_str().unwrap_or("Imported project").to_string();
        let instructions = manifest["instructions"].as_str().unwrap_or_default().to_string();
        let names: Vec<String> = zip.file_names().map(str::to_string).collect();
        let mut skipped = vec![];
        let mut chats = vec![];
        for entry in names.iter().filter(|n| n.starts_with("chats/") && n.ends_with(".json") && !n[6..].contains('/')) {
            let stem = entry["chats/".len()..entry.len() - ".json".len()].to_string();
            let parsed = read_entry(&mut zip, entry, ENTRY_MAX_BYTES).and_then(|bytes| {
                let value = serde_json::from_slice(&bytes.unwrap_or_default()).map_err(|e| refuse(format!("{entry} is not JSON: {e}")))?;
                exports::parse(value)
            });
            match parsed {
                Ok(chat) => chats.push((stem, chat)),
                Err(e) => skipped.push(Skipped { entry: entry.clone(), code: e.code().into_owned() }),
            }
        }
        let (project, sessions) = app.store.with(|tx| {
            let name = projects::free_name(tx, &projects::clean_name(&name)?)?;
            let project = projects::create(tx, &projects::NewProject { name, instructions })?;
            let mut sessions = std::collections::HashMap::new();
            for (stem, chat) in &chats {
                sessions.insert(stem.clone(), exports::import_into(tx, chat, project.id)?);
            }
            Ok((project, sessions))
        })?;
        let max_bytes = u64::from(app.store.read_now(|c| Ok(crate::store::settings::load(c)?.attachment_max_mb))?) << 20;
        let mut files = 0;
        let mut new_contents = vec![];
        for entry in names.iter().filter(|n| n.starts_with("files/") && !n.ends_with('/')) {
            let rest = &entry["files/".len()..];
            let (scope, file_name) = match rest.split_once('/') {
                None => (crate::attachments::Scope::Project(project.id), rest),
                Some((stem, file)) => match sessions.get(stem) {
                    Some(&session) if !file.contains('/') => (crate::attachments::Scope::Session(session), file),
                    _ => {
                        skipped.push(Skipped { entry: entry.clone(), code: "invalid_import".into() });
                        continue;
                    }
                },
            };
            let stored = read_entry(&mut zip, entry, max_bytes)
                .and_then(|bytes| app.files.add(&app.store, scope, file_name, &bytes.unwrap_or_default(), max_bytes));
            match stored {
                Ok((attachment, new)) => {
                    files += 1;
                    if new {
                        new_contents.push((attachment.sha256, attachment.kind));
                    }
                }
                Err(e) => skipped.push(Skipped { entry: entry.clone(), code: e.code().into_owned() }),
            }
        }
        let project = app.store.read_now(|c| projects::get(c, project.id))?;
        Ok((ImportedProject { project, chats: sessions.len(), files, skipped }, new_contents))
    })
    .await?;
    for (sha, kind) in new_contents {
        let app = app.clone();
        tokio::spawn(async move { app.index_file(sha, kind).await });
    }
    Ok(imported)
}

/// A zip entry's bytes, refused past `max` (whatever its header claims); `None` when absent.
fn read_entry<R: std::io::Read + Seek>(zip: &mut zip::ZipArchive<R>, name: &str, max: u64) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let entry = match zip.by_name(name) {
        Ok(e) => e,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(Error::invalid(crate::error::Code::InvalidImport, format!("{name} cannot be read: {e}"))),
    };
    let mut bytes = vec![];
    entry
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(crate::error::Code::InvalidImport, format!("{name} cannot be read: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(Error::invalid(crate::error::Code::FileTooLarge, format!("{name} is larger than Maru accepts ({} MB)", max >> 20))
            .with("file", name)
            .with("max_mb", max >> 20));
    }
    Ok(Some(bytes))
}

pub(super) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f).await.map_err(|e| Error::Internal(anyhow::anyhow!("export task failed: {e}")))?
}

fn add<W: Write + Seek>(zip: &mut zip::ZipWriter<W>, name: &str, bytes: &[u8]) -> Result<()> {
    zip.start_file(name, zip_options()).map_err(anyhow::Error::from)?;
    zip.write_all(bytes).map_err(anyhow::Error::from)?;
    Ok(())
}

fn add_blob<W: Write + Seek>(app: &App, zip: &mut zip::ZipWriter<W>, name: &str, sha256: &str) -> Result<()> {
    let mut f = std::fs::File::open(app.files.blobs.path(sha256)).map_err(|e| anyhow::anyhow!("cannot read stored file {sha256}: {e}"))?;
    zip.start_file(name, zip_options()).map_err(anyhow::Error::from)?;
    std::io::copy(&mut f, zip).map_err(anyhow::Error::from)?;
    Ok(())
}

fn finish(zip: zip::ZipWriter<std::fs::File>) -> Result<std::fs::File> {
    let mut file = zip.finish().map_err(anyhow::Error::from)?;
    file.flush().map_err(anyhow::Error::from)?;
    file.rewind().map_err(anyhow::Error::from)?;
    Ok(file)
}

/// Names made unique within one folder of a zip: "Notes", "Notes (2)", …
#[derive(Default)]
struct Names(std::collections::HashSet<String>);

impl Names {
    fn unique(&mut self, name: String) -> String {
        let (stem, ext) = match name.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
            _ => (name.clone(), String::new()),
        };
        let mut candidate = name;
        let mut n = 1;
        while !self.0.insert(candidate.to_lowercase()) {
            n += 1;
            candidate = format!("{stem} ({n}){ext}");
        }
        candidate
    }
}

/// A title or name as a file name on any system: no separators, no characters Windows refuses,
/// no leading dots, at most 80 characters; `fallback` when nothing is left.
pub fn file_stem(title: &str, fallback: &str) -> String {
    let cleaned: String = title
        .chars()
        .map(|c| if c.is_control() || "/\\:*?\"<>|".contains(c) { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // No leading dot (a hidden file, or `..`), no trailing dot or space (Windows drops them).
    let cleaned: String = cleaned.trim_start_matches(['.', ' ']).chars().take(80).collect();
    let cleaned = cleaned.trim_end_matches(['.', ' ']).to_string();
    if cleaned.is_empty() {
        fallback.to_string()
    } else {
        cleaned
    }
}

fn utc(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()).unwrap_or_default()
}

/// A chat to read: its title, project and dates, then each message under a heading naming who
/// wrote it. Message text is Markdown already and goes in as written.
pub fn markdown(chat: &ChatExport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let title = if chat.session.title.is_empty() { "Untitled chat" } else { &chat.session.title };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(out, "- Project: {}", chat.project.name);
    let _ = writeln!(out, "- Started: {}", utc(chat.session.created_at));
    let _ = writeln!(out, "- Exported: {}", utc(chat.exported_at));
    if let Some(preset) = &chat.session.preset {
        let _ = writeln!(out, "- Preset: {preset}");
    }
    for m in &chat.messages {
        let who = match m.role {
            Role::User => "You".to_string(),
            Role::Assistant => match &m.model {
                Some(model) => format!("Assistant ({model})"),
                None => "Assistant".to_string(),
            },
            Role::Tool => format!("Tool result ({})", m.tool_name.as_deref().unwrap_or("tool")),
        };
        let _ = writeln!(out, "\n## {who}\n");
        let _ = writeln!(out, "_{}_\n", utc(m.created_at));
        if !m.content.is_empty() {
            let _ = writeln!(out, "{}", m.content.trim_end());
        }
        for call in &m.tool_calls {
            let _ = writeln!(out, "\n> Called `{}` with `{}`", call.name, call.arguments.replace('`', "'"));
        }
        match m.status {
            Status::Complete | Status::Streaming => {}
            Status::Stopped => out.push_str("\n_(stopped)_\n"),
            Status::Interrupted => out.push_str("\n_(interrupted)_\n"),
            Status::Error => {
                let _ = writeln!(out, "\n_(failed: {})_", m.error.as_deref().unwrap_or("error"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn titles_become_file_names_that_every_system_accepts() {
        assert_eq!(file_stem("Plans: Q3/Q4?", "chat"), "Plans Q3 Q4");
        assert_eq!(file_stem("../../etc/passwd", "chat"), "etc passwd");
        assert_eq!(file_stem("회의록 정리", "chat"), "회의록 정리");
        assert_eq!(file_stem("  \n ", "chat-7"), "chat-7");
        assert_eq!(file_stem("...", "chat"), "chat");
    }
}
