//! Long-term memory the model proposes and the user controls: proposals wait for review, an
//! accepted fact reaches ⑤ in every project, duplicates update, secrets are refused everywhere.

use maru_tests::fake_openai::{FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model as setup, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A turn in which the model calls `tool` with `args`; returns the tool's answer to the model.
async fn model_calls(s: &TestServer, fake: &FakeOpenAi, session: i64, tool: &str, args: Value) -> String {
    fake.push(Reply::tool_call(tool, args.to_string()));
    fake.push(Reply::text(["ok"]));
    let events = s.say(session, "hello").await;
    let result = events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("{events:?}"));
    result.data["content"].as_str().unwrap().to_string()
}

fn memory_section(body: &Value) -> String {
    let system = body["messages"][0]["content"].as_str().unwrap();
    system[system.find("[Long-term memory]").expect("⑤ is always there")..].to_string()
}

#[tokio::test]
async fn a_proposal_waits_for_review_then_reaches_every_project() {
    let (s, fake) = setup().await;
    let here = s.session(None, "").await;
    let said = model_calls(&s, &fake, here, "remember", json!({ "fact": "Prefers answers in Korean." })).await;
    assert!(said.contains("reviews"), "the model is told the user decides: {said}");
    let (_, pending) = s.get("/api/memories?status=pending").await;
    let fact = &pending[0];
    assert_eq!((fact["content"].as_str(), fact["status"].as_str()), (Some("Prefers answers in Korean."), Some("pending")));
    assert_eq!(fact["source_session_id"], here, "the fact keeps the chat it came from");
    assert!(fact["source_message_id"].is_i64(), "and the message");
    let (_, accepted) = s.get("/api/memories").await;
    assert_eq!(accepted, json!([]), "a proposal is not a fact yet");

    let elsewhere = s.session(Some(s.project("Work").await), "").await;
    fake.push(Reply::text(["ok"]));
    s.say(elsewhere, "hi").await;
    assert!(memory_section(&fake.last_chat_body().unwrap()).contains("none"), "a pending proposal is not in ⑤");

    let (st, accepted) = s.post(&format!("/api/memories/{}/accept", fact["id"]), json!({})).await;
    assert_eq!((st, accepted["status"].as_str()), (StatusCode::OK, Some("accepted")));
    fake.push(Reply::text(["ok"]));
    s.say(elsewhere, "again").await;
    assert!(
        memory_section(&fake.last_chat_body().unwrap()).contains("- Prefers answers in Korean."),
        "accepted: in ⑤ of a chat in another project"
    );

    let dismissed = model_calls(&s, &fake, here, "remember", json!({ "fact": "Has a cat called Nabi." })).await;
    assert!(dismissed.contains("Proposed"), "{dismissed}");
    let (_, pending) = s.get("/api/memories?status=pending").await;
    s.delete(&format!("/api/memories/{}", pending[0]["id"])).await;
    fake.push(Reply::text(["ok"]));
    s.say(elsewhere, "and again").await;
    let five = memory_section(&fake.last_chat_body().unwrap());
    assert!(!five.contains("Nabi"), "a dismissed proposal leaves no trace in ⑤: {five}");
    let (_, all) = s.get("/api/memories?status=all").await;
    assert_eq!(all.as_array().unwrap().len(), 1, "nor in the store: {all}");
}

#[tokio::test]
async fn a_duplicate_updates_the_fact_and_secrets_are_refused_on_every_path() {
    let (s, fake) = setup().await;
    s.patch("/api/settings", json!({ "memory_mode": "auto" })).await;
    let chat = s.session(None, "").await;
    model_calls(&s, &fake, chat, "remember", json!({ "fact": "Runs vLLM on a DGX Spark." })).await;
    let said = model_calls(&s, &fake, chat, "remember", json!({ "fact": "Runs vLLM on a DGX Spark at home." })).await;
    assert!(said.contains("already said this"), "{said}");
    let (_, all) = s.get("/api/memories?status=all").await;
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 1, "a near-duplicate updates the fact instead of adding one: {all:?}");
    assert_eq!(all[0]["content"], "Runs vLLM on a DGX Spark at home.");

    let key = "My OpenAI key is sk-proj-abcdefghijklmnopqrstu123";
    let said = model_calls(&s, &fake, chat, "remember", json!({ "fact": key })).await;
    assert!(said.contains("secrets never belong there"), "the model is told why: {said}");
    let (st, body) = s.post("/api/memories", json!({ "content": "password: hunter2222" })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("secret_refused")), "{body}");
    let id = &all[0]["id"];
    let (st, body) = s.patch(&format!("/api/memories/{id}"), json!({ "content": "card 4111 1111 1111 1111" })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("secret_refused")), "{body}");
    let (_, all) = s.get("/api/memories?status=all").await;
    // Only the facts' text: a timestamp's digits may well spell 4111.
    let contents: Vec<&str> = all.as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert!(contents.iter().all(|c| !c.contains("sk-proj") && !c.contains("4111 1111")), "no secret stored by any path: {contents:?}");

    s.patch("/api/settings", json!({ "memory_mode": "off" })).await;
    fake.push(Reply::text(["ok"]));
    s.say(chat, "hi").await;
    let tools = fake.last_chat_body().unwrap()["tools"].clone();
    assert!(!tools.to_string().contains("remember"), "with memory off the model is not offered the tools: {tools}");
}

