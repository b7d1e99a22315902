//! Stage 2: budgets. Each section has a character budget and the whole prompt has one. What is
//! cut is cut at a clean boundary (a paragraph, a line, a whole fact or file) and reported.

use serde::{Deserialize, Serialize};

use super::inputs::PromptInputs;
use super::SectionId;
use crate::error::Reason;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Budgets {
    pub base: usize,
    pub custom_instructions: usize,
    pub project_instructions: usize,
    pub attachments: usize,
    pub memory: usize,
    /// For the whole system prompt; sections are shrunk from ⑤ backwards to ② when over it.
    pub total: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            base: 12_000,
            custom_instructions: 12_000,
            project_instructions: 24_000,
            attachments: 6_000,
            memory: 12_000,
            total: 48_000,
        }
    }
}

impl Budgets {
    /// The budgets the user set (the whole prompt and ⑤); the other sections keep theirs.
    pub fn from_settings(s: &crate::store::settings::Settings) -> Budgets {
        Budgets { total: s.prompt_budget_chars as usize, memory: s.memory_budget_chars as usize, ..Budgets::default() }
    }
}

/// A cut that was made, for the inspector.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[cfg_attr(test, derive(ts_rs::TS))]
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
    Reason::new("section_budget")
}

/// Which budget made a cut: its code and its English words.
#[derive(Clone, Copy)]
struct Budget(&'static str, &'static str);
const SECTION_BUDGET: Budget = Budget("section_budget", "longer than its section budget");
const TOTAL_BUDGET: Budget = Budget("total_budget", "cut to fit the whole prompt's budget");

/// The inputs after budgets, with what was cut. `omitted_*` count whole items left out.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Budgeted {
    pub inputs: PromptInputs,
    pub custom_truncated: bool,
    pub project_truncated: bool,
    pub omitted_attachments: usize,
    pub omitted_memories: usize,
    pub cuts: Vec<Cut>,
}

/// Rough size of a fact or a file line once rendered ("- " and a newline, or name and figures).
const ITEM_OVERHEAD: usize = 3;
const FILE_LINE_CHARS: usize = 40;

pub fn apply(inputs: &PromptInputs, budgets: &Budgets) -> Budgeted {
    let mut out = Budgeted {
        inputs: inputs.clone(),
        custom_truncated: false,
        project_truncated: false,
        omitted_attachments: 0,
        omitted_memories: 0,
        cuts: vec![],
    };
    let per_section = SECTION_BUDGET;
    cut_text(&mut out, SectionId::CustomInstructions, budgets.custom_instructions, per_section);
    cut_text(&mut out, SectionId::ProjectInstructions, budgets.project_instructions, per_section);
    cut_attachments(&mut out, budgets.attachments, per_section);
    cut_memories(&mut out, budgets.memory, per_section);

    // Over the total: shrink the most specific, most expendable sections first.
    let total_reason = TOTAL_BUDGET;
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
        + b.inputs.project.files.files.iter().map(|f| f.content.chars().count() + f.path.chars().count()).sum::<usize>()
        + attachment_chars(&b.inputs)
        + memory_chars(&b.inputs)
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
