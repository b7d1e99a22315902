//! The instructions files of a project's folder: the `AGENTS.md`, `CLAUDE.md` and `GEMINI.md`
//! that coding tools read, found from the folder upwards, as those tools mean them.
//!
//! - From the folder up to the repository's root (the nearest folder with `.git`), else up to
//!   the home folder, else to the file system's root. A level whose folder is hidden (its name
//!   starts with a dot) is skipped.
//! - Each folder level sends, in this order: its AGENTS.md (`.codex/AGENTS.md`, else
//!   `AGENTS.md`: the same tool's file, the first readable one wins), then its CLAUDE.md
//!   (`.claude/CLAUDE.md`, else `CLAUDE.md`). Where both are present and differ, both reach the
//!   model, AGENTS.md first (the tool-neutral rules, then the more particular ones); a body
//!   identical to one already sent is sent once. `GEMINI.md` (`.gemini/GEMINI.md`, else
//!   `GEMINI.md`) is read only at a level that has neither: a repository that keeps all three
//!   usually writes the same rules three ways, and where it is the only one it is the rules.
//! - `@path` imports, as Claude Code and Gemini CLI read them, in CLAUDE.md and GEMINI.md and in
//!   every file they import (Codex does not read imports in AGENTS.md, so neither does Maru): an
//!   `@` at a line's start or after a space, then a path relative to the importing file, or
//!   `~/…`, or absolute (`\ ` for a space). Not inside an inline code span or a fenced block.
//!   Recursive up to `MAX_IMPORT_DEPTH` levels; a file already on the chain (a cycle) or already
//!   sent is not sent again. An imported file is sent just before the file that imports it (what
//!   it builds on first), named with where it came from; a line made only of imports is dropped
//!   from the importing file (the model gets the rules, not the line `@AGENTS.md`), an import
//!   inside a sentence stays as written and names the file sent above. A file outside the
//!   repository is imported only when it is Markdown or plain text (never a key, a credentials
//!   file or a special file).
//! - Ordered from the most general (the farthest up) to the most specific (the folder itself):
//!   later text weighs more with a model, so the nearer file wins where they disagree.
//! - A body byte-identical to a nearer one is sent once, at the nearer place.
//! - At most `MAX_FILES` files of at most `MAX_FILE_BYTES` each, `MAX_TOTAL_BYTES` in all,
//!   imports included; reading stops at a deadline and sends what it has (saying so). An
//!   unreadable or non-UTF-8 file is noted, never fatal. What is read then counts toward section
//!   ③'s budget like the project's own instructions (`budget`).
//!
//! A file's path, size and modification time are its fingerprint (imported files included): the
//! files are read again only when one of them changed, so an unchanged folder costs a few
//! `stat`s a turn and keeps the prompt, and the server's prefix cache, as they were.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

/// Instructions files sent at most (imports included).
pub const MAX_FILES: usize = 16;
/// A larger file is noted and left out.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// All of them together: past this, the farther ones are noted and left out.
pub const MAX_TOTAL_BYTES: usize = 96 * 1024;
/// Imports followed from a file at most levels deep, as Claude Code does.
pub const MAX_IMPORT_DEPTH: usize = 5;
/// Levels looked at above the folder at most (a folder deep in the file system).
const MAX_LEVELS: usize = 32;
/// Reading the files stops after this long (a slow network drive): what was read is sent.
const DEADLINE: Duration = Duration::from_secs(2);

/// The files of one folder level, by tool: in each, the first readable name wins.
const AGENTS: [&str; 2] = [".codex/AGENTS.md", "AGENTS.md"];
const CLAUDE: [&str; 2] = [".claude/CLAUDE.md", "CLAUDE.md"];
const GEMINI: [&str; 2] = [".gemini/GEMINI.md", "GEMINI.md"];

/// What a file outside the repository may be to be imported: words, not keys or settings.
const IMPORTABLE_OUTSIDE: [&str; 6] = ["md", "markdown", "mdx", "mdc", "txt", "rst"];

/// Whether a path in a folder (relative, with `/`) is one of the folder's own instructions files.
pub fn is_instructions_name(rel: &str) -> bool {
    AGENTS.contains(&rel) || CLAUDE.contains(&rel) || GEMINI.contains(&rel)
}

