//! The context plan: what a request can carry in the model's window. A pure function of token
//! counts, so it is tested without a model or a database.
//!
//! The system prompt and the summaries come first, then the history the summaries do not cover,
//! and room is left for the reply. When that would pass `FILL` of the window, the oldest turns
//! not yet summarised are to be summarised, keeping the newest verbatim (at least the last
//! question, and about half of what fits). A summary, once written, stays as it is: the prefix
//! the server has cached survives until the next one.

use serde::{Deserialize, Serialize};

/// Requests are planned to use at most this share of the window: estimates are estimates.
pub const FILL: f64 = 0.85;

/// One stored message as the plan sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    pub id: i64,
    pub tokens: usize,
    /// A user message: turns start here, so cuts happen just before one.
    pub starts_turn: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The model's context length in tokens.
    pub context: usize,
    /// Tokens kept free for the reply.
    pub reserve: usize,
}

/// How the tokens of the next request are spent, for the inspector.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct TokenPlan {
    pub context: usize,
    pub system: usize,
    /// The tools offered: their names, descriptions and argument schemas.
    pub tools: usize,
    pub summaries: usize,
    pub history: usize,
    pub reserve: usize,
}

/// What every request carries before the history: the system prompt, the tools, the summaries.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fixed {
    pub system: usize,
    pub tools: usize,
    pub summaries: usize,
}

impl Fixed {
    fn total(&self) -> usize {
        self.system + self.tools + self.summaries
    }

