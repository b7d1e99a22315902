//! The HTTP API of `maru serve` as a client meets it: projects, sessions, messages, settings,
//! memories, the Default project's guarantees, auth, and bad input that must change nothing.

use maru::store::messages::{self, NewMessage, Role, Status};
use maru_tests::server::TestServer;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A snapshot of everything a user could lose, to compare before and after a refused request.
async fn everything(s: &TestServer) -> Value {
    let (_, projects) = s.get("/api/projects").await;
    let mut sessions = vec![];
    for p in projects.as_array().unwrap() {
        let (_, page) = s.get(&format!("/api/sessions?project_id={}&limit=200", p["id"])).await;
        for sess in page["sessions"].as_array().unwrap() {
            let (_, msgs) = s.get(&format!("/api/sessions/{}/messages?limit=500", sess["id"])).await;
            sessions.push(json!({ "session": sess, "messages": msgs }));
        }
    }
    let (_, settings) = s.get("/api/settings").await;
    let (_, memories) = s.get("/api/memories").await;
    json!({ "projects": projects, "sessions": sessions, "settings": settings, "memories": memories })
}

fn add_message(s: &TestServer, session_id: i64, role: Role, text: &str) -> i64 {
    s.app
        .store
        .with(|c| {
            messages::insert(
                c,
                &NewMessage { session_id, role, content: text, status: Status::Complete, model: None, ..Default::default() },
            )
        })
        .unwrap()
        .id
}

fn assert_error(status: StatusCode, body: &Value, want_status: u16, want_code: &str, why: &str) {
    assert_eq!(status.as_u16(), want_status, "{why}: wrong status, body {body}");
    assert_eq!(body["code"], want_code, "{why}: the UI branches on the error code, body {body}");
    assert!(body["message"].as_str().is_some_and(|m| m.len() > 10), "{why}: the user needs a readable message, body {body}");
}

#[tokio::test]
async fn default_project_exists_once_and_cannot_be_deleted_or_renamed() {
    let s = TestServer::start().await;
    let (status, projects) = s.get("/api/projects").await;
    assert_eq!(status, StatusCode::OK);
    let defaults: Vec<_> = projects.as_array().unwrap().iter().filter(|p| p["is_default"] == true).collect();
    assert_eq!(defaults.len(), 1, "a fresh install must have exactly one Default project: {projects}");
    let default_id = defaults[0]["id"].as_i64().unwrap();

    let (st, body) = s.delete(&format!("/api/projects/{default_id}")).await;
    assert_error(st, &body, 409, "default_project", "deleting Default must be refused");
    let (st, body) = s.patch(&format!("/api/projects/{default_id}"), json!({ "name": "" })).await;
    assert_error(st, &body, 409, "default_project", "renaming Default away must be refused");
    let (st, body) = s.patch(&format!("/api/projects/{default_id}"), json!({ "name": "Mine" })).await;
    assert_error(st, &body, 409, "default_project", "Default keeps its name");

    // Restarting on the same data folder must not create a second Default.
    let data = s.stop().await;
    let s = TestServer::start_in(data).await;
    let (_, projects) = s.get("/api/projects").await;
    let count = projects.as_array().unwrap().iter().filter(|p| p["is_default"] == true).count();
    assert_eq!(count, 1, "reopening must keep exactly one Default project: {projects}");
    assert_eq!(projects[0]["id"], default_id, "Default keeps its id across restarts and is listed first");
}

