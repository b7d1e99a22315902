//! Stage 2: budgets. Each section has a character budget and the whole prompt has one. What is
//! cut is cut at a clean boundary (a paragraph, a line, a whole fact or file) and reported.
//!
//! Section ③'s budget holds the project's own instructions and its folder's instructions files
//! together: the user's words first, then the files, the nearest (most specific) first; the
//! file that no longer fits whole is cut at a boundary and the farther ones are left out, each
//! named in the report.

use crate::error::ReasonCode;
use serde::{Deserialize, Serialize};

use super::inputs::PromptInputs;
use super::instruction_files::{Found, InstructionFile, Skipped};
use super::SectionId;
use crate::error::Reason;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Budgets {
    pub base: usize,
    pub custom_instructions: usize,
    pub project_instructions: usize,
    pub attachments: usize,
    pub memory: usize,
    /// The list of skills in ④ (name and description of each): past it, the ones in use are
    /// listed and `search_skills` finds the rest.
    #[serde(default = "skills_budget")]
    pub skills: usize,
    /// For the whole system prompt; sections are shrunk from ⑤ backwards to ② when over it.
    pub total: usize,
    /// The tokens the whole system prompt may take in the model's window, when it is known:
    /// what is left after the tools, the reply and room for the conversation. Past it, sections
    /// are shrunk as for `total` (see [`super::build`]), so that a first request always fits.
    #[serde(default)]
    pub fit_tokens: Option<usize>,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            base: 12_000,
            custom_instructions: 12_000,
            project_instructions: 24_000,
            attachments: 6_000,
            memory: 12_000,
            skills: skills_budget(),
            total: 48_000,
            fit_tokens: None,
        }
    }
}

/// The official collection's 17 skills take about 5,000 characters: they all fit.
fn skills_budget() -> usize {
    8_000
}

/// What a skill's line under [Skills] costs (`- name: description` and a newline).
pub fn skill_chars(name: &str, description: &str) -> usize {
    name.chars().count() + description.chars().count() + 4
}

/// Whether a list of skills (name, description) is longer than its budget, so that some are
/// not listed and the search tool is offered.
pub fn skills_overflow<'a>(skills: impl IntoIterator<Item = (&'a str, &'a str)>) -> bool {
    skills.into_iter().map(|(n, d)| skill_chars(n, d)).sum::<usize>() > Budgets::default().skills
}

/// The list of files in ④ takes this share of the model's window: a folder of 1,600 files once
/// took 1,270 tokens of a 4,096-token window in every request. The model finds the others with
/// `search_attachment`, and the list says how many it leaves out.
const LISTING_SHARE: f64 = 0.03;
/// A few files are listed however small the window (about 100 tokens).
const LISTING_FLOOR_CHARS: usize = 400;
/// Characters per token of English text, as [`super::render::estimate_tokens`] counts them.
const CHARS_PER_TOKEN: usize = 4;

impl Budgets {
    /// The budgets the user set (the whole prompt and ⑤); the other sections keep theirs.
    pub fn from_settings(s: &crate::store::settings::Settings) -> Budgets {
        Budgets { total: s.prompt_budget_chars as usize, memory: s.memory_budget_chars as usize, ..Budgets::default() }
    }

    /// The budgets for a model whose window is `window` tokens (`None`: unknown), of which the
    /// system prompt may take `fit_tokens`: the list of files scales with the window (3%, at
    /// least [`LISTING_FLOOR_CHARS`], at most its budget for a window that is not known).
    pub fn for_window(s: &crate::store::settings::Settings, window: Option<u32>, fit_tokens: Option<usize>) -> Budgets {
        let mut b = Budgets::from_settings(s);
        if let Some(w) = window {
            let share = (w as f64 * LISTING_SHARE) as usize * CHARS_PER_TOKEN;
            b.attachments = share.clamp(LISTING_FLOOR_CHARS, b.attachments);
        }
        b.fit_tokens = fit_tokens;
        b
    }
}

/// A cut that was made, for the inspector.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Cut {
    pub section: SectionId,
    pub raw_chars: usize,
    pub kept_chars: usize,
    pub reason: String,
    /// `section_budget` or `total_budget`; for facts and files, how many were kept of how many
    /// (`kept`, `of`, `items`: `facts` or `files`).
    #[serde(default = "unknown_cut")]
    pub why: Reason,
}

fn unknown_cut() -> Reason {
    Reason::new(ReasonCode::SectionBudget)
}

