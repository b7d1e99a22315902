//! `GET /api/events` tells every open window what changed, whoever changed it: a chat created
//! through the API, its turn starting and ending, its title from the model, a project, a delete.
//! So a second tab's sidebar and open chat stay current without a reload.

use std::time::Duration;

use maru_tests::server::{with_fake_model, Event, TestServer, Turn};
use serde_json::json;

async fn listen(s: &TestServer) -> Turn {
    let res = s.http.get(s.url("/api/events")).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(res.status(), 200);
    Turn::from_response(res)
}

/// The next change that is not a keep-alive, within a few seconds.
async fn next(events: &mut Turn) -> Event {
    tokio::time::timeout(Duration::from_secs(10), events.next()).await.expect("a change is told at once").expect("the stream stays open")
}

/// Reads changes until one named `name` about `session` comes, and returns those before it.
async fn until(events: &mut Turn, name: &str, session: Option<i64>) -> Vec<Event> {
    let mut seen = vec![];
    loop {
        let e = next(events).await;
        if e.name == name && session.is_none_or(|id| e.data["session_id"] == id) {
            return seen;
        }
        seen.push(e);
    }
}

#[tokio::test]
async fn every_window_hears_of_chats_projects_and_turns_changed_elsewhere() {
    let (s, _fake) = with_fake_model().await;
    let mut events = listen(&s).await;

    let p = s.project("Trips").await;
    until(&mut events, "projects_changed", None).await;
    let sess = s.session(Some(p), "").await;
    until(&mut events, "session_changed", Some(sess)).await;

    s.say(sess, "Plan a day in Busan").await;
    let before_start = until(&mut events, "turn_started", Some(sess)).await;
    assert!(before_start.iter().all(|e| e.name != "turn_ended"), "a turn is told to start before it ends: {before_start:?}");
    until(&mut events, "turn_ended", Some(sess)).await;

    s.patch(&format!("/api/sessions/{sess}"), json!({ "title": "Busan" })).await;
    until(&mut events, "session_changed", Some(sess)).await;
    s.delete(&format!("/api/sessions/{sess}")).await;
    until(&mut events, "session_deleted", Some(sess)).await;
}

#[tokio::test]
async fn a_refused_change_is_not_told() {
    let (s, _fake) = with_fake_model().await;
    let mut events = listen(&s).await;
    let (status, _) = s.post("/api/projects", json!({ "name": "x".repeat(10_000) })).await;
    assert_eq!(status, 400, "a 10,000-character name is refused");
    let p = s.project("After").await;
    let first = next(&mut events).await;
    assert_eq!(first.name, "projects_changed", "the refused project (rolled back) is not told; the next one is: {first:?}");
    let (_, projects) = s.get("/api/projects").await;
    assert!(projects.as_array().unwrap().iter().any(|x| x["id"] == p));
}