#[tokio::test]
async fn deleting_a_project_moves_its_sessions_and_messages_to_default() {
    let s = TestServer::start().await;
    let family = s.project("Family calendar").await;
    let a = s.session(Some(family), "school").await;
    let b = s.session(Some(family), "holidays").await;
    add_message(&s, a, Role::User, "When is the school trip?");
    add_message(&s, a, Role::Assistant, "On the 3rd.");
    add_message(&s, b, Role::User, "Book the cabin");

    let (st, del) = s.delete(&format!("/api/projects/{family}")).await;
    assert_eq!(st, StatusCode::OK, "{del}");
    assert_eq!(del["moved_sessions"], 2, "the user is told how many sessions moved: {del}");

    let default_id = del["default_project_id"].as_i64().unwrap();
    let (_, page) = s.get(&format!("/api/sessions?project_id={default_id}")).await;
    let ids: Vec<i64> = page["sessions"].as_array().unwrap().iter().map(|x| x["id"].as_i64().unwrap()).collect();
    assert!(ids.contains(&a) && ids.contains(&b), "both sessions must now be in Default: {page}");
    let (_, msgs) = s.get(&format!("/api/sessions/{a}/messages")).await;
    let texts: Vec<&str> = msgs["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(texts, ["On the 3rd.", "When is the school trip?"], "messages survive the move, newest first");
    let (st, _) = s.get(&format!("/api/sessions?project_id={family}")).await;
    assert_eq!(st, StatusCode::NOT_FOUND, "the deleted project is gone");
}

#[tokio::test]
async fn moving_a_session_keeps_every_message_and_survives_restart() {
    let s = TestServer::start().await;
    let work = s.project("Work").await;
    let sess = s.session(None, "notes").await;
    for i in 0..5 {
        let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
        add_message(&s, sess, role, &format!("message {i}"));
    }
    add_message(&s, sess, Role::Assistant, "the last reply");
    let (st, moved) = s.patch(&format!("/api/sessions/{sess}"), json!({ "project_id": work })).await;
    assert_eq!(st, StatusCode::OK, "{moved}");
    assert_eq!(moved["project_id"], work);

    let data = s.stop().await;
    let s = TestServer::start_in(data).await;
    let (_, page) = s.get(&format!("/api/sessions?project_id={work}")).await;
    assert_eq!(page["sessions"][0]["id"], sess, "the moved session is found in its new project after a restart");
    let (_, msgs) = s.get(&format!("/api/sessions/{sess}/messages")).await;
    assert_eq!(msgs["messages"].as_array().unwrap().len(), 6, "no message is lost by moving: {msgs}");
}

#[tokio::test]
async fn sessions_page_newest_activity_first() {
    let s = TestServer::start().await;
    let mut ids = vec![];
    for i in 0..7 {
        ids.push(s.session(None, &format!("s{i}")).await);
    }
    // Activity in the oldest session brings it to the top.
    add_message(&s, ids[0], Role::User, "hello again");
    let mut seen = vec![];
    let mut cursor: Option<String> = None;
    loop {
        let q = match &cursor {
            Some(c) => format!("/api/sessions?limit=3&cursor={c}"),
            None => "/api/sessions?limit=3".to_string(),
        };
        let (st, page) = s.get(&q).await;
        assert_eq!(st, StatusCode::OK, "{page}");
        seen.extend(page["sessions"].as_array().unwrap().iter().map(|x| x["id"].as_i64().unwrap()));
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 7, "paging must return every session exactly once: {seen:?}");
    assert_eq!(seen[0], ids[0], "the session with the newest message comes first");
    let (st, body) = s.get("/api/sessions?cursor=garbage").await;
    assert_error(st, &body, 400, "invalid_cursor", "a forged cursor gets a clear error");
}

#[tokio::test]
async fn messages_page_edit_and_delete() {
    let s = TestServer::start().await;
    let sess = s.session(None, "").await;
    let ids: Vec<i64> = (0..5).map(|i| add_message(&s, sess, Role::User, &format!("m{i}"))).collect();
    let (_, page) = s.get(&format!("/api/sessions/{sess}/messages?limit=2")).await;
    assert_eq!(page["messages"][0]["id"], ids[4], "newest first");
    let before = page["next_before"].as_i64().expect("an older page exists");
    let (_, older) = s.get(&format!("/api/sessions/{sess}/messages?limit=10&before={before}")).await;
    assert_eq!(older["messages"].as_array().unwrap().len(), 3, "the rest come on the older page");
    assert!(older["next_before"].is_null(), "no page after the oldest");

    let (st, edited) = s.patch(&format!("/api/messages/{}", ids[1]), json!({ "content": "fixed <typo> & \"quotes\" 한국어 🙂" })).await;
    assert_eq!(st, StatusCode::OK, "{edited}");
    assert_eq!(edited["content"], "fixed <typo> & \"quotes\" 한국어 🙂", "text is stored byte for byte");
    let (st, _) = s.delete(&format!("/api/messages/{}", ids[2])).await;
    assert_eq!(st, StatusCode::OK);
    let (_, all) = s.get(&format!("/api/sessions/{sess}/messages")).await;
    assert_eq!(all["messages"].as_array().unwrap().len(), 4);

    let (st, _) = s.delete(&format!("/api/sessions/{sess}")).await;
    assert_eq!(st, StatusCode::OK);
    let (st, body) = s.get(&format!("/api/sessions/{sess}/messages")).await;
    assert_error(st, &body, 404, "not_found", "a deleted session's messages are gone with it");
}

#[tokio::test]
async fn settings_are_typed_and_never_echo_the_api_key() {
    let s = TestServer::start().await;
    let (_, initial) = s.get("/api/settings").await;
    assert_eq!(initial["custom_instructions"], "");
    assert_eq!(initial["api_key_set"], false);
    let (st, v) = s
        .patch(
            "/api/settings",
            json!({ "custom_instructions": "Answer in Korean.", "api_key": "sk-very-secret", "model": "smol", "temperature": 0.3 }),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["custom_instructions"], "Answer in Korean.");
    assert_eq!(v["api_key_set"], true);
    assert!(!v.to_string().contains("sk-very-secret"), "the API key must never be sent back: {v}");
    let (_, again) = s.get("/api/settings").await;
    assert_eq!(again, v, "settings persist");

    let (st, v) = s.patch("/api/settings", json!({ "api_key": null, "temperature": null })).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["api_key_set"], false, "null removes the key");
    assert!(v["temperature"].is_null(), "null goes back to the default");

    let snapshot = everything(&s).await;
    for (patch, code) in [
        (json!({ "endpoint_url": "localhost:8080" }), "invalid_endpoint"),
        (json!({ "temperature": 7 }), "invalid_temperature"),
        // A typed field: the JSON itself is refused, and its message names the values allowed.
        (json!({ "theme": "purple" }), "invalid_json"),
        (json!({ "memory_mode": "sometimes" }), "invalid_json"),
        (json!({ "custom_instructions": "x".repeat(100_001) }), "instructions_too_long"),
        (json!({ "no_such_setting": 1 }), "invalid_json"),
        (json!({ "model": "good", "temperature": 9 }), "invalid_temperature"),
        (json!({ "first_byte_timeout_secs": 0 }), "invalid_timeout"),
    ] {
        let (st, body) = s.patch("/api/settings", patch.clone()).await;
        assert_error(st, &body, 400, code, &format!("bad settings {patch}"));
        if patch.get("theme").is_some() {
            assert!(body["message"].as_str().unwrap().contains("expected one of `system`, `light`, `dark`"), "{body}");
        }
    }
    assert_eq!(everything(&s).await, snapshot, "a refused settings change must change nothing, not even its valid half");
}