/// In review mode the model's new wording for an accepted fact is a proposal beside it: the fact
/// stays accepted and in ⑤ of every chat until the user accepts the change; dismissing the change
/// keeps the fact as it was. Both paths, from the model's `remember` as it happens in a turn.
#[tokio::test]
async fn a_change_to_an_accepted_fact_waits_beside_it_and_never_loses_it() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    let (_, fact) = s.post("/api/memories", json!({ "content": "Runs vLLM on a DGX Spark.", "pinned": true })).await;
    let id = fact["id"].as_i64().unwrap();

    for decision in ["dismiss", "accept"] {
        let said = model_calls(&s, &fake, chat, "remember", json!({ "fact": "Runs vLLM on a DGX Spark at home." })).await;
        assert!(said.contains("waits for the user"), "the model is told the change is not kept yet: {said}");
        let (_, pending) = s.get("/api/memories?status=pending").await;
        let pending = pending.as_array().unwrap();
        assert_eq!(pending.len(), 1, "one change waits: {pending:?}");
        let change = &pending[0];
        assert_eq!(change["replaces"], id, "the change names the fact it changes");
        assert_eq!(change["content"], "Runs vLLM on a DGX Spark at home.");
        // Said again while it waits: still one change, not a second one.
        model_calls(&s, &fake, chat, "remember", json!({ "fact": "Runs vLLM on a DGX Spark at home." })).await;
        let (_, still) = s.get("/api/memories?status=pending").await;
        assert_eq!(still.as_array().unwrap().len(), 1, "a repeated change is not proposed twice: {still}");

        let (_, accepted) = s.get("/api/memories").await;
        let kept = accepted.as_array().unwrap().iter().find(|m| m["id"] == id).cloned();
        let kept = kept.unwrap_or_else(|| panic!("the accepted fact must stay accepted while a change waits: {accepted}"));
        assert_eq!(kept["content"], "Runs vLLM on a DGX Spark.", "its words are untouched until the user decides");
        fake.push(Reply::text(["ok"]));
        s.say(chat, "hi").await;
        let five = memory_section(&fake.last_chat_body().unwrap());
        assert!(five.contains("- Runs vLLM on a DGX Spark.\n"), "the fact stays in ⑤ of every chat while its change waits: {five}");
        assert!(!five.contains("at home"), "the change is not in ⑤ before it is accepted: {five}");

        let change_id = change["id"].as_i64().unwrap();
        if decision == "dismiss" {
            let (st, _) = s.delete(&format!("/api/memories/{change_id}")).await;
            assert!(st.is_success(), "dismissing a change: {st}");
            let (st, after) = s.get("/api/memories?status=all").await;
            assert_eq!(st, StatusCode::OK);
            let after = after.as_array().unwrap();
            assert_eq!(after.len(), 1, "dismissing the change deletes only the change: {after:?}");
            assert_eq!(
                (after[0]["id"].as_i64(), after[0]["content"].as_str(), after[0]["status"].as_str()),
                (Some(id), Some("Runs vLLM on a DGX Spark."), Some("accepted")),
                "the original fact is kept as it was"
            );
        } else {
            let (st, fact) = s.post(&format!("/api/memories/{change_id}/accept"), json!({})).await;
            assert_eq!(st, StatusCode::OK, "{fact}");
            assert_eq!(
                (fact["id"].as_i64(), fact["content"].as_str(), fact["pinned"].as_bool()),
                (Some(id), Some("Runs vLLM on a DGX Spark at home."), Some(true)),
                "accepting rewrites the fact itself: same id, same pin, the new words"
            );
            let (_, all) = s.get("/api/memories?status=all").await;
            assert_eq!(all.as_array().unwrap().len(), 1, "the accepted change is not left behind as a second fact: {all}");
            let elsewhere = s.session(None, "").await;
            fake.push(Reply::text(["ok"]));
            s.say(elsewhere, "again").await;
            let five = memory_section(&fake.last_chat_body().unwrap());
            assert!(five.contains("- Runs vLLM on a DGX Spark at home."), "the accepted change is in ⑤ of the other chats: {five}");
            fake.push(Reply::text(["ok"]));
            s.say(chat, "again").await;
            let five = memory_section(&fake.last_chat_body().unwrap());
            assert!(
                !five.contains("DGX Spark"),
                "the chat the change came from holds it in its conversation: ⑤ leaves it out, so its prompt stays as the server cached it: {five}"
            );
            let (_, inspector) = s.get(&format!("/api/sessions/{chat}/context")).await;
            assert_eq!(inspector["facts_taught_here"], json!(["Runs vLLM on a DGX Spark at home."]), "the inspector names what ⑤ left out");
            let text = maru::api::context::context(&s.app, chat).await.unwrap().to_text();
            assert!(
                text.contains("left out, as this chat taught it (its conversation holds it): Runs vLLM on a DGX Spark at home."),
                "`maru prompt --session` says it too: {text}"
            );
        }
    }
}

