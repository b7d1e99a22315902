//! Tool results decided once: a result within `tool_output_inline_tokens` is sent whole for good,
//! a larger one is kept aside (the model gets a reference and its first lines) and read on with
//! `read_tool_output`. Every later request begins with the request before it, byte for byte.

use maru::app::ToolContext;
use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model, TestServer};
use serde_json::{json, Value};

/// A file whose passages all match "budget", and one passage that alone matches "zebra".
fn report() -> String {
    let mut text = String::new();
    for i in 1..=40 {
        text.push_str(&format!(
            "Budget item {i}: the family budget for month {i} sets aside money for rent, food, school and savings, \
             reviewed at the budget meeting with every receipt of the month listed line by line.\n\n"
        ));
    }
    text.push_str("The zebra crossing near the school is repainted in spring.\n");
    text
}

/// A chat with the report attached, tool results over 300 tokens kept aside.
async fn chat_with_report() -> (TestServer, FakeOpenAi, i64) {
    let (s, fake) = with_fake_model().await;
    let (status, v) = s.patch("/api/settings", json!({ "tool_output_inline_tokens": 300, "memory_mode": "off" })).await;
    assert_eq!(status, 200, "{v}");
    let sess = s.session(None, "").await;
    assert_eq!(s.attach_indexed(sess, "report.txt", &report()).await["status"], "ready");
    (s, fake, sess)
}

fn messages(body: &Value) -> &Vec<Value> {
    body["messages"].as_array().expect("a chat request has messages")
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().into_iter().flatten().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect()
}

/// The stored outputs of a chat, as the store holds them.
fn kept(s: &TestServer, session_id: i64) -> i64 {
    s.app.store.with(|c| maru::store::tool_outputs::count(c, session_id)).unwrap()
}

