//! Skills (`skills`, `skill_files`): a SKILL.md as the user wrote or imported it, its name and
//! description read from its front matter, and its reference files. A chat is offered the global
//! skills not turned off in its project, and its project's own (which win over a global one of
//! the same name). A skill is text: its size is limited (`SKILL_MAX_BYTES`), not its number of
//! files, and binary files (fonts, images) are not kept: the folder reader and the zip import
//! leave them out and say so.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{char_len, found, now_ms};
use crate::error::{Code, Error, Result};

pub use maru_types::skills::*;

pub const NAME_MAX_CHARS: usize = 64;
pub const DESCRIPTION_MAX_CHARS: usize = 1_024;
pub const TEXT_MAX_CHARS: usize = 100_000;
/// A skill's SKILL.md and reference files together, in bytes: the official collection's largest
/// (pptx, docx, xlsx with their XML schemas) are about 1.1 MB of text. Size, not a count of files,
/// is what a skill costs: docx has 60 reference files.
pub const SKILL_MAX_BYTES: usize = 10 * 1024 * 1024;

/// A skill as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub id: i64,
    /// `None`: a global skill.
    pub project_id: Option<i64>,
    pub name: String,
    pub description: String,
    /// The SKILL.md, front matter included.
    pub text: String,
    pub enabled: bool,
    pub off_in: Vec<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Skill {
    /// The procedure: the text after the front matter.
    pub fn body(&self) -> &str {
        split(&self.text).map_or(self.text.as_str(), |(_, body)| body).trim()
    }
}

const SELECT: &str = "SELECT id, project_id, name, description, text, enabled, off_in, created_at, updated_at FROM skills";

fn from_row(r: &Row) -> rusqlite::Result<Skill> {
    Ok(Skill {
        id: r.get(0)?,
        project_id: r.get(1)?,
        name: r.get(2)?,
        description: r.get(3)?,
        text: r.get(4)?,
        enabled: r.get(5)?,
        off_in: serde_json::from_str(&r.get::<_, String>(6)?).unwrap_or_default(),
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
    })
}

pub fn list(conn: &Connection) -> Result<Vec<Skill>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT} ORDER BY lower(name), id"))?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<Skill> {
    found(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row), "skill", id)
}

/// The skills a chat in `project_id` is offered, by name: enabled, not off in the project, the
/// project's own winning over a global one of the same name.
pub fn offered(conn: &Connection, project_id: i64) -> Result<Vec<Skill>> {
    let mut chosen: Vec<Skill> = vec![];
    for s in list(conn)? {
        let here = match s.project_id {
            Some(p) => p == project_id,
            None => !s.off_in.contains(&project_id),
        };
        if !s.enabled || !here {
            continue;
        }
        match chosen.iter_mut().find(|c| c.name.eq_ignore_ascii_case(&s.name)) {
            Some(c) if s.project_id.is_some() => *c = s,
            Some(_) => {}
            None => chosen.push(s),
        }
    }
    Ok(chosen)
}

/// When each skill was last loaded in any chat, by lowercased name (the id of the reply that
/// called `load_skill`: later is larger). The newest calls only: enough to say which are in use.
pub fn last_loaded(conn: &Connection) -> Result<std::collections::HashMap<String, i64>> {
    const RECENT_CALLS: i64 = 500;
    let mut stmt = conn.prepare_cached(
        "SELECT id, tool_calls FROM messages WHERE role = 'assistant' AND tool_calls LIKE '%load_skill%'
         ORDER BY id DESC LIMIT ?1",
    )?;
    let mut used = std::collections::HashMap::new();
    let rows = stmt.query_map([RECENT_CALLS], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (id, calls) = row?;
        let calls: Vec<maru_types::tool_calls::ToolCall> = serde_json::from_str(&calls).unwrap_or_default();
        for call in calls.iter().filter(|c| c.name == "load_skill") {
            let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap_or_default();
            if let Some(name) = args["name"].as_str() {
                used.entry(name.trim().to_lowercase()).or_insert(id);
            }
        }
    }
    Ok(used)
}

pub fn files(conn: &Connection, skill_id: i64) -> Result<Vec<SkillFile>> {
    let mut stmt = conn.prepare_cached("SELECT path, content FROM skill_files WHERE skill_id = ?1 ORDER BY path")?;
    let rows =
        stmt.query_map([skill_id], |r| Ok(SkillFile { path: r.get(0)?, content: r.get(1)? }))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn file(conn: &Connection, skill_id: i64, path: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT content FROM skill_files WHERE skill_id = ?1 AND path = ?2")?
        .query_row(params![skill_id, path], |r| r.get(0))
        .optional()?)
}

pub fn create(conn: &Connection, new: &NewSkill) -> Result<Skill> {
    let (name, description) = read_front_matter(&new.text)?;
    if let Some(p) = new.project_id {
        super::projects::get(conn, p)?;
    }
    ensure_name_free(conn, new.project_id, &name, None)?;
    let now = now_ms();
    conn.execute(
        "INSERT INTO skills (project_id, name, description, text, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        params![new.project_id, name, description, new.text, now],
    )?;
    let id = conn.last_insert_rowid();
    put_files(conn, id, new.files.as_deref().unwrap_or_default())?;
    get(conn, id)
}

