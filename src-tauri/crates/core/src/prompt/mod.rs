//! The five-section system prompt (base or preset, custom instructions, project instructions,
//! attachments, memory and date: in that order, later is followed more strongly), in stages:
//! gather inputs from the database ([`inputs`]) → apply budgets ([`budget`]) → render with
//! templates ([`render`], pure) → keep a snapshot per session so unchanged inputs reuse a
//! byte-identical prompt and the server's prefix cache stays warm ([`prepare`]), and keep the
//! last prompt of each session in memory ([`PromptCache`]) so that a turn whose inputs did not
//! change does not even read them.

pub mod budget;
pub mod inputs;
pub mod instruction_files;
pub mod render;
pub mod templates;
pub mod tokens;

use crate::error::ReasonCode;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::error::{Reason, Result};
use crate::store::prompt_inputs;
use crate::store::snapshots::{self, Snapshot};
pub use budget::Budgets;
pub use inputs::PromptInputs;
pub use render::{Rendered, SectionReport};
pub use templates::Templates;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SectionId {
    Base,
    CustomInstructions,
    ProjectInstructions,
    Attachments,
    Memory,
}

impl SectionId {
    pub fn number(self) -> u8 {
        match self {
            SectionId::Base => 1,
            SectionId::CustomInstructions => 2,
            SectionId::ProjectInstructions => 3,
            SectionId::Attachments => 4,
            SectionId::Memory => 5,
        }
    }
}

/// What the snapshot remembers besides the text, to explain the next change.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SnapshotReport {
    pub rendered: Rendered,
    pub project_name: String,
    pub base_label: String,
    pub date: NaiveDate,
    /// The project's folder when the prompt was made: its instructions files are read again
    /// when they change on disk.
    #[serde(default)]
    pub folder: Option<String>,
    /// Skills offered but left out of the list by its budget (`search_skills` finds them).
    #[serde(default)]
    pub unlisted_skills: Vec<String>,
    /// Its instructions files as sent (cut to the budget), and those not sent (with why).
    #[serde(default)]
    pub instruction_files: instruction_files::Found,
}

/// Renders the prompt for `session_id` without touching the snapshot.
pub fn render_current(
    conn: &Connection,
    templates: &Templates,
    session_id: i64,
    today: NaiveDate,
    budgets: &Budgets,
) -> Result<(String, SnapshotReport)> {
    let inputs = inputs::gather(conn, templates, session_id, today)?;
    Ok((inputs_key(&inputs, templates, budgets), build(&inputs, templates, budgets)?))
}

/// Budgets then render: the pure part.
fn build(inputs: &PromptInputs, templates: &Templates, budgets: &Budgets) -> Result<SnapshotReport> {
    let (budgeted, rendered) = fitted(inputs, templates, budgets)?;
    Ok(SnapshotReport {
        rendered,
        project_name: inputs.project.name.clone(),
        base_label: inputs.base.label().to_string(),
        date: inputs.today,
        folder: inputs.project.folder.clone(),
        unlisted_skills: budgeted.unlisted_skills,
        // As sent: cut by ③'s budget, and those it left out noted with why.
        instruction_files: budgeted.inputs.project.files,
    })
}

/// The budgets applied and the prompt rendered; when it is over the tokens the window leaves it
/// (`fit_tokens`), the whole prompt's budget is lowered by what is over and the sections cut
/// again, from ⑤ backwards (① is never cut), until it fits or nothing is left to cut. The
/// templates' own words count too, which the budgets do not see: hence a few rounds.
fn fitted(inputs: &PromptInputs, templates: &Templates, budgets: &Budgets) -> Result<(budget::Budgeted, Rendered)> {
    let mut budgeted = budget::apply(inputs, budgets);
    let mut rendered = render::render(templates, &budgeted)?;
    let Some(fit) = budgets.fit_tokens else { return Ok((budgeted, rendered)) };
    let mut lowered = budgets.clone();
    for _ in 0..6 {
        let tokens = render::estimate_tokens(&rendered.text);
        let counted = budget::counted_chars(&budgeted);
        if tokens <= fit || counted == 0 {
            break;
        }
        // What is over, in characters of this prompt (Korean takes about four times as many tokens).
        let chars = rendered.text.chars().count();
        let excess = ((tokens - fit) * chars).div_ceil(tokens.max(1)) + 1;
        lowered.total = lowered.base + counted.saturating_sub(excess);
        budgeted = budget::apply_to_fit(inputs, &lowered);
        rendered = render::render(templates, &budgeted)?;
    }
    Ok((budgeted, rendered))
}