/// Which budget made a cut: its code and its English words.
#[derive(Clone, Copy)]
struct Budget(ReasonCode, &'static str);
const SECTION_BUDGET: Budget = Budget(ReasonCode::SectionBudget, "longer than its section budget");
const TOTAL_BUDGET: Budget = Budget(ReasonCode::TotalBudget, "cut to fit the whole prompt's budget");
const WINDOW_BUDGET: Budget = Budget(ReasonCode::ContextWindow, "cut to fit the model's context window");

/// The inputs after budgets, with what was cut. `omitted_*` count whole items left out.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Budgeted {
    pub inputs: PromptInputs,
    pub custom_truncated: bool,
    pub project_truncated: bool,
    pub omitted_attachments: usize,
    pub omitted_memories: usize,
    /// Skills offered but not listed (over the skills' budget): still loadable by name.
    #[serde(default)]
    pub unlisted_skills: Vec<String>,
    pub cuts: Vec<Cut>,
    /// Section ③'s parts before any cut (characters): the project's own text, and its files.
    #[serde(default)]
    pub project_raw_chars: usize,
    #[serde(default)]
    pub files_raw_chars: usize,
}

/// Rough size of a fact or a file line once rendered ("- " and a newline, or name and figures).
const ITEM_OVERHEAD: usize = 3;
const FILE_LINE_CHARS: usize = 40;
/// The `[From <path>]` line and the blank line before it.
const FILE_HEADER_CHARS: usize = 10;
/// Less of a file than this is not worth sending cut: it is left out instead.
const MIN_FILE_PART: usize = 200;

pub fn apply(inputs: &PromptInputs, budgets: &Budgets) -> Budgeted {
    apply_for(inputs, budgets, TOTAL_BUDGET)
}

/// [`apply`] with `total` lowered until the rendered prompt fits the model's window: the cuts
/// that makes say so.
pub(super) fn apply_to_fit(inputs: &PromptInputs, budgets: &Budgets) -> Budgeted {
    apply_for(inputs, budgets, WINDOW_BUDGET)
}

/// The characters of sections ② to ⑤ as the budgets count them (their inputs, not their text).
pub(super) fn counted_chars(b: &Budgeted) -> usize {
    size(b)
}

fn apply_for(inputs: &PromptInputs, budgets: &Budgets, total_reason: Budget) -> Budgeted {
    let mut out = Budgeted {
        inputs: inputs.clone(),
        custom_truncated: false,
        project_truncated: false,
        omitted_attachments: 0,
        omitted_memories: 0,
        unlisted_skills: vec![],
        cuts: vec![],
        project_raw_chars: inputs.project.instructions.chars().count(),
        files_raw_chars: files_chars(&inputs.project.files),
    };
    let per_section = SECTION_BUDGET;
    cut_text(&mut out, SectionId::CustomInstructions, budgets.custom_instructions, per_section);
    cut_text(&mut out, SectionId::ProjectInstructions, budgets.project_instructions, per_section);
    let room = budgets.project_instructions.saturating_sub(out.inputs.project.instructions.chars().count());
    cut_files(&mut out, room, per_section);
    cut_attachments(&mut out, budgets.attachments, per_section);
    cut_memories(&mut out, budgets.memory, per_section);
    cut_skills(&mut out, budgets.skills, SECTION_BUDGET);

    // Over the total: shrink the most specific, most expendable sections first.
    // ① is never cut (it is the product's or the user's chosen persona): reserve its budget.
    let fixed = budgets.base;
    let mut over = size(&out) + fixed;
    if over > budgets.total {
        let excess = over - budgets.total;
        let mem = memory_chars(&out.inputs);
        cut_memories(&mut out, mem.saturating_sub(excess), total_reason);
        over = size(&out) + fixed;
    }
    if over > budgets.total {
        let excess = over - budgets.total;
        let att = attachment_chars(&out.inputs);
        cut_attachments(&mut out, att.saturating_sub(excess), total_reason);
        over = size(&out) + fixed;
    }
    if over > budgets.total {
        let excess = over - budgets.total;
        let skills = skills_chars(&out.inputs);
        cut_skills(&mut out, skills.saturating_sub(excess), total_reason);
        over = size(&out) + fixed;
    }
    if over > budgets.total {
        // The folder's files give way before the user's own words.
        let excess = over - budgets.total;
        let files = files_chars(&out.inputs.project.files);
        cut_files(&mut out, files.saturating_sub(excess), total_reason);
        over = size(&out) + fixed;
    }
    for section in [SectionId::ProjectInstructions, SectionId::CustomInstructions] {
        if over > budgets.total {
            let excess = over - budgets.total;
            let len = text_of(&mut out.inputs, section).chars().count();
            cut_text(&mut out, section, len.saturating_sub(excess), total_reason);
            over = size(&out) + fixed;
        }
    }
    out
}

