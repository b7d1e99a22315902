//! Backups of the whole data folder as one zip, and restoring one into an empty folder.
//!
//! A backup holds `backup.json` (what made it), a snapshot of `maru.db` taken with SQLite's
//! online backup while Maru runs, the stored files it links (`blobs/`) and the prompt overrides
//! (`prompts/`). Logs stay out, and so does the API key: it is removed from the snapshot before
//! it is zipped, since a backup file travels (another disk, a cloud folder) where a key must not.
//!
//! Restoring is a command-line action (`maru restore`): the running app owns its folder.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use zip::write::SimpleFileOptions;

use crate::error::{Code, Error, Result};
use crate::store::Store;

/// What `backup.json` says a file is, so that restore refuses any other zip.
pub const FORMAT: &str = "maru-backup";
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    /// Unix milliseconds.
    pub created_at: i64,
    pub maru_version: String,
    pub schema_version: i64,
    /// Stored files the database links that were already gone from `blobs/` (normally none).
    #[serde(default)]
    pub missing_files: Vec<String>,
}

/// Entries are compressed; stored files that are already compressed cost a little time only.
pub(crate) fn zip_options() -> SimpleFileOptions {
    SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).unix_permissions(0o600)
}

/// A file being written next to the data, removed when dropped unless it was kept.
pub struct Spool {
    path: PathBuf,
}

impl Spool {
    /// A new, empty spool file in `dir` (the data folder: the one disk known to have room for it).
    pub fn create(dir: &Path, what: &str) -> Result<(Spool, File)> {
        let name = format!(".{what}-{}-{}.tmp", std::process::id(), rand::random::<u32>());
        let path = dir.join(name);
        let file =
            File::options().read(true).write(true).create_new(true).open(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok((Spool { path }, file))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes spool files a crash left in the data folder (called while owning it).
pub fn sweep_spools(data_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(data_dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") && ["backup-", "backup-db-", "export-", "import-"].iter().any(|p| name.starts_with(&format!(".{p}"))) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Writes a backup of the data folder to `out`; returns what it holds.
pub fn write(store: &Store, data_dir: &Path, out: File) -> Result<Manifest> {
    let (snapshot, _) = Spool::create(data_dir, "backup-db")?;
    store.snapshot(snapshot.path())?;
    let (shas, schema_version) = crate::store::backups::forget_secrets(snapshot.path())?;

    let mut zip = zip::ZipWriter::new(out);
    let opts = zip_options();
    let mut missing_files = vec![];
    for sha in &shas {
        let rel = format!("blobs/{}/{sha}", &sha[..2.min(sha.len())]);
        match File::open(data_dir.join(&rel)) {
            Ok(mut f) => {
                zip.start_file(rel.as_str(), opts).map_err(anyhow::Error::from)?;
                std::io::copy(&mut f, &mut zip).with_context(|| format!("reading {rel}"))?;
            }
            // Deleted after the snapshot was taken: the restored chat keeps its row, the file is gone.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing_files.push(sha.clone()),
            Err(e) => return Err(anyhow::anyhow!("cannot read {rel}: {e}").into()),
        }
    }
    add_tree(&mut zip, &data_dir.join("prompts"), "prompts")?;
    zip.start_file("maru.db", opts).map_err(anyhow::Error::from)?;
    std::io::copy(&mut File::open(snapshot.path()).context("reading the snapshot")?, &mut zip).context("zipping the snapshot")?;
    if !missing_files.is_empty() {
        tracing::warn!(count = missing_files.len(), "files deleted while the backup was made are not in it");
    }
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        created_at: crate::store::now_ms(),
        maru_version: env!("CARGO_PKG_VERSION").into(),
        schema_version,
        missing_files,
    };
    zip.start_file("backup.json", opts).map_err(anyhow::Error::from)?;
    zip.write_all(&serde_json::to_vec_pretty(&manifest).map_err(anyhow::Error::from)?).context("zipping backup.json")?;
    zip.finish().map_err(anyhow::Error::from)?.flush().context("writing the backup")?;
    Ok(manifest)
}

/// Adds the files under `dir` as `prefix/...` (nothing when it does not exist).
fn add_tree<W: Write + Seek>(zip: &mut zip::ZipWriter<W>, dir: &Path, prefix: &str) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let kind = entry.file_type().with_context(|| format!("reading {}", path.display()))?;
        if kind.is_dir() {
            add_tree(zip, &path, &format!("{prefix}/{name}"))?;
        } else if kind.is_file() {
            zip.start_file(format!("{prefix}/{name}"), zip_options()).map_err(anyhow::Error::from)?;
            std::io::copy(&mut File::open(&path).with_context(|| format!("reading {}", path.display()))?, zip)
                .with_context(|| format!("zipping {}", path.display()))?;
        }
    }
    Ok(())
}

/// What a restore put back.
#[derive(Debug, Clone, Serialize)]
pub struct Restored {
    pub data_dir: PathBuf,
    pub created_at: i64,
    pub projects: i64,
    pub sessions: i64,
    pub messages: i64,
    pub memories: i64,
    /// Tool servers, turned off and without their secrets.
    pub tool_servers: i64,
    pub files: usize,
    pub prompts: usize,
}

impl std::fmt::Display for Restored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let when = chrono::DateTime::from_timestamp_millis(self.created_at).map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string());
        writeln!(f, "restored the backup of {} into {}", when.as_deref().unwrap_or("an unknown date"), self.data_dir.display())?;
        writeln!(f, "  {} projects, {} chats, {} messages, {} memories", self.projects, self.sessions, self.messages, self.memories)?;
        writeln!(f, "  {} stored files, {} prompt overrides", self.files, self.prompts)?;
        if self.tool_servers > 0 {
            writeln!(
                f,
                "  {} tool servers, turned off: their variables and headers are not in backups; fill them in and turn them on in the settings",
                self.tool_servers
            )?;
        }
        write!(f, "the API key is not in backups: set it again in the settings")
    }
}

