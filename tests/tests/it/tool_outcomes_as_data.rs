//! What a tool call did is stored as data beside the text the model reads, and the chat shows the
//! data. The model's text comes from `prompts/` templates the user may rewrite: here every
//! tool-result template is overridden from the data folder with other words, and each tool's
//! stored outcome (in the message API and the turn's `tool_result` event) is still exact.

use std::path::{Path, PathBuf};

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{Event, TestServer, Turn};
use serde_json::{json, Value};

/// Every template a tool result is written from, rewritten in other words (German), with the
/// same variables. Nothing here reads like the bundled sentences the UI used to match.
const OVERRIDES: &[(&str, &str)] = &[
    (
        "tools/memory_result",
        "{{#if (eq outcome \"pending\")}}Vorschlag Nummer {{id}} liegt vor.{{/if}}\
         {{#if (eq outcome \"saved\")}}Gemerkt ({{id}}).{{/if}}\
         {{#if (eq outcome \"merged\")}}Zusammengelegt mit {{id}}.{{/if}}\
         {{#if (eq outcome \"change_proposed\")}}Änderung an {{id}} wartet.{{/if}}\
         {{#if (eq outcome \"updated\")}}Geändert ({{id}}).{{/if}}\
         {{#if (eq outcome \"forgotten\")}}Weg ({{id}}).{{/if}}\
         {{#if (eq outcome \"needs_review\")}}Bitte den Menschen fragen ({{id}}).{{/if}}\
         {{#if (eq outcome \"found\")}}{{#each facts}}* {{content}}\n{{else}}Leer.{{/each}}{{/if}}\n",
    ),
    ("tools/search_attachment_result", "{{#each hits}}>> {{text}}\n{{else}}Leer.{{/each}}\n"),
    ("tools/messages", "Das ging nicht.\n"),
    ("tool_output_kept", "Zu lang; weiter mit {{ref}} ab {{next}}.\n{{preview}}\n"),
    ("tools/read_tool_output_result", "Stück von {{ref}}:\n{{text}}\n"),
    ("tools/load_skill_result", "Anleitung:\n{{body}}\n"),
    ("tools/read_skill_file_result", "Datei:\n{{content}}\n"),
    ("tools/search_skills_result", "{{#each skills}}* {{name}}\n{{else}}Leer.{{/each}}\n"),
];

