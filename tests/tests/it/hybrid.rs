//! Hybrid search: once the user chooses an embeddings model, the files' passages are embedded in
//! the background and `search_attachment` finds passages by meaning as well as by their words,
//! reordered by a reranker when one is chosen. The words always answer alone when the model
//! server cannot, and the result says so. The fake server's "model" sees meaning as a few
//! concepts, so each case is exact.

use std::time::Duration;

use maru::store::passage_vectors::{self, VectorModel};
use maru_tests::eventually;
use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model as setup, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Cars, fruit, anything else: three directions of meaning, none of them a shared word.
fn concepts(text: &str) -> Vec<f32> {
    let t = text.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    match () {
        _ if has(&["automobile", "mechanic", "engine", "car "]) => vec![1.0, 0.1, 0.0],
        _ if has(&["banana", "fruit"]) => vec![0.0, 1.0, 0.1],
        _ => vec![0.1, 0.0, 1.0],
    }
}

/// The same concepts in five dimensions: another model answering under the same name.
fn wider(text: &str) -> Vec<f32> {
    let mut v = concepts(text);
    v.extend([0.0, 0.0]);
    v
}

const GARAGE: &str = "# Garage\n\nThe mechanic fixes the engine on Tuesdays.\n\n# Kitchen\n\nBananas are yellow and sweet.\n\n# Notes\n\nThe water bill is paid in March.";

async fn default_connection(s: &TestServer) -> i64 {
    s.app.store.read(maru::store::connections::default).await.unwrap().id
}

async fn choose(s: &TestServer, what: &str, connection_id: i64, model: &str) {
    let (st, v) = s.patch("/api/settings", json!({ what: { "connection_id": connection_id, "model": model } })).await;
    assert_eq!(st, StatusCode::OK, "choosing the {what} model: {v}");
}

/// Passages embedded by `model` (and all passages), as stored.
async fn progress(s: &TestServer, connection_id: i64, model: &str) -> (u64, u64) {
    let model = VectorModel { connection_id, model: model.into() };
    s.app.store.read(move |c| passage_vectors::progress(c, &model)).await.unwrap()
}

async fn all_embedded(s: &TestServer, connection_id: i64, model: &str) {
    eventually(&format!("every passage embedded by {model}"), || async {
        let (done, all) = progress(s, connection_id, model).await;
        all > 0 && done == all
    })
    .await;
}

async fn width(s: &TestServer, connection_id: i64, model: &str) -> Option<usize> {
    let model = VectorModel { connection_id, model: model.into() };
    s.app.store.read(move |c| passage_vectors::width(c, &model)).await.unwrap()
}

/// Runs `search_attachment` as the model would, through a full turn: its text and outcome.
async fn model_searches(s: &TestServer, fake: &FakeOpenAi, session: i64, query: &str) -> (String, Value) {
    fake.push(Reply::tool_call("search_attachment", json!({ "query": query }).to_string()));
    fake.push(Reply::text(["ok"]));
    let events = s.say(session, "look it up").await;
    let result = events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("no tool result: {events:?}"));
    (result.data["content"].as_str().unwrap().to_string(), result.data["outcome"]["did"].clone())
}

async fn garage_chat(s: &TestServer) -> i64 {
    let session = s.session(None, "garage").await;
    let file = s.attach_indexed(session, "garage.md", GARAGE).await;
    assert_eq!(file["status"], "ready", "{file}");
    session
}

#[tokio::test]
async fn a_passage_that_shares_no_word_with_the_question_is_found_by_meaning() {
    let (s, fake) = setup().await;
    fake.set_embeddings(concepts);
    let session = garage_chat(&s).await;
    let (words_only, _) = model_searches(&s, &fake, session, "automobile repair").await;
    assert!(words_only.contains("No passage matches"), "without embeddings the words alone find nothing: {words_only}");
    assert!(fake.embedding_requests().is_empty(), "nothing is embedded until the user chooses a model");

    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    all_embedded(&s, server, "embed-a").await;
    let (found, did) = model_searches(&s, &fake, session, "automobile repair").await;
    let first = found.split("\n[").next().unwrap_or_default();
    assert!(first.contains("mechanic fixes the engine"), "the passage about cars comes first, found by meaning alone: {found}");
    assert!(!found.contains("unavailable"), "nothing was left out: {found}");
    assert_eq!(did["kind"], "passages");
    assert_eq!(did["ranking"]["meaning"]["status"], "used", "the outcome shows the search used meaning: {did}");
    let asked = fake.embedding_requests().last().unwrap().body.clone();
    assert_eq!((asked["model"].as_str(), asked["input"][0].as_str()), (Some("embed-a"), Some("automobile repair")), "{asked}");

    // A file deleted takes its vectors with it.
    let (_, files) = s.get(&format!("/api/attachments?session_id={session}")).await;
    s.delete(&format!("/api/attachments/{}", files[0]["id"])).await;
    assert_eq!(progress(&s, server, "embed-a").await, (0, 0), "no vector outlives its file");
}