#[tokio::test]
async fn a_large_result_is_kept_aside_once_and_each_request_begins_with_the_last() {
    let (s, fake, sess) = chat_with_report().await;
    fake.push(Reply::tool_calls([
        ("search_attachment", r#"{"query": "budget", "limit": 10}"#),
        ("search_attachment", r#"{"query": "zebra", "limit": 1}"#),
    ]));
    fake.push(Reply::text(["Forty items."]));
    s.say(sess, "What does the report cover?").await;

    let history = s.history(sess).await;
    let results: Vec<&Value> = history.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(results.len(), 2);
    let big = results[0]["content"].as_str().unwrap();
    assert!(big.starts_with("[This output is long"), "a result over the threshold is not sent whole: {big}");
    let reference = big.split('"').nth(1).expect("the model is told the output's reference").to_string();
    assert!(reference.starts_with("out-"), "{big}");
    assert!(big.contains("[report.txt, lines"), "the model sees the first lines of what it asked for: {big}");
    assert!(big.len() < 2_000, "only a preview is sent: {big}");
    let small = results[1]["content"].as_str().unwrap();
    assert!(small.contains("zebra crossing") && !small.starts_with("[This output"), "a small result is sent whole: {small}");
    assert_eq!(kept(&s, sess), 1, "only the large result is kept aside");

    // Turn 2: the model reads on from the preview's end; turn 3: a plain question.
    let next: usize = big.split("offset ").nth(1).and_then(|t| t.split(' ').next()).and_then(|n| n.parse().ok()).expect("where to read on");
    fake.push(Reply::tool_call("read_tool_output", json!({ "ref": reference, "offset": next }).to_string()));
    fake.push(Reply::text(["Items ten and on are there too."]));
    s.say(sess, "And the rest?").await;
    fake.push(Reply::text(["Yes."]));
    s.say(sess, "Thanks, is that all?").await;

    let requests: Vec<Value> = fake.chat_requests().into_iter().map(|r| r.body).collect();
    assert_eq!(requests.len(), 5, "two rounds, two rounds, one");
    let read = messages(&requests[3]).last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(read.contains(&format!("{reference} (search_attachment), lines {next}-")), "read_tool_output pages the kept result: {read}");
    let unseen = (1..=40).map(|i| format!("Budget item {i}:")).find(|item| read.contains(item.as_str()) && !big.contains(item.as_str()));
    assert!(unseen.is_some(), "what the preview left out can be read: {read}");
    for pair in requests.windows(2) {
        let (before, after) = (messages(&pair[0]), messages(&pair[1]));
        assert_eq!(
            after[..before.len()],
            before[..],
            "a request begins with the one before it, byte for byte: the server's cached prompt holds and the model keeps what it read"
        );
        assert_eq!(tool_names(&pair[0]), tool_names(&pair[1]), "the tools offered (which open the prompt) stay the same");
    }
    assert!(tool_names(&requests[0]).contains(&"read_tool_output".to_string()), "the reading tool is offered with the others");

    let (status, _) = s.delete(&format!("/api/sessions/{sess}")).await;
    assert_eq!(status, 200);
    assert_eq!(kept(&s, sess), 0, "a deleted chat takes its kept results with it");
}

#[tokio::test]
async fn a_kept_result_is_read_only_from_its_own_chat_and_bad_reads_say_why() {
    let (s, fake, sess) = chat_with_report().await;
    fake.push(Reply::tool_call("search_attachment", r#"{"query": "budget", "limit": 10}"#));
    fake.push(Reply::text(["ok"]));
    s.say(sess, "Look it up").await;
    let reference = s.history(sess).await.iter().find(|m| m["role"] == "tool").unwrap()["content"]
        .as_str()
        .unwrap()
        .split('"')
        .nth(1)
        .unwrap()
        .to_string();

    let other = s.session(None, "other").await;
    let read = |session_id: i64, args: Value| {
        let ctx = ToolContext { session_id, project_id: 1, message_id: None, store: s.app.store.clone() };
        let tools = s.app.tools.clone();
        async move { tools.run(ctx, "read_tool_output", &args.to_string()).await.map(|r| r.text).map_err(|r| r.text) }
    };
    let elsewhere = read(other, json!({ "ref": reference })).await.unwrap_err();
    assert!(elsewhere.contains("no stored output"), "another chat cannot read this chat's results: {elsewhere}");
    // A chat continued from the answer holds the result too, under the reference its copy names.
    let answer = s.history(sess).await.last().unwrap()["id"].clone();
    let (_, forked) = s.post(&format!("/api/messages/{answer}/fork"), json!(null)).await;
    let copied = read(forked["id"].as_i64().unwrap(), json!({ "ref": reference, "offset": 1, "limit": 3 })).await;
    assert!(copied.is_ok_and(|r| r.contains("lines 1-3 of")), "the new chat's model can read on what its copied history names");
    let whole = read(sess, json!({ "ref": reference, "offset": 1, "limit": 3 })).await.unwrap();
    assert!(whole.contains("lines 1-3 of") && whole.contains("the next page starts at offset 4"), "{whole}");
    let past = read(sess, json!({ "ref": reference, "offset": 100_000 })).await.unwrap_err();
    assert!(past.contains("start at an offset from 1 to"), "an offset past the end names the range: {past}");
    let garbled = read(sess, json!({ "ref": "the big one" })).await.unwrap_err();
    assert!(garbled.contains("like \"out-12\""), "a reference that is not one says what one looks like: {garbled}");
    let (_, settings) = s.get("/api/settings").await;
    assert_eq!(settings["tool_output_inline_tokens"], 300);
    let (status, refused) = s.patch("/api/settings", json!({ "tool_output_inline_tokens": 10 })).await;
    assert_eq!((status.as_u16(), refused["code"].as_str()), (400, Some("invalid_tool_output_limit")), "{refused}");
}

#[tokio::test]
async fn the_inspector_lists_each_tool_offered_with_its_size_and_every_argument_says_what_it_is() {
    let (s, fake, sess) = chat_with_report().await;
    s.patch("/api/settings", json!({ "memory_mode": "review", "context_length": 8192 })).await;
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let tools = ctx["tools"].as_array().expect("the inspector lists the tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in ["search_attachment", "remember", "search_memory", "read_tool_output"] {
        assert!(names.contains(&name), "{name} is offered in a chat with files and memory on: {names:?}");
    }
    let total: i64 = tools.iter().map(|t| t["tokens"].as_i64().unwrap()).sum();
    assert!(tools.iter().all(|t| t["tokens"].as_i64() > Some(20)), "each tool has its size: {tools:?}");
    assert_eq!(ctx["token_plan"]["tools"].as_i64(), Some(total), "the plan counts the tools against the window: {}", ctx["token_plan"]);

    fake.push(Reply::text(["ok"]));
    s.say(sess, "hi").await;
    let sent = fake.last_chat_body().unwrap();
    assert_eq!(tool_names(&sent), names, "the inspector shows what the request offers, in its order");
    for tool in sent["tools"].as_array().unwrap() {
        let f = &tool["function"];
        assert!(!f["description"].as_str().unwrap_or_default().is_empty(), "{f}");
        for (arg, schema) in f["parameters"]["properties"].as_object().unwrap() {
            let said = schema["description"].as_str().unwrap_or_default();
            assert!(said.len() > 5, "the model is told what {}'s argument {arg} is: {schema}", f["name"]);
        }
    }
}