/// Maru on a data folder whose tool-result templates are all overridden, with a fake model.
async fn overridden() -> (TestServer, FakeOpenAi) {
    let data = tempfile::tempdir().unwrap();
    for (name, text) in OVERRIDES {
        let path = data.path().join("prompts").join(format!("{name}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start_in(data).await;
    s.use_server(&fake.base_url(), "fake-model").await;
    (s, fake)
}

/// What a call did, as the turn streamed it and as the API stores it, with the text the model read.
struct Called {
    streamed: Value,
    stored: Value,
    content: String,
    is_error: bool,
}

fn tool_result(events: &[Event]) -> &Value {
    &events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("no tool result: {events:?}")).data
}

/// The last tool message of the chat as the message API returns it.
async fn stored_result(s: &TestServer, session: i64, call_id: &str) -> Value {
    let history = s.history(session).await;
    history.into_iter().rev().find(|m| m["tool_call_id"] == call_id).unwrap_or_else(|| panic!("no tool message for {call_id}"))
}

async fn called_from(s: &TestServer, session: i64, events: &[Event]) -> Called {
    let result = tool_result(events);
    let stored = stored_result(s, session, result["id"].as_str().unwrap()).await;
    assert_eq!(stored["content"], result["content"], "the stored text is the streamed text");
    Called {
        streamed: result["outcome"].clone(),
        stored: stored["tool_outcome"].clone(),
        content: result["content"].as_str().unwrap().to_string(),
        is_error: result["is_error"].as_bool().unwrap(),
    }
}

/// A turn in which the model calls `tool` with `args`, then answers.
async fn call(s: &TestServer, fake: &FakeOpenAi, session: i64, tool: &str, args: Value) -> Called {
    call_raw(s, fake, session, tool, &args.to_string()).await
}

/// [`call`] with the arguments as the model wrote them, valid JSON or not.
async fn call_raw(s: &TestServer, fake: &FakeOpenAi, session: i64, tool: &str, args: &str) -> Called {
    fake.push(Reply::tool_call(tool, args));
    fake.push(Reply::text(["ok"]));
    let events = s.say(session, "go on").await;
    called_from(s, session, &events).await
}

/// Asserts the outcome, streamed and stored alike, is `did` with nothing kept aside.
#[track_caller]
fn assert_did(c: &Called, did: Value, why: &str) {
    assert_eq!(c.stored, json!({ "did": did, "kept": null }), "{why} (the model read: {:?})", c.content);
    assert_eq!(c.streamed, c.stored, "the live chip and the stored one say the same: {why}");
}

/// A failure with `code`, whatever words the model read.
#[track_caller]
fn assert_failed(c: &Called, code: &str, why: &str) {
    assert!(c.is_error, "{why}: the result is marked as an error");
    assert_eq!(c.content, "error: Das ging nicht.", "the model read the overridden words");
    assert_did(c, json!({ "kind": "error", "code": code, "message": "Das ging nicht." }), why);
}

#[tokio::test]
async fn memory_tools_store_what_they_did_whatever_the_templates_say() {
    let (s, fake) = overridden().await;
    let chat = s.session(None, "").await;

    // Review mode (the default).
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "Runs vLLM on a DGX Spark." })).await;
    let (_, pending) = s.get("/api/memories?status=pending").await;
    let tea = pending[0]["id"].as_i64().expect("the proposal is stored");
    assert_eq!(c.content, format!("Vorschlag Nummer {tea} liegt vor."), "the model read the overridden template");
    assert_did(&c, json!({ "kind": "proposed", "id": tea, "fact": "Runs vLLM on a DGX Spark." }), "a proposal waiting for review");
    let c = call(&s, &fake, chat, "update_memory", json!({ "id": tea, "fact": "Runs vLLM at home." })).await;
    assert_did(&c, json!({ "kind": "needs_review", "id": tea }), "in review mode the user changes facts");
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "  " })).await;
    assert_failed(&c, "fact_required", "an empty fact is refused with its reason as a code");

    s.post(&format!("/api/memories/{tea}/accept"), json!({})).await;
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "Runs vLLM on a DGX Spark at home." })).await;
    assert_did(
        &c,
        json!({ "kind": "change_proposed", "id": tea, "was": "Runs vLLM on a DGX Spark.", "fact": "Runs vLLM on a DGX Spark at home." }),
        "a change to an accepted fact waits beside it",
    );

    // Auto mode.
    assert_eq!(s.patch("/api/settings", json!({ "memory_mode": "auto" })).await.0, 200);
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "Has a dog named Bori." })).await;
    let (_, all) = s.get("/api/memories?status=all").await;
    let bori = all.as_array().unwrap().iter().find(|m| m["content"] == "Has a dog named Bori.").expect("saved")["id"].as_i64().unwrap();
    assert_did(&c, json!({ "kind": "saved", "id": bori, "fact": "Has a dog named Bori." }), "saved at once in auto mode");
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "Has a dog named Bori, a jindo." })).await;
    assert_did(
        &c,
        json!({ "kind": "merged", "id": bori, "fact": "Has a dog named Bori, a jindo.", "pending": false }),
        "a near-duplicate merges",
    );
    let c = call(&s, &fake, chat, "search_memory", json!({ "query": "Bori" })).await;
    assert_eq!(c.content, "* Has a dog named Bori, a jindo.", "the model read the overridden list");
    assert_did(&c, json!({ "kind": "facts", "facts": [{ "id": bori, "content": "Has a dog named Bori, a jindo." }] }), "the facts found");
    let c = call(&s, &fake, chat, "search_memory", json!({ "query": "zebra" })).await;
    assert_did(&c, json!({ "kind": "nothing_found", "query": "zebra", "ranking": null }), "a search that finds nothing");
    let c = call(&s, &fake, chat, "update_memory", json!({ "id": bori, "fact": "Has two dogs." })).await;
    assert_did(&c, json!({ "kind": "updated", "id": bori, "fact": "Has two dogs." }), "a fact changed");
    let c = call(&s, &fake, chat, "forget", json!({ "id": bori })).await;
    assert_did(&c, json!({ "kind": "forgotten", "id": bori }), "a fact forgotten");
    let c = call(&s, &fake, chat, "forget", json!({ "id": bori })).await;
    assert!(c.is_error, "a fact that is gone cannot be forgotten");
    assert_eq!(c.stored["did"]["kind"], "refused", "{}", c.stored);
    assert_eq!(c.stored["did"]["error"]["code"], "not_found", "Maru's refusal keeps its code, for the chat to word: {}", c.stored);
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "My OpenAI key is sk-proj-abcdefghijklmnopqrstu123" })).await;
    assert_eq!(c.stored["did"]["error"]["code"], "secret_refused", "a secret is refused with its code: {}", c.stored);
    assert_eq!(c.streamed, c.stored, "the live chip and the stored one say the same");

    assert_eq!(s.patch("/api/settings", json!({ "memory_mode": "off" })).await.0, 200);
    let c = call(&s, &fake, chat, "remember", json!({ "fact": "Likes hiking." })).await;
    assert_failed(&c, "memory_off", "memory turned off");
    let c = call_raw(&s, &fake, chat, "remember", "{not json").await;
    assert_failed(&c, "bad_arguments", "arguments that are not JSON");
}

