//! The window plan counts with the model server's tokenizer where it has one: each text is
//! counted once, after the turn that brought it (never on the way to a reply), a text not
//! counted yet is estimated at the rate the server's counts showed, and the inspector says how
//! the plan's tokens were counted. The fake server's tokenizer counts one token per word, which
//! is far from the estimate's four characters a token: the two are easy to tell apart.

use maru_tests::eventually;
use maru_tests::fake_openai::{FakeModel, FakeOpenAi, Tokenizer, DEFAULT_REPLY};
use maru_tests::server::TestServer;
use serde_json::{json, Value};

fn is_summary_request(body: &Value) -> bool {
    body["messages"][0]["content"].as_str().is_some_and(|s| s.contains("You write the memory of a long conversation"))
}

async fn setup(tokenizer: Tokenizer, window: u32) -> (TestServer, FakeOpenAi, i64) {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("fake-model", window)]);
    fake.set_tokenizer(tokenizer);
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let (status, body) = s.patch("/api/settings", json!({ "memory_mode": "off" })).await;
    assert_eq!(status, 200, "{body}");
    let sess = s.session(None, "").await;
    (s, fake, sess)
}

/// Waits until the work after the last turn has counted the reply, the last text it counts.
async fn counted_after_the_turn(fake: &FakeOpenAi) {
    eventually("the texts of the turn are counted by the server after it", || async {
        fake.requests().iter().any(|r| r.path == "/tokenize" && r.body["prompt"] == DEFAULT_REPLY)
    })
    .await;
}

#[tokio::test]
async fn the_inspector_says_the_plan_was_counted_by_the_server() {
    let (s, fake, sess) = setup(Tokenizer::Vllm, 8192).await;
    let events = s.say(sess, "one two three four five six").await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
    counted_after_the_turn(&fake).await;
    let asked = fake.requests().iter().filter(|r| r.path == "/tokenize").count();

    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let counts = &ctx["plan_counts"];
    assert_eq!(counts["estimated"], 0, "every text of the plan was counted by the server: {counts}");
    assert_eq!(counts["fitted"], 0, "{counts}");
    assert!(counts["server"].as_u64().unwrap() > 0, "{counts}");
    assert_eq!(ctx["tokens_source"], "server", "the system prompt's count is the server's too");
    let words = |t: &str| t.split_whitespace().count() as u64;
    assert_eq!(ctx["tokens"].as_u64().unwrap(), words(ctx["system_prompt"].as_str().unwrap()), "the fake counts words");
    assert_eq!(
        fake.requests().iter().filter(|r| r.path == "/tokenize").count(),
        asked,
        "what was counted after the turn is not asked again when the inspector opens"
    );
}

#[tokio::test]
async fn without_a_tokenizer_the_plan_is_the_estimate_and_says_so() {
    let (s, _fake, sess) = setup(Tokenizer::None, 8192).await;
    s.say(sess, "one two three four five six").await;
    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let counts = &ctx["plan_counts"];
    assert_eq!(counts["server"], 0, "nothing can be counted by a server without a tokenizer: {counts}");
    assert!(counts["estimated"].as_u64().unwrap() > 0, "{counts}");
    assert_ne!(ctx["tokens_source"], "server");
}

/// A question of 700 one-letter words: 1,400 characters, so about 350 tokens by the estimate and
/// 700 by the fake's tokenizer. In a 2,048-token window (about 1,200 for the system prompt and the
/// history once the reply's room is kept), two of them fit by the estimate and do not by the
/// server's count.
#[tokio::test]
async fn the_window_plan_follows_the_servers_counts_not_the_estimate() {
    let question = "x ".repeat(700);
    for (tokenizer, compacts) in [(Tokenizer::Vllm, true), (Tokenizer::None, false)] {
        let (s, fake, sess) = setup(tokenizer, 2048).await;
        s.say(sess, &question).await;
        if tokenizer != Tokenizer::None {
            counted_after_the_turn(&fake).await;
        }
        let events = s.say(sess, &question).await;
        assert_eq!(events.last().unwrap().name, "done", "{events:?}");
        let summarised = fake.chat_requests().iter().any(|r| is_summary_request(&r.body));
        assert_eq!(
            summarised, compacts,
            "{tokenizer:?}: the second question is planned with the server's counts of the first and the rate they show, \
             so the chat is compacted before its request would overflow the real window"
        );
    }
}