    fn spent(&self, window: Window, history: usize) -> TokenPlan {
        TokenPlan {
            context: window.context,
            system: self.system,
            tools: self.tools,
            summaries: self.summaries,
            history,
            reserve: window.reserve,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Everything after the summaries fits: send it.
    Fits(TokenPlan),
    /// Summarise `items[..end]` (those not yet covered), then plan again.
    Compact { end: usize },
}

/// Plans a request. `items` are the session's messages oldest first; those with an id up to
/// `summarised_through` are covered by the summaries (`fixed.summaries`).
pub fn plan(window: Window, fixed: Fixed, summarised_through: Option<i64>, items: &[Item]) -> Plan {
    let first = items.iter().position(|i| summarised_through.is_none_or(|t| i.id > t)).unwrap_or(items.len());
    let history: usize = items[first..].iter().map(|i| i.tokens).sum();
    let limit = ((window.context as f64 * FILL) as usize).saturating_sub(window.reserve);
    let spent = fixed.spent(window, history);
    let fixed = fixed.total();
    if fixed + history <= limit {
        return Plan::Fits(spent);
    }
    // Keep the newest turns that fill about half of what is left for history; summarise the rest.
    let room = limit.saturating_sub(fixed) / 2;
    let mut kept = 0;
    let mut start = items.len();
    for (i, item) in items.iter().enumerate().skip(first).rev() {
        if kept + item.tokens > room && start < items.len() {
            break;
        }
        kept += item.tokens;
        start = i;
    }
    // Cut just before a user message, so a kept turn is whole; never summarise the last question.
    let last_question = items.iter().rposition(|i| i.starts_turn).unwrap_or(0);
    let mut end = start.min(last_question);
    while end > first && !items[end].starts_turn {
        end -= 1;
    }
    if end <= first {
        // Nothing older to summarise (one huge turn): send what there is; the server decides.
        return Plan::Fits(spent);
    }
    Plan::Compact { end }
}

/// What a summary of older turns takes in their place, at most (its request asks for 400 tokens).
pub const SUMMARY_TOKENS: usize = 400;

/// Whether summarising now (the inspector's Compact now) can make room for the next request,
/// and why not. Compacting replaces the older turns with a summary: it frees nothing of the
/// system prompt, the tools or the last message.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct CompactOffer {
    /// Offered: there are older turns to summarise, longer than their summary would be, and
    /// summarising them frees what the next request is over.
    pub offered: bool,
    /// Tokens of the older turns it would summarise (every one not yet summarised but the last).
    pub compactable: usize,
    /// Tokens the next request is over what a request may fill of the window (0: it fits).
    pub over: usize,
    /// Why it is not offered: `nothing_to_compact`, `temporary_chat`, or, where the request is
    /// over and compacting cannot help, `prompt_fills_window` (the system prompt and the tools
    /// alone take more than a request may fill: `system`, `tools`, `limit`) or
    /// `last_message_fills_window` (the last message with them: its `tokens`, `limit`).
    pub why_not: Option<crate::error::Reason>,
}

/// The offer of Compact now for the next request (`window`: `None` when unknown; then it is
/// offered whenever there is something to summarise).
pub fn compact_offer(window: Option<Window>, fixed: Fixed, summarised_through: Option<i64>, items: &[Item]) -> CompactOffer {
    use crate::error::Reason;
    let first = items.iter().position(|i| summarised_through.is_none_or(|t| i.id > t)).unwrap_or(items.len());
    let last_question = items.iter().rposition(|i| i.starts_turn).filter(|&q| q > first).unwrap_or(first);
    let compactable: usize = items[first..last_question].iter().map(|i| i.tokens).sum();
    let last: usize = items[last_question..].iter().map(|i| i.tokens).sum();
    let frees = compactable.saturating_sub(SUMMARY_TOKENS);
    let over = window.map_or(0, |w| {
        let limit = ((w.context as f64 * FILL) as usize).saturating_sub(w.reserve);
        (fixed.total() + compactable + last).saturating_sub(limit)
    });
    let why_not = match window {
        _ if frees > 0 && frees >= over => None,
        Some(w) if over > 0 => {
            let limit = ((w.context as f64 * FILL) as usize).saturating_sub(w.reserve);
            Some(if fixed.system + fixed.tools > limit {
                Reason::new(crate::error::ReasonCode::PromptFillsWindow)
                    .with("system", fixed.system)
                    .with("tools", fixed.tools)
                    .with("limit", limit)
            } else if fixed.total() + last > limit {
                Reason::new(crate::error::ReasonCode::LastMessageFillsWindow).with("tokens", last).with("limit", limit)
            } else {
                // Room is missing that one summary of these turns does not free: the turn
                // after this one is summarised with them.
                Reason::new(crate::error::ReasonCode::NothingToCompact)
            })
        }
        _ => Some(Reason::new(crate::error::ReasonCode::NothingToCompact)),
    };
    CompactOffer { offered: why_not.is_none(), compactable, over, why_not }
}

/// What the inspector shows: how the next request would spend the window, and whether it will
/// summarise older turns first.
pub fn preview(window: Window, fixed: Fixed, summarised_through: Option<i64>, items: &[Item]) -> (TokenPlan, bool) {
    let first = items.iter().position(|i| summarised_through.is_none_or(|t| i.id > t)).unwrap_or(items.len());
    let history = items[first..].iter().map(|i| i.tokens).sum();
    let spent = fixed.spent(window, history);
    let compacts = matches!(plan(window, fixed, summarised_through, items), Plan::Compact { .. });
    (spent, compacts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(n: usize, tokens: usize) -> Vec<Item> {
        (0..n * 2).map(|i| Item { id: i as i64 + 1, tokens, starts_turn: i % 2 == 0 }).collect()
    }

    const WINDOW: Window = Window { context: 4096, reserve: 512 };

    fn system(system: usize, summaries: usize) -> Fixed {
        Fixed { system, tools: 0, summaries }
    }

    #[test]
    fn the_tools_count_against_the_window() {
        let items = turns(10, 100);
        assert!(matches!(plan(WINDOW, system(800, 0), None, &items), Plan::Fits(_)), "2,000 tokens of chat fit beside 800 of prompt");
        let with_tools = Fixed { system: 800, tools: 900, summaries: 0 };
        assert!(
            matches!(plan(WINDOW, with_tools, None, &items), Plan::Compact { .. }),
            "900 tokens of tool schemas leave no room: the plan must compact rather than overflow the server's window"
        );
    }

    #[test]
    fn a_short_chat_is_sent_whole() {
        assert!(matches!(plan(WINDOW, system(800, 0), None, &turns(5, 100)), Plan::Fits(p) if p.history == 1000));
    }

    #[test]
    fn a_long_chat_summarises_its_oldest_turns_at_a_turn_boundary() {
        let items = turns(20, 100);
        let Plan::Compact { end } = plan(WINDOW, system(800, 0), None, &items) else { panic!("4,000 tokens of history cannot fit") };
        assert!(items[end].starts_turn, "the kept part starts with a question");
        let kept: usize = items[end..].iter().map(|i| i.tokens).sum();
        assert!(kept > 0 && 800 + kept + 512 <= (4096.0 * FILL) as usize, "what is kept fits with room to spare: {kept}");
        // Once summarised (say in 300 tokens), the plan fits.
        let through = items[end - 1].id;
        assert!(matches!(plan(WINDOW, system(800, 300), Some(through), &items), Plan::Fits(_)));
    }

    #[test]
    fn compact_now_is_offered_only_where_it_frees_what_is_needed() {
        let fits = compact_offer(Some(WINDOW), system(800, 0), None, &turns(10, 100));
        assert!(fits.offered && fits.over == 0, "a chat with older turns may be compacted to make room: {fits:?}");
        let nothing = compact_offer(Some(WINDOW), system(800, 0), None, &turns(1, 100));
        assert_eq!(
            (nothing.offered, nothing.why_not.map(|r| r.code)),
            (false, Some(crate::error::ReasonCode::NothingToCompact)),
            "a chat of one turn has nothing older to summarise"
        );
        let long = compact_offer(Some(WINDOW), system(800, 0), None, &turns(20, 100));
        assert!(long.offered && long.over > 0, "2,000 tokens over, 3,900 of older turns to summarise: it helps: {long:?}");
        let big_prompt = Fixed { system: 2_800, tools: 300, summaries: 0 };
        let stuck = compact_offer(Some(WINDOW), big_prompt, None, &turns(3, 100));
        assert!(!stuck.offered && stuck.over > 0, "the prompt alone is over: compacting the chat cannot help: {stuck:?}");
        assert_eq!(stuck.why_not.map(|r| r.code), Some(crate::error::ReasonCode::PromptFillsWindow), "and the inspector says so");
        let unknown = compact_offer(None, system(800, 0), None, &turns(10, 100));
        assert!(unknown.offered, "with the window unknown, older turns may still be summarised: {unknown:?}");
    }

    #[test]
    fn the_last_question_is_never_summarised() {
        let mut items = turns(3, 50);
        items.push(Item { id: 99, tokens: 3000, starts_turn: true });
        items.push(Item { id: 100, tokens: 20, starts_turn: false });
        let Plan::Compact { end } = plan(WINDOW, system(800, 0), None, &items) else {
            panic!("3,320 tokens of history beside 800 of prompt do not fit in 4,096: the older turns must be summarised")
        };
        let question = items.iter().position(|i| i.id == 99).unwrap();
        assert_eq!(
            end, question,
            "every turn before the huge last question is summarised, and the question is kept whole with what follows it"
        );
        // A chat that is that question alone has nothing older to summarise: it is sent as it is.
        let alone = &items[question..];
        assert!(
            matches!(plan(WINDOW, system(800, 0), None, alone), Plan::Fits(p) if p.history == 3020),
            "the question is sent, never summarised"
        );
    }
}