/// Each session's last prepared prompt, with the inputs revision and the date it was made for.
/// Templates and budgets are fixed for the life of the process, so those two decide.
#[derive(Default)]
pub struct PromptCache {
    entries: Mutex<HashMap<i64, CachedPrompt>>,
}

/// (inputs revision, date, the prompt made for them)
type CachedPrompt = (i64, NaiveDate, Arc<SnapshotReport>);

impl PromptCache {
    /// Forgets a session's prompt when its folder's instructions files or skills changed on disk:
    /// for a caller about to read the folder's skills itself (which marks them as seen), before
    /// [`prepare`] would notice.
    pub fn forget_if_folder_changed(&self, session_id: i64) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let changed = entries
            .get(&session_id)
            .and_then(|(_, _, report)| report.folder.as_ref())
            .is_some_and(|f| instruction_files::KNOWN.changed(Path::new(f)) || crate::tools::folder_skills::KNOWN.changed(Path::new(f)));
        if changed {
            entries.remove(&session_id);
        }
    }

    fn get(&self, session_id: i64, revision: i64, today: NaiveDate) -> Option<Arc<SnapshotReport>> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get(&session_id)
            .filter(|(r, d, report)| {
                *r == revision
                    && *d == today
                    && report.folder.as_ref().is_none_or(|f| {
                        !instruction_files::KNOWN.changed(Path::new(f)) && !crate::tools::folder_skills::KNOWN.changed(Path::new(f))
                    })
            })
            .map(|(_, _, report)| report.clone())
    }

    fn put(&self, session_id: i64, revision: i64, today: NaiveDate, report: Arc<SnapshotReport>) {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).insert(session_id, (revision, today, report));
    }
}

/// The prompt for the next request. Unchanged inputs (same revision, same date) reuse the prompt
/// in memory without reading them; otherwise [`prepare_uncached`] decides.
pub fn prepare(
    conn: &Connection,
    templates: &Templates,
    cache: &PromptCache,
    session_id: i64,
    today: NaiveDate,
    budgets: &Budgets,
) -> Result<Arc<SnapshotReport>> {
    let revision = prompt_inputs::revision(conn)?;
    if let Some(report) = cache.get(session_id, revision, today) {
        snapshots::mark_used(conn, session_id)?;
        return Ok(report);
    }
    let report = Arc::new(prepare_uncached(conn, templates, session_id, today, budgets)?);
    cache.put(session_id, revision, today, report.clone());
    Ok(report)
}

/// The stored snapshot when the inputs are unchanged (no rendering at all), else a fresh render
/// stored with the reason it changed.
pub fn prepare_uncached(
    conn: &Connection,
    templates: &Templates,
    session_id: i64,
    today: NaiveDate,
    budgets: &Budgets,
) -> Result<SnapshotReport> {
    let inputs = inputs::gather(conn, templates, session_id, today)?;
    let key = inputs_key(&inputs, templates, budgets);
    let previous = snapshots::get(conn, session_id)?;
    if let Some(prev) = &previous {
        if prev.inputs_sha256 == key {
            if let Ok(report) = serde_json::from_str::<SnapshotReport>(&prev.report) {
                snapshots::mark_used(conn, session_id)?;
                return Ok(report);
            }
        }
    }
    let report = build(&inputs, templates, budgets)?;
    let old_report = previous.as_ref().and_then(|p| serde_json::from_str::<SnapshotReport>(&p.report).ok());
    let (codes, reason) = match &old_report {
        None => (vec![Reason::new(ReasonCode::FirstRequest)], "first request of this session".to_string()),
        Some(old) => changes(old, &report),
    };
    let prompt_unchanged = old_report.as_ref().is_some_and(|o| o.rendered.sha256 == report.rendered.sha256);
    let snap = Snapshot {
        session_id,
        inputs_sha256: key,
        prompt_sha256: report.rendered.sha256.clone(),
        prompt: report.rendered.text.clone(),
        report: serde_json::to_string(&report).map_err(anyhow::Error::from)?,
        // Inputs can change without changing the text (a cut fact edited): keep the old reason then.
        changed_at: match (&previous, prompt_unchanged) {
            (Some(p), true) => p.changed_at,
            _ => crate::store::now_ms(),
        },
        change_reason: match (&previous, prompt_unchanged) {
            (Some(p), true) => p.change_reason.clone(),
            _ => reason,
        },
        change_codes: match (&previous, prompt_unchanged) {
            (Some(p), true) => p.change_codes.clone(),
            _ => Some(codes),
        },
        used_at: crate::store::now_ms(),
    };
    snapshots::put(conn, &snap)?;
    Ok(report)
}

