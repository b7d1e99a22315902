//! The skills a linked project folder carries, as coding tools keep them: every
//! `.claude/skills/<name>/SKILL.md` and `.agents/skills/<name>/SKILL.md` of the folder itself.
//! They are read from disk, not stored: what the folder holds now is what the chat is offered
//! (an edited SKILL.md is read again, a removed one is gone), found by a few `stat`s a turn.
//!
//! A chat in the project is offered them beside the stored skills: a skill stored for the
//! project wins over a folder's one of the same name, and a folder's one wins over a global
//! skill (it is the project's own). A SKILL.md that is not a skill (no front matter, too long)
//! is left out and logged. Reference files are the skill folder's text files (not hidden, not
//! links, within `SKILL_MAX_BYTES` in all), read when the model asks for them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

use rusqlite::Connection;

use crate::error::Result;
use crate::store::skills::{self, Skill, SkillFile, SKILL_MAX_BYTES};

/// Where a folder keeps its skills, each in a folder of its own.
const PLACES: [&str; 2] = [".claude/skills", ".agents/skills"];
/// Skills read from one folder at most.
const MAX_SKILLS: usize = 200;
/// Files listed in a skill's folder at most, and how deep.
const MAX_FILES: usize = 500;
const MAX_DEPTH: usize = 8;

/// A skill a chat is offered: stored, or read from the project's folder (`dir`).
#[derive(Debug, Clone)]
pub struct OfferedSkill {
    pub skill: Skill,
    /// The skill's folder on disk, for one read from the project's folder.
    pub dir: Option<PathBuf>,
}

impl std::ops::Deref for OfferedSkill {
    type Target = Skill;
    fn deref(&self) -> &Skill {
        &self.skill
    }
}

/// The SKILL.md files present, with their size and time: equal fingerprints, equal skills.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// A folder's skills as read, each with its folder on disk.
type Read = Arc<Vec<(Skill, PathBuf)>>;

fn fingerprint(folder: &Path) -> Fingerprint {
    let mut out = vec![];
    for place in PLACES {
        let Ok(entries) = std::fs::read_dir(folder.join(place)) else { continue };
        let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs.into_iter().take(MAX_SKILLS) {
            let md = dir.join("SKILL.md");
            if let Ok(meta) = std::fs::metadata(&md) {
                if meta.is_file() {
                    out.push((md, meta.len(), meta.modified().ok()));
                }
            }
        }
    }
    out
}

/// Reads the skills of `folder` (the first of a name wins: `.claude` before `.agents`).
fn read(print: &Fingerprint) -> Vec<(Skill, PathBuf)> {
    let mut out: Vec<(Skill, PathBuf)> = vec![];
    for (md, len, _) in print {
        if *len as usize > SKILL_MAX_BYTES {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(md) else { continue };
        let (name, description) = match skills::read_front_matter(&text) {
            Ok(v) => v,
            Err(e) => {
                tracing::info!(path = %md.display(), "a folder's SKILL.md is left out: {}", e.body().message);
                continue;
            }
        };
        if out.iter().any(|(s, _)| s.name.eq_ignore_ascii_case(&name)) {
            continue;
        }
        let dir = md.parent().map(Path::to_path_buf).unwrap_or_default();
        out.push((
            Skill { id: 0, project_id: None, name, description, text, enabled: true, off_in: vec![], created_at: 0, updated_at: 0 },
            dir,
        ));
    }
    out
}

/// Each linked folder's skills, read again only when a SKILL.md changes.
#[derive(Default)]
pub struct FolderSkills {
    known: Mutex<HashMap<PathBuf, (Fingerprint, Read)>>,
}

pub static KNOWN: LazyLock<FolderSkills> = LazyLock::new(FolderSkills::default);

impl FolderSkills {
    pub fn get(&self, folder: &Path) -> Read {
        let now = fingerprint(folder);
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((print, found)) = known.get(folder) {
            if *print == now {
                return found.clone();
            }
        }
        let found = Arc::new(read(&now));
        known.insert(folder.to_path_buf(), (now, found.clone()));
        found
    }

    /// Whether the folder's skills differ from when they were last read.
    pub fn changed(&self, folder: &Path) -> bool {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.get(folder).is_some_and(|(print, _)| *print != fingerprint(folder))
    }
}

/// The skills a chat in `project_id` is offered: the stored ones, and its folder's.
pub fn offered(conn: &Connection, project_id: i64) -> Result<Vec<OfferedSkill>> {
    let stored = skills::offered(conn, project_id)?;
    let folder = crate::store::projects::get(conn, project_id)?.folder;
    let mut out: Vec<OfferedSkill> = vec![];
    let from_folder = folder.map(|f| KNOWN.get(Path::new(&f))).unwrap_or_default();
    // A project's stored skill first, then the folder's, then the global ones not shadowed.
    for s in stored.iter().filter(|s| s.project_id.is_some()) {
        out.push(OfferedSkill { skill: s.clone(), dir: None });
    }
    for (s, dir) in from_folder.iter() {
        if !out.iter().any(|o| o.name.eq_ignore_ascii_case(&s.name)) {
            let skill = Skill { project_id: Some(project_id), ..s.clone() };
            out.push(OfferedSkill { skill, dir: Some(dir.clone()) });
        }
    }
    for s in stored.into_iter().filter(|s| s.project_id.is_none()) {
        if !out.iter().any(|o| o.name.eq_ignore_ascii_case(&s.name)) {
            out.push(OfferedSkill { skill: s, dir: None });
        }
    }
    out.sort_by_key(|a| a.name.to_lowercase());
    Ok(out)
}

/// A skill's reference files: stored ones from the store, a folder's read from its folder (its
/// text files; hidden files, links and binary files are not among them).
pub fn files(conn: &Connection, skill: &OfferedSkill) -> Result<Vec<SkillFile>> {
    let Some(dir) = &skill.dir else {
        return skills::files(conn, skill.id);
    };
    let mut out = vec![];
    let mut total = skill.text.len();
    let mut stack = vec![(dir.clone(), 0usize)];
    while let Some((at, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else { continue };
        let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().to_string();
            let Ok(kind) = entry.file_type() else { continue };
            if name.starts_with('.') || kind.is_symlink() {
                continue;
            }
            let path = entry.path();
            if kind.is_dir() {
                if depth + 1 < MAX_DEPTH {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            let rel = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if !kind.is_file() || rel == "SKILL.md" || out.len() >= MAX_FILES {
                continue;
            }
            let size = entry.metadata().map(|m| m.len() as usize).unwrap_or(usize::MAX);
            if total.saturating_add(size) > SKILL_MAX_BYTES {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else { continue };
            if let Ok(content) = String::from_utf8(bytes) {
                if !content.contains('\0') {
                    total += content.len();
                    out.push(SkillFile { path: rel, content });
                }
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}
