//! A project's folder, mirrored as the project's files, so `search_attachment` finds what is in
//! it. The readable files of the attachment kinds are kept, named by their path in the folder;
//! hidden files and folders, what `.gitignore` (and `.ignore`) leave out, special files and files
//! over the size limit are not, nor the folder's own instructions files (the prompt carries them,
//! see `prompt::instruction_files`). Links are not followed: a link out of the folder cannot bring
//! in what is outside it. A sync compares the folder with what mirrors it: a new file is added, a
//! changed one replaces its copy, a removed one takes its copy with it, and unlinking the folder
//! takes them all. Maru syncs a folder when it is linked, at start, and when its watcher sees a
//! change (`watch`); a file is read again only when its size or modification time changed.
//!
//! Each project syncs on its own: a folder that is slow or stuck (`scan` bounds every look at
//! it in time) never holds up another project's. Each sync reports how far it got
//! ([`FolderSync`]: files found, read, skipped with why, failed, done), which the project's
//! files view shows. A `.maruignore` in the folder (`.gitignore`'s syntax) leaves out more.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::app::App;
use crate::attachments::kinds;
use crate::error::{Code, Error, Result};
use crate::store::{attachments as table, projects, settings};

mod scan;
mod watch;

pub use scan::{check_exclude, check_folder};

/// How often a folder no watcher follows is looked at again.
pub const EVERY: Duration = Duration::from_secs(5);
/// Changes that come in a burst (a checkout, a build) are synced once: the sync waits this long
/// after the first.
const SETTLE: Duration = Duration::from_millis(300);

/// What one sync did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Synced {
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    /// Files left out, with why (path relative to the folder).
    pub skipped: Vec<(String, String)>,
}

/// Why a file is left out that is no failure: nothing to read in it, or not Maru's to read.
const SKIP_REASONS: [&str; 5] = ["empty", "too_large", "not_readable_kind", "link", "special_file"];

/// A file of the folder left out, and why (`empty`, `too_large`, `not_readable_kind`, `link`,
/// `special_file`; a failure's reason is its error).
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct FolderFile {
    /// Its path in the folder.
    pub path: String,
    pub reason: String,
}

/// How far a project's folder sync got: the last one's result while none runs.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct FolderSync {
    /// A sync runs now.
    pub running: bool,
    /// A sync ended since Maru started (`false` with `running` false: none yet, or no folder).
    pub done: bool,
    /// Files in the folder Maru may read (after the ignore files).
    pub found: usize,
    /// Of those, the ones looked at so far.
    pub read: usize,
    /// Left out, and why: no failure (shown grey).
    pub skipped: Vec<FolderFile>,
    /// Could not be read or kept.
    pub failed: Vec<FolderFile>,
    /// The whole sync failed (the folder gone or not answering); its files are kept as they were.
    pub error: Option<String>,
}

/// A file seen on disk: (size, modified) and the content it had then (`None`: not a kind Maru
/// reads, so not read again until it changes).
type Seen = HashMap<(i64, String), (u64, Option<SystemTime>, Option<String>)>;

/// The folder mirrors of one data folder.
#[derive(Default)]
pub struct Folders {
    seen: Mutex<Seen>,
    /// One sync at a time for each project (the watcher's and one asked for by a link).
    running: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
    /// Projects that changed again while their sync ran: synced once more when it ends.
    again: Mutex<std::collections::HashSet<i64>>,
    watches: watch::Watches,
    progress: Mutex<HashMap<i64, FolderSync>>,
}