#[tokio::test]
async fn searches_long_outputs_and_their_pages_store_what_they_did() {
    let (s, fake) = overridden().await;
    let chat = s.session(None, "").await;
    s.attach_indexed(chat, "trip.md", "# Trip\n\nThe trip to Busan is in May.\nWe take the KTX from Seoul.\n").await;
    let c = call(&s, &fake, chat, "search_attachment", json!({ "query": "Busan" })).await;
    assert!(c.content.starts_with(">> "), "the model read the overridden template: {}", c.content);
    let passages = c.stored["did"]["passages"].as_array().unwrap_or_else(|| panic!("passages: {}", c.stored)).clone();
    assert!(!passages.is_empty(), "the search found the sentence");
    for p in &passages {
        assert_eq!((p["file"].as_str(), p["page"].as_i64()), (Some("trip.md"), None), "each passage's source: {p}");
        assert!(p["text"].as_str().unwrap().contains("The trip to Busan is in May."), "and its text: {p}");
        let (from, to) = (p["line_start"].as_i64().unwrap(), p["line_end"].as_i64().unwrap());
        assert!(from <= 3 && 3 <= to, "its lines hold the line that matched (3): {from}-{to}");
    }
    assert_did(&c, json!({ "kind": "passages", "passages": passages, "ranking": null }), "passages found");

    let c = call(&s, &fake, chat, "search_attachment", json!({ "query": "zebra" })).await;
    assert_did(&c, json!({ "kind": "nothing_found", "query": "zebra", "ranking": null }), "a search that finds nothing");
    let c = call(&s, &fake, chat, "search_attachment", json!({ "query": "?!" })).await;
    assert_failed(&c, "no_search_words", "a query of no words");

    // A result over the threshold is kept aside: its outcome says both what it found and that.
    assert_eq!(s.patch("/api/settings", json!({ "tool_output_inline_tokens": 200 })).await.0, 200);
    let days: String = (1..=300).map(|d| format!("Day {d} of the journey: the train runs along the river valley.\n")).collect();
    s.attach_indexed(chat, "journey.md", &days).await;
    let c = call(&s, &fake, chat, "search_attachment", json!({ "query": "journey train", "limit": 5 })).await;
    assert!(c.content.starts_with("Zu lang; weiter mit out-"), "the model read the overridden note: {}", c.content);
    assert_eq!(c.stored["did"]["kind"], "passages", "what the search found, though the model got only a preview: {}", c.stored);
    assert_eq!(c.stored["did"]["passages"].as_array().unwrap().len(), 5, "every passage found, not the preview's");
    let kept = c.stored["kept"].clone();
    let reference = kept["reference"].as_str().unwrap_or_else(|| panic!("kept aside: {}", c.stored)).to_string();
    assert!(c.content.contains(&reference), "the model was given the same reference: {}", c.content);
    let (lines, shown) = (kept["lines"].as_u64().unwrap(), kept["shown"].as_u64().unwrap());
    assert!(0 < shown && shown < lines, "the model got the first lines, not all: {kept}");
    assert!(kept["chars"].as_u64().unwrap() > 800, "a result over 200 tokens: {kept}");
    assert_eq!(c.streamed, c.stored, "the live chip and the stored one say the same");

    let c = call(&s, &fake, chat, "read_tool_output", json!({ "ref": reference, "offset": 1, "limit": 3 })).await;
    assert!(c.content.starts_with(&format!("Stück von {reference}:")), "{}", c.content);
    assert_did(
        &c,
        json!({ "kind": "page_read", "reference": reference, "tool": "search_attachment", "from": 1, "to": 3, "lines": lines }),
        "a page of the kept output, numbered as the kept output",
    );
    let c = call(&s, &fake, chat, "read_tool_output", json!({ "ref": "yesterday's" })).await;
    assert_failed(&c, "not_a_reference", "a reference that is not one");
    let c = call(&s, &fake, chat, "read_tool_output", json!({ "ref": reference, "offset": lines + 1 })).await;
    assert_failed(&c, "offset_past_end", "a page past the end");
}

