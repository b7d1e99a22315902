//! Skills as the API shows them: each one's SKILL.md, where it applies, and its reference files.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::error::Result;
use crate::store::skills::{self, NewSkill, Skill, SkillFile, SkillPatch};

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
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
