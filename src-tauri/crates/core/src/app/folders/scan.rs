//! What a linked folder holds, looked at without trusting it: which folders may be linked, the
//! files to mirror, and reading one of them. A folder can be anything the user points at: `/proc`,
//! whose `kmsg` blocks a read forever, a network drive that stops answering. So only regular
//! files are read, each read is bounded in bytes and in time, and the looking happens on threads
//! of its own: a read that never returns costs one parked thread, never a sync, another folder,
//! or Maru's shutdown (tokio waits for its blocking pool at shutdown; it does not wait for these).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error::{Code, Error, Result};

/// Files mirrored from one folder at most (a folder with more is mirrored in part, noted).
pub const MAX_FILES: usize = 2_000;
/// A walk of the folder that takes longer is given up (a drive that stopped answering).
pub const WALK_DEADLINE: Duration = Duration::from_secs(60);
/// One file's read that takes longer is given up, and the file noted as `slow`.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// Folders whose files are the system's, not documents: reading them can block for ever
/// (`/proc/kmsg`), return endless data, or touch devices.
const SYSTEM: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Checks a folder the user names: an absolute path to a directory that can be read, not the
/// root nor a system folder. Returns it without `.`/`..` parts and links (the form every later
/// comparison uses).
pub fn check_folder(raw: &str) -> Result<String> {
    let refuse = |why: String| Error::invalid(Code::InvalidFolder, why).with("folder", raw);
    let path = Path::new(raw.trim());
    if raw.trim().is_empty() || !path.is_absolute() {
        return Err(refuse(format!("{raw:?} is not an absolute path to a folder")));
    }
    let real = std::fs::canonicalize(path).map_err(|e| refuse(format!("the folder {raw:?} cannot be opened: {e}")))?;
    if is_system(&real) {
        return Err(Error::invalid(
            Code::SystemFolder,
            format!(
                "{raw:?} is a system folder: its files are not documents, and reading some of them never ends; link a folder of your own"
            ),
        )
        .with("folder", raw));
    }
    if !real.is_dir() {
        return Err(refuse(format!("{raw:?} is a file, not a folder")));
    }
    std::fs::read_dir(&real).map_err(|e| refuse(format!("the folder {raw:?} cannot be read: {e}")))?;
    Ok(real.to_string_lossy().into_owned())
}

/// Patterns of paths to leave out a project may hold at most, and the length of one.
pub const EXCLUDE_MAX_PATTERNS: usize = 200;
pub const EXCLUDE_MAX_CHARS: usize = 500;

/// Checks the patterns the user leaves out of a folder with (`.gitignore`'s syntax, one per
/// line): blank lines and surrounding spaces go; a pattern that is not one, too many or too long
/// is refused, naming it.
pub fn check_exclude(raw: &[String]) -> Result<Vec<String>> {
    let patterns: Vec<String> = raw.iter().flat_map(|p| p.lines()).map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect();
    if patterns.len() > EXCLUDE_MAX_PATTERNS {
        return Err(Error::invalid(
            Code::InvalidExclude,
            format!("at most {EXCLUDE_MAX_PATTERNS} patterns can leave paths out ({} given)", patterns.len()),
        )
        .with("pattern", &patterns[EXCLUDE_MAX_PATTERNS]));
    }
    for p in &patterns {
        if p.chars().count() > EXCLUDE_MAX_CHARS {
            let start: String = p.chars().take(40).chain(['…']).collect();
            return Err(Error::invalid(
                Code::InvalidExclude,
                format!("the pattern {start:?} is longer than {EXCLUDE_MAX_CHARS} characters"),
            )
            .with("pattern", start));
        }
        let mut one = ignore::gitignore::GitignoreBuilder::new("/");
        if let Err(e) = one.add_line(None, p).and_then(|b| b.build().map(|_| ())) {
            return Err(Error::invalid(Code::InvalidExclude, format!("{p:?} is not a pattern of paths: {e}")).with("pattern", p));
        }
    }
    Ok(patterns)
}

/// The file system's root, or a folder in or under `/proc`, `/sys`, `/dev` (`path` canonical).
fn is_system(path: &Path) -> bool {
    path.parent().is_none() || SYSTEM.iter().any(|s| path.starts_with(s))
}