const FORMS: &str = "---\nname: pdf-forms\ndescription: Fill in PDF forms from the user's details.\n---\n# Filling a form\n1. List every field with read_skill_file reference/fields.md.\n";

#[tokio::test]
async fn skill_tools_store_what_they_did() {
    let (s, fake) = overridden().await;
    let project = s.project("Paperwork").await;
    let files = json!([{ "path": "reference/fields.md", "content": "Name, address, date of birth." }]);
    let (status, v) = s.post("/api/skills", json!({ "project_id": project, "text": FORMS, "files": files })).await;
    assert_eq!(status, 200, "{v}");
    let chat = s.session(Some(project), "").await;

    let c = call(&s, &fake, chat, "load_skill", json!({ "name": "pdf-forms" })).await;
    assert!(c.content.starts_with("Anleitung:"), "{}", c.content);
    assert_did(&c, json!({ "kind": "skill_loaded", "name": "pdf-forms", "files": ["reference/fields.md"] }), "a skill loaded");
    let c = call(&s, &fake, chat, "read_skill_file", json!({ "name": "pdf-forms", "path": "reference/fields.md" })).await;
    assert_eq!(c.content, "Datei:\nName, address, date of birth.");
    assert_did(&c, json!({ "kind": "skill_file_read", "name": "pdf-forms", "path": "reference/fields.md" }), "a skill's file read");
    let c = call(&s, &fake, chat, "read_skill_file", json!({ "name": "pdf-forms", "path": "missing.md" })).await;
    assert_failed(&c, "no_such_skill_file", "a file the skill does not have");
    let c = call(&s, &fake, chat, "load_skill", json!({ "name": "tax-return" })).await;
    assert_failed(&c, "no_such_skill", "a skill not offered here");
    let c = call(&s, &fake, chat, "search_skills", json!({ "query": "PDF form" })).await;
    assert_did(&c, json!({ "kind": "skills", "names": ["pdf-forms"] }), "skills found");
    let c = call(&s, &fake, chat, "search_skills", json!({ "query": "spreadsheet" })).await;
    assert_did(&c, json!({ "kind": "nothing_found", "query": "spreadsheet", "ranking": null }), "no skill found");
    let c = call(&s, &fake, chat, "no_such_tool_here", json!({})).await;
    assert_failed(&c, "no_such_tool", "a tool that does not exist");
}