/// Where an entry of a backup may go: `maru.db`, `backup.json`, or a plain relative path under
/// `blobs/` or `prompts/`. Anything else (`..`, an absolute path, another folder) is refused, so
/// a crafted zip cannot write outside the data folder.
fn entry_path(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    if !path.components().all(|c| matches!(c, Component::Normal(_))) || name.contains('\\') {
        return None;
    }
    let first = path.components().next()?.as_os_str().to_str()?;
    let ok = match first {
        "maru.db" | "backup.json" => path.components().count() == 1,
        "blobs" | "prompts" => path.components().count() > 1,
        _ => false,
    };
    ok.then(|| path.to_path_buf())
}

fn not_a_backup(message: impl Into<String>) -> Error {
    Error::invalid(Code::NotABackup, message)
}

/// The most an entry may unpack to, by where it goes; `None`: the free disk only (the database
/// is as large as the user's data). Backups are written by Maru, so anything larger is crafted.
fn entry_max(path: &Path) -> Option<u64> {
    match path.components().next()?.as_os_str().to_str()? {
        // The largest file a chat takes (the file size limit's highest setting).
        "blobs" => Some(1024 << 20),
        // A prompt template or the manifest is text a person writes.
        "prompts" | "backup.json" => Some(1 << 20),
        _ => None,
    }
}

/// Room left on the disk after unpacking, so that the restored Maru can still write.
const DISK_SPARE: u64 = 64 << 20;

/// The entries' declared sizes fit on a disk with `free` bytes (`None`: unknown, trusted).
fn fits(declared: u64, free: Option<u64>) -> Result<()> {
    match free {
        Some(free) if declared.saturating_add(DISK_SPARE) > free => Err(Error::invalid(
            Code::NotEnoughSpace,
            format!(
                "the backup unpacks to {} MB and the disk has {} MB free; make room, or restore it onto another disk",
                declared >> 20,
                free >> 20
            ),
        )
        .with("needed_mb", declared >> 20)
        .with("free_mb", free >> 20)),
        _ => Ok(()),
    }
}

/// Free bytes on the disk holding `dir` (or its nearest existing parent).
fn free_bytes(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|d| d.exists())?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is a NUL-terminated string and `stat` a struct statvfs to fill.
        if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)]
        Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
    }
    #[cfg(not(unix))]
    {
        let _ = existing;
        None
    }
}

