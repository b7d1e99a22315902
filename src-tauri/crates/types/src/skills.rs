//! What creates or changes a skill, and one of its files.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SkillFile {
    /// Its path inside the skill's folder, like `reference/forms.md`.
    pub path: String,
    pub content: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSkill {
    /// A project's skill; absent: a global one.
    #[serde(default)]
    pub project_id: Option<i64>,
    /// The SKILL.md: `---`, `name: …`, `description: …`, `---`, then the procedure.
    pub text: String,
    /// Reference files beside it (an imported folder's other text files).
    #[serde(default)]
    pub files: Option<Vec<SkillFile>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillPatch {
    pub text: Option<String>,
    pub enabled: Option<bool>,
    /// The projects a global skill is off in.
    pub off_in: Option<Vec<i64>>,
    /// Replaces the reference files.
    pub files: Option<Vec<SkillFile>>,
}