/// A file to mirror, as the walk saw it.
pub struct Found {
    /// Relative to the folder, with `/`.
    pub rel: String,
    pub path: PathBuf,
    pub size: u64,
    pub modified: Option<SystemTime>,
}

/// The regular files of `folder` to mirror, and the ones left out with why (path relative to
/// the folder). Hidden and ignored paths are not walked, links are not followed, special files
/// (pipes, sockets, devices) are not files, and an empty file has nothing to mirror (which also
/// leaves out the kernel's files, all of which say they are empty).
/// `exclude`: the project's own patterns (checked by `check_exclude`), read as a `.gitignore` at
/// the folder's top.
pub fn walk(folder: &Path, max_bytes: u64, exclude: &[String]) -> (Vec<Found>, Vec<(String, String)>) {
    let (mut found, mut skipped) = (vec![], vec![]);
    let mut patterns = ignore::gitignore::GitignoreBuilder::new(folder);
    for p in exclude {
        // Checked when saved; one that no longer parses (a newer syntax rule) leaves out nothing.
        let _ = patterns.add_line(None, p);
    }
    let excluded = patterns.build().unwrap_or_else(|_| ignore::gitignore::Gitignore::empty());
    let walker = ignore::WalkBuilder::new(folder)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .ignore(true)
        .parents(false)
        .require_git(false)
        // The user's own list of what Maru leaves out, beside what git leaves out.
        .add_custom_ignore_filename(".maruignore")
        .follow_links(false)
        .same_file_system(true)
        .filter_entry(move |e| !excluded.matched(e.path(), e.file_type().is_some_and(|k| k.is_dir())).is_ignore())
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
        let rel = relative(folder, entry.path());
        if !kind.is_file() {
            if kind.is_symlink() {
                skipped.push((rel, "link".into()));
            } else if !kind.is_dir() {
                skipped.push((rel, "special_file".into()));
            }
            continue;
        }
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
        if meta.len() == 0 {
            skipped.push((rel, "empty".into()));
            continue;
        }
        if meta.len() > max_bytes {
            skipped.push((rel, "too_large".into()));
            continue;
        }
        if found.len() >= MAX_FILES {
            skipped.push((rel, "too_many".into()));
            continue;
        }
        found.push(Found { rel, path: entry.path().to_path_buf(), size: meta.len(), modified: meta.modified().ok() });
    }
    (found, skipped)
}