/// Deleting a fact takes a change waiting for it along: nothing is left to accept into nothing.
#[tokio::test]
async fn deleting_a_fact_drops_its_waiting_change() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    let (_, fact) = s.post("/api/memories", json!({ "content": "Lives in Seoul with two cats." })).await;
    model_calls(&s, &fake, chat, "remember", json!({ "fact": "Lives in Seoul with three cats." })).await;
    let (_, pending) = s.get("/api/memories?status=pending").await;
    assert_eq!(pending.as_array().unwrap().len(), 1, "{pending}");
    s.delete(&format!("/api/memories/{}", fact["id"])).await;
    let (_, all) = s.get("/api/memories?status=all").await;
    assert_eq!(all, json!([]), "a change to a deleted fact goes with it");
}

/// Waits until the chat's `n`th extraction was asked of the model and has ended: what it saved
/// (or dropped) is all there is.
async fn extraction_done(s: &TestServer, fake: &FakeOpenAi, chat: i64, n: usize) {
    for _ in 0..1000 {
        if fake.extraction_requests().len() >= n && !s.app.runs.extracting(chat) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("extraction {n} did not end within 10 s");
}

#[tokio::test]
async fn facts_are_extracted_after_a_turn_and_malformed_answers_are_dropped() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    fake.push_extraction(Reply::text(["[\"Prefers answers in Korean.\", \"My key is sk-proj-abcdefghijklmnop12345\"]"]));
    fake.push(Reply::text(["알겠습니다."]));
    s.say(chat, "From now on answer in Korean, please.").await;
    extraction_done(&s, &fake, chat, 1).await;
    let pending = s.get("/api/memories?status=pending").await.1;
    let pending = pending.as_array().unwrap();
    assert_eq!(pending.len(), 1, "the durable fact is proposed, the secret never: {pending:?}");
    assert_eq!(pending[0]["content"], "Prefers answers in Korean.");
    let asked = &fake.extraction_requests()[0].body;
    let turn = fake.last_chat_body().unwrap();
    let (conversation, task) = asked["messages"].as_array().unwrap().split_at(asked["messages"].as_array().unwrap().len() - 1);
    let sent = turn["messages"].as_array().unwrap();
    assert_eq!(
        conversation[..sent.len()],
        sent[..],
        "the extraction begins with the turn's own request, byte for byte: the server answers it from the chat's cached prompt and keeps that prompt"
    );
    assert_eq!(
        conversation[sent.len()],
        json!({ "role": "assistant", "content": "알겠습니다." }),
        "then the answer, as the next turn sends it"
    );
    assert!(task[0]["content"].as_str().unwrap().starts_with("Find lasting facts"), "and the task comes last: {task:?}");
    assert_eq!(asked["tools"], turn["tools"], "with the same tools, which open the prompt");

    fake.push_extraction(Reply::text(["I think the user likes tea."]));
    fake.push(Reply::text(["ok"]));
    s.say(chat, "I had tea.").await;
    extraction_done(&s, &fake, chat, 2).await;
    let (_, all) = s.get("/api/memories?status=all").await;
    assert_eq!(all.as_array().unwrap().len(), 1, "a malformed answer is dropped, never saved: {all}");
}

#[tokio::test]
async fn facts_past_the_memory_budget_are_reported_and_left_to_search_memory() {
    let (s, fake) = setup().await;
    for i in 0..40 {
        s.post("/api/memories", json!({ "content": format!("Fact {i}: the user likes topic{i}x a great deal.") })).await;
    }
    let (st, v) = s.patch("/api/settings", json!({ "memory_budget_chars": 600 })).await;
    assert_eq!(st, StatusCode::OK, "budgets are settings: {v}");
    let chat = s.session(None, "").await;
    fake.push(Reply::text(["ok"]));
    s.say(chat, "hi").await;
    let five = memory_section(&fake.last_chat_body().unwrap());
    assert!(five.contains("search_memory finds them"), "what does not fit is reachable through search_memory: {five}");
    let (_, ctx) = s.get(&format!("/api/sessions/{chat}/context")).await;
    let memory = ctx["sections"].as_array().unwrap().iter().find(|x| x["id"] == "memory").unwrap().clone();
    assert!(!memory["cuts"].as_array().unwrap().is_empty(), "and the inspector reports the cut: {memory}");
    let found = model_calls(&s, &fake, chat, "search_memory", json!({ "query": "topic3x" })).await;
    assert!(found.contains("Fact 3:"), "a fact ⑤ had no room for is found: {found}");
}
