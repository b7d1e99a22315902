//! A project's folder, mirrored as the project's files, so `search_attachment` finds what is in
//! it. The readable files of the attachment kinds are kept, named by their path in the folder;
//! hidden files and folders, what `.gitignore` (and `.ignore`) leave out, and files over the
//! size limit are not, nor the folder's own instructions files (the prompt carries them, see
//! `prompt::instruction_files`). Links are not followed: a link out of the folder cannot bring in what is
//! outside it. A sync compares the folder with what mirrors it: a new file is added, a changed
//! one replaces its copy, a removed one takes its copy with it. Maru syncs when a folder is
//! linked, at start, and every `EVERY` while it runs; a file is read again only when its size or
//! modification time changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::app::App;
use crate::attachments::kinds;
use crate::error::{Code, Error, Result};
use crate::store::{attachments as table, projects, settings};

/// How often linked folders are looked at again.
pub const EVERY: Duration = Duration::from_secs(5);
/// Files mirrored from one folder at most (a folder with more is mirrored in part, noted).
const MAX_FILES: usize = 2_000;

/// Checks a folder the user names: an absolute path to a directory that can be read. Returns it
/// without `.`/`..` parts and links (the form every later comparison uses).
pub fn check_folder(raw: &str) -> Result<String> {
    let refuse = |why: String| Error::invalid(Code::InvalidFolder, why).with("folder", raw);
    let path = Path::new(raw.trim());
    if raw.trim().is_empty() || !path.is_absolute() {
        return Err(refuse(format!("{raw:?} is not an absolute path to a folder")));
    }
    let real = std::fs::canonicalize(path).map_err(|e| refuse(format!("the folder {raw:?} cannot be opened: {e}")))?;
    if !real.is_dir() {
        return Err(refuse(format!("{raw:?} is a file, not a folder")));
    }
    std::fs::read_dir(&real).map_err(|e| refuse(format!("the folder {raw:?} cannot be read: {e}")))?;
    Ok(real.to_string_lossy().into_owned())
}

/// What one sync did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Synced {
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    /// Files left out, with why (path relative to the folder).
    pub skipped: Vec<(String, String)>,
}

/// A file seen on disk: (size, modified) and the content it had then (`None`: not a kind Maru
/// reads, so not read again until it changes).
type Seen = HashMap<(i64, String), (u64, Option<SystemTime>, Option<String>)>;

/// The folder mirrors of one data folder.
#[derive(Default)]
pub struct Folders {
    seen: Mutex<Seen>,
    /// One sync at a time (the periodic one and one asked for by a link).
    running: tokio::sync::Mutex<()>,
}

/// The files of `folder` to mirror: (relative path with `/`, absolute path, size, modified).
fn scan(folder: &Path, max_bytes: u64, skipped: &mut Vec<(String, String)>) -> Vec<(String, PathBuf, u64, Option<SystemTime>)> {
    let mut out = vec![];
    let walker = ignore::WalkBuilder::new(folder)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .ignore(true)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                skipped.push((String::new(), format!("unreadable: {e}")));
                continue;
            }
        };
        let Some(kind) = entry.file_type() else { continue };
        if !kind.is_file() {
            if kind.is_symlink() {
                skipped.push((relative(folder, entry.path()), "link".into()));
            }
            continue;
        }
        let rel = relative(folder, entry.path());
        // The folder's own instructions files are in the prompt already (section ③).
        if crate::prompt::instruction_files::is_instructions_name(&rel) {
            continue;
        }
        let meta = match entry.metadata() {
            Ok(m) => m,
            Err(e) => {
                skipped.push((rel, format!("unreadable: {e}")));
                continue;
            }
        };
        if meta.len() > max_bytes {
            skipped.push((rel, "too_large".into()));
            continue;
        }
        if out.len() >= MAX_FILES {
            skipped.push((rel, "too_many".into()));
            continue;
        }
        out.push((rel, entry.path().to_path_buf(), meta.len(), meta.modified().ok()));
    }
    out
}

