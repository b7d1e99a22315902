//! The instructions files of a project's folder: the `AGENTS.md`, `CLAUDE.md` and `GEMINI.md`
//! that coding tools read, found from the folder upwards, as other tools find them.
//!
//! - From the folder up to the repository's root (the nearest folder with `.git`), else up to
//!   the home folder, else to the file system's root.
//! - One file per folder level: where several are present, `CLAUDE.md` (or `.claude/CLAUDE.md`)
//!   shadows `.codex/AGENTS.md`, which shadows `AGENTS.md`, which shadows `GEMINI.md` (or
//!   `.gemini/GEMINI.md`). A level whose folder is hidden (its name starts with a dot) is skipped.
//! - Ordered from the most general (the farthest up) to the most specific (the folder itself):
//!   later text weighs more with a model, so the nearer file wins where they disagree.
//! - A body byte-identical to a nearer one is sent once, at the nearer place.
//! - At most `MAX_FILES` files of at most `MAX_FILE_BYTES` each; reading stops at a deadline and
//!   sends what it has (saying so). An unreadable or non-UTF-8 file is noted, never fatal.
//!
//! A file's path, size and modification time are its fingerprint: the files are read again only
//! when one of them changed, so an unchanged folder costs a few `stat`s a turn and keeps the
//! prompt, and the server's prefix cache, as they were.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

/// Instructions files sent at most.
pub const MAX_FILES: usize = 16;
/// A larger file is noted and left out.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// All of them together: past this, the farther ones are noted and left out.
pub const MAX_TOTAL_BYTES: usize = 96 * 1024;
/// Levels looked at above the folder at most (a folder deep in the file system).
const MAX_LEVELS: usize = 32;
/// Reading the files stops after this long (a slow network drive): what was read is sent.
const DEADLINE: Duration = Duration::from_secs(2);

/// The names looked for in each folder, the one that wins a level first.
const NAMES: [&str; 6] = [".claude/CLAUDE.md", "CLAUDE.md", ".codex/AGENTS.md", "AGENTS.md", ".gemini/GEMINI.md", "GEMINI.md"];

/// Whether a path in a folder (relative, with `/`) is one of the folder's own instructions files.
pub fn is_instructions_name(rel: &str) -> bool {
    NAMES.contains(&rel)
}

/// One instructions file as sent.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InstructionFile {
    /// Where it was read (absolute).
    pub path: String,
    pub content: String,
    /// Levels above the project's folder (0: the folder itself).
    pub depth: usize,
}

/// A file found but not sent, and why: a code the UI words, with the path.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    pub path: String,
    /// `shadowed`, `duplicate`, `too_large`, `unreadable`, `not_text`, `too_many`, `deadline`,
    /// `outside`.
    pub why: String,
}

/// What the folder's instructions are now.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Found {
    /// Most general first.
    pub files: Vec<InstructionFile>,
    pub skipped: Vec<Skipped>,
}

/// (path, size, modified) of every candidate present: equal fingerprints, equal files.
pub type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The candidate files present above and in `folder`, nearest level first, each level's in the
/// order of `NAMES`, with their depth. `stat`s only.
fn candidates(folder: &Path) -> Vec<(PathBuf, usize, std::fs::Metadata)> {
    let stop = stop_at(folder);
    let mut out = vec![];
    let mut dir = folder.to_path_buf();
    for depth in 0..MAX_LEVELS {
        let hidden = depth > 0 && dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if !hidden {
            for name in NAMES {
                let path = dir.join(name);
                if let Ok(meta) = std::fs::metadata(&path) {
                    if meta.is_file() {
                        out.push((path, depth, meta));
                    }
                }
            }
        }
        if stop.as_deref() == Some(dir.as_path()) {
            break;
        }
        match dir.parent() {
            Some(parent) => dir = parent.to_path_buf(),
            None => break,
        }
    }
    out
}

/// Where the walk up ends: the repository's root, else the home folder when the folder is in it.
fn stop_at(folder: &Path) -> Option<PathBuf> {
    if let Some(repo) = folder.ancestors().find(|d| d.join(".git").exists()) {
        return Some(repo.to_path_buf());
    }
    dirs::home_dir().filter(|home| folder.starts_with(home))
}

pub fn fingerprint(folder: &Path) -> Fingerprint {
    candidates(folder).into_iter().map(|(path, _, meta)| (path, meta.len(), meta.modified().ok())).collect()
}

/// Reads the folder's instructions files by the rules above.
pub fn read(folder: &Path) -> Found {
    let started = Instant::now();
    let root = stop_at(folder);
    let mut found = Found::default();
    let mut level_taken: Option<usize> = None;
    // Nearest first, so that a duplicate body is kept at its nearest place.
    let mut kept: Vec<InstructionFile> = vec![];
    for (path, depth, meta) in candidates(folder) {
        let shown = path.display().to_string();
        let skip = |found: &mut Found, why: &str| found.skipped.push(Skipped { path: shown.clone(), why: why.into() });
        if level_taken == Some(depth) {
            skip(&mut found, "shadowed");
            continue;
        }
        if kept.len() >= MAX_FILES || kept.iter().map(|k| k.content.len()).sum::<usize>() + meta.len() as usize > MAX_TOTAL_BYTES {
            skip(&mut found, "too_many");
            continue;
        }
        if started.elapsed() > DEADLINE {
            skip(&mut found, "deadline");
            continue;
        }
        // A link may point anywhere: only what stays under the walk's root is read.
        if let (Ok(real), Some(root)) = (std::fs::canonicalize(&path), root.as_ref().and_then(|r| std::fs::canonicalize(r).ok())) {
            if !real.starts_with(&root) {
                skip(&mut found, "outside");
                continue;
            }
        }
        if meta.len() > MAX_FILE_BYTES {
            skip(&mut found, "too_large");
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                tracing::info!(path = %shown, "an instructions file cannot be read: {e}");
                skip(&mut found, "unreadable");
                continue;
            }
        };
        let Ok(content) = String::from_utf8(bytes) else {
            skip(&mut found, "not_text");
            continue;
        };
        level_taken = Some(depth);
        if content.trim().is_empty() {
            continue;
        }
        if kept.iter().any(|k| k.content == content) {
            skip(&mut found, "duplicate");
            continue;
        }
        kept.push(InstructionFile { path: shown, content, depth });
    }
    kept.reverse();
    found.files = kept;
    found
}

/// Every linked folder's instructions, for the whole process (a folder is the same folder for
/// every data folder and session that names it).
pub static KNOWN: std::sync::LazyLock<InstructionFiles> = std::sync::LazyLock::new(InstructionFiles::default);

/// The instructions of each linked folder, read again only when its fingerprint changes.
#[derive(Default)]
pub struct InstructionFiles {
    known: std::sync::Mutex<std::collections::HashMap<PathBuf, (Fingerprint, std::sync::Arc<Found>)>>,
}

impl InstructionFiles {
    /// The folder's instructions now, and whether they changed since last asked.
    pub fn get(&self, folder: &Path) -> std::sync::Arc<Found> {
        let now = fingerprint(folder);
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((print, found)) = known.get(folder) {
            if *print == now {
                return found.clone();
            }
        }
        let found = std::sync::Arc::new(read(folder));
        known.insert(folder.to_path_buf(), (now, found.clone()));
        found
    }

    /// Whether the folder's files differ from when they were last read (a few `stat`s).
    pub fn changed(&self, folder: &Path) -> bool {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.get(folder).is_none_or(|(print, _)| *print != fingerprint(folder))
    }
}
