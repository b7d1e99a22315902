//! One conversation of Claude's export (`conversations.json`): `uuid`, `name`, `created_at`,
//! `updated_at` (RFC 3339) and `chat_messages`, each with its `sender` (human or assistant),
//! `text` and `content` blocks, and the text Claude extracted from its `attachments`.
//!
//! Its messages are a list in order. Where they also name their `parent_message_uuid` (Claude's
//! own branches: edited questions, retried answers), the tree is kept, with the main line ending
//! at `current_leaf_message_uuid` or else at the newest message. Left out and counted: messages
//! without text (images alone, tool calls) and any other sender.

use std::collections::HashMap;

use serde_json::Value;

use super::tree::{self, Node, Said};
use crate::store::imports::ForeignChat;
use crate::store::messages::{self, Role};

pub fn chat(conversation: &Value) -> (ForeignChat, usize) {
    let created_at = super::rfc3339(&conversation["created_at"]).unwrap_or_else(crate::store::now_ms);
    let updated_at = super::rfc3339(&conversation["updated_at"]).unwrap_or(created_at);
    let id = conversation["uuid"].as_str().filter(|s| !s.is_empty());
    let source = format!("claude:{}", id.map_or_else(|| super::hashed(conversation), str::to_string));
    let list = conversation["chat_messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let ids: Vec<String> =
        list.iter().enumerate().map(|(i, m)| m["uuid"].as_str().map_or_else(|| format!("#{i}"), str::to_string)).collect();
    // Each message follows its parent when it names one, else the message before it.
    let parents: Vec<Option<String>> = list
        .iter()
        .enumerate()
        .map(|(i, m)| match m.get("parent_message_uuid") {
            Some(p) => p.as_str().map(str::to_string),
            None => i.checked_sub(1).map(|p| ids[p].clone()),
        })
        .collect();
    let mut children: HashMap<&str, Vec<String>> = HashMap::new();
    for (id, parent) in ids.iter().zip(&parents) {
        if let Some(p) = parent {
            children.entry(p.as_str()).or_default().push(id.clone());
        }
    }
    let nodes = list
        .iter()
        .zip(ids.iter().zip(&parents))
        .map(|(m, (id, parent))| {
            let said = said(m);
            Node {
                id: id.clone(),
                parent: parent.clone(),
                children: children.get(id.as_str()).cloned().unwrap_or_default(),
                dropped: said.is_none(),
                message: said,
            }
        })
        .collect();
    let leaf = conversation["current_leaf_message_uuid"].as_str().or_else(|| ids.last().map(String::as_str));
    let (messages, dropped) = tree::messages(nodes, leaf, created_at);
    let title = conversation["name"].as_str().unwrap_or_default().to_string();
    (ForeignChat { source, title, created_at, updated_at, messages }, dropped)
}

fn said(message: &Value) -> Option<Said> {
    let role = match message["sender"].as_str()? {
        "human" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    // The blocks are what the app showed; `text` is the older exports' copy of them.
    let blocks: Vec<&str> = message["content"]
        .as_array()
        .map(|c| c.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default();
    let mut text = if blocks.is_empty() { message["text"].as_str().unwrap_or_default().to_string() } else { blocks.join("\n\n") };
    // Pasted text and files Claude read: the model saw them with the message, and so does Maru's.
    for a in message["attachments"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let Some(extracted) = a["extracted_content"].as_str().filter(|t| !t.trim().is_empty()) else { continue };
        let name = a["file_name"].as_str().filter(|n| !n.is_empty()).unwrap_or("attachment");
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!("**{name}**\n\n{}", super::fenced("", extracted)));
    }
    if text.trim().is_empty() || crate::store::char_len(&text) > messages::CONTENT_MAX_CHARS {
        return None;
    }
    Some(Said { role, content: text, model: None, created_at: super::rfc3339(&message["created_at"]) })
}
