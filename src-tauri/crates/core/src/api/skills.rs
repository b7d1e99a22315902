//! Skills as the API shows them: each one's SKILL.md, where it applies, and its reference files.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::error::{Error, Result};
use crate::store::skills::{self, NewSkill, Skill, SkillFile, SkillPatch};

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SkillView {
    pub id: i64,
    /// `null`: global (offered in every project it is not off in).
    pub project_id: Option<i64>,
    pub name: String,
    pub description: String,
    /// The SKILL.md as written.
    pub text: String,
    pub enabled: bool,
    pub off_in: Vec<i64>,
    pub files: Vec<SkillFile>,
    pub created_at: i64,
    pub updated_at: i64,
}

fn view(s: Skill, files: Vec<SkillFile>) -> SkillView {
    SkillView {
        id: s.id,
        project_id: s.project_id,
        name: s.name,
        description: s.description,
        text: s.text,
        enabled: s.enabled,
        off_in: s.off_in,
        files,
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}

fn with_files(c: &rusqlite::Connection, s: Skill) -> Result<SkillView> {
    let files = skills::files(c, s.id)?;
    Ok(view(s, files))
}

pub async fn list_skills(app: &App) -> Result<Vec<SkillView>> {
    app.store.read(|c| skills::list(c)?.into_iter().map(|s| with_files(c, s)).collect()).await
}

#[instrument(skip(app, new), err(level = Level::WARN))]
pub async fn create_skill(app: &App, new: NewSkill) -> Result<SkillView> {
    app.store.write(move |tx| with_files(tx, skills::create(tx, &new)?)).await
}

#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_skill(app: &App, id: i64, patch: SkillPatch) -> Result<SkillView> {
    app.store.write(move |tx| with_files(tx, skills::update(tx, id, &patch)?)).await
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_skill(app: &App, id: i64) -> Result<()> {
    app.store.write(move |tx| skills::delete(tx, id)).await
}

/// A skill folder, or a folder of skills, as a zip (`POST /api/skills/import`): each folder in it
/// holding a `SKILL.md` is a skill.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SkillZip {
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// A project's skills; absent: global ones.
    pub project_id: Option<i64>,
}

/// What importing a zip of skills did: the skills made, and the files left out of them.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ImportedSkills {
    pub skills: Vec<SkillView>,
    pub left_out: Vec<SkillFileLeftOut>,
}

/// A file of a skill's folder that is not kept, and why: `binary` (a font, an image: not text),
/// `hidden` (a hidden file or folder, named once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SkillFileLeftOut {
    /// Its path in the zip.
    pub path: String,
    pub why: String,
}

/// How much a zip may unpack to in all: a skill holds at most `SKILL_MAX_BYTES` of text, and a
/// collection of them with their fonts and images is a few times that (anthropics/skills: 10 MB).
const ZIP_UNPACKED_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// A skill found in a zip: its folder, its SKILL.md and its text files.
type Found = (String, String, Vec<SkillFile>);

