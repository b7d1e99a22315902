//! Long conversations never overflow the model's window: the oldest turns are summarised into a
//! stored session summary sent in their place, every message stays stored, and an overflow the
//! server reports is followed by exactly one compaction and one retry.

use maru_tests::fake_openai::{FakeModel, FakeOpenAi, Reply};
use maru_tests::server::TestServer;
use serde_json::{json, Value};

const WINDOW: usize = 4096;

/// The same estimate Maru plans with: a token per four ASCII characters, one per other character.
fn estimate(text: &str) -> usize {
    let (ascii, other) = text.chars().fold((0, 0), |(a, o), c| if c.is_ascii() { (a + 1, o) } else { (a, o + 1) });
    ascii / 4 + other
}

fn request_tokens(body: &Value) -> usize {
    body["messages"].as_array().unwrap().iter().map(|m| estimate(&m["content"].to_string())).sum()
}

fn is_summary_request(body: &Value) -> bool {
    body["messages"][0]["content"].as_str().is_some_and(|s| s.contains("You write the memory of a long conversation"))
}

#[tokio::test]
async fn a_forty_turn_chat_fits_a_4096_token_window_and_keeps_every_message() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("fake-model", WINDOW as u32)]);
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let sess = s.session(None, "").await;
    for turn in 0..40 {
        // ~250 tokens a question; the fake answers briefly (and answers summary requests too).
        let question = format!("Turn {turn}: {}", "please keep track of the family schedule and the budget ".repeat(18));
        let events = s.say(sess, &question).await;
        assert_eq!(events.last().unwrap().name, "done", "turn {turn}: {events:?}");
    }
    let chats = fake.chat_requests();
    let answers: Vec<&Value> = chats.iter().map(|r| &r.body).filter(|b| !is_summary_request(b)).collect();
    assert_eq!(answers.len(), 40);
    for (i, body) in answers.iter().enumerate() {
        let tokens = request_tokens(body);
        assert!(tokens <= WINDOW * 85 / 100, "request {i} carries ~{tokens} tokens: it must fit the {WINDOW}-token window");
    }
    let summaries = chats.iter().filter(|r| is_summary_request(&r.body)).count();
    assert!(summaries >= 1, "the oldest turns were summarised");
    let last = answers.last().unwrap()["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(last.contains("[Earlier in this conversation"), "the summary is sent after the system prompt");
    assert_eq!(s.history(sess).await.len(), 80, "every original message is still stored and listed");
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let summaries = ctx["summaries"].as_array().unwrap();
    assert!(
        !summaries.is_empty() && summaries[0]["turns"].as_i64().unwrap() > 0,
        "the inspector shows each summary and the turns it replaces: {ctx}"
    );
    let plan = &ctx["token_plan"];
    assert_eq!(plan["context"], WINDOW, "and the token plan against the model's window: {plan}");
    let planned: u64 = ["system", "summaries", "history", "reserve"].iter().map(|k| plan[k].as_u64().unwrap()).sum();
    assert!(planned <= WINDOW as u64, "the plan fits the window: {plan}");

    // The summary belongs to the chat: moved to another project, its requests still fit.
    let other = s.project("Elsewhere").await;
    s.patch(&format!("/api/sessions/{sess}"), json!({ "project_id": other })).await;
    s.say(sess, "and now?").await;
    let body = fake.last_chat_body().unwrap();
    assert!(request_tokens(&body) <= WINDOW * 85 / 100, "after the move the request still fits");
    assert!(
        body["messages"][0]["content"].as_str().unwrap().contains("[Earlier in this conversation"),
        "the moved chat keeps its summaries"
    );
}

#[tokio::test]
async fn an_overflow_is_followed_by_one_compaction_and_one_retry() {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let sess = s.session(None, "").await;
    for q in ["first question", "second question", "third question"] {
        fake.push(Reply::text(["an answer"]));
        s.say(sess, q).await;
    }
    let before = fake.chat_requests().len();
    fake.push(Reply::context_too_long());
    fake.push(Reply::text(["Summary: three questions were asked."]));
    fake.push(Reply::text(["the answer after compaction"]));
    let events = s.say(sess, "fourth question").await;
    let done = events.last().unwrap();
    assert_eq!(done.name, "done", "{events:?}");
    assert_eq!(done.data["message"]["content"], "the answer after compaction");
    let after: Vec<Value> = fake.chat_requests()[before..].iter().map(|r| r.body.clone()).collect();
    assert_eq!(after.len(), 3, "exactly: the refused request, one compaction, one retry");
    assert!(is_summary_request(&after[1]), "the second is the compaction");
    let retry = after[2]["messages"][0]["content"].as_str().unwrap();
    assert!(retry.contains("Summary: three questions were asked."), "the retry carries the summary");
    assert_eq!(s.history(sess).await.len(), 8, "nothing stored was lost, and no error reply was left");
}

#[tokio::test]
async fn a_second_overflow_ends_the_turn_with_the_servers_words() {
    let fake = FakeOpenAi::start().await;
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let sess = s.session(None, "").await;
    fake.push(Reply::text(["an answer"]));
    s.say(sess, "first question").await;
    fake.push(Reply::context_too_long());
    fake.push(Reply::text(["Summary."]));
    fake.push(Reply::context_too_long());
    let events = s.say(sess, "second question").await;
    let err = events.iter().find(|e| e.name == "error").unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(err.data["code"], "model_server.context_too_long", "one retry only, then the user reads why");
    assert!(err.data["message"].as_str().unwrap().contains("too long"), "{err:?}");
}

#[tokio::test]
async fn compact_now_summarises_all_but_the_last_turn_the_next_request_carries_it_and_undo_sends_all_again() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("fake-model", 32_768)]);
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let chat = s.session(None, "").await;
    for q in ["first question", "second question", "third question"] {
        s.say(chat, q).await;
    }
    fake.push(Reply::text(["The user asked two questions about the schedule."]));
    let (st, done) = s.post(&format!("/api/sessions/{chat}/compact"), json!({})).await;
    assert_eq!(st, reqwest::StatusCode::OK, "{done}");
    assert_eq!(done["compacted"], true, "a chat of three turns has two to summarise: {done}");
    assert_eq!(done["summaries"][0]["turns"], 2, "everything but the last turn: {done}");
    let asked = fake.chat_requests().last().unwrap().body.clone();
    assert!(is_summary_request(&asked), "it asked the model for a summary, as the automatic compaction does");
    let (_, again) = s.post(&format!("/api/sessions/{chat}/compact"), json!({})).await;
    assert_eq!(again["compacted"], false, "only the last turn is left: nothing more to summarise: {again}");

    s.say(chat, "fourth question").await;
    let sent = fake.chat_requests().last().unwrap().body.clone();
    let messages = sent["messages"].as_array().unwrap();
    assert!(messages[0]["content"].as_str().unwrap().contains("two questions about the schedule"), "the summary follows the system prompt");
    let texts: Vec<String> = messages[1..].iter().map(|m| m["content"].to_string()).collect();
    assert!(!texts.iter().any(|t| t.contains("first question")), "the summarised turns are not sent again: {texts:?}");
    assert!(texts.iter().any(|t| t.contains("third question")), "the last turn is kept word for word: {texts:?}");
    assert_eq!(s.history(chat).await.len(), 8, "every message is still stored and shown");

    // Undo: with the summary deleted, the next request sends every message again.
    let (st, undone) = s.delete(&format!("/api/sessions/{chat}/summaries")).await;
    assert_eq!((st.as_u16(), &undone["deleted"]), (200, &json!(true)), "the chat's summary is deleted: {undone}");
    s.say(chat, "fifth question").await;
    let sent = fake.chat_requests().last().unwrap().body.clone();
    let messages = sent["messages"].as_array().unwrap();
    assert!(!messages[0]["content"].as_str().unwrap().contains("two questions about the schedule"), "no summary is sent any more");
    let texts: Vec<String> = messages[1..].iter().map(|m| m["content"].to_string()).collect();
    assert!(texts.iter().any(|t| t.contains("first question")), "the first turn is sent word for word again: {texts:?}");
    let (_, none) = s.delete(&format!("/api/sessions/{chat}/summaries")).await;
    assert_eq!(none["deleted"], false, "nothing is left to delete: {none}");

    fake.push(Reply::text((0..200).map(|i| format!("w{i} "))).piece_delay(10));
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "a long answer please" }))).await;
    while turn.next().await.is_some_and(|e| e.name != "token") {}
    let (st, busy) = s.post(&format!("/api/sessions/{chat}/compact"), json!({})).await;
    assert_eq!((st.as_u16(), busy["code"].as_str()), (409, Some("turn_running")), "not while a reply is being written: {busy}");
    let (st, busy) = s.delete(&format!("/api/sessions/{chat}/summaries")).await;
    assert_eq!((st.as_u16(), busy["code"].as_str()), (409, Some("turn_running")), "nor undone while one is: {busy}");
    turn.collect().await;
}

