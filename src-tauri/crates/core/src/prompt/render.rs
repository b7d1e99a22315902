//! Stage 3: render. A pure function of the budgeted inputs and the templates: no I/O, no clock.
//! Sections are rendered one by one (so each can be reported) and joined in the
//! order the model reads them (① to ⑤, see the module above).

use crate::error::ReasonCode;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::budget::{Budgeted, Cut};
use super::inputs::BaseInput;
use super::templates::{sha256_hex, Templates};
use super::SectionId;
use crate::error::{Reason, Result};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct SectionReport {
    /// Its place, ① to ⑤, is the order of the list: the order the model reads them.
    pub id: SectionId,
    pub present: bool,
    /// Why a section is not in the prompt.
    pub absent_reason: Option<String>,
    /// The same as a code: `no_custom_instructions`, `default_project`,
    /// `no_project_instructions` (`project`), `no_attachments`.
    #[serde(default)]
    pub absent: Option<Reason>,
    /// Which template or preset produced it.
    pub source: String,
    /// The template is a user override based on an older bundled version.
    pub template_outdated: bool,
    /// Size of the input before budgets (characters).
    pub raw_chars: usize,
    /// Size of the rendered section as sent (characters).
    pub injected_chars: usize,
    pub tokens_estimate: usize,
    pub cuts: Vec<Cut>,
    pub text: String,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Rendered {
    pub text: String,
    pub sha256: String,
    pub sections: Vec<SectionReport>,
}

const SEPARATOR: &str = "\n\n";

/// Why a section is left out: its code and its English words.
struct Absent(Reason, String);

impl Absent {
    fn new(code: ReasonCode, text: &str) -> Absent {
        Absent(Reason::new(code), text.into())
    }
}

pub fn render(templates: &Templates, b: &Budgeted) -> Result<Rendered> {
    let i = &b.inputs;
    let cuts = |id: SectionId| b.cuts.iter().filter(|c| c.section == id).cloned().collect::<Vec<_>>();
    let mut sections = Vec::with_capacity(5);

    // ① base prompt, or the preset that replaces it
    let (base_text, base_source, base_outdated) = match &i.base {
        BaseInput::Template { name, label } => {
            let info = templates.info(name);
            (templates.render(name, &json!({}))?, label.clone(), info.is_some_and(|t| t.is_outdated()))
        }
        BaseInput::UserPreset { text, label, .. } => (text.clone(), label.clone(), false),
    };
    let raw = base_text.chars().count();
    sections.push(section(SectionId::Base, None, base_source, base_outdated, raw, base_text, vec![]));

    // ② global custom instructions
    let raw = raw_len(&b.cuts, SectionId::CustomInstructions, &i.custom_instructions);
    let (text, absent) = if i.custom_instructions.trim().is_empty() {
        (String::new(), Some(Absent::new(ReasonCode::NoCustomInstructions, "no custom instructions are set")))
    } else {
        let data = json!({ "text": i.custom_instructions, "truncated": b.custom_truncated });
        (templates.render("sections/custom_instructions", &data)?, None)
    };
    sections.push(templated(
        templates,
        SectionId::CustomInstructions,
        "sections/custom_instructions",
        absent,
        raw,
        text,
        cuts(SectionId::CustomInstructions),
    ));

    // ③ project instructions: not for Default (custom instructions play that role)
    // and after them the instructions files of its folder, most general first, each named.
    let files = &i.project.files.files;
    // Before budgets: the project's own words and every file read, cut or left out since.
    let raw = b.project_raw_chars.max(i.project.instructions.chars().count()) + b.files_raw_chars;
    let (text, absent) = if i.project.is_default {
        (String::new(), Some(Absent::new(ReasonCode::DefaultProject, "the session is in the Default project")))
    } else if i.project.instructions.trim().is_empty() && files.is_empty() {
        (
            String::new(),
            Some(Absent(
                Reason::new(ReasonCode::NoProjectInstructions).with("project", &i.project.name),
                format!("the project \"{}\" has no instructions", i.project.name),
            )),
        )
    } else {
        let files: Vec<_> =
            files.iter().map(|f| json!({ "path": f.path, "content": f.content.trim_end(), "truncated": f.raw_chars.is_some() })).collect();
        let data = json!({
            "project_name": i.project.name, "text": i.project.instructions, "truncated": b.project_truncated, "files": files
        });
        (templates.render("sections/project_instructions", &data)?, None)
    };
    sections.push(templated(
        templates,
        SectionId::ProjectInstructions,
        "sections/project_instructions",
        absent,
        raw,
        text,
        cuts(SectionId::ProjectInstructions),
    ));

    // ④ what the model reads on demand: the files in scope, and the skills it may load
    let unlisted = b.unlisted_skills.len();
    let (text, absent) = if i.attachments.is_empty() && b.omitted_attachments == 0 && i.skills.is_empty() && unlisted == 0 {
        (String::new(), Some(Absent::new(ReasonCode::NoAttachments, "no files are attached to this session or its project")))
    } else {
        let files: Vec<_> = i
            .attachments
            .iter()
            .map(|a| json!({ "name": a.name, "kind": a.kind, "size": human_size(a.size_bytes), "pages": a.pages, "project": a.project }))
            .collect();
        let data = json!({
            "any_files": !files.is_empty() || b.omitted_attachments > 0, "files": files, "omitted": b.omitted_attachments,
            "any_skills": !i.skills.is_empty() || unlisted > 0, "skills": i.skills, "unlisted_skills": unlisted,
        });
        // Two optional blocks: the one left out must not leave its line break behind.
        (templates.render("sections/attachments", &data)?.trim().to_string(), None)
    };
    let raw = i.attachments.len() + b.omitted_attachments + i.skills.len() + unlisted;
    sections.push(templated(templates, SectionId::Attachments, "sections/attachments", absent, raw, text, cuts(SectionId::Attachments)));

    // ⑤ long-term memory and the date: always present
    let facts: Vec<&str> = i.memories.iter().map(|m| m.content.as_str()).collect();
    let data = json!({
        "facts": facts,
        "omitted": b.omitted_memories,
        "search": i.memory_tools,
        "date": i.today.format("%Y-%m-%d").to_string(),
        "weekday": i.today.format("%A").to_string(),
    });
    let text = templates.render("sections/memory", &data)?;
    let raw = raw_len(&b.cuts, SectionId::Memory, "");
    sections.push(templated(
        templates,
        SectionId::Memory,
        "sections/memory",
        None,
        raw.max(facts_chars(&facts)),
        text,
        cuts(SectionId::Memory),
    ));

    let text = sections.iter().filter(|s| s.present).map(|s| s.text.as_str()).collect::<Vec<_>>().join(SEPARATOR);
    Ok(Rendered { sha256: sha256_hex(&text), text, sections })
}

/// The input's size before any cut: the first cut's raw size, else the text as it is now.
fn raw_len(cuts: &[Cut], id: SectionId, now: &str) -> usize {
    cuts.iter().find(|c| c.section == id).map_or(now.chars().count(), |c| c.raw_chars)
}

fn facts_chars(facts: &[&str]) -> usize {
    facts.iter().map(|f| f.chars().count()).sum()
}

fn templated(
    templates: &Templates,
    id: SectionId,
    name: &str,
    absent: Option<Absent>,
    raw: usize,
    text: String,
    cuts: Vec<Cut>,
) -> SectionReport {
    let info = templates.info(name);
    let source = match info.map(|t| &t.source) {
        Some(super::templates::TemplateSource::Bundled) | None => format!("prompts/{name}.md"),
        Some(_) => format!("prompts/{name}.md (your override)"),
    };
    section(id, absent, source, info.is_some_and(|t| t.is_outdated()), raw, text, cuts)
}

fn section(
    id: SectionId,
    absent: Option<Absent>,
    source: String,
    outdated: bool,
    raw: usize,
    text: String,
    cuts: Vec<Cut>,
) -> SectionReport {
    let present = absent.is_none();
    let text = if present { text } else { String::new() };
    SectionReport {
        id,
        present,
        absent_reason: absent.as_ref().map(|a| a.1.clone()),
        absent: absent.map(|a| a.0),
        source,
        template_outdated: outdated,
        raw_chars: raw,
        injected_chars: text.chars().count(),
        tokens_estimate: estimate_tokens(&text),
        cuts,
        sha256: sha256_hex(&text),
        text,
    }
}

/// A tokenizer-free estimate: about four ASCII characters per token, one per other character
/// (Korean syllables and CJK are roughly a token each in common vocabularies).
pub fn estimate_tokens(text: &str) -> usize {
    let (ascii, other) = text.chars().fold((0usize, 0usize), |(a, o), c| if c.is_ascii() { (a + 1, o) } else { (a, o + 1) });
    ascii.div_ceil(4) + other
}

fn human_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", b.div_ceil(1024)),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}