pub fn update(conn: &Connection, id: i64, patch: &SkillPatch) -> Result<Skill> {
    let mut s = get(conn, id)?;
    if let Some(text) = &patch.text {
        let (name, description) = read_front_matter(text)?;
        ensure_name_free(conn, s.project_id, &name, Some(id))?;
        (s.name, s.description, s.text) = (name, description, text.clone());
    }
    if let Some(v) = patch.enabled {
        s.enabled = v;
    }
    if let Some(v) = &patch.off_in {
        s.off_in.clone_from(v);
        s.off_in.sort_unstable();
        s.off_in.dedup();
    }
    conn.execute(
        "UPDATE skills SET name = ?2, description = ?3, text = ?4, enabled = ?5, off_in = ?6, updated_at = ?7 WHERE id = ?1",
        params![id, s.name, s.description, s.text, s.enabled, serde_json::to_string(&s.off_in).unwrap_or_default(), now_ms()],
    )?;
    if let Some(files) = &patch.files {
        conn.execute("DELETE FROM skill_files WHERE skill_id = ?1", [id])?;
        put_files(conn, id, files)?;
    }
    get(conn, id)
}

pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    get(conn, id)?;
    conn.execute("DELETE FROM skills WHERE id = ?1", [id])?;
    Ok(())
}

fn put_files(conn: &Connection, id: i64, files: &[SkillFile]) -> Result<()> {
    let bad = |msg: String| Err(Error::invalid(Code::InvalidSkill, msg));
    let text: usize = conn.query_row("SELECT length(CAST(text AS BLOB)) FROM skills WHERE id = ?1", [id], |r| r.get::<_, i64>(0))? as usize;
    let total = text + files.iter().map(|f| f.path.len() + f.content.len()).sum::<usize>();
    if total > SKILL_MAX_BYTES {
        let mb = |b: usize| format!("{:.1} MB", b as f64 / (1024.0 * 1024.0));
        return Err(Error::invalid(
            Code::InvalidSkill,
            format!(
                "a skill can hold at most {} of text, its SKILL.md and reference files together (this one has {})",
                mb(SKILL_MAX_BYTES),
                mb(total)
            ),
        )
        .with("max_bytes", SKILL_MAX_BYTES)
        .with("bytes", total));
    }
    for f in files {
        let path = f.path.trim().trim_start_matches("./");
        if path.is_empty() || path.starts_with('/') || path.split('/').any(|p| p == ".." || p.is_empty()) || path.contains('\0') {
            return bad(format!("{:?} is not a path inside the skill's folder", f.path));
        }
        if f.content.contains('\0') {
            return bad(format!("a skill's reference file is text ({path} is not): leave binary files such as fonts and images out"));
        }
        conn.execute("INSERT OR REPLACE INTO skill_files (skill_id, path, content) VALUES (?1, ?2, ?3)", params![id, path, f.content])?;
    }
    Ok(())
}

fn ensure_name_free(conn: &Connection, project_id: Option<i64>, name: &str, except: Option<i64>) -> Result<()> {
    let taken: Option<i64> = conn
        .query_row(
            "SELECT id FROM skills WHERE coalesce(project_id, 0) = coalesce(?1, 0) AND lower(name) = lower(?2) AND id IS NOT ?3",
            params![project_id, name, except],
            |r| r.get(0),
        )
        .optional()?;
    match taken {
        Some(_) => Err(Error::conflict(Code::NameTaken, format!("a skill named \"{name}\" already exists here")).with("name", name)),
        None => Ok(()),
    }
}

/// The front matter and the body, when the text opens with a `---` block.
fn split(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start_matches('\u{feff}').strip_prefix("---")?;
    let rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n'))?;
    let end = rest.find("\n---")?;
    let after = &rest[end + 4..];
    Some((&rest[..end], after.split_once('\n').map_or("", |(_, body)| body)))
}

/// `name` and `description` from the front matter. Only these two keys are read, each on one
/// line (`key: value`, quotes optional): that is the whole of what a SKILL.md's front matter
/// means here, so a YAML parser would add a dependency for nothing.
pub fn read_front_matter(text: &str) -> Result<(String, String)> {
    let bad = |msg: String| Err(Error::invalid(Code::InvalidSkill, msg));
    if char_len(text) > TEXT_MAX_CHARS {
        return bad(format!("a SKILL.md can have at most {TEXT_MAX_CHARS} characters (this one has {})", char_len(text)));
    }
    let Some((front, body)) = split(text) else {
        return bad("a SKILL.md starts with front matter: ---, name: …, description: …, ---, then the procedure".into());
    };
    let value = |key: &str| {
        front.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').trim().to_string())
        })
    };
    let name = value("name").unwrap_or_default();
    let description = value("description").unwrap_or_default();
    if name.is_empty() || char_len(&name) > NAME_MAX_CHARS || name.chars().any(|c| c.is_control()) {
        return bad(format!("a skill needs a name of 1 to {NAME_MAX_CHARS} characters in its front matter (name: …)"));
    }
    if description.is_empty() || char_len(&description) > DESCRIPTION_MAX_CHARS {
        return bad(format!(
            "a skill needs a description of 1 to {DESCRIPTION_MAX_CHARS} characters in its front matter: it is all the model sees until it loads the skill"
        ));
    }
    if body.trim().is_empty() {
        return bad("a skill needs its procedure after the front matter".into());
    }
    Ok((name, description))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_md_gives_its_name_description_and_body() {
        let text = "---\nname: pdf-forms\ndescription: \"Fill in PDF forms: fields, checkboxes.\"\n---\n# Steps\n1. Read the form.\n";
        assert_eq!(read_front_matter(text).unwrap(), ("pdf-forms".into(), "Fill in PDF forms: fields, checkboxes.".into()));
        assert_eq!(split(text).unwrap().1, "# Steps\n1. Read the form.\n");
        for bad in
            ["no front matter", "---\nname: x\n---\nbody", "---\ndescription: d\n---\nbody", "---\nname: x\ndescription: d\n---\n  \n"]
        {
            assert!(read_front_matter(bad).is_err(), "{bad:?} is refused with a reason, not stored half-read");
        }
    }
}