/// One instructions file as sent.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InstructionFile {
    /// Where it was read (absolute).
    pub path: String,
    pub content: String,
    /// Levels above the project's folder (0: the folder itself); an import has its importer's.
    pub depth: usize,
    /// The file whose `@path` brought it in, if it was imported.
    #[serde(default)]
    pub imported_by: Option<String>,
    /// Its size in characters before the budget cut it (`None`: sent whole).
    #[serde(default)]
    pub raw_chars: Option<usize>,
}

/// A file found but not sent, and why: a code the UI words, with the path.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    pub path: String,
    /// `shadowed`, `duplicate`, `too_large`, `unreadable`, `not_text`, `too_many`, `deadline`,
    /// `outside`; for imports also `cycle`, `too_deep`, `missing`, `not_importable`; a file
    /// made only of imports (they are sent) is `imports_only`; `budget` when section ③'s budget
    /// left no room for it.
    pub why: String,
    /// The file whose `@path` named it, if it was an import.
    #[serde(default)]
    pub imported_by: Option<String>,
}

/// What the folder's instructions are now.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Found {
    /// Most general first.
    pub files: Vec<InstructionFile>,
    pub skipped: Vec<Skipped>,
}

/// (path, size, modified) of every candidate present and every import named: equal
/// fingerprints, equal files.
pub type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The candidate files present above and in `folder`, nearest level first, each level's in the
/// order of the tools above, with their depth. `stat`s only.
fn candidates(folder: &Path) -> Vec<(PathBuf, usize, std::fs::Metadata)> {
    let stop = stop_at(folder);
    let mut out = vec![];
    let mut dir = folder.to_path_buf();
    for depth in 0..MAX_LEVELS {
        let hidden = depth > 0 && dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if !hidden {
            for name in AGENTS.iter().chain(&CLAUDE).chain(&GEMINI) {
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

/// The `stat`s of the level files present (taken before reading them, so that a file changed
/// while it is read is read again next time).
fn level_stats(folder: &Path) -> Fingerprint {
    candidates(folder).into_iter().map(|(path, _, meta)| (path, meta.len(), meta.modified().ok())).collect()
}

/// The `stat`s of what the files imported, sent or not (an edited imported file is read again).
fn import_stats(last: &Found) -> Fingerprint {
    let imports = last.files.iter().filter(|f| f.imported_by.is_some()).map(|f| &f.path);
    let skipped = last.skipped.iter().filter(|s| s.imported_by.is_some()).map(|s| &s.path);
    imports
        .chain(skipped)
        .map(|p| {
            let meta = std::fs::metadata(p).ok();
            let (len, modified) = meta.map_or((0, None), |m| (m.len(), m.modified().ok()));
            (PathBuf::from(p), len, modified)
        })
        .collect()
}

/// The folder's fingerprint given what was last read from it.
pub fn fingerprint(folder: &Path, last: &Found) -> Fingerprint {
    let mut print = level_stats(folder);
    print.extend(import_stats(last));
    print
}

/// One `@path` found in a file's text, outside code.
#[derive(Debug, Clone, PartialEq)]
struct Import {
    /// As written, without the `@` (`\ ` unescaped).
    path: String,
    /// The line it is on (0-based), and whether that line holds nothing but imports.
    line: usize,
    whole_line: bool,
}

/// The `@path` imports of a Markdown text, as Claude Code finds them: an `@` at a line's start
/// or after whitespace, then everything up to the next unescaped whitespace; none inside a
/// fenced block (``` or ~~~) or an inline code span.
fn imports_in(text: &str) -> Vec<Import> {
    let mut out = vec![];
    let mut fence: Option<(char, usize)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(c) = marker {
            let run = trimmed.chars().take_while(|x| *x == c).count();
            if run >= 3 {
                match fence {
                    None => fence = Some((c, run)),
                    Some((open, len)) if open == c && run >= len && trimmed[run..].trim().is_empty() => fence = None,
                    _ => {}
                }
                continue;
            }
        }
        if fence.is_some() {
            continue;
        }
        let plain = without_code_spans(line);
        let chars: Vec<char> = plain.chars().collect();
        let mut found = vec![];
        // Whether every character outside the imports is a space: a line of nothing but imports.
        let mut only_imports = true;
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '@' && (i == 0 || chars[i - 1].is_whitespace()) {
                let mut path = String::new();
                let mut j = i + 1;
                while j < chars.len() {
                    if chars[j] == '\\' && chars.get(j + 1) == Some(&' ') {
                        path.push(' ');
                        j += 2;
                    } else if chars[j].is_whitespace() || chars[j] == '\0' {
                        break;
                    } else {
                        path.push(chars[j]);
                        j += 1;
                    }
                }
                if path.is_empty() {
                    only_imports = false;
                } else {
                    found.push(path);
                }
                i = j.max(i + 1);
            } else {
                only_imports &= chars[i].is_whitespace();
                i += 1;
            }
        }
        let whole_line = only_imports;
        out.extend(found.into_iter().map(|path| Import { path, line: n, whole_line }));
    }
    out
}

/// The line with its inline code spans blanked out (a run of backticks up to the next run of
/// the same length), so that an `@` inside one is not an import.
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let r = chars[j..].iter().take_while(|c| **c == '`').count();
                if r == run {
                    close = Some(j + r);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                out.extend(std::iter::repeat_n('\0', end - i));
                i = end;
            }
            // An unclosed run is literal backticks.
            None => {
                out.extend(std::iter::repeat_n('`', run));
                i += run;
            }
        }
    }
    out
}