fn size(b: &Budgeted) -> usize {
    b.inputs.custom_instructions.chars().count()
        + b.inputs.project.instructions.chars().count()
        + files_chars(&b.inputs.project.files)
        + attachment_chars(&b.inputs)
        + skills_chars(&b.inputs)
        + memory_chars(&b.inputs)
}

/// A file's size as sent: its text and the line that names it (`[From …]`).
fn file_chars(f: &InstructionFile) -> usize {
    f.content.chars().count() + f.path.chars().count() + FILE_HEADER_CHARS
}

fn files_chars(found: &Found) -> usize {
    found.files.iter().map(file_chars).sum()
}

/// Keeps the instructions files within `budget`: the nearest first (they are the most
/// specific), the first that does not fit whole cut at a boundary when a useful part of it fits,
/// the farther ones left out (noted as `budget`, so the inspector lists them).
fn cut_files(out: &mut Budgeted, budget: usize, reason: Budget) {
    let found = &mut out.inputs.project.files;
    let raw = files_chars(found);
    if raw <= budget {
        return;
    }
    let before = found.files.len();
    let mut room = budget;
    let mut kept: Vec<InstructionFile> = vec![];
    for mut file in std::mem::take(&mut found.files).into_iter().rev() {
        let cost = file_chars(&file);
        if cost <= room {
            room -= cost;
            kept.push(file);
            continue;
        }
        let overhead = cost - file.content.chars().count();
        if room >= overhead + MIN_FILE_PART {
            let whole = file.content.chars().count();
            file.content = cut_at_boundary(&file.content, room - overhead);
            file.raw_chars = Some(file.raw_chars.unwrap_or(whole));
            room = 0;
            kept.push(file);
            continue;
        }
        room = 0;
        found.skipped.push(Skipped { path: file.path, why: "budget".into(), imported_by: file.imported_by });
    }
    kept.reverse();
    found.files = kept;
    let after = found.files.len();
    out.cuts.push(Cut {
        section: SectionId::ProjectInstructions,
        raw_chars: raw,
        kept_chars: files_chars(found),
        reason: format!("{}: {after} of {before} instructions files kept", reason.1),
        why: Reason::new(reason.0).with("kept", after).with("of", before).with("items", "instructions_files"),
    });
}

fn skills_chars(i: &PromptInputs) -> usize {
    i.skills.iter().map(|s| skill_chars(&s.name, &s.description)).sum()
}

/// Lists the skills that fit the budget: those used most recently first, then by name (their
/// stored order); the listed ones keep that order, so a prompt changes only when which ones
/// fit changes. The rest stay loadable and `search_skills` finds them.
fn cut_skills(out: &mut Budgeted, budget: usize, reason: Budget) {
    let raw = skills_chars(&out.inputs);
    if raw <= budget {
        return;
    }
    let skills = &out.inputs.skills;
    let mut order: Vec<usize> = (0..skills.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(skills[i].last_used), i));
    let mut keep = vec![false; skills.len()];
    let mut used = 0;
    for i in order {
        let cost = skill_chars(&skills[i].name, &skills[i].description);
        if used + cost <= budget {
            used += cost;
            keep[i] = true;
        }
    }
    let before = skills.len();
    let (listed, unlisted): (Vec<_>, Vec<_>) = std::mem::take(&mut out.inputs.skills).into_iter().zip(keep).partition(|(_, k)| *k);
    out.inputs.skills = listed.into_iter().map(|(s, _)| s).collect();
    out.unlisted_skills.extend(unlisted.into_iter().map(|(s, _)| s.name));
    out.cuts.push(Cut {
        section: SectionId::Attachments,
        raw_chars: raw,
        kept_chars: skills_chars(&out.inputs),
        reason: format!("{}: {} of {before} skills listed", reason.1, out.inputs.skills.len()),
        why: Reason::new(reason.0).with("kept", out.inputs.skills.len()).with("of", before).with("items", "skills"),
    });
}

fn memory_chars(i: &PromptInputs) -> usize {
    i.memories.iter().map(|m| m.content.chars().count() + ITEM_OVERHEAD).sum()
}

