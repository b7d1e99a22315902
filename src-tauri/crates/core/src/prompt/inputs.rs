//! Stage 1: gather everything the system prompt is made of, from the database. No rendering here.

use chrono::NaiveDate;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::templates::Templates;
use crate::error::{Code, Error, Result};
use crate::store::{attachments, memories, presets, projects, sessions, settings, skills};

/// Everything that decides the system prompt. Equal inputs render a byte-identical prompt.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PromptInputs {
    pub base: BaseInput,
    pub custom_instructions: String,
    pub project: ProjectInput,
    pub attachments: Vec<AttachmentInput>,
    /// Skills the chat may load (`load_skill`), by name: listed in ④ beside the files, as the
    /// other thing the model reads on demand.
    pub skills: Vec<SkillInput>,
    pub memories: Vec<MemoryInput>,
    /// The memory tools are offered (memory is not off): only then may ⑤ point at search_memory.
    pub memory_tools: bool,
    pub today: NaiveDate,
}

/// Section ①: the base template or the session's preset, which replaces it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BaseInput {
    /// A bundled (or overridden) template: `base` or `presets/<key>`.
    Template { name: String, label: String },
    /// A preset the user wrote; its text is used as written.
    UserPreset { key: String, label: String, text: String },
}

impl BaseInput {
    pub fn label(&self) -> &str {
        match self {
            BaseInput::Template { label, .. } | BaseInput::UserPreset { label, .. } => label,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ProjectInput {
    pub name: String,
    pub is_default: bool,
    pub instructions: String,
    /// The folder the project follows, and the instructions files found from it upwards.
    #[serde(default)]
    pub folder: Option<String>,
    #[serde(default)]
    pub files: super::instruction_files::Found,
}

/// One file in scope for the session (its own or its project's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AttachmentInput {
    pub name: String,
    pub kind: String,
    pub size_bytes: u64,
    pub pages: Option<u32>,
    /// Attached to the project rather than the session.
    pub project: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SkillInput {
    pub name: String,
    pub description: String,
    /// When a chat last loaded it (an ordering key, larger is later): past the skills' budget,
    /// the ones in use are listed first.
    #[serde(default)]
    pub last_used: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MemoryInput {
    pub content: String,
    pub pinned: bool,
}

/// A fact this chat taught (its extraction, its `remember`) is in the chat's own conversation,
/// so its ⑤ leaves it out: repeated there it would change the system prompt, before the whole
/// history, on the turn after every fact learned, and the server would read the chat again from
/// the start. The other chats' ⑤ carry it.
fn taught_by(fact: &memories::Memory, session_id: i64) -> bool {
    fact.source_session_id == Some(session_id)
}

/// The accepted facts this chat taught, which its ⑤ leaves out (the inspector names them).
pub fn facts_taught_here(conn: &Connection, session_id: i64) -> Result<Vec<String>> {
    Ok(memories::accepted(conn)?.into_iter().filter(|m| taught_by(m, session_id)).map(|m| m.content).collect())
}

/// Reads a session's prompt inputs; `today` is the user's local date.
pub fn gather(conn: &Connection, templates: &Templates, session_id: i64, today: NaiveDate) -> Result<PromptInputs> {
    let session = sessions::get(conn, session_id)?;
    let project = projects::get(conn, session.project_id)?;
    let settings = settings::load(conn)?;
    let base = resolve_base(conn, templates, session.preset.as_deref())?;
    let memories = memories::accepted(conn)?
        .into_iter()
        .filter(|m| !taught_by(m, session_id))
        .map(|m| MemoryInput { content: m.content, pinned: m.pinned })
        .collect();
    Ok(PromptInputs {
        base,
        custom_instructions: settings.custom_instructions,
        project: ProjectInput {
            files: project
                .folder
                .as_deref()
                .map(|f| (*super::instruction_files::KNOWN.get(std::path::Path::new(f))).clone())
                .unwrap_or_default(),
            folder: project.folder,
            name: project.name,
            is_default: project.is_default,
            instructions: project.instructions,
        },
        attachments: attachments::in_scope(conn, session_id, session.project_id)?
            .into_iter()
            .map(|a| AttachmentInput {
                name: a.name,
                kind: a.kind.label().to_string(),
                size_bytes: a.size as u64,
                pages: a.pages.map(|p| p as u32),
                project: a.project_id.is_some(),
            })
            .collect(),
        skills: {
            let used = skills::last_loaded(conn)?;
            crate::tools::folder_skills::offered(conn, session.project_id)?
                .into_iter()
                .map(|s| SkillInput {
                    last_used: used.get(&s.name.to_lowercase()).copied(),
                    name: s.skill.name,
                    description: s.skill.description,
                })
                .collect()
        },
        memories,
        memory_tools: settings.memory_mode != crate::store::settings::MemoryMode::Off,
        today,
    })
}

/// The base prompt for a preset key (`None`: the bundled base).
pub fn resolve_base(conn: &Connection, templates: &Templates, preset: Option<&str>) -> Result<BaseInput> {
    let Some(key) = preset else {
        return Ok(BaseInput::Template { name: "base".into(), label: "prompts/base.md".into() });
    };
    if let Some(id) = presets::user_key_id(key) {
        let p = presets::get(conn, id)?;
        return Ok(BaseInput::UserPreset { key: key.to_string(), label: format!("preset: {}", p.name), text: p.prompt });
    }
    let name = format!("presets/{key}");
    let info = templates
        .info(&name)
        .ok_or_else(|| Error::invalid(Code::UnknownPreset, format!("there is no preset {key:?}")).with("preset", key))?;
    let label = format!("preset: {}", info.meta("name").unwrap_or(key));
    Ok(BaseInput::Template { name, label })
}