/// Where an import points: `~/` from the home folder, absolute as it is, else beside `from`.
fn resolve(import: &str, from: &Path) -> Option<PathBuf> {
    if let Some(rest) = import.strip_prefix("~/") {
        return dirs::home_dir().map(|h| h.join(rest));
    }
    let p = Path::new(import);
    if p.is_absolute() {
        return Some(p.to_path_buf());
    }
    from.parent().map(|dir| dir.join(p))
}

/// Whether a word after `@` that names nothing is worth saying so: it looks like a path, not a
/// mention of someone (`@alice`) or a package scope.
fn looks_like_a_path(import: &str) -> bool {
    import.starts_with("./")
        || import.starts_with("../")
        || import.starts_with("~/")
        || import.starts_with('/')
        || Path::new(import).extension().is_some_and(|e| IMPORTABLE_OUTSIDE.contains(&e.to_string_lossy().to_lowercase().as_str()))
}

/// One reading of a folder's files, nearest level first; `kept` is in reading order.
struct Reading {
    started: Instant,
    /// The walk's root, resolved: level files must stay under it.
    root: Option<PathBuf>,
    /// Imports from outside it (the root, else the folder itself) must be Markdown or text.
    import_root: PathBuf,
    found: Found,
    kept: Vec<InstructionFile>,
    /// Every file read so far (resolved), sent or not.
    seen: HashSet<PathBuf>,
    total: usize,
}

/// How a file was reached.
struct Source<'a> {
    depth: usize,
    /// The importing file and how many imports deep this one is (0: a level's own file).
    imported_by: Option<&'a str>,
    import_depth: usize,
    follow_imports: bool,
}

/// What became of a file.
#[derive(PartialEq)]
enum Outcome {
    /// Read as text (sent, or noted as a duplicate or as imports only): it takes its level.
    Read,
    /// Not read (too large, unreadable, …): the next name of its tool may stand in.
    NotRead,
}

impl Reading {
    fn skip(&mut self, path: &str, why: &str, imported_by: Option<&str>) {
        self.found.skipped.push(Skipped { path: path.into(), why: why.into(), imported_by: imported_by.map(str::to_string) });
    }

