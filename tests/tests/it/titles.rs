//! A chat's title: at once from its first message, then the model's after the first exchange,
//! asked with the chat's own conversation so the server's cached prompt is reused and kept. A
//! title the user typed is never replaced.

use maru_tests::fake_openai::Reply;
use maru_tests::server::with_fake_model;
use serde_json::json;

#[tokio::test]
async fn the_model_titles_a_chat_after_its_first_exchange_from_the_chats_own_prefix() {
    let (s, fake) = with_fake_model().await;
    let chat = s.session(None, "").await;
    fake.push_title(Reply::text(["\"Busan family trip.\""]));
    fake.push(Reply::text(["Let us plan it."]));
    s.say(chat, "We want to take the kids to Busan in May, where should we stay?").await;
    maru_tests::eventually("the model's title", || async {
        s.get(&format!("/api/sessions/{chat}")).await.1["title"] == "Busan family trip"
    })
    .await;

    let asked = &fake.title_requests()[0].body;
    let turn = fake.last_chat_body().unwrap();
    let sent = turn["messages"].as_array().unwrap();
    assert_eq!(
        asked["messages"].as_array().unwrap()[..sent.len()],
        sent[..],
        "the title request begins with the turn's request, byte for byte: the chat's cached prompt serves it and stays"
    );
    assert_eq!(asked["tools"], turn["tools"], "with the same tools, which open the prompt");

    fake.push(Reply::text(["Near the beach."]));
    s.say(chat, "And near the beach?").await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(chat) }).await;
    assert_eq!(fake.title_requests().len(), 1, "only the first exchange asks for a title");
}

#[tokio::test]
async fn a_title_the_user_typed_always_wins_and_an_unusable_answer_changes_nothing() {
    let (s, fake) = with_fake_model().await;
    let named = s.session(None, "Taxes 2026").await;
    fake.push(Reply::text(["ok"]));
    s.say(named, "What can I deduct?").await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(named) }).await;
    assert!(fake.title_requests().is_empty(), "a chat the user named is not retitled");
    assert_eq!(s.get(&format!("/api/sessions/{named}")).await.1["title"], "Taxes 2026");

    // Renamed while the model writes its title: the user's name stays.
    let chat = s.session(None, "").await;
    fake.push_title(Reply::text(["Model title"]).delay(300));
    fake.push(Reply::text(["ok"]));
    s.say(chat, "How do I bake bread?").await;
    maru_tests::eventually("the title is being asked", || async { !fake.title_requests().is_empty() }).await;
    assert_eq!(s.patch(&format!("/api/sessions/{chat}"), json!({ "title": "Bread" })).await.0, 200);
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(chat) }).await;
    assert_eq!(s.get(&format!("/api/sessions/{chat}")).await.1["title"], "Bread", "the user's rename wins over a late model title");

    let other = s.session(None, "").await;
    fake.push_title(Reply::text(["This conversation is about many things, ".repeat(5)]));
    fake.push(Reply::text(["ok"]));
    s.say(other, "Tell me about tides").await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(other) }).await;
    assert_eq!(s.get(&format!("/api/sessions/{other}")).await.1["title"], "Tell me about tides", "a paragraph is not a title");
    fake.push(Reply::text(["ok"]));
    s.say(other, "And the moon?").await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(other) }).await;
    assert_eq!(fake.title_requests().len(), 2, "a chat whose title answer was unusable is not asked again every turn");
}

/// The chat's menu asks the model again for a title that did not come out well: the new title
/// replaces any (the user asked), a useless answer or a server that fails says so and changes
/// nothing, and an empty chat has nothing to be named by.
#[tokio::test]
async fn a_title_can_be_asked_for_again_and_a_failure_changes_nothing() {
    let (s, fake) = with_fake_model().await;
    let chat = s.session(None, "").await;
    fake.push_title(Reply::text(["This conversation is about many things, ".repeat(5)]));
    fake.push(Reply::text(["Sourdough needs a starter."]));
    s.say(chat, "How do I bake sourdough bread at home?").await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(chat) }).await;
    assert_eq!(s.get(&format!("/api/sessions/{chat}")).await.1["title"], "How do I bake sourdough bread at home?");

    fake.push_title(Reply::text(["Sourdough at home"]));
    let (status, body) = s.post(&format!("/api/sessions/{chat}/title"), json!({})).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    assert_eq!(body["title"], "Sourdough at home", "the model's new title is the chat's now: {body}");
    let asked = fake.title_requests().last().unwrap().body.clone();
    let texts: Vec<&str> = asked["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert_eq!(
        texts[..2],
        ["How do I bake sourdough bread at home?", "Sourdough needs a starter."],
        "the model reads the conversation: {texts:?}"
    );
    assert!(texts[2].starts_with("Write a title for this conversation"), "then the title task from prompts/: {texts:?}");

    // The user's own title is replaced too: they asked.
    s.patch(&format!("/api/sessions/{chat}"), json!({ "title": "Bread" })).await;
    fake.push_title(Reply::text(["Baking bread"]));
    assert_eq!(s.post(&format!("/api/sessions/{chat}/title"), json!({})).await.1["title"], "Baking bread");

    fake.push_title(Reply::text([""]));
    let (status, body) = s.post(&format!("/api/sessions/{chat}/title"), json!({})).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (409, Some("title_unusable")), "an empty answer is said, not saved: {body}");
    fake.push_title(Reply::status(500, "boom"));
    let (status, body) = s.post(&format!("/api/sessions/{chat}/title"), json!({})).await;
    assert_eq!(status.as_u16(), 502, "a failing server is said with its code: {body}");
    assert_eq!(s.get(&format!("/api/sessions/{chat}")).await.1["title"], "Baking bread", "a failed attempt keeps the title as it was");

    let empty = s.session(None, "").await;
    let (status, body) = s.post(&format!("/api/sessions/{empty}/title"), json!({})).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (409, Some("nothing_to_title")), "{body}");
    let (_, temporary) = s.post("/api/sessions", json!({ "temporary": true })).await;
    fake.push(Reply::text(["ok"]));
    s.say(temporary["id"].as_i64().unwrap(), "Just between us").await;
    let (status, body) = s.post(&format!("/api/sessions/{}/title", temporary["id"]), json!({})).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (409, Some("temporary_chat")), "a temporary chat is never titled: {body}");
    let (status, _) = s.post("/api/sessions/987654/title", json!({})).await;
    assert_eq!(status.as_u16(), 404, "a chat that is not there is said to be not there");
}
