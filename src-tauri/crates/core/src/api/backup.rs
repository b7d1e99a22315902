//! The whole data folder as one zip, and a backup restored in its place (Maru restarts on it).

use std::io::Seek;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use super::export::{blocking, Download, DownloadBody};
use crate::app::App;
use crate::backup::{self, Spool};
use crate::error::{Error, Result};

/// The whole data folder as one zip (see [`crate::backup`]); the API key is left out.
#[instrument(skip_all, err(level = Level::WARN))]
pub async fn backup(app: &Arc<App>) -> Result<Download> {
    let app = app.clone();
    blocking(move || {
        let started = std::time::Instant::now();
        let (spool, file) = Spool::create(&app.data_dir, "backup")?;
        let out = file.try_clone().map_err(anyhow::Error::from)?;
        let manifest = backup::write(&app.store, &app.data_dir, out)?;
        let mut file = file;
        file.rewind().map_err(anyhow::Error::from)?;
        drop(spool);
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        tracing::info!(bytes = size, ms = started.elapsed().as_millis() as u64, "backup written");
        let when = chrono::DateTime::from_timestamp_millis(manifest.created_at).unwrap_or_default();
        let name = format!("maru-backup-{}.zip", when.format("%Y%m%d-%H%M%S"));
        Ok(Download { name, mime: "application/zip", body: DownloadBody::File(file) })
    })
    .await
}

/// A backup to restore in place of the data (`POST /api/restore`).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct BackupZip {
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// What a restore put back, and where the data it replaced is kept. Maru then restarts on it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RestoredBackup {
    /// When the backup was made (ms since the epoch).
    pub created_at: i64,
    pub projects: i64,
    pub sessions: i64,
    pub messages: i64,
    pub memories: i64,
    /// Tool servers, back turned off and without their secrets.
    pub tool_servers: i64,
    pub files: usize,
    /// The data folder Maru opens again, now holding the backup.
    pub data_dir: String,
    /// Where the data it replaced is kept, whole (nothing is deleted).
    pub kept_as: String,
}

/// Restores a backup (a spool file in the data folder) in place of the data: unpacked and
/// checked beside the data folder now; then Maru closes, keeps the current folder under another
/// name, and starts again on the restored one ([`crate::app::relaunch`]). A backup that is not
/// one, or damaged, changes nothing.
#[instrument(skip_all, err(level = Level::WARN))]
pub async fn restore_backup(app: &Arc<App>, zip: Spool) -> Result<RestoredBackup> {
    let claim = app.relaunch.restoring()?;
    let data_dir = app.data_dir.clone();
    let (restored, swap) = blocking(move || {
        let name = data_dir.file_name().map_or_else(|| "maru".into(), |n| n.to_string_lossy().into_owned());
        let parent = data_dir.parent().unwrap_or(&data_dir);
        let stamp = chrono::Local::now().format("%Y-%m-%d-%H%M%S");
        let staging = parent.join(format!(".{name}-restoring-{stamp}"));
        let kept_as = parent.join(format!("{name}-before-restore-{stamp}"));
        // On failure `restore` leaves no folder behind. Its words name the file it read: here
        // the upload's spool, which the user never saw.
        let spool = zip.path().display().to_string();
        let restored = backup::restore(zip.path(), &staging).map_err(|e| match e {
            Error::Invalid { code, message, params } => {
                Error::Invalid { code, message: message.replace(&spool, "the uploaded file"), params }
            }
            other => other,
        })?;
        Ok((restored, crate::app::relaunch::Swap { restored: staging, kept_as }))
    })
    .await?;
    tracing::info!(kept_as = %swap.kept_as.display(), "a backup was restored; Maru restarts on it");
    let view = RestoredBackup {
        created_at: restored.created_at,
        projects: restored.projects,
        sessions: restored.sessions,
        messages: restored.messages,
        memories: restored.memories,
        tool_servers: restored.tool_servers,
        files: restored.files,
        data_dir: app.data_dir.display().to_string(),
        kept_as: swap.kept_as.display().to_string(),
    };
    claim.relaunch(swap);
    Ok(view)
}