/// Every name the zip's central directory lists, as often as it lists it. The zip reader keeps
/// one entry a name (the last), so a second `maru.db` would otherwise replace the first unseen.
fn listed_names(backup: &Path, directory_start: u64) -> Result<Vec<String>> {
    let damaged = |e: std::io::Error| not_a_backup(format!("the zip is damaged: {e}"));
    let mut file = File::open(backup).map_err(damaged)?;
    file.seek(SeekFrom::Start(directory_start)).map_err(damaged)?;
    let mut reader = BufReader::new(file);
    let mut names = vec![];
    loop {
        // A central directory header: its signature, fixed fields, then name, extra, comment.
        let mut fixed = [0u8; 46];
        if reader.read_exact(&mut fixed).is_err() || fixed[..4] != [0x50, 0x4b, 0x01, 0x02] {
            return Ok(names);
        }
        let len = |at: usize| usize::from(u16::from_le_bytes([fixed[at], fixed[at + 1]]));
        let mut name = vec![0; len(28)];
        reader.read_exact(&mut name).map_err(damaged)?;
        reader.seek_relative((len(30) + len(32)) as i64).map_err(damaged)?;
        names.push(String::from_utf8_lossy(&name).into_owned());
    }
}

/// Restores a backup into `data_dir`, which must be empty or not exist yet. Every entry is
/// checked before anything is written; the database must pass `PRAGMA integrity_check`, or the
/// folder is left as it was found.
pub fn restore(backup: &Path, data_dir: &Path) -> Result<Restored> {
    if let Ok(mut entries) = std::fs::read_dir(data_dir) {
        if entries.next().is_some() {
            return Err(Error::conflict(
                Code::DataDirNotEmpty,
                format!("{} is not empty; restore into a new folder (and start Maru with --data-dir pointing at it)", data_dir.display()),
            ));
        }
    } else if data_dir.exists() {
        return Err(Error::invalid(Code::DataDirUnusable, format!("{} is not a folder", data_dir.display())));
    }
    let file = File::open(backup).map_err(|e| Error::invalid(Code::NotABackup, format!("cannot open {}: {e}", backup.display())))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| not_a_backup(format!("{} is not a zip file: {e}", backup.display())))?;

    let manifest: Manifest = {
        let mut entry = zip.by_name("backup.json").map_err(|_| not_a_backup("this zip is not a Maru backup (it has no backup.json)"))?;
        let mut text = String::new();
        // Read no further than a manifest can be, whatever it says it is.
        let max = entry_max(Path::new("backup.json")).unwrap_or_default();
        (&mut entry).take(max + 1).read_to_string(&mut text).map_err(|e| not_a_backup(format!("backup.json cannot be read: {e}")))?;
        if text.len() as u64 > max {
            return Err(not_a_backup("backup.json is larger than a backup's manifest can be"));
        }
        serde_json::from_str(&text).map_err(|e| not_a_backup(format!("backup.json is not valid: {e}")))?
    };
    if manifest.format != FORMAT || manifest.version != VERSION {
        return Err(not_a_backup(format!(
            "this is a {} version {} file; this Maru restores {FORMAT} version {VERSION}",
            manifest.format, manifest.version
        )));
    }
    let mut seen = HashSet::new();
    for name in listed_names(backup, zip.central_directory_start())? {
        if !seen.insert(name.clone()) {
            return Err(not_a_backup(format!("the backup holds {name:?} twice, so it is not one Maru wrote; nothing was restored")));
        }
    }
    let mut names = Vec::with_capacity(zip.len());
    // Paths as the disk tells them apart: `blobs//x` is `blobs/x`, and some disks ignore case.
    let mut places = HashSet::new();
    let mut declared = 0u64;
    for i in 0..zip.len() {
        let entry = zip.by_index_raw(i).map_err(|e| not_a_backup(format!("the zip is damaged: {e}")))?;
        if entry.is_dir() {
            continue;
        }
        let path = entry_path(entry.name()).filter(|_| !entry.is_symlink()).ok_or_else(|| {
            Error::invalid(
                Code::UnsafeBackupEntry,
                format!("the backup holds {:?}, which is not a place in a data folder; nothing was restored", entry.name()),
            )
        })?;
        let place: Vec<String> = path.components().map(|c| c.as_os_str().to_string_lossy().to_lowercase()).collect();
        if !places.insert(place) {
            return Err(not_a_backup(format!(
                "the backup holds {:?} twice, so it is not one Maru wrote; nothing was restored",
                entry.name()
            )));
        }
        if let Some(max) = entry_max(&path).filter(|max| entry.size() > *max) {
            return Err(Error::invalid(
                Code::BackupTooLarge,
                format!(
                    "{} in the backup is {} MB, past the {} MB such a file can be; nothing was restored",
                    entry.name(),
                    entry.size() >> 20,
                    max >> 20
                ),
            )
            .with("entry", entry.name())
            .with("max_mb", max >> 20));
        }
        declared = declared.saturating_add(entry.size());
        names.push((i, path, entry.size()));
    }
    if !names.iter().any(|(_, p, _)| p == Path::new("maru.db")) {
        return Err(not_a_backup("the backup holds no maru.db"));
    }
    fits(declared, free_bytes(data_dir))?;

    let existed = data_dir.exists();
    crate::paths::create_private_dir(data_dir)?;
    let result = unpack(&mut zip, &names, data_dir).and_then(|()| check_restored(data_dir, &manifest));
    if result.is_err() {
        // Leave the folder as it was found: empty, or not there.
        if let Ok(entries) = std::fs::read_dir(data_dir) {
            for e in entries.flatten() {
                let _ = if e.path().is_dir() { std::fs::remove_dir_all(e.path()) } else { std::fs::remove_file(e.path()) };
            }
        }
        if !existed {
            let _ = std::fs::remove_dir(data_dir);
        }
    }
    result
}