fn relative(folder: &Path, path: &Path) -> String {
    path.strip_prefix(folder).unwrap_or(path).components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

impl Folders {
    /// Brings the project's mirrored files in line with its folder (all removed when it has
    /// none). New contents are indexed in the background.
    pub async fn sync(&self, app: &Arc<App>, project_id: i64) -> Result<Synced> {
        let _one = self.running.lock().await;
        let (project, mirrored, max_mb) = app
            .store
            .read(move |c| Ok((projects::get(c, project_id)?, table::folder_files(c, project_id)?, settings::load(c)?.attachment_max_mb)))
            .await?;
        let max_bytes = u64::from(max_mb) << 20;
        let mut synced = Synced::default();
        let found = match project.folder.clone() {
            Some(folder) => {
                let folder = PathBuf::from(folder);
                tokio::task::spawn_blocking(move || {
                    let mut skipped = vec![];
                    let files = scan(&folder, max_bytes, &mut skipped);
                    (files, skipped)
                })
                .await
                .map_err(|e| Error::Internal(anyhow::anyhow!("looking at the folder failed: {e}")))?
            }
            None => (vec![], vec![]),
        };
        let (files, skipped) = found;
        synced.skipped = skipped;
        let mut by_path: HashMap<String, (i64, String)> = mirrored.into_iter().map(|(p, id, sha)| (p, (id, sha))).collect();
        for (rel, path, size, modified) in files {
            let had = by_path.remove(&rel);
            let key = (project_id, rel.clone());
            let unchanged = {
                let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
                match (seen.get(&key), &had) {
                    (Some((s, m, Some(sha))), Some((_, had_sha))) => *s == size && *m == modified && sha == had_sha,
                    (Some((s, m, None)), None) => *s == size && *m == modified,
                    _ => false,
                }
            };
            if unchanged {
                if had.is_none() {
                    synced.skipped.push((rel, "not_readable_kind".into()));
                }
                continue;
            }
            let bytes = match tokio::fs::read(&path).await {
                Ok(b) => b,
                Err(e) => {
                    synced.skipped.push((rel, format!("unreadable: {e}")));
                    continue;
                }
            };
            let sha = crate::attachments::blobs::sha256_hex(&bytes);
            if had.as_ref().is_some_and(|(_, had_sha)| *had_sha == sha) {
                self.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (size, modified, Some(sha)));
                continue;
            }
            if kinds::detect(&rel, &bytes).is_err() {
                // Not a kind Maru reads (a binary, an unknown format): its old copy goes.
                self.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (size, modified, None));
                synced.skipped.push((rel, "not_readable_kind".into()));
                if let Some((id, _)) = had {
                    self.remove(app, id).await?;
                    synced.removed += 1;
                }
                continue;
            }
            let (shared, replaces, name) = (app.clone(), had.as_ref().map(|(id, _)| *id), rel.clone());
            let added = tokio::task::spawn_blocking(move || {
                shared.files.add_from_folder(&shared.store, project_id, &name, &bytes, max_bytes, replaces)
            })
            .await
            .map_err(|e| Error::Internal(anyhow::anyhow!("storing a folder's file failed: {e}")))?;
            match added {
                Ok((attachment, new)) => {
                    if had.is_some() {
                        synced.updated += 1;
                    } else {
                        synced.added += 1;
                    }
                    self.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (size, modified, Some(attachment.sha256.clone())));
                    if new {
                        let (app, sha, kind) = (app.clone(), attachment.sha256.clone(), attachment.kind);
                        tokio::spawn(async move { app.index_file(sha, kind).await });
                    }
                }
                // A file refused (the project's files are full, a name too long): noted, the rest go on.
                Err(e) => synced.skipped.push((rel, e.code().into_owned())),
            }
        }
        for (rel, (id, _)) in by_path {
            self.remove(app, id).await?;
            self.seen.lock().unwrap_or_else(|e| e.into_inner()).remove(&(project_id, rel));
            synced.removed += 1;
        }
        if synced.added + synced.updated + synced.removed > 0 {
            tracing::info!(
                project_id,
                added = synced.added,
                updated = synced.updated,
                removed = synced.removed,
                "synced a project's folder"
            );
        }
        Ok(synced)
    }

    /// Removes a mirrored copy; one already gone (deleted through the API) is fine.
    async fn remove(&self, app: &App, id: i64) -> Result<()> {
        let blobs = app.files.blobs.clone();
        match app.store.write_then(move |tx| table::delete(tx, id), move |released| blobs.remove(released.as_slice())).await {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Syncs every linked folder now and then, for the life of the process.
    pub fn keep_in_sync(app: &Arc<App>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let app = Arc::downgrade(app);
        runtime.spawn(async move {
            loop {
                let Some(app) = app.upgrade() else { return };
                match app.store.read(projects::with_folders).await {
                    Ok(linked) => {
                        for (id, _) in linked {
                            if let Err(e) = app.folders.sync(&app, id).await {
                                tracing::warn!(project_id = id, "syncing a project's folder failed: {e}");
                            }
                        }
                    }
                    Err(e) => tracing::warn!("cannot list the linked folders: {e}"),
                }
                drop(app);
                tokio::time::sleep(EVERY).await;
            }
        });
    }
}
