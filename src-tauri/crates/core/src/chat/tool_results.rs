//! A tool call's result stored as the next round sends it: its form (whole, or kept aside with
//! a preview) is decided once, here, and what the call did is stored beside it for the chat.

use std::sync::Arc;

use super::machine::Halt;
use crate::app::App;
use crate::llm::ToolCall;
use crate::store::messages::{self, NewMessage, Role};
use crate::store::{sessions, tool_outputs};
use crate::tools::{output, ToolDid, ToolOutcome};

/// Stores `result` as the answer to `call`; `None`: the chat is gone. `inline_tokens`: the size
/// up to which a result is sent whole.
pub(super) async fn store(
    app: &Arc<App>,
    session_id: i64,
    inline_tokens: u32,
    call: &ToolCall,
    result: String,
    did: ToolDid,
) -> Result<Option<(String, ToolOutcome)>, Halt> {
    let (id, name, templates) = (call.id.clone(), call.name.clone(), app.templates.clone());
    Ok(app
        .store
        .write(move |tx| {
            if sessions::get(tx, session_id).is_err() {
                return Ok(None);
            }
            let decided = output::decide(tx, &templates, session_id, &name, result, inline_tokens)?;
            let outcome = ToolOutcome { did, kept: decided.kept_output };
            let m = messages::insert(
                tx,
                &NewMessage {
                    session_id,
                    role: Role::Tool,
                    content: &decided.sent,
                    tool_call_id: Some(&id),
                    tool_name: Some(&name),
                    tool_outcome: Some(&outcome),
                    ..Default::default()
                },
            )?;
            if let Some(kept) = decided.kept {
                tool_outputs::attach(tx, kept, m.id)?;
            }
            Ok(Some((decided.sent, outcome)))
        })
        .await?)
}