/// A digest of everything that decides the prompt: inputs, template bodies and budgets.
fn inputs_key(inputs: &PromptInputs, templates: &Templates, budgets: &Budgets) -> String {
    let template_shas: Vec<&str> = templates.all().iter().map(|t| t.sha256.as_str()).collect();
    let key = serde_json::json!({ "inputs": inputs, "templates": template_shas, "budgets": budgets });
    templates::sha256_hex(&key.to_string())
}

/// Explains in words which sections changed between two renders.
pub fn change_reason(old: &SnapshotReport, new: &SnapshotReport) -> String {
    changes(old, new).1
}

/// Which sections changed between two renders: as codes for the UI (each with its `section`,
/// 1 to 5, when it is one section's) and as the English sentence.
pub fn changes(old: &SnapshotReport, new: &SnapshotReport) -> (Vec<Reason>, String) {
    let mut reasons: Vec<(Reason, String)> = vec![];
    let sec = |r: &SnapshotReport, id: SectionId| r.rendered.sections.iter().find(|s| s.id == id).cloned();
    let mut moved = false;
    for id in [SectionId::Base, SectionId::CustomInstructions, SectionId::ProjectInstructions, SectionId::Attachments, SectionId::Memory] {
        let (Some(a), Some(b)) = (sec(old, id), sec(new, id)) else { continue };
        if a.sha256 == b.sha256 {
            continue;
        }
        let of = |code: ReasonCode| Reason::new(code).with("section", id.number());
        let (why, what): (Reason, String) = match id {
            SectionId::Base if old.base_label != new.base_label => {
                (of(ReasonCode::BaseChanged).with("name", &new.base_label), format!("base prompt changed to {}", new.base_label))
            }
            SectionId::Base => (of(ReasonCode::BaseTemplateChanged), "base prompt template changed".into()),
            SectionId::CustomInstructions => match (a.present, b.present) {
                (false, true) => (of(ReasonCode::CustomInstructionsAdded), "custom instructions added".into()),
                (true, false) => (of(ReasonCode::CustomInstructionsRemoved), "custom instructions removed".into()),
                _ => (of(ReasonCode::CustomInstructionsEdited), "custom instructions edited".into()),
            },
            SectionId::ProjectInstructions if old.project_name != new.project_name => {
                moved = true;
                (of(ReasonCode::MovedToProject).with("project", &new.project_name), format!("moved to project \"{}\"", new.project_name))
            }
            SectionId::ProjectInstructions => (of(ReasonCode::ProjectInstructionsEdited), "project instructions edited".into()),
            SectionId::Attachments => (of(ReasonCode::AttachmentsChanged), "attachments changed".into()),
            SectionId::Memory if old.date != new.date => {
                let mut s = format!("the date changed to {}", new.date);
                let strip_date = |t: &str| {
                    t.lines()
                        .filter(|l| !l.contains(&old.date.to_string()) && !l.contains(&new.date.to_string()))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                let mut why = of(ReasonCode::DateChanged).with("date", new.date);
                if strip_date(&a.text) != strip_date(&b.text) {
                    s.push_str("; long-term memory changed");
                    why = of(ReasonCode::DateAndMemoryChanged).with("date", new.date);
                }
                (why, s)
            }
            SectionId::Memory => (of(ReasonCode::MemoryChanged), "long-term memory changed".into()),
        };
        reasons.push((why, format!("{} {what}", circled(id))));
    }
    if old.project_name != new.project_name && !moved {
        reasons.push((
            Reason::new(ReasonCode::MovedToProject).with("project", &new.project_name),
            format!("moved to project \"{}\"", new.project_name),
        ));
    }
    if reasons.is_empty() {
        return (vec![Reason::new(ReasonCode::NoVisibleChange)], "no visible change".into());
    }
    let text = reasons.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("; ");
    (reasons.into_iter().map(|(r, _)| r).collect(), text)
}

fn circled(id: SectionId) -> &'static str {
    ["①", "②", "③", "④", "⑤"][id.number() as usize - 1]
}

#[cfg(test)]
mod tests;