#[tokio::test]
async fn memories_crud() {
    let s = TestServer::start().await;
    let sess = s.session(None, "").await;
    let (st, m) = s.post("/api/memories", json!({ "content": "Runs vLLM on a DGX Spark.", "source_session_id": sess })).await;
    assert_eq!(st, StatusCode::OK, "{m}");
    let id = m["id"].as_i64().unwrap();
    assert_eq!(m["source_session_id"], sess, "a fact remembers where it came from");
    let (_, m2) = s.patch(&format!("/api/memories/{id}"), json!({ "content": "Prefers answers in Korean.", "pinned": true })).await;
    assert_eq!(m2["content"], "Prefers answers in Korean.");
    assert_eq!(m2["pinned"], true);
    let (_, list) = s.get("/api/memories").await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    s.delete(&format!("/api/sessions/{sess}")).await;
    let (_, list) = s.get("/api/memories").await;
    assert!(list[0]["source_session_id"].is_null(), "deleting the source session keeps the fact");
    let (st, _) = s.delete(&format!("/api/memories/{id}")).await;
    assert_eq!(st, StatusCode::OK);
    let (_, list) = s.get("/api/memories").await;
    assert_eq!(list, json!([]));
    let (st, body) = s.post("/api/memories", json!({ "content": "   " })).await;
    assert_error(st, &body, 400, "invalid_memory", "an empty fact is refused");
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let s = TestServer::start().await;
    let work = s.project("Work").await;
    let sess = s.session(Some(work), "plan").await;
    add_message(&s, sess, Role::User, "keep me");
    let before = everything(&s).await;

    let long = "가".repeat(10_000);
    // (method, path, body, expected status, expected code, what the case is)
    type Case = (reqwest::Method, String, Option<Value>, u16, &'static str, &'static str);
    let cases: Vec<Case> = vec![
        (reqwest::Method::POST, "/api/projects".into(), Some(json!({ "name": "" })), 400, "invalid_name", "empty project name"),
        (reqwest::Method::POST, "/api/projects".into(), Some(json!({ "name": "   \t " })), 400, "invalid_name", "whitespace-only name"),
        (reqwest::Method::POST, "/api/projects".into(), Some(json!({ "name": long })), 400, "invalid_name", "10,000-character name"),
        (reqwest::Method::POST, "/api/projects".into(), Some(json!({ "name": "a\nb" })), 400, "invalid_name", "name with a line break"),
        (reqwest::Method::POST, "/api/projects".into(), Some(json!({ "name": "WORK" })), 409, "name_taken", "duplicate name ignoring case"),
        (
            reqwest::Method::POST,
            "/api/projects".into(),
            Some(json!({ "name": " default " })),
            409,
            "name_taken",
            "a second Default by name",
        ),
        (
            reqwest::Method::POST,
            "/api/projects".into(),
            Some(json!({ "name": "x", "instructions": "y".repeat(100_001) })),
            400,
            "instructions_too_long",
            "instructions over 100,000 chars",
        ),
        (reqwest::Method::PATCH, format!("/api/projects/{work}"), Some(json!({ "name": "" })), 400, "invalid_name", "renaming to empty"),
        (reqwest::Method::PATCH, "/api/projects/9999".into(), Some(json!({ "name": "z" })), 404, "not_found", "unknown project id"),
        (reqwest::Method::DELETE, "/api/projects/9999".into(), None, 404, "not_found", "deleting an unknown project"),
        (
            reqwest::Method::PATCH,
            format!("/api/sessions/{sess}"),
            Some(json!({ "project_id": 9999 })),
            404,
            "not_found",
            "moving to a project that does not exist",
        ),
        (
            reqwest::Method::PATCH,
            format!("/api/sessions/{sess}"),
            Some(json!({ "title": "t".repeat(201) })),
            400,
            "invalid_title",
            "over-long title",
        ),
        (
            reqwest::Method::POST,
            "/api/sessions".into(),
            Some(json!({ "project_id": 9999 })),
            404,
            "not_found",
            "session in a missing project",
        ),
        (reqwest::Method::GET, "/api/sessions?project_id=9999".into(), None, 404, "not_found", "listing a missing project"),
        (reqwest::Method::GET, "/api/sessions?limit=abc".into(), None, 400, "invalid_query", "non-numeric limit"),
        (reqwest::Method::GET, "/api/sessions/9999/messages".into(), None, 404, "not_found", "messages of a missing session"),
        (reqwest::Method::DELETE, "/api/sessions/9999".into(), None, 404, "not_found", "deleting a missing session"),
        (
            reqwest::Method::PATCH,
            "/api/messages/9999".into(),
            Some(json!({ "content": "x" })),
            404,
            "not_found",
            "editing a missing message",
        ),
        (reqwest::Method::DELETE, "/api/memories/9999".into(), None, 404, "not_found", "deleting a missing memory"),
        (reqwest::Method::GET, "/api/sessions/abc".into(), None, 400, "invalid_id", "a non-numeric id"),
        (reqwest::Method::GET, "/api/nothing-here".into(), None, 404, "no_such_route", "an unknown route"),
    ];
    for (method, path, body, want, code, why) in cases {
        let (st, resp) = s.call(method, &path, body).await;
        assert_error(st, &resp, want, code, why);
    }

    // Malformed JSON and a wrong content type.
    for raw in ["{\"name\":", "not json", "[]", "{\"name\": 5}"] {
        let res = s
            .http
            .post(s.url("/api/projects"))
            .bearer_auth(&s.token)
            .header("content-type", "application/json")
            .body(raw)
            .send()
            .await
            .unwrap();
        let st = res.status();
        let body: Value = res.json().await.unwrap();
        assert_error(st, &body, 400, "invalid_json", &format!("malformed JSON {raw:?}"));
    }
    assert_eq!(everything(&s).await, before, "no refused request may change the store");
}