    /// Reads one file and, first, the files it imports; `chain` is the import path down to it.
    fn take(&mut self, path: &Path, from: Source, chain: &mut Vec<PathBuf>) -> Outcome {
        let shown = path.display().to_string();
        let by = from.imported_by;
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if chain.contains(&real) {
            self.skip(&shown, "cycle", by);
            return Outcome::Read;
        }
        if self.seen.contains(&real) {
            // Named again (by an import of a file a level sends anyway, as uv's CLAUDE.md names
            // its AGENTS.md): sent once, and the inspector says who asked for it.
            if let Some(file) =
                self.kept.iter_mut().find(|k| k.imported_by.is_none() && std::fs::canonicalize(&k.path).ok().as_ref() == Some(&real))
            {
                if by.is_some() && file.depth == from.depth {
                    file.imported_by = by.map(str::to_string);
                    return Outcome::Read;
                }
            }
            self.skip(&shown, "duplicate", by);
            return Outcome::Read;
        }
        let meta = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                self.skip(&shown, if by.is_some() { "missing" } else { "unreadable" }, by);
                return Outcome::NotRead;
            }
        };
        if self.kept.len() >= MAX_FILES || self.total + meta.len() as usize > MAX_TOTAL_BYTES {
            self.skip(&shown, "too_many", by);
            return Outcome::NotRead;
        }
        if self.started.elapsed() > DEADLINE {
            self.skip(&shown, "deadline", by);
            return Outcome::NotRead;
        }
        if by.is_none() && self.root.as_ref().is_some_and(|root| !real.starts_with(root)) {
            // A link may point anywhere: a level's own file is read only under the root.
            self.skip(&shown, "outside", by);
            return Outcome::NotRead;
        }
        if by.is_some() && !real.starts_with(&self.import_root) {
            let ext = real.extension().map(|e| e.to_string_lossy().to_lowercase());
            if !ext.as_deref().is_some_and(|e| IMPORTABLE_OUTSIDE.contains(&e)) {
                self.skip(&shown, "not_importable", by);
                return Outcome::NotRead;
            }
        }
        if meta.len() > MAX_FILE_BYTES {
            self.skip(&shown, "too_large", by);
            return Outcome::NotRead;
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                tracing::info!(path = %shown, "an instructions file cannot be read: {e}");
                self.skip(&shown, "unreadable", by);
                return Outcome::NotRead;
            }
        };
        let Ok(content) = String::from_utf8(bytes) else {
            self.skip(&shown, "not_text", by);
            return Outcome::NotRead;
        };
        self.seen.insert(real.clone());

        let mut dropped_lines: HashSet<usize> = HashSet::new();
        let mut imported_any = false;
        if from.follow_imports {
            chain.push(real);
            for import in imports_in(&content) {
                let Some(target) = resolve(&import.path, path) else { continue };
                let exists = target.exists();
                // `@alice` naming nothing is a mention and stays; a path naming nothing is an
                // import that failed: said, and its line not sent.
                if !exists && !looks_like_a_path(&import.path) {
                    continue;
                }
                if import.whole_line {
                    dropped_lines.insert(import.line);
                }
                imported_any = true;
                if !exists {
                    self.skip(&target.display().to_string(), "missing", Some(&shown));
                    continue;
                }
                if from.import_depth >= MAX_IMPORT_DEPTH {
                    self.skip(&target.display().to_string(), "too_deep", Some(&shown));
                    continue;
                }
                let source =
                    Source { depth: from.depth, imported_by: Some(&shown), import_depth: from.import_depth + 1, follow_imports: true };
                self.take(&target, source, chain);
            }
            chain.pop();
        }
        let content = if dropped_lines.is_empty() {
            content
        } else {
            let kept: Vec<&str> = content.lines().enumerate().filter(|(n, _)| !dropped_lines.contains(n)).map(|(_, l)| l).collect();
            kept.join("\n").trim_matches('\n').to_string() + "\n"
        };
        if content.trim().is_empty() {
            if imported_any {
                self.skip(&shown, "imports_only", by);
            }
            return Outcome::Read;
        }
        if self.kept.iter().any(|k| k.content == content) {
            self.skip(&shown, "duplicate", by);
            return Outcome::Read;
        }
        self.total += content.len();
        self.kept.push(InstructionFile { path: shown, content, depth: from.depth, imported_by: by.map(str::to_string), raw_chars: None });
        Outcome::Read
    }
}