fn attachment_chars(i: &PromptInputs) -> usize {
    i.attachments.iter().map(|a| a.name.chars().count() + FILE_LINE_CHARS).sum()
}

fn text_of(inputs: &mut PromptInputs, section: SectionId) -> &mut String {
    match section {
        SectionId::CustomInstructions => &mut inputs.custom_instructions,
        _ => &mut inputs.project.instructions,
    }
}

fn cut_text(out: &mut Budgeted, section: SectionId, budget: usize, reason: Budget) {
    let text = text_of(&mut out.inputs, section);
    let raw = text.chars().count();
    if raw <= budget {
        return;
    }
    *text = cut_at_boundary(text, budget);
    let kept = text.chars().count();
    match section {
        SectionId::CustomInstructions => out.custom_truncated = true,
        _ => out.project_truncated = true,
    }
    out.cuts.push(Cut { section, raw_chars: raw, kept_chars: kept, reason: reason.1.into(), why: Reason::new(reason.0) });
}

/// Keeps pinned facts first, then the newest; the kept ones stay in their stored order.
fn cut_memories(out: &mut Budgeted, budget: usize, reason: Budget) {
    let raw = memory_chars(&out.inputs);
    if raw <= budget {
        return;
    }
    let memories = &out.inputs.memories;
    let mut order: Vec<usize> = (0..memories.len()).collect();
    order.sort_by_key(|&i| (!memories[i].pinned, std::cmp::Reverse(i)));
    let mut keep = vec![false; memories.len()];
    let mut used = 0;
    for i in order {
        let cost = memories[i].content.chars().count() + ITEM_OVERHEAD;
        if used + cost <= budget {
            used += cost;
            keep[i] = true;
        }
    }
    let before = memories.len();
    let mut idx = 0;
    out.inputs.memories.retain(|_| {
        idx += 1;
        keep[idx - 1]
    });
    out.omitted_memories += before - out.inputs.memories.len();
    out.cuts.push(Cut {
        section: SectionId::Memory,
        raw_chars: raw,
        kept_chars: memory_chars(&out.inputs),
        reason: format!("{}: {} of {before} facts kept", reason.1, out.inputs.memories.len()),
        why: Reason::new(reason.0).with("kept", out.inputs.memories.len()).with("of", before).with("items", "facts"),
    });
}

fn cut_attachments(out: &mut Budgeted, budget: usize, reason: Budget) {
    let raw = attachment_chars(&out.inputs);
    if raw <= budget {
        return;
    }
    let before = out.inputs.attachments.len();
    let mut used = 0;
    out.inputs.attachments.retain(|a| {
        used += a.name.chars().count() + FILE_LINE_CHARS;
        used <= budget
    });
    out.omitted_attachments += before - out.inputs.attachments.len();
    out.cuts.push(Cut {
        section: SectionId::Attachments,
        raw_chars: raw,
        kept_chars: attachment_chars(&out.inputs),
        reason: format!("{}: {} of {before} files listed", reason.1, out.inputs.attachments.len()),
        why: Reason::new(reason.0).with("kept", out.inputs.attachments.len()).with("of", before).with("items", "files"),
    });
}

/// The longest prefix of at most `max` characters that ends at a paragraph break, else a line
/// break, else a sentence end, else a space; a word is never split unless it is all there is.
pub fn cut_at_boundary(text: &str, max: usize) -> String {
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    if end == text.len() {
        return head.to_string();
    }
    // Only back off to a boundary in the second half, so a cut never throws away most of the budget.
    let floor = head.len() / 2;
    for sep in ["\n\n", "\n", ". ", "。", "? ", "! ", " "] {
        if let Some(pos) = head.rfind(sep).filter(|&p| p >= floor) {
            let keep = if sep.starts_with('\n') || sep == " " { pos } else { pos + sep.len() };
            return head[..keep].trim_end().to_string();
        }
    }
    head.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_a_paragraph_then_a_line_then_a_word() {
        let text = "First paragraph here.\n\nSecond paragraph is longer than that.";
        assert_eq!(cut_at_boundary(text, 30), "First paragraph here.");
        assert_eq!(cut_at_boundary("line one is here\nline two is here", 25), "line one is here");
        assert_eq!(cut_at_boundary("alpha beta gamma delta", 13), "alpha beta");
        assert_eq!(cut_at_boundary("짧은 글", 100), "짧은 글", "text within budget is untouched");
        assert_eq!(cut_at_boundary("가나다라마바사", 3), "가나다", "a cut never splits a character");
    }
}