impl Folders {
    /// The project's own lock: one sync of it at a time, other projects' go on.
    fn lock_for(&self, project_id: i64) -> Arc<tokio::sync::Mutex<()>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).entry(project_id).or_default().clone()
    }

    /// How far the project's folder sync got.
    pub fn progress(&self, project_id: i64) -> FolderSync {
        self.progress.lock().unwrap_or_else(|e| e.into_inner()).get(&project_id).cloned().unwrap_or_default()
    }

    fn note(&self, project_id: i64, change: impl FnOnce(&mut FolderSync)) {
        change(self.progress.lock().unwrap_or_else(|e| e.into_inner()).entry(project_id).or_default());
    }

    /// The sync ended: what it left out, split into skipped and failed, or why it failed.
    fn finish(&self, project_id: i64, result: &Result<Synced>) {
        self.note(project_id, |p| {
            p.running = false;
            p.done = true;
            match result {
                Ok(synced) => {
                    p.error = None;
                    let (skipped, failed): (Vec<_>, Vec<_>) = synced
                        .skipped
                        .iter()
                        .map(|(path, reason)| FolderFile { path: path.clone(), reason: reason.clone() })
                        .partition(|f| SKIP_REASONS.contains(&f.reason.as_str()));
                    (p.skipped, p.failed) = (skipped, failed);
                }
                Err(e) => p.error = Some(e.body().message),
            }
        });
    }

    /// Brings the project's mirrored files in line with its folder (all removed when it has
    /// none), under the project's lock. New contents are indexed in the background. A folder
    /// that is not there now (a drive not mounted) or does not answer keeps its mirror: an error
    /// says so, nothing is removed.
    async fn sync_now(&self, app: &Arc<App>, project_id: i64) -> Result<Synced> {
        let (project, mirrored, max_mb) = app
            .store
            .read(move |c| Ok((projects::get(c, project_id)?, table::folder_files(c, project_id)?, settings::load(c)?.attachment_max_mb)))
            .await?;
        let max_bytes = u64::from(max_mb) << 20;
        let mut synced = Synced::default();
        self.note(project_id, |p| (p.running, p.found, p.read) = (true, 0, 0));
        let files = match project.folder.clone() {
            Some(folder) => {
                let (root, exclude) = (PathBuf::from(&folder), project.exclude.clone());
                let looked =
                    scan::off_thread(scan::WALK_DEADLINE, move || root.is_dir().then(|| scan::walk(&root, max_bytes, &exclude))).await;
                let kept = |why: &str| {
                    Error::invalid(Code::InvalidFolder, format!("the folder {folder:?} {why}; its files are kept as they were"))
                };
                let Some(looked) = looked else { return Err(kept("did not answer within a minute")) };
                let Some((files, skipped)) = looked else { return Err(kept("cannot be read now")) };
                synced.skipped = skipped;
                files
            }
            None => vec![],
        };
        self.note(project_id, |p| p.found = files.len());
        let mut by_path: HashMap<String, (i64, String)> = mirrored.into_iter().map(|(p, id, sha)| (p, (id, sha))).collect();
        for scan::Found { rel, path, size, modified } in files {
            self.note(project_id, |p| p.read += 1);
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
            let bytes = match scan::read(path, max_bytes, scan::READ_DEADLINE).await {
                Ok(b) => b,
                Err(why) => {
                    synced.skipped.push((rel, why.reason()));
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

    /// Follows the linked folders for the life of the process: every folder is synced at start,
    /// then a folder when its watcher sees a change (or every `EVERY` when none can watch it),
    /// and the links are looked at again when one changes (`relinked`). Each sync runs on its
    /// own, so a stuck folder holds up no other.
    pub fn keep_in_sync(app: &Arc<App>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let weak = Arc::downgrade(app);
        let changed = app.folders.watches.changed.clone();
        runtime.spawn(async move {
            let mut first = true;
            loop {
                let Some(app) = weak.upgrade() else { return };
                let linked = match app.store.read(projects::with_folders).await {
                    Ok(linked) => linked,
                    Err(e) => {
                        tracing::warn!("cannot list the linked folders: {e}");
                        vec![]
                    }
                };
                let polled = app.folders.watches.follow(&linked).await;
                let any_polled = !polled.is_empty();
                // The changed ones include a project just unlinked: its sync takes its mirror away.
                let mut due = changed.take();
                due.extend(polled);
                if first {
                    due.extend(linked.iter().map(|(id, _)| *id));
                }
                for id in due {
                    Self::sync_in_background(&app, id);
                }
                drop(app);
                first = false;
                // Nothing is looked at while nothing changes, but for the folders no watcher follows.
                let wait = if any_polled { EVERY } else { Duration::from_secs(86_400) };
                tokio::select! {
                    _ = changed.wake.notified() => tokio::time::sleep(SETTLE).await,
                    _ = tokio::time::sleep(wait) => {}
                }
            }
        });
    }

    /// A project's folder was linked, moved or unlinked: it is followed (or no longer) and synced.
    pub fn relinked(&self, project_id: i64) {
        self.watches.changed.mark(project_id);
    }

    /// Syncs a project unless a sync of it is running, which then syncs again once done.
    fn sync_in_background(app: &Arc<App>, project_id: i64) {
        let one = app.folders.lock_for(project_id);
        let Ok(guard) = one.try_lock_owned() else {
            app.folders.again.lock().unwrap_or_else(|e| e.into_inner()).insert(project_id);
            return;
        };
        let app = app.clone();
        tokio::spawn(async move {
            let result = app.folders.sync_now(&app, project_id).await;
            app.folders.finish(project_id, &result);
            match result {
                Ok(_) | Err(Error::NotFound { .. }) => {} // deleted with its files meanwhile
                Err(e) => tracing::warn!(project_id, "syncing a project's folder failed: {e}"),
            }
            drop(guard);
            if app.folders.again.lock().unwrap_or_else(|e| e.into_inner()).remove(&project_id) {
                app.folders.watches.changed.mark(project_id);
            }
        });
    }
}