#[tokio::test]
async fn a_turn_that_summarises_first_stores_the_question_at_once() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("fake-model", WINDOW as u32)]);
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let sess = s.session(None, "").await;
    let long = |n: usize| format!("Question {n}: {}", "please keep track of the family schedule and the budget ".repeat(170));
    fake.push(Reply::text(["an answer"]));
    s.say(sess, &long(1)).await;
    let before = fake.chat_requests().len();
    // The second question does not fit beside the first: the first turn is summarised before
    // the request, and the model takes its time over the summary.
    fake.push(Reply::text(["Summary: a long question about a schedule."]).delay(3000));
    fake.push(Reply::text(["the second answer"]));
    let asked = std::time::Instant::now();
    let turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": long(2) }))).await;
    let answered = asked.elapsed();
    let history = s.history(sess).await;
    let events = turn.collect().await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
    let asked_after: Vec<Value> = fake.chat_requests()[before..].iter().map(|r| r.body.clone()).collect();
    assert!(
        asked_after.len() == 2 && is_summary_request(&asked_after[0]),
        "this test needs a turn that summarises before its request: {} requests",
        asked_after.len()
    );
    assert!(
        answered < std::time::Duration::from_millis(2000),
        "the question is stored and the stream starts while the summary is written, not {answered:?} later: the writer is not held through it"
    );
    assert!(
        history.iter().any(|m| m["content"].as_str().is_some_and(|c| c.starts_with("Question 2"))),
        "another window sees the question while the summary is written"
    );
}