/// Reads the folder's instructions files by the rules above.
pub fn read(folder: &Path) -> Found {
    let real = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
    let root = stop_at(folder).map(real);
    let import_root = root.clone().unwrap_or_else(|| real(folder.to_path_buf()));
    let mut reading =
        Reading { started: Instant::now(), root, import_root, found: Found::default(), kept: vec![], seen: HashSet::new(), total: 0 };
    let found = candidates(folder);
    let mut depths: Vec<usize> = found.iter().map(|(_, d, _)| *d).collect();
    depths.dedup();
    // Nearest level first, so that a duplicate body is kept at its nearest place.
    for depth in depths {
        let here: Vec<&PathBuf> = found.iter().filter(|(_, d, _)| *d == depth).map(|(p, _, _)| p).collect();
        let mut level_read = false;
        for (names, follow_imports) in [(&AGENTS, false), (&CLAUDE, true), (&GEMINI, true)] {
            let gemini = names == &GEMINI;
            let mut tool_read = false;
            for path in here.iter().filter(|p| names.iter().any(|n| p.ends_with(n))) {
                if tool_read || (gemini && level_read) {
                    reading.skip(&path.display().to_string(), "shadowed", None);
                    continue;
                }
                let source = Source { depth, imported_by: None, import_depth: 0, follow_imports };
                tool_read = reading.take(path, source, &mut vec![]) == Outcome::Read;
            }
            level_read |= tool_read;
        }
    }
    let mut kept = reading.kept;
    // Farthest level first; within a level, the order read (imports before their importer).
    kept.sort_by_key(|f| std::cmp::Reverse(f.depth));
    reading.found.files = kept;
    reading.found
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
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((print, found)) = known.get(folder) {
            if *print == fingerprint(folder, found) {
                return found.clone();
            }
        }
        let mut print = level_stats(folder);
        let found = std::sync::Arc::new(read(folder));
        print.extend(import_stats(&found));
        known.insert(folder.to_path_buf(), (print, found.clone()));
        found
    }

    /// Whether the folder's files differ from when they were last read (a few `stat`s).
    pub fn changed(&self, folder: &Path) -> bool {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.get(folder).is_none_or(|(print, found)| *print != fingerprint(folder, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, bool)> {
        imports_in(text).into_iter().map(|i| (i.path, i.whole_line)).collect()
    }

    #[test]
    fn imports_are_found_outside_code_only() {
        let text = "@AGENTS.md\nSee @docs/rules.md for more, mail me at a@b.c\n`@not/this.md` and ``@nor `this`.md``\n\
                    ```sh\n@inside/a/fence.md\n```\n~~~\n@tilde/fence.md\n~~~\n@my\\ notes.md @~/shared.md\n";
        assert_eq!(
            paths(text),
            [
                ("AGENTS.md".to_string(), true),
                ("docs/rules.md".to_string(), false),
                ("my notes.md".to_string(), true),
                ("~/shared.md".to_string(), true),
            ],
            "an @ after a space or at a line's start is an import, not one in code, an address or a fence"
        );
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn repo() -> (tempfile::TempDir, PathBuf) {
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path().join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        (tree, root)
    }

    fn sent(found: &Found) -> Vec<(String, Option<String>)> {
        found.files.iter().map(|f| (Path::new(&f.path).file_name().unwrap().to_string_lossy().into(), f.imported_by.clone())).collect()
    }

    fn why(found: &Found, name: &str) -> Option<String> {
        found.skipped.iter().find(|s| s.path.ends_with(name)).map(|s| s.why.clone())
    }

    #[test]
    fn a_claude_md_that_imports_agents_md_sends_the_rules_not_the_line() {
        // astral-sh/uv: CLAUDE.md is the one line `@AGENTS.md` beside the real rules.
        let (_t, root) = repo();
        write(&root.join("CLAUDE.md"), "@AGENTS.md\n");
        write(&root.join("AGENTS.md"), "Run `cargo test` before you commit.\n");
        let found = read(&root);
        let claude = root.join("CLAUDE.md").display().to_string();
        assert_eq!(sent(&found), [("AGENTS.md".into(), Some(claude))], "the rules are sent once, and said to come from CLAUDE.md");
        assert!(found.files.iter().all(|f| !f.content.contains("@AGENTS.md")), "the bare import line never reaches the model");
        assert_eq!(why(&found, "CLAUDE.md").as_deref(), Some("imports_only"), "the inspector says why CLAUDE.md itself is not sent");
    }

    #[test]
    fn imports_nest_five_levels_break_cycles_and_keep_the_importers_own_words() {
        let (_t, root) = repo();
        write(&root.join("CLAUDE.md"), "Intro rule.\n@docs/a.md\nAnd see @docs/b.md for style.\n");
        write(&root.join("docs/a.md"), "A rule.\n@../CLAUDE.md\n");
        write(&root.join("docs/b.md"), "B rule.\n@c.md\n");
        for (n, next) in ["c", "d", "e", "f", "g"].iter().zip(["d", "e", "f", "g", "h"]) {
            write(&root.join(format!("docs/{n}.md")), &format!("{n} rule.\n@{next}.md\n"));
        }
        write(&root.join("docs/h.md"), "h rule, six imports down.\n");
        let found = read(&root);
        let names: Vec<String> = sent(&found).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a.md", "f.md", "e.md", "d.md", "c.md", "b.md", "CLAUDE.md"], "imports come before their importer, depth first");
        assert_eq!(why(&found, "docs/g.md").as_deref(), Some("too_deep"), "past five levels of imports a file is noted, not read");
        assert_eq!(why(&found, "docs/../CLAUDE.md").as_deref(), Some("cycle"), "a file importing its importer is not sent twice");
        let claude = found.files.last().unwrap();
        assert_eq!(
            claude.content, "Intro rule.\nAnd see @docs/b.md for style.\n",
            "an import inside a sentence stays; a line of imports goes"
        );
        let a = &found.files[0];
        assert!(!a.content.contains("@../CLAUDE.md"), "{:?}", a.content);
    }

    #[test]
    fn agents_md_and_a_different_claude_md_both_reach_the_model_agents_first() {
        let (_t, root) = repo();
        write(&root.join("AGENTS.md"), "Tool-neutral rule.\n");
        write(&root.join("CLAUDE.md"), "Claude rule.\n");
        write(&root.join("GEMINI.md"), "Gemini rule.\n");
        write(&root.join("sub/AGENTS.md"), "Same text.\n");
        write(&root.join("sub/CLAUDE.md"), "Same text.\n");
        let found = read(&root.join("sub"));
        let names: Vec<String> = found.files.iter().map(|f| f.content.clone()).collect();
        assert_eq!(names, ["Tool-neutral rule.\n", "Claude rule.\n", "Same text.\n"], "both per level, AGENTS.md first; equal text once");
        assert_eq!(why(&found, "sub/CLAUDE.md").as_deref(), Some("duplicate"));
        assert_eq!(why(&found, "repo/GEMINI.md").as_deref(), Some("shadowed"), "GEMINI.md only where a level has neither of the others");
    }

    #[test]
    fn imported_files_count_toward_the_limits_and_outside_ones_must_be_words() {
        let (t, root) = repo();
        let big = "x".repeat(MAX_FILE_BYTES as usize + 1);
        write(&root.join("big.md"), &big);
        write(&t.path().join("secret"), "KEY=abc\n");
        write(&t.path().join("shared.md"), "Shared outside rule.\n");
        let outside = t.path().display();
        write(&root.join("CLAUDE.md"), &format!("@big.md\n@{outside}/secret\n@{outside}/shared.md\n@gone.md\n"));
        let found = read(&root);
        assert_eq!(why(&found, "big.md").as_deref(), Some("too_large"), "an import obeys the size limit");
        assert_eq!(
            why(&found, "secret").as_deref(),
            Some("not_importable"),
            "a file outside the repository that is not text is never sent"
        );
        assert_eq!(why(&found, "gone.md").as_deref(), Some("missing"), "an import naming nothing is said");
        assert_eq!(sent(&found).len(), 1, "{:?}", found);
        assert_eq!(found.files[0].content, "Shared outside rule.\n", "an outside Markdown file named explicitly is read");
        let many: String = (0..MAX_FILES + 4).map(|n| format!("@r{n}.md\n")).collect();
        for n in 0..MAX_FILES + 4 {
            write(&root.join(format!("r{n}.md")), &format!("rule {n}\n"));
        }
        write(&root.join("CLAUDE.md"), &many);
        let found = read(&root);
        assert_eq!(found.files.len(), MAX_FILES, "imports count toward the number of files");
        assert_eq!(found.skipped.iter().filter(|s| s.why == "too_many").count(), 4);
    }

    #[test]
    fn an_edited_import_is_read_again() {
        let (_t, root) = repo();
        write(&root.join("CLAUDE.md"), "@rules.md\n");
        write(&root.join("rules.md"), "Old rule.\n");
        let files = InstructionFiles::default();
        assert_eq!(files.get(&root).files[0].content, "Old rule.\n");
        write(&root.join("rules.md"), "New rule, longer.\n");
        assert!(files.changed(&root), "a change to an imported file is a change of the folder's instructions");
        assert_eq!(files.get(&root).files[0].content, "New rule, longer.\n");
    }
}
