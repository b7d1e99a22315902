//! One conversation of ChatGPT's export (`conversations.json`): a `mapping` of nodes, each with
//! its `parent`, `children` and `message` (`author.role`, `content.content_type` and `parts`,
//! `create_time` in seconds), and `current_node`, the message the conversation showed last.
//!
//! Kept: what the user and the assistant said as text (`text`, `multimodal_text`'s text parts),
//! and code the assistant ran (`code`, as a fenced block). Left out and counted: the empty root,
//! system and tool messages, hidden context, reasoning summaries, images without text, and the
//! assistant's calls to other tools (a `recipient` other than `all`).

use serde_json::Value;

use super::tree::{self, Node, Said};
use crate::store::imports::ForeignChat;
use crate::store::messages::{self, Role};

pub fn chat(conversation: &Value) -> (ForeignChat, usize) {
    let created_at = super::seconds(&conversation["create_time"]).unwrap_or_else(crate::store::now_ms);
    let updated_at = super::seconds(&conversation["update_time"]).unwrap_or(created_at);
    let id = ["conversation_id", "id"].iter().find_map(|k| conversation[*k].as_str().filter(|s| !s.is_empty()));
    let source = format!("chatgpt:{}", id.map_or_else(|| super::hashed(conversation), str::to_string));
    let nodes = conversation["mapping"]
        .as_object()
        .map(|mapping| mapping.iter().map(|(key, node)| self::node(key, node)).collect())
        .unwrap_or_default();
    let (messages, dropped) = tree::messages(nodes, conversation["current_node"].as_str(), created_at);
    let title = conversation["title"].as_str().unwrap_or_default().to_string();
    (ForeignChat { source, title, created_at, updated_at, messages }, dropped)
}

fn node(key: &str, node: &Value) -> Node {
    let message = &node["message"];
    let said = said(message);
    Node {
        id: node["id"].as_str().unwrap_or(key).to_string(),
        parent: node["parent"].as_str().map(str::to_string),
        children: node["children"]
            .as_array()
            .map(|c| c.iter().filter_map(|c| c.as_str().map(str::to_string)).collect())
            .unwrap_or_default(),
        dropped: said.is_none() && message.is_object(),
        message: said,
    }
}

/// What Maru keeps of a message: `None` when it is not the user's or the assistant's text.
fn said(message: &Value) -> Option<Said> {
    let role = match message["author"]["role"].as_str()? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    let metadata = &message["metadata"];
    if metadata["is_visually_hidden_from_conversation"].as_bool() == Some(true) {
        return None;
    }
    let content = &message["content"];
    let text = match content["content_type"].as_str()? {
        "code" => {
            let code = content["text"].as_str()?;
            let language = content["language"].as_str().filter(|l| *l != "unknown").unwrap_or("");
            (!code.trim().is_empty()).then(|| super::fenced(language, code))?
        }
        // A message to a tool (an image prompt, a search) is the assistant's call, not its answer.
        "text" | "multimodal_text" if message["recipient"].as_str().is_none_or(|r| r == "all") => {
            let parts = content["parts"].as_array()?;
            parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")
        }
        _ => return None,
    };
    if text.trim().is_empty() || crate::store::char_len(&text) > messages::CONTENT_MAX_CHARS {
        return None;
    }
    let model = metadata["model_slug"].as_str().filter(|_| role == Role::Assistant).map(str::to_string);
    Some(Said { role, content: text, model, created_at: super::seconds(&message["create_time"]) })
}