#[tokio::test]
async fn a_model_swapped_for_another_width_or_name_is_embedded_again_without_a_crash() {
    let (s, fake) = setup().await;
    fake.set_embeddings(concepts);
    let session = garage_chat(&s).await;
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    all_embedded(&s, server, "embed-a").await;
    assert_eq!(width(&s, server, "embed-a").await, Some(3));

    // The server now answers the same name with five dimensions.
    fake.set_embeddings(wider);
    let (found, did) = model_searches(&s, &fake, session, "mechanic").await;
    assert!(found.contains("mechanic fixes"), "the words still answer while the vectors are made again: {found}");
    assert_eq!(did["ranking"]["meaning"]["status"], "pending", "the search says its vectors are being made again: {did}");
    assert!(found.contains("until the files are embedded"), "and the model reads why meaning was left out: {found}");
    eventually("the passages embedded again in five dimensions", || async { width(&s, server, "embed-a").await == Some(5) }).await;
    all_embedded(&s, server, "embed-a").await;
    let (found, did) = model_searches(&s, &fake, session, "automobile repair").await;
    assert_eq!(did["ranking"]["meaning"]["status"], "used", "{did}");
    assert!(found.split("\n[").next().unwrap_or_default().contains("mechanic fixes"), "meaning works again at the new width: {found}");

    // Another model chosen: the old model's vectors go and every passage is embedded again.
    let before = fake.embedding_requests().len();
    choose(&s, "embeddings", server, "embed-b").await;
    all_embedded(&s, server, "embed-b").await;
    assert_eq!(progress(&s, server, "embed-a").await.0, 0, "the old model's vectors are dropped");
    let since: Vec<Value> = fake.embedding_requests()[before..].iter().map(|r| r.body["model"].clone()).collect();
    assert!(since.iter().all(|m| m == "embed-b") && !since.is_empty(), "the new model embeds: {since:?}");
}