/// Unpacks the entries, none past the size it declared (which was checked): an entry that
/// inflates to more is damaged or crafted, and stops the restore there.
fn unpack(zip: &mut zip::ZipArchive<File>, names: &[(usize, PathBuf, u64)], data_dir: &Path) -> Result<()> {
    for (i, rel, declared) in names {
        if rel == Path::new("backup.json") {
            continue;
        }
        let mut entry = zip.by_index(*i).map_err(|e| not_a_backup(format!("the zip is damaged: {e}")))?;
        let to = data_dir.join(rel);
        if let Some(dir) = to.parent() {
            crate::paths::create_private_dir(dir)?;
        }
        let mut out = File::create(&to).with_context(|| format!("creating {}", to.display()))?;
        let copied = std::io::copy(&mut (&mut entry).take(declared + 1), &mut out)
            .map_err(|e| not_a_backup(format!("{} cannot be unpacked: {e}", rel.display())))?;
        if copied > *declared {
            return Err(not_a_backup(format!("{} holds more than the backup says it does; nothing was restored", rel.display())));
        }
        out.sync_all().with_context(|| format!("writing {}", to.display()))?;
    }
    Ok(())
}

fn check_restored(data_dir: &Path, manifest: &Manifest) -> Result<Restored> {
    let counts = crate::store::backups::check_and_count(&data_dir.join("maru.db"))
        .map_err(|why| Error::invalid(Code::BackupDamaged, format!("the database in the backup: {why}")))?;
    Ok(Restored {
        data_dir: data_dir.to_path_buf(),
        created_at: manifest.created_at,
        projects: counts.projects,
        sessions: counts.sessions,
        messages: counts.messages,
        memories: counts.memories,
        tool_servers: counts.tool_servers,
        files: count_files(&data_dir.join("blobs")),
        prompts: count_files(&data_dir.join("prompts")),
    })
}

fn count_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries.flatten().map(|e| if e.path().is_dir() { count_files(&e.path()) } else { 1 }).sum()
}

#[cfg(test)]
mod tests {
    use super::{entry_path, fits};

    #[test]
    fn only_places_inside_a_data_folder_are_restored() {
        for ok in ["maru.db", "backup.json", "blobs/ab/abcdef", "prompts/base.md"] {
            assert!(entry_path(ok).is_some(), "{ok} belongs in a data folder");
        }
        for bad in ["../maru.db", "/etc/passwd", "blobs/../../x", "logs/maru.log", "blobs", "maru.db/x", "prompts\\..\\x", "./maru.db"] {
            assert!(entry_path(bad).is_none(), "{bad} must be refused: it is outside the data folder or not part of a backup");
        }
    }

    #[test]
    fn a_backup_is_unpacked_only_onto_a_disk_with_room_for_it() {
        let gb = 1u64 << 30;
        let e = fits(4 * gb, Some(gb)).expect_err("4 GB do not fit on a disk with 1 GB free");
        assert_eq!(e.code(), "not_enough_space", "refused before anything is written: {e}");
        assert!(e.to_string().contains("4096 MB") && e.to_string().contains("1024 MB"), "it says what is needed and what is free: {e}");
        assert!(fits(gb, Some(4 * gb)).is_ok(), "1 GB fits on a disk with 4 GB free");
        assert!(fits(u64::MAX, Some(4 * gb)).is_err(), "a size declared to overflow does not fit either");
    }
}