/// The skills in a zip, as the folder reader of the UI finds them in a folder: the outermost
/// folders holding a `SKILL.md` (not inside a hidden folder), each with its other files by their
/// path inside it; text files are kept, binary and hidden ones are named in what is left out.
pub fn skills_in_zip(bytes: Vec<u8>) -> Result<(Vec<Found>, Vec<SkillFileLeftOut>)> {
    use std::io::Read;
    let refuse = |why: String| crate::error::Error::invalid(crate::error::Code::InvalidImport, why);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| refuse(format!("this is not a zip file: {e}")))?;
    let names: Vec<String> = zip.file_names().filter(|n| !n.ends_with('/')).map(str::to_string).collect();
    let parts = |n: &str| -> Vec<String> { n.split(['/', '\\']).filter(|s| !s.is_empty() && *s != ".").map(str::to_string).collect() };
    let hidden = |s: &String| s.starts_with('.');
    let mut roots: Vec<Vec<String>> = names
        .iter()
        .map(|n| parts(n))
        .filter(|p| p.last().is_some_and(|l| l.eq_ignore_ascii_case("SKILL.md")) && !p[..p.len() - 1].iter().any(hidden))
        .map(|p| p[..p.len() - 1].to_vec())
        .collect();
    roots.sort_by_key(Vec::len);
    let mut outer: Vec<Vec<String>> = vec![];
    for root in roots {
        if !outer.iter().any(|o| root.starts_with(o)) {
            outer.push(root);
        }
    }
    if outer.is_empty() {
        return Err(crate::error::Error::invalid(
            crate::error::Code::InvalidSkill,
            "this zip has no SKILL.md: a skill is a folder with a SKILL.md (front matter with name and description, then the procedure)",
        ));
    }
    let mut budget = ZIP_UNPACKED_MAX_BYTES;
    let mut read = |zip: &mut zip::ZipArchive<std::io::Cursor<Vec<u8>>>, name: &str| -> Result<Vec<u8>> {
        let entry = zip.by_name(name).map_err(|e| refuse(format!("{name} cannot be read: {e}")))?;
        let mut out = vec![];
        entry.take(budget + 1).read_to_end(&mut out).map_err(|e| refuse(format!("{name} cannot be read: {e}")))?;
        if out.len() as u64 > budget {
            return Err(refuse(format!("this zip unpacks to more than {} MB", ZIP_UNPACKED_MAX_BYTES >> 20)));
        }
        budget -= out.len() as u64;
        Ok(out)
    };
    let mut found = vec![];
    let mut left_out = vec![];
    for root in &outer {
        let (mut text, mut files) = (None, vec![]);
        let mut hidden_seen: Vec<String> = vec![];
        for name in &names {
            let p = parts(name);
            if p.len() <= root.len() || !p.starts_with(root) {
                continue;
            }
            let rel = &p[root.len()..];
            if rel.len() == 1 && rel[0].eq_ignore_ascii_case("SKILL.md") {
                let bytes = read(&mut zip, name)?;
                text =
                    Some(String::from_utf8(bytes).map_err(|_| {
                        crate::error::Error::invalid(crate::error::Code::InvalidSkill, format!("{name} is not UTF-8 text"))
                    })?);
                continue;
            }
            if let Some(at) = rel.iter().position(hidden) {
                let what = p[..root.len() + at + 1].join("/");
                if !hidden_seen.contains(&what) {
                    left_out.push(SkillFileLeftOut { path: what.clone(), why: "hidden".into() });
                    hidden_seen.push(what);
                }
                continue;
            }
            let bytes = read(&mut zip, name)?;
            match String::from_utf8(bytes) {
                Ok(content) if !content.contains('\0') => files.push(SkillFile { path: rel.join("/"), content }),
                _ => left_out.push(SkillFileLeftOut { path: p.join("/"), why: "binary".into() }),
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        found.push((root.join("/"), text.unwrap_or_default(), files));
    }
    Ok((found, left_out))
}

/// Imports every skill of a zip in one transaction: all of them, or none with the reason.
#[instrument(skip(app, bytes), err(level = Level::WARN))]
pub async fn import_zip(app: &App, project_id: Option<i64>, bytes: Vec<u8>) -> Result<ImportedSkills> {
    let (found, left_out) = tokio::task::spawn_blocking(move || skills_in_zip(bytes))
        .await
        .map_err(|e| crate::error::Error::Internal(anyhow::anyhow!("reading the zip failed: {e}")))??;
    let skills = app
        .store
        .write(move |tx| {
            found
                .into_iter()
                .map(|(folder, text, files)| {
                    let new = NewSkill { project_id, text, files: Some(files) };
                    // With several skills in the zip, the error names the one that is refused.
                    let named = |message: String| if folder.is_empty() { message } else { format!("{folder}: {message}") };
                    let made = skills::create(tx, &new).map_err(|e| match e {
                        Error::Invalid { code, message, params } => Error::Invalid { code, message: named(message), params },
                        Error::Conflict { code, message, params } => Error::Conflict { code, message: named(message), params },
                        other => other,
                    })?;
                    with_files(tx, made)
                })
                .collect::<Result<Vec<_>>>()
        })
        .await?;
    Ok(ImportedSkills { skills, left_out })
}