#[tokio::test]
async fn a_failing_or_missing_embeddings_server_leaves_search_by_words_and_says_so() {
    let (s, fake) = setup().await;
    fake.set_embeddings(concepts);
    let session = garage_chat(&s).await;
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    all_embedded(&s, server, "embed-a").await;

    fake.embeddings_fail(Some((500, r#"{"error":{"message":"the embedding model crashed"}}"#)));
    // A new file gives the job a batch, which fails: Settings shows why.
    s.attach_indexed(session, "more.md", "# More\n\nThe tyres are changed in autumn.").await;
    eventually("the failure reported", || async {
        s.get("/api/embeddings").await.1["failure"].as_str().is_some_and(|f| f.contains("crashed"))
    })
    .await;
    let (_, progress) = s.get("/api/embeddings").await;
    assert_eq!(progress["model"], json!({ "connection_id": server, "model": "embed-a" }), "{progress}");
    assert!(progress["embedded"].as_u64() < progress["passages"].as_u64(), "the new file's passage is not embedded: {progress}");
    let (found, did) = model_searches(&s, &fake, session, "mechanic").await;
    assert!(found.contains("mechanic fixes"), "the words still find the passage: {found}");
    assert!(
        found.contains("Search by meaning is unavailable") && found.contains("the embedding model crashed"),
        "and the model is told why: {found}"
    );
    assert_eq!(did["ranking"]["meaning"]["status"], "failed", "{did}");
    assert!(did["ranking"]["meaning"]["message"].as_str().unwrap().contains("crashed"), "the outcome keeps the server's words: {did}");

    // A server that is not there at all: nothing listens on its port.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (st, gone) = s.post("/api/connections", json!({ "name": "gone", "base_url": format!("http://127.0.0.1:{port}/v1") })).await;
    assert_eq!(st, StatusCode::OK, "{gone}");
    choose(&s, "embeddings", gone["id"].as_i64().unwrap(), "embed-a").await;
    let (found, did) = model_searches(&s, &fake, session, "mechanic").await;
    assert!(found.contains("mechanic fixes") && found.contains("Search by meaning is unavailable"), "{found}");
    assert_eq!(did["ranking"]["meaning"]["status"], "failed", "{did}");
    let (found, _) = model_searches(&s, &fake, session, "automobile").await;
    assert!(
        found.contains("No passage matches") && found.contains("Search by meaning is unavailable"),
        "nothing found still says why: {found}"
    );
}

#[tokio::test]
async fn a_reranker_reorders_the_best_passages() {
    let (s, fake) = setup().await;
    fake.set_embeddings(concepts);
    fake.set_rerank(|_, doc| if doc.contains("water bill") { 10.0 } else { 0.0 });
    let session = garage_chat(&s).await;
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    choose(&s, "reranker", server, "rerank-a").await;
    all_embedded(&s, server, "embed-a").await;
    let (found, did) = model_searches(&s, &fake, session, "automobile repair").await;
    assert!(found.split("\n[").next().unwrap_or_default().contains("water bill"), "the reranker's choice comes first: {found}");
    assert_eq!(did["ranking"]["rerank"]["status"], "used", "{did}");
    let asked = fake.rerank_requests().last().unwrap().body.clone();
    assert_eq!((asked["model"].as_str(), asked["query"].as_str()), (Some("rerank-a"), Some("automobile repair")), "{asked}");
    assert!(asked["documents"].as_array().is_some_and(|d| d.len() >= 2), "the candidates go to the reranker: {asked}");
}

#[tokio::test]
async fn a_slow_server_never_holds_up_a_turn() {
    let (s, fake) = setup().await;
    // Embedding and reranking that take far longer than any search may wait.
    fake.set_embeddings(concepts);
    fake.embeddings_delay(Duration::from_secs(120));
    fake.set_rerank(|_, _| 1.0);
    fake.rerank_delay(Duration::from_secs(120));
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    choose(&s, "reranker", server, "rerank-a").await;
    let session = garage_chat(&s).await;
    eventually("the background job asking for a batch", || async { !fake.embedding_requests().is_empty() }).await;

    // A turn starts while the batch hangs: it runs, and its search answers by the words.
    let (found, did) = model_searches(&s, &fake, session, "mechanic").await;
    assert!(found.contains("mechanic fixes"), "the words answer while the server is slow: {found}");
    assert!(found.contains("did not answer in time"), "and the model is told meaning was left out: {found}");
    assert_eq!(did["ranking"]["meaning"]["status"], "timed_out", "{did}");
    assert_eq!(did["ranking"]["rerank"]["status"], "timed_out", "the reranker too has a budget: {did}");
    let history = s.history(session).await;
    assert_eq!(history.last().unwrap()["content"], "ok", "the turn finished with the model's answer");
    assert_eq!(progress(&s, server, "embed-a").await.0, 0, "nothing half-embedded was stored");
}

#[tokio::test]
async fn no_batch_is_sent_while_a_reply_is_being_written() {
    let (s, fake) = setup().await;
    fake.set_embeddings(concepts);
    let session = garage_chat(&s).await;
    // A reply that has not begun: the server is still reading the prompt.
    fake.push(Reply::hang());
    let turn = s.turn(&format!("/api/sessions/{session}/messages"), Some(json!({ "content": "hello" }))).await;
    eventually("the turn running", || async { s.app.runs.running() == 1 }).await;
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    // The job looks at once when the model is chosen, and ten times a second while it waits.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(fake.embedding_requests().is_empty(), "the model server's time is the reply's while it is written");
    let (st, _) = s.post(&format!("/api/sessions/{session}/stop"), json!({})).await;
    assert_eq!(st, StatusCode::OK);
    turn.collect().await;
    all_embedded(&s, server, "embed-a").await;
}

#[tokio::test]
async fn files_not_embedded_yet_are_searched_by_words_and_the_search_says_so() {
    let (s, fake) = setup().await;
    fake.set_embeddings(concepts);
    // The question is embedded at once; the passages' batch takes far longer.
    fake.embeddings_batch_delay(Duration::from_secs(120));
    let session = garage_chat(&s).await;
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    let (found, did) = model_searches(&s, &fake, session, "mechanic").await;
    assert!(found.contains("mechanic fixes"), "the words answer: {found}");
    assert_eq!(did["ranking"]["meaning"]["status"], "pending", "meaning had nothing to compare yet, and says so: {did}");
    assert!(found.contains("until the files are embedded"), "the model is told why: {found}");
}

#[tokio::test]
async fn embedding_resumes_after_a_restart_where_it_stopped() {
    let fake = FakeOpenAi::start().await;
    fake.set_embeddings(concepts);
    // Slow enough that the first start ends with only some of the passages embedded.
    fake.embeddings_delay(Duration::from_millis(800));
    let s = TestServer::start().await;
    s.use_server(&fake.base_url(), "fake-model").await;
    let session = s.session(None, "long").await;
    let sections: Vec<String> = (0..60).map(|i| format!("# Part {i}\n\nParagraph number {i} about the engine.")).collect();
    s.attach_indexed(session, "long.md", &sections.join("\n\n")).await;
    let server = default_connection(&s).await;
    choose(&s, "embeddings", server, "embed-a").await;
    eventually("some passages embedded", || async { progress(&s, server, "embed-a").await.0 > 0 }).await;
    let s = TestServer::start_in(s.stop().await).await;
    let (done_at_start, all) = progress(&s, server, "embed-a").await;
    assert!(done_at_start < all, "the first run was cut short ({done_at_start} of {all})");
    fake.embeddings_delay(Duration::ZERO);
    all_embedded(&s, server, "embed-a").await;
    let inputs: usize = fake.embedding_requests().iter().map(|r| r.body["input"].as_array().map_or(1, Vec::len)).sum();
    // The batch under way when the first run stopped may be asked again; no more than that.
    assert!(
        inputs <= all as usize + 16,
        "the restart went on from where it stopped, not from the start: {inputs} inputs for {all} passages"
    );
}

/// With llama.cpp serving the test model in embedding mode: the whole path (vectors stored,
/// search fusing them), not the vectors' quality (a 135M chat model's are not meant to be good).
/// Picked by the real-server tier's filter (`real_server::`) like the tests of that module.
mod real_server {
    use super::*;
    use maru::app::ToolContext;
    use maru::tools::{RankingStep, ToolDid};
    use maru_tests::llama::LlamaServer;

    #[tokio::test]
    #[ignore = "needs llama-server: run through make test"]
    async fn llama_cpp_embeds_the_passages_and_search_fuses_them() {
        // Mean pooling: the chat model has no pooling of its own, and OpenAI's shape needs one.
        let llama = LlamaServer::start_with(2048, &["--embeddings", "--pooling", "mean", "-ub", "2048", "-b", "2048"])
            .await
            .expect("set LLAMA_SERVER and SMOLLM_GGUF (eval \"$(tests/real-server/setup.sh)\")");
        let s = TestServer::start().await;
        let (st, server) = s.post("/api/connections", json!({ "name": "llama.cpp embeddings", "base_url": llama.base_url })).await;
        assert_eq!(st, StatusCode::OK, "{server}");
        let server = server["id"].as_i64().unwrap();
        let session = garage_chat(&s).await;
        choose(&s, "embeddings", server, "smollm2").await;
        maru_tests::eventually_within("every passage embedded by llama.cpp", 120, || async {
            let (done, all) = progress(&s, server, "smollm2").await;
            all > 0 && done == all
        })
        .await;
        assert_eq!(width(&s, server, "smollm2").await, Some(576), "one byte per dimension of SmolLM2-135M's 576");

        let ctx = ToolContext { session_id: session, project_id: 1, message_id: None, store: s.app.store.clone() };
        let reply = s.app.tools.run(ctx, "search_attachment", r#"{"query": "mechanic"}"#).await.expect("the tool runs");
        assert!(reply.text.contains("mechanic fixes"), "the words' hit is among the fused results: {}", reply.text);
        let ToolDid::Passages { passages, ranking } = reply.did else { panic!("passages found: {:?}", reply.did) };
        assert_eq!(ranking.map(|r| r.meaning), Some(RankingStep::Used), "the question was embedded by the real server and compared");
        assert!(passages.len() >= 2, "passages found only by meaning join the words' one: {passages:?}");
    }
}
