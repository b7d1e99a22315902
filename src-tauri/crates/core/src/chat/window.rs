//! The system prompt's share of the model's window. A request carries the system prompt, the
//! tools, the conversation and room for the reply; the prompt's budgets are set so that, with
//! the tools and the reply's room, it leaves part of the window to the conversation: the first
//! request of a chat fits whatever the folder's size or the other sections (only ①, the base
//! prompt or preset, is never cut). The same budgets make the prompt a turn sends, the one the
//! inspector shows and the one compacting summarises under.

use super::{compact, plan};
use crate::app::App;
use crate::prompt::render::estimate_tokens;
use crate::prompt::Budgets;
use crate::store::settings::Settings;
use crate::store::tool_servers::ToolServer;
use crate::tools::Offer;

/// The part of the window kept for the conversation beside the prompt, the tools and the
/// reply's room: the user's message and the turns before it (older ones are summarised).
const CONVERSATION_SHARE: usize = 8;

/// The budgets of a chat's prompt on a model whose window is `window` tokens (`None`: unknown;
/// then only the settings' budgets apply). `offer` and the project's `servers` say which tools
/// are offered beside it: Maru's own, and the tool servers' running ones (as many as the
/// tools' budget lets through).
pub fn budgets(app: &App, settings: &Settings, offer: Offer, servers: &[ToolServer], project_id: i64, window: Option<u32>) -> Budgets {
    let Some(w) = window else { return Budgets::for_window(settings, None, None) };
    let theirs: usize = app.tool_servers.ready(servers, project_id).iter().map(|o| estimate_tokens(&compact::tool_json(&o.spec))).sum();
    let offer = Offer { servers: theirs > 0, ..offer };
    let own = app.tools.estimated_tokens(&offer);
    let tools = own + theirs.min(settings.tool_schema_budget_tokens as usize);
    Budgets::for_window(settings, Some(w), Some(fit_tokens(settings, w, tools)))
}

/// The tokens the system prompt may take: what the plan fills of the window, less the reply's
/// room, the tools and the conversation's share.
pub fn fit_tokens(settings: &Settings, window: u32, tools: usize) -> usize {
    let w = window as usize;
    let limit = ((w as f64 * plan::FILL) as usize).saturating_sub(compact::reserve(settings, Some(window)));
    limit.saturating_sub(tools + w / CONVERSATION_SHARE)
}

/// The window as known without asking the server: the settings' or what it said before.
/// `None`: never asked (a turn asks before it reads its round); `Some(None)`: it does not say.
pub fn known(app: &App, settings: &Settings, model: &str) -> Option<Option<u32>> {
    match settings.context_length {
        Some(n) => Some(Some(n)),
        None => app.clients.known_context_length(&settings.server.base_url, model),
    }
}