#[tokio::test]
async fn requests_without_the_right_token_get_401_and_no_data() {
    let s = TestServer::start().await;
    s.project("Secret plans").await;
    for auth in [None, Some("Bearer wrong"), Some("Bearer "), Some(&*format!("Basic {}", s.token))] {
        let mut req = s.http.get(s.url("/api/projects"));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "auth {auth:?} must be refused");
        let text = res.text().await.unwrap();
        assert!(!text.contains("Secret plans"), "a refused request must not leak data: {text}");
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(body["code"], "unauthorized");
    }
    let res = s.http.post(s.url("/api/projects")).json(&json!({ "name": "Sneaky" })).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let (_, projects) = s.get("/api/projects").await;
    assert!(!projects.to_string().contains("Sneaky"), "an unauthorised write must not happen");
}

#[tokio::test]
async fn a_foreign_host_header_is_refused() {
    let s = TestServer::start().await;
    let res = s.http.get(s.url("/api/health")).bearer_auth(&s.token).header("host", "attacker.example:80").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "DNS-rebinding requests name a foreign host and must be refused");
    let res = s.http.get(s.url("/api/health")).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_non_loopback_host_needs_allow_remote() {
    let data = tempfile::tempdir().unwrap();
    let app = maru::app::App::open(data.path()).unwrap();
    let opts = maru::server::ServeOptions { host: "0.0.0.0".into(), port: 0, token: None, allow_remote: false, ui_dir: None };
    let err = maru::server::bind(app, &opts).await.err().expect("listening on every interface must be refused");
    assert_eq!(err.code(), "remote_refused");
    assert!(err.to_string().contains("--allow-remote"), "the message names the flag that allows it: {err}");
}
