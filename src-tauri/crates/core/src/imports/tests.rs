//! Conversations of each app, in the shape their exports have, read into Maru's message tree.

use serde_json::{json, Value};

use super::{chatgpt, claude, fenced};
use crate::store::imports::ForeignChat;
use crate::store::messages::Role;

/// A ChatGPT node: `parts` of a `text` message by `role`, or `message: null` for the root.
fn node(id: &str, parent: Option<&str>, children: &[&str], message: Value) -> (String, Value) {
    (id.to_string(), json!({ "id": id, "parent": parent, "children": children, "message": message }))
}

fn text(role: &str, parts: Value, time: f64) -> Value {
    json!({
        "id": "m", "author": { "role": role, "name": null, "metadata": {} }, "create_time": time, "update_time": null,
        "content": { "content_type": "text", "parts": parts }, "status": "finished_successfully", "end_turn": true,
        "weight": 1.0, "metadata": { "model_slug": "gpt-4o" }, "recipient": "all"
    })
}

/// A conversation as ChatGPT exports it: a root without a message, a hidden system message, a
/// question asked twice (edited), the second answered twice (regenerated), with the first answer
/// shown; then Python run through the tool, its output, and a Korean answer.
fn chatgpt_conversation() -> Value {
    let mapping: serde_json::Map<String, Value> = [
        node("root", None, &["sys"], Value::Null),
        node("sys", Some("root"), &["q1", "q1b"], {
            let mut m = text("system", json!([""]), 1_700_000_000.0);
            m["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
            m
        }),
        node("q1", Some("sys"), &["a1"], text("user", json!(["What is a monad?"]), 1_700_000_001.0)),
        node("a1", Some("q1"), &[], text("assistant", json!(["A burrito."]), 1_700_000_002.0)),
        node("q1b", Some("sys"), &["a2", "a2b"], text("user", json!(["What is a monad, briefly?"]), 1_700_000_010.0)),
        node("a2", Some("q1b"), &["code"], text("assistant", json!(["A type with bind."]), 1_700_000_011.0)),
        node("a2b", Some("q1b"), &[], text("assistant", json!(["Something else."]), 1_700_000_012.0)),
        node("code", Some("a2"), &["tool"], {
            json!({
                "author": { "role": "assistant" }, "create_time": 1_700_000_013.0, "recipient": "python",
                "content": { "content_type": "code", "language": "unknown", "text": "print(1 + 1)" }, "metadata": {}
            })
        }),
        node("tool", Some("code"), &["img"], {
            json!({
                "author": { "role": "tool", "name": "python" }, "create_time": 1_700_000_014.0,
                "content": { "content_type": "execution_output", "text": "2" }, "metadata": {}
            })
        }),
        node("img", Some("tool"), &["ko"], {
            let mut m = text(
                "user",
                json!([{ "content_type": "image_asset_pointer", "asset_pointer": "file-service://x" }, "이 그림은?"]),
                1_700_000_015.0,
            );
            m["content"]["content_type"] = json!("multimodal_text");
            m
        }),
        node("ko", Some("img"), &[], text("assistant", json!(["고양이입니다."]), 1_700_000_016.0)),
    ]
    .into_iter()
    .collect();
    json!({
        "title": "Monads", "create_time": 1_700_000_000.5, "update_time": 1_700_000_016.0,
        "mapping": mapping, "current_node": "ko", "conversation_id": "c-1", "id": "c-1",
        "moderation_results": [], "plugin_ids": null, "gizmo_id": null, "is_archived": false
    })
}

/// The main line, in order, as (role, text).
fn main_line(chat: &ForeignChat) -> Vec<(Role, &str)> {
    chat.messages.iter().filter(|m| m.main_line).map(|m| (m.role, m.content.as_str())).collect()
}

#[test]
fn a_chatgpt_conversation_keeps_what_was_shown_as_its_main_line_and_every_branch_as_versions() {
    let (chat, skipped) = chatgpt::chat(&chatgpt_conversation());
    assert_eq!(chat.source, "chatgpt:c-1", "the conversation's id is remembered, so a second import skips it");
    assert_eq!(chat.title, "Monads");
    assert_eq!((chat.created_at, chat.updated_at), (1_700_000_000_500, 1_700_000_016_000), "times are kept, in milliseconds");
    assert_eq!(
        main_line(&chat),
        [
            (Role::User, "What is a monad, briefly?"),
            (Role::Assistant, "A type with bind."),
            (Role::Assistant, "```\nprint(1 + 1)\n```"),
            (Role::User, "이 그림은?"),
            (Role::Assistant, "고양이입니다."),
        ],
        "the conversation as it was on screen: the edited question, its first answer, the code that ran, and the Korean turn"
    );
    assert_eq!(skipped, 2, "the system message and the tool's output are left out and counted (the empty root is no message)");
    let versions_of = |text: &str| {
        let m = chat.messages.iter().find(|m| m.content == text).unwrap_or_else(|| panic!("{text} is kept"));
        chat.messages.iter().filter(|o| o.parent == m.parent).map(|o| o.content.as_str()).collect::<Vec<_>>()
    };
    assert_eq!(
        versions_of("What is a monad?"),
        ["What is a monad?", "What is a monad, briefly?"],
        "the question before its edit is an earlier version"
    );
    assert_eq!(versions_of("Something else."), ["A type with bind.", "Something else."], "a regenerated answer is a version, not dropped");
    let first = chat.messages.iter().position(|m| m.content == "What is a monad?").unwrap();
    assert!(
        chat.messages.iter().any(|m| m.parent == Some(first) && m.content == "A burrito."),
        "the answer to the question before its edit stays with it"
    );
    for (i, m) in chat.messages.iter().enumerate() {
        assert!(m.parent.is_none_or(|p| p < i), "a parent comes before its children, so ids grow along every branch");
    }
    assert_eq!(chat.messages.iter().find(|m| m.content == "A type with bind.").unwrap().model.as_deref(), Some("gpt-4o"));
    assert_eq!(chat.messages.iter().find(|m| m.content == "이 그림은?").unwrap().created_at, 1_700_000_015_000);
}

#[test]
fn a_chatgpt_conversation_without_a_current_node_follows_its_newest_branch() {
    let mut conversation = chatgpt_conversation();
    conversation.as_object_mut().unwrap().remove("current_node");
    let (chat, _) = chatgpt::chat(&conversation);
    assert_eq!(
        main_line(&chat),
        [(Role::User, "What is a monad, briefly?"), (Role::Assistant, "Something else.")],
        "with nothing saying what was shown, the newest version of each message is"
    );
}

#[test]
fn an_empty_chatgpt_conversation_is_a_chat_without_messages() {
    let conversation = json!({
        "title": "New chat", "create_time": 1_700_000_000.0, "update_time": 1_700_000_000.0, "current_node": "root", "id": "empty",
        "mapping": { "root": { "id": "root", "parent": null, "children": [], "message": null } }
    });
    let (chat, skipped) = chatgpt::chat(&conversation);
    assert!(chat.messages.is_empty(), "{chat:?}");
    assert_eq!(skipped, 0);
}

/// A conversation as Claude exports it.
fn claude_conversation(messages: Value) -> Value {
    json!({
        "uuid": "9a1c", "name": "회의 정리", "created_at": "2025-03-01T09:00:00.000000Z", "updated_at": "2025-03-01T09:05:00.123456Z",
        "account": { "uuid": "acc" }, "chat_messages": messages
    })
}

fn claude_message(uuid: &str, sender: &str, text: &str, extra: Value) -> Value {
    let mut m = json!({
        "uuid": uuid, "sender": sender, "text": text, "content": [{ "type": "text", "text": text, "citations": [] }],
        "created_at": "2025-03-01T09:01:00.000000Z", "updated_at": "2025-03-01T09:01:00.000000Z", "attachments": [], "files": []
    });
    for (k, v) in extra.as_object().unwrap() {
        m[k] = v.clone();
    }
    m
}

#[test]
fn a_claude_conversation_keeps_its_messages_attachments_and_times() {
    let conversation = claude_conversation(json!([
        claude_message(
            "u1",
            "human",
            "이 회의록을 요약해 줘",
            json!({
                "attachments": [{ "file_name": "notes.txt", "file_size": 20, "file_type": "txt", "extracted_content": "회의: 3시\n```code```" }]
            })
        ),
        claude_message("a1", "assistant", "", json!({ "content": [{ "type": "tool_use", "name": "search", "input": {} }] })),
        claude_message("a2", "assistant", "3시에 회의가 있습니다.", json!({})),
    ]));
    let (chat, skipped) = claude::chat(&conversation);
    assert_eq!(chat.source, "claude:9a1c");
    assert_eq!(chat.title, "회의 정리");
    assert_eq!(chat.updated_at, 1_740_819_900_123, "RFC 3339 times are kept to the millisecond");
    assert_eq!(skipped, 1, "a message without text (a tool call) is left out and counted");
    let line = main_line(&chat);
    assert_eq!(line.len(), 2, "{line:?}");
    assert!(
        line[0].1.starts_with("이 회의록을 요약해 줘\n\n**notes.txt**\n\n````\n회의: 3시\n```code```\n````"),
        "the text Claude read from an attachment comes with the question, fenced so that its own backticks cannot end the block: {}",
        line[0].1
    );
    assert_eq!(line[1], (Role::Assistant, "3시에 회의가 있습니다."));
    assert_eq!(chat.messages[1].parent, Some(0), "without parents named, each message follows the one before it");
}

#[test]
fn a_claude_conversation_with_branches_shows_the_current_leaf_and_keeps_the_rest() {
    let root = "00000000-0000-4000-8000-000000000000";
    let conversation = {
        let mut c = claude_conversation(json!([
            claude_message("u1", "human", "first question", json!({ "parent_message_uuid": root })),
            claude_message("a1", "assistant", "first answer", json!({ "parent_message_uuid": "u1" })),
            claude_message("a1b", "assistant", "retried answer", json!({ "parent_message_uuid": "u1" })),
            claude_message("u2", "human", "follow-up", json!({ "parent_message_uuid": "a1" })),
        ]));
        c["current_leaf_message_uuid"] = json!("u2");
        c
    };
    let (chat, _) = claude::chat(&conversation);
    assert_eq!(
        main_line(&chat),
        [(Role::User, "first question"), (Role::Assistant, "first answer"), (Role::User, "follow-up")],
        "the line that ends at the current leaf is the chat"
    );
    let retried = chat.messages.iter().find(|m| m.content == "retried answer").expect("the retried answer is kept");
    assert_eq!(retried.parent, Some(0), "as a version of the first answer");
}

#[test]
fn code_is_fenced_so_that_nothing_inside_closes_the_block() {
    assert_eq!(fenced("rust", "fn main() {}\n"), "```rust\nfn main() {}\n```");
    assert_eq!(fenced("", "a ``` b"), "````\na ``` b\n````");
}

/// The most memory the process ever held (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A large export is read one conversation at a time: checking and reading a 200 MB
/// `conversations.json` holds a small part of it in memory. Ignored by default (it writes
/// 200 MB); run it alone, so the peak is its own:
/// `cargo test -p maru-core --no-default-features large_export -- --ignored`.
#[test]
#[ignore]
fn a_large_export_is_read_in_little_memory() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conversations.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut one = chatgpt_conversation();
    let long = "모나드와 펑터의 차이를 설명해 줘. ".repeat(400);
    one["mapping"]["q1b"]["message"]["content"]["parts"] = json!([long]);
    let mut n = 0;
    out.write_all(b"[").unwrap();
    let mut written = 0u64;
    while written < 200 << 20 {
        one["id"] = json!(format!("c-{n}"));
        let bytes = serde_json::to_vec(&one).unwrap();
        if n > 0 {
            out.write_all(b",").unwrap();
        }
        out.write_all(&bytes).unwrap();
        written += bytes.len() as u64;
        n += 1;
    }
    out.write_all(b"]").unwrap();
    drop(out);
    let before = peak_rss().unwrap_or(0);
    let super::Upload::Export(export) = super::check(&path).unwrap() else { panic!("a list of conversations is an export") };
    assert_eq!(export.conversations, n);
    let mut messages = 0;
    export
        .file
        .each(|_, c| {
            messages += export.source.chat(&c).0.messages.len();
            Ok(())
        })
        .unwrap();
    assert_eq!(messages, n * 8, "every conversation was read, whole");
    let grew = peak_rss().unwrap_or(0).saturating_sub(before);
    eprintln!("{written} bytes in {n} conversations: the peak memory grew by {grew} bytes");
    assert!(grew < written / 10, "reading a {written}-byte export took {grew} more bytes at its peak: it must not be read whole");
}