/// `tests/mcp/mini_server.py` over stdio: one tool, `echo`.
fn mini(name: &str, log: &Path) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/mini_server.py");
    json!({ "name": name, "transport": "stdio", "command": "python3", "args": [script, "--log", log] })
}

/// Reads a turn's events up to the first `name`.
async fn until(turn: &mut Turn, name: &str, seen: &mut Vec<Event>) -> Event {
    while let Some(e) = turn.next().await {
        seen.push(e.clone());
        if e.name == name {
            return e;
        }
    }
    panic!("the turn ended without {name}: {seen:?}");
}

#[tokio::test]
async fn a_tool_servers_calls_store_denied_removed_and_plain_text() {
    let (s, fake) = overridden().await;
    let dir = tempfile::tempdir().unwrap();
    let (status, server) = s.post("/api/tool-servers", mini("mini", &dir.path().join("mini.log"))).await;
    assert_eq!(status, 200, "{server}");
    let id = server["id"].as_i64().unwrap();
    let chat = s.session(None, "").await;
    let ask = |fake: &FakeOpenAi, message: &str| {
        fake.push(Reply::tool_call("mini__echo", json!({ "message": message }).to_string()));
        fake.push(Reply::text(["ok"]));
    };

    ask(&fake, "one");
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "echo" }))).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    s.post(&format!("/api/tool-calls/{}/deny", asked.data["approval"].as_str().unwrap()), json!({})).await;
    seen.extend(turn.collect().await);
    let c = called_from(&s, chat, &seen).await;
    assert!(c.is_error && c.content == "error: Das ging nicht.", "the model read the overridden words: {}", c.content);
    assert_did(&c, json!({ "kind": "denied" }), "the user denied the call");

    ask(&fake, "two");
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "echo" }))).await;
    let mut seen = vec![];
    let asked = until(&mut turn, "approval_needed", &mut seen).await;
    s.post(&format!("/api/tool-calls/{}/approve", asked.data["approval"].as_str().unwrap()), json!({ "always": true })).await;
    seen.extend(turn.collect().await);
    let c = called_from(&s, chat, &seen).await;
    assert!(!c.is_error && c.content.contains("two"), "the server's own answer: {}", c.content);
    assert_did(&c, json!({ "kind": "text" }), "a tool server's answer is its text");

    // Asking again, so the call waits while its server is turned off, then removed.
    assert_eq!(s.patch(&format!("/api/tool-servers/{id}"), json!({ "always_allowed": [] })).await.0, 200);
    ask(&fake, "three");
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "echo" }))).await;
    let mut seen = vec![];
    until(&mut turn, "approval_needed", &mut seen).await;
    assert_eq!(s.patch(&format!("/api/tool-servers/{id}"), json!({ "enabled": false })).await.0, 200);
    seen.extend(turn.collect().await);
    let c = called_from(&s, chat, &seen).await;
    assert!(c.is_error, "{}", c.content);
    assert_did(&c, json!({ "kind": "server_turned_off" }), "the server was turned off while the call waited");

    assert_eq!(s.patch(&format!("/api/tool-servers/{id}"), json!({ "enabled": true })).await.0, 200);
    ask(&fake, "four");
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "echo" }))).await;
    let mut seen = vec![];
    until(&mut turn, "approval_needed", &mut seen).await;
    assert_eq!(s.delete(&format!("/api/tool-servers/{id}")).await.0, 200);
    seen.extend(turn.collect().await);
    let c = called_from(&s, chat, &seen).await;
    assert!(c.is_error, "{}", c.content);
    assert_did(&c, json!({ "kind": "server_removed" }), "the server was removed while the call waited");
}
