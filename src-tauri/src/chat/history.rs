//! Stored messages → the request's `messages`. Deterministic: the same stored history always
//! gives the same bytes, so each request begins with the previous request's messages and the
//! server's prefix cache is reused.

use chrono::{DateTime, Local};
use serde_json::json;

use crate::error::Result;
use crate::llm::ChatMessage;
use crate::prompt::Templates;
use crate::store::messages::{Message, Role, Status};

/// The runtime note stored with a user message: the exact time it was sent.
pub fn runtime_note(templates: &Templates, at: DateTime<Local>) -> Result<String> {
    let time = at.format("%Y-%m-%d %H:%M:%S %:z (%A)").to_string();
    templates.render("runtime_note", &json!({ "time": time }))
}

pub fn request_messages(templates: &Templates, system_prompt: &str, history: &[Message]) -> Result<Vec<ChatMessage>> {
    let mut out = Vec::with_capacity(history.len() + 1);
    out.push(ChatMessage::system(system_prompt));
    for m in history {
        match m.role {
            Role::User => {
                let text = match &m.runtime_note {
                    Some(note) => format!("{}\n\n{note}", m.content),
                    None => m.content.clone(),
                };
                out.push(ChatMessage::user(text));
            }
            Role::Assistant => {
                // A failed reply or one still being written is not part of the conversation.
                if matches!(m.status, Status::Error | Status::Streaming) && m.tool_calls.is_empty() {
                    continue;
                }
                if m.tool_calls.is_empty() {
                    if m.content.is_empty() {
                        continue;
                    }
                    out.push(ChatMessage::assistant(m.content.clone()));
                } else {
                    out.push(ChatMessage::assistant_tool_calls(m.content.clone(), m.tool_calls.clone()));
                }
            }
            Role::Tool => {
                let wrapped = templates.render(
                    "tool_result",
                    &json!({ "tool": m.tool_name.as_deref().unwrap_or("tool"), "output": m.content }),
                )?;
                out.push(ChatMessage::tool(m.tool_call_id.clone().unwrap_or_default(), wrapped));
            }
        }
    }
    Ok(out)
}