fn relative(folder: &Path, path: &Path) -> String {
    path.strip_prefix(folder).unwrap_or(path).components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Why a file was not read.
#[derive(Debug, PartialEq)]
pub enum Unread {
    /// It did not answer within the deadline (the read goes on, parked, and is forgotten).
    Slow,
    /// It grew past the size limit while read.
    TooLarge,
    /// Not a regular file by the time it was opened.
    Special,
    Failed(String),
}

impl Unread {
    /// The reason noted in a sync's `skipped`.
    pub fn reason(&self) -> String {
        match self {
            Unread::Slow => "slow".into(),
            Unread::TooLarge => "too_large".into(),
            Unread::Special => "special_file".into(),
            Unread::Failed(e) => format!("unreadable: {e}"),
        }
    }
}

/// Reads a regular file of at most `max_bytes`, giving up after `deadline`.
pub async fn read(path: PathBuf, max_bytes: u64, deadline: Duration) -> Result<Vec<u8>, Unread> {
    off_thread(deadline, move || read_now(&path, max_bytes)).await.unwrap_or(Err(Unread::Slow))
}

fn read_now(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Unread> {
    let file = open_nonblocking(path).map_err(|e| Unread::Failed(e.to_string()))?;
    let meta = file.metadata().map_err(|e| Unread::Failed(e.to_string()))?;
    if !meta.is_file() {
        return Err(Unread::Special); // swapped for a pipe or a device since the walk
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max_bytes) as usize);
    file.take(max_bytes + 1).read_to_end(&mut bytes).map_err(|e| Unread::Failed(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(Unread::TooLarge);
    }
    Ok(bytes)
}

/// Opening a pipe for reading waits for a writer; without blocking it does not (a regular file
/// reads the same either way).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Runs `work` on a thread of its own and waits for it at most `deadline`: `None` when it did
/// not finish. The thread is not joined: one stuck in a read stays parked and holds up nothing.
pub async fn off_thread<T: Send + 'static>(deadline: Duration, work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("maru-folder".into()).spawn(move || {
        let _ = tx.send(work());
    });
    if spawned.is_err() {
        return None;
    }
    tokio::time::timeout(deadline, rx).await.ok()?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_and_the_system_folders_are_refused_with_their_own_code() {
        for raw in ["/", "/proc", "/proc/self", "/sys", "/sys/kernel", "/dev", "/proc/../proc"] {
            let Err(e) = check_folder(raw) else { panic!("{raw} must not be linked: its files are not documents") };
            assert_eq!(e.code(), "system_folder", "{raw}: the user is told it is a system folder, not that it cannot be read");
        }
        let own = tempfile::tempdir().unwrap();
        let checked = check_folder(own.path().to_str().unwrap()).expect("a folder of the user's own is linked");
        assert!(Path::new(&checked).is_absolute());
        // Only the folders themselves: a name that merely starts the same way is the user's.
        assert!(!is_system(Path::new("/procedures")) && !is_system(Path::new("/home/me/dev")));
    }

    #[tokio::test]
    async fn a_read_that_never_returns_is_given_up_and_holds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("notes.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A writer that opens the pipe and never writes: a read of it blocks until it closes,
        // as a read of /proc/kmsg does.
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
                std::thread::sleep(Duration::from_secs(30));
                drop(f);
            })
        };
        let blocked = off_thread(Duration::from_millis(300), move || {
            let mut f = std::fs::File::open(&fifo).unwrap();
            let mut buf = [0u8; 1];
            f.read(&mut buf).ok()
        })
        .await;
        assert_eq!(blocked, None, "a read that does not answer is given up at the deadline, not waited for");
        drop(writer);

        let pipe = dir.path().join("pipe.md");
        let c = std::ffi::CString::new(pipe.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(
            read(pipe, 1024, Duration::from_secs(5)).await,
            Err(Unread::Special),
            "a pipe is refused at once, not waited on for a writer"
        );
        let (found, skipped) = walk(dir.path(), 1024, &[]);
        assert!(found.is_empty(), "pipes are not mirrored");
        assert!(skipped.iter().all(|(_, why)| why == "special_file"), "and are noted as special files: {skipped:?}");
    }

    #[test]
    fn the_projects_patterns_leave_paths_out_as_a_gitignore_would() {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("docs/guide.md", "g"),
            ("docs/keep.md", "k"),
            ("src/main.rs", "m"),
            ("build.log", "l"),
            ("src/gen/out.min.js", "j"),
            ("a.md", "a"),
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let exclude = check_exclude(&["  docs/*\n!docs/keep.md".into(), "".into(), "*.log".into(), "**/*.min.js".into()]).unwrap();
        assert_eq!(exclude, ["docs/*", "!docs/keep.md", "*.log", "**/*.min.js"], "lines are split and blank ones dropped");
        let (found, _) = walk(dir.path(), 1024, &exclude);
        let mut kept: Vec<_> = found.iter().map(|f| f.rel.as_str()).collect();
        kept.sort();
        assert_eq!(kept, ["a.md", "docs/keep.md", "src/main.rs"], "what the patterns name is left out, and a `!` keeps a path back");
        let (all, _) = walk(dir.path(), 1024, &[]);
        assert_eq!(all.len(), 6, "without patterns every file is mirrored");
    }

    #[test]
    fn a_pattern_that_is_not_one_is_refused_naming_it() {
        let e = check_exclude(&["src/{a,b".into()]).unwrap_err();
        assert_eq!(e.code(), "invalid_exclude");
        assert_eq!(e.body().params.get("pattern").map(String::as_str), Some("src/{a,b"), "the user is told which line to fix");
        assert!(check_exclude(&vec!["x".to_string(); EXCLUDE_MAX_PATTERNS + 1]).is_err(), "a list past the limit is refused");
        assert!(check_exclude(&["y".repeat(EXCLUDE_MAX_CHARS + 1)]).is_err(), "a pattern past the limit is refused");
    }

    #[tokio::test]
    async fn a_file_is_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "x".repeat(100)).unwrap();
        assert_eq!(read(path.clone(), 100, READ_DEADLINE).await.map(|b| b.len()), Ok(100));
        assert_eq!(read(path, 99, READ_DEADLINE).await, Err(Unread::TooLarge), "a file grown past the limit is not read whole");
    }
}
