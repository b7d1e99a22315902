//! A model with a small window (4,096 tokens, as many local servers run by default) and a
//! project that follows a large folder: the list of the folder's files takes a few percent of the
//! window, the first request fits before the user has said anything long, and the inspector
//! offers Compact now only where summarising the chat makes the room that is missing.

use std::path::Path;

use maru_tests::eventually_within;
use maru_tests::fake_openai::{FakeModel, FakeOpenAi, Reply};
use maru_tests::server::TestServer;
use serde_json::{json, Value};

const WINDOW: usize = 4096;

/// The estimate Maru plans with: a token per four ASCII characters, one per other character.
fn estimate(text: &str) -> usize {
    let (ascii, other) = text.chars().fold((0usize, 0usize), |(a, o), c| if c.is_ascii() { (a + 1, o) } else { (a, o + 1) });
    ascii.div_ceil(4) + other
}

/// What a request takes of the window before the reply: its messages and its tools.
fn request_tokens(body: &Value) -> usize {
    let messages: usize = body["messages"].as_array().unwrap().iter().map(|m| estimate(&m["content"].to_string())).sum();
    messages + body["tools"].as_array().map_or(0, |t| t.iter().map(|t| estimate(&t.to_string())).sum())
}

async fn small_model() -> (TestServer, FakeOpenAi) {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("fake-model", WINDOW as u32)]);
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    (s, fake)
}

fn write_folder(root: &Path, files: usize) {
    for n in 0..files {
        let dir = root.join(format!("src/area_{:02}", n / 50));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("module_{n:04}.txt")), format!("Notes of module {n}.\n")).unwrap();
    }
}

async fn context(s: &TestServer, session: i64) -> Value {
    let (status, ctx) = s.get(&format!("/api/sessions/{session}/context")).await;
    assert_eq!(status, 200, "{ctx}");
    ctx
}

#[tokio::test]
async fn a_folder_of_1600_files_leaves_a_4096_token_window_room_for_the_first_message() {
    let tree = tempfile::tempdir().unwrap();
    write_folder(tree.path(), 1600);
    let (s, fake) = small_model().await;
    let p = s.project("Big repository").await;
    let (status, body) = s.patch(&format!("/api/projects/{p}"), json!({ "folder": tree.path().to_str().unwrap() })).await;
    assert_eq!(status, 200, "{body}");
    eventually_within("the folder's 1,600 files are mirrored", 120, || async {
        let (_, files) = s.get(&format!("/api/attachments?project_id={p}")).await;
        files.as_array().is_some_and(|f| f.len() == 1600)
    })
    .await;
    let chat = s.session(Some(p), "").await;

    let ctx = context(&s, chat).await;
    let plan = &ctx["token_plan"];
    assert_eq!(plan["context"], WINDOW, "the inspector plans against the model's window: {plan}");
    let before: u64 = ["system", "tools", "summaries", "history", "reserve"].iter().map(|k| plan[k].as_u64().unwrap()).sum();
    assert!(before <= WINDOW as u64, "before the first message the request already fits the window: {plan}");
    let four = ctx["sections"].as_array().unwrap().iter().find(|s| s["id"] == "attachments").unwrap();
    let listing = four["cuts"].as_array().unwrap().iter().find(|c| c["why"]["params"]["items"] == "files").expect("the list was cut");
    let kept: usize = listing["why"]["params"]["kept"].as_str().unwrap().parse().unwrap();
    assert_eq!(listing["why"]["params"]["of"], "1600", "the inspector says N of 1600 files listed: {listing}");
    assert!(kept < 80, "the list takes a few percent of a 4,096-token window, not 80 files' worth: {kept} listed");
    assert!(
        estimate(four["text"].as_str().unwrap()) <= WINDOW * 5 / 100,
        "the list is about 3% of the window: {} tokens",
        estimate(four["text"].as_str().unwrap())
    );
    assert_eq!(ctx["compact"]["offered"], false, "a chat with nothing said yet has nothing to compact: {}", ctx["compact"]);

    fake.push(Reply::text(["Hello."]));
    let events = s.say(chat, "What does module 12 do?").await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
    let body = fake.last_chat_body().unwrap();
    let sent = request_tokens(&body);
    assert!(sent + 1024 <= WINDOW, "the first request ({sent} tokens, and the reply's quarter) fits the {WINDOW}-token window");
    let system = body["messages"][0]["content"].as_str().unwrap();
    let omitted =
        system.lines().find_map(|l| l.strip_prefix("- …and ")?.strip_suffix(" more files not listed here")?.parse::<usize>().ok());
    assert_eq!(omitted, Some(1600 - kept), "the model is told how many files the list leaves out (search_attachment finds them)");

    let ctx = context(&s, chat).await;
    assert_eq!(ctx["compact"]["offered"], false, "one turn: still nothing older to summarise: {}", ctx["compact"]);
    assert_eq!(ctx["compact"]["over"], 0, "and nothing over: {}", ctx["compact"]);
}

#[tokio::test]
async fn compact_now_is_offered_where_it_makes_room_and_not_where_the_prompt_fills_the_window() {
    let (s, fake) = small_model().await;
    s.patch("/api/settings", json!({ "context_length": 16_384 })).await;
    let chat = s.session(None, "").await;
    for turn in 0..12 {
        fake.push(Reply::text([format!("Answer {turn}.")]));
        let question = format!("Turn {turn}: {}", "please keep track of the family schedule and the budget ".repeat(18));
        s.say(chat, &question).await;
    }
    // The same chat on a model with a quarter of that window: its next request is over.
    s.patch("/api/settings", json!({ "context_length": WINDOW })).await;
    let ctx = context(&s, chat).await;
    let offer = &ctx["compact"];
    assert!(offer["over"].as_u64().unwrap() > 0, "twelve long turns do not fit 4,096 tokens: {offer}");
    assert_eq!(offer["offered"], true, "summarising the older turns frees what is over, so it is offered: {offer}");
    fake.push(Reply::text(["The user planned the family schedule and budget over eleven turns."]));
    let (status, done) = s.post(&format!("/api/sessions/{chat}/compact"), json!({})).await;
    assert_eq!((status.as_u16(), &done["compacted"]), (200, &json!(true)), "{done}");
    let after = &context(&s, chat).await["compact"];
    assert_eq!(after["over"], 0, "and once summarised the next request fits: {after}");

    // A window that the system prompt and the tools fill alone: compacting cannot help, and the
    // inspector says so instead of offering it.
    s.patch("/api/settings", json!({ "context_length": 512 })).await;
    let ctx = context(&s, chat).await;
    let (tiny, plan) = (&ctx["compact"], &ctx["token_plan"]);
    assert_eq!(tiny["offered"], false, "nothing the chat holds frees room the prompt takes: {tiny} {plan}");
    assert_eq!(tiny["why_not"]["code"], "prompt_fills_window", "the inspector says why: {tiny} {plan}");
}
