//! What a user can do while a reply streams, and bad input that must be refused: each case was
//! seen to lose or misplace words before the turn wrote only to its own reply, listeners stopped
//! blocking turns and one process owned a data folder.

use std::time::Duration;

use maru_tests::eventually;
use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model as setup, Event, TestServer, Turn};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// A reply of `n` words arriving one every `ms` milliseconds.
fn slow_reply(word: &str, n: usize, ms: u64) -> Reply {
    Reply::text((0..n).map(|i| format!("{word}{i} "))).piece_delay(ms)
}

async fn first_token(turn: &mut Turn) -> Event {
    loop {
        let e = turn.next().await.expect("the reply streams");
        if e.name == "token" {
            return e;
        }
    }
}

fn texts(history: &[Value]) -> Vec<String> {
    history.iter().map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn deleting_a_chat_mid_reply_never_writes_into_another_chat() {
    let (s, fake) = setup().await;
    let a = s.session(None, "A").await;
    let b = s.session(None, "B").await;
    fake.push(slow_reply("alpha", 200, 10));
    let mut turn_a = s.turn(&format!("/api/sessions/{a}/messages"), Some(json!({ "content": "tell A a story" }))).await;
    first_token(&mut turn_a).await;

    let (st, body) = s.delete(&format!("/api/sessions/{a}")).await;
    assert_eq!(st, StatusCode::OK, "deleting a chat while it replies is allowed: {body}");
    let rest = turn_a.collect().await;
    let last = rest.last().expect("the turn reports how it ended");
    assert_eq!((last.name.as_str(), &last.data["message"]["status"]), ("done", &json!("stopped")), "the delete stopped the reply first");

    fake.push(Reply::text(["B's own answer"]));
    let events = s.say(b, "question for B").await;
    assert_eq!(events.last().unwrap().name, "done", "{events:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        texts(&s.history(b).await),
        ["question for B", "B's own answer"],
        "nothing of A's reply may land in B, and B's words stay B's"
    );

    let c = s.session(None, "C").await;
    assert!(c > b, "a new chat never gets a deleted chat's id");
    fake.push(Reply::text(["C answered"]));
    let events = s.say(c, "hello C").await;
    assert_eq!(events.last().unwrap().name, "done", "a new chat is never blocked by the deleted chat's turn: {events:?}");
}

#[tokio::test]
async fn deleting_the_streaming_reply_stops_it_and_loses_no_later_words() {
    let (s, fake) = setup().await;
    let a = s.session(None, "A").await;
    let b = s.session(None, "B").await;
    fake.push(slow_reply("alpha", 200, 10));
    let mut turn_a = s.turn(&format!("/api/sessions/{a}/messages"), Some(json!({ "content": "tell A a story" }))).await;
    first_token(&mut turn_a).await;
    let reply_id = s.history(a).await[1]["id"].as_i64().unwrap();

    let (st, body) = s.delete(&format!("/api/messages/{reply_id}")).await;
    assert_eq!(st, StatusCode::OK, "{body}");
    turn_a.collect().await;
    assert_eq!(texts(&s.history(a).await), ["tell A a story"], "the reply is gone, the question stays");

    fake.push(Reply::text(["B's answer"]));
    s.say(b, "B's question, which must survive").await;
    fake.push(Reply::text(["A again"]));
    let events = s.say(a, "A's next question").await;
    assert_eq!(events.last().unwrap().name, "done", "the chat whose reply was deleted takes a new message: {events:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        texts(&s.history(b).await),
        ["B's question, which must survive", "B's answer"],
        "the user's words in B are never overwritten"
    );
    assert_eq!(texts(&s.history(a).await), ["tell A a story", "A's next question", "A again"]);
}

#[tokio::test]
async fn a_client_that_stops_reading_cannot_lock_the_chat() {
    let (s, fake) = setup().await;
    let a = s.session(None, "A").await;
    // 90,000 small pieces become ~5 MB of events: far more than the socket buffers hold, so a
    // turn that waited for this reader would stall. Then the server goes quiet, mid-reply.
    const PIECES: usize = 90_000;
    fake.push(Reply::text(std::iter::repeat_n("0123456789", PIECES)).then_hang());
    let body = json!({ "content": "a very long answer please" }).to_string();
    let addr = s.base.trim_start_matches("http://").to_string();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut sock = socket.connect(addr.parse().unwrap()).await.unwrap();
    let req = format!(
        "POST /api/sessions/{a}/messages HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        s.token,
        body.len()
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    // The socket is never read from again.
    let whole = PIECES * 10;
    let stored_len = || async { s.history(a).await.get(1).map_or(0, |m| m["content"].as_str().unwrap().len()) };
    eventually("the reply to arrive although nobody reads it", || async { stored_len().await >= whole / 2 }).await;
    let seen = stored_len().await;

    let (st, stopped) = s.post(&format!("/api/sessions/{a}/stop"), json!({})).await;
    assert_eq!((st, &stopped["stopped"]), (StatusCode::OK, &json!(true)));
    eventually("the reply to end as stopped", || async { s.history(a).await[1]["status"] == "stopped" }).await;
    let stored = s.history(a).await[1]["content"].as_str().unwrap().to_string();
    assert!(stored.len() >= seen && stored.len() % 10 == 0, "the text so far is kept, no piece cut: {} chars", stored.len());
    assert_eq!(stored, "0123456789".repeat(stored.len() / 10), "and nothing in the middle is lost, whatever the listener read");

    fake.push(Reply::text(["next"]));
    let events = s.say(a, "and now?").await;
    assert_eq!(events.last().unwrap().name, "done", "the chat takes the next message although the old client never read: {events:?}");
    drop(sock);
}

#[tokio::test]
async fn a_second_tab_attaches_to_the_reply_in_flight() {
    let (s, fake) = setup().await;
    let a = s.session(None, "A").await;
    fake.push(Reply::text(["one ", "two ", "three ", "four"]).piece_delay(150));
    let mut first = s.turn(&format!("/api/sessions/{a}/messages"), Some(json!({ "content": "count" }))).await;
    first_token(&mut first).await;

    let res = s.http.get(s.url(&format!("/api/sessions/{a}/events"))).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let second = Turn::from_response(res);
    let events = second.collect().await;
    let text: String = events.iter().filter(|e| e.name == "token").map(|e| e.data["text"].as_str().unwrap()).collect();
    assert_eq!(text, "one two three four", "a late listener replays what streamed before it came, then follows live");
    assert_eq!(events.last().unwrap().name, "done");
    first.collect().await;

    let (st, body) = s.get(&format!("/api/sessions/{a}/events")).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::CONFLICT, Some("no_turn_running")), "nothing to attach to once it ended: {body}");
}

#[tokio::test]
async fn a_second_maru_on_the_same_data_folder_is_refused() {
    let (s, fake) = setup().await;
    let a = s.session(None, "A").await;
    fake.push(slow_reply("w", 100, 10));
    let mut turn = s.turn(&format!("/api/sessions/{a}/messages"), Some(json!({ "content": "go" }))).await;
    first_token(&mut turn).await;

    let err = maru::app::App::open(s.data.path()).err().expect("a second process on the same folder must not open it");
    assert_eq!(err.code(), "data_dir_in_use");
    assert!(err.to_string().contains(&format!("process {},", std::process::id())), "the message says which process has it: {err}");
    assert_eq!(s.history(a).await[1]["status"], "streaming", "the live reply is not marked interrupted by the refused second start");
    let events = turn.collect().await;
    assert_eq!(events.last().unwrap().name, "done");
}

#[tokio::test]
async fn one_line_names_refuse_what_a_list_cannot_show() {
    let s = TestServer::start().await;
    for bad in ["\u{200b}\u{200b}", "\u{feff}\u{200c}", "\u{301}", "a\u{2028}b", "a\u{202e}b"] {
        let (st, body) = s.post("/api/projects", json!({ "name": bad })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_name")), "{bad:?}: {body}");
        let (st, body) = s.post("/api/sessions", json!({ "title": bad })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_title")), "{bad:?}: {body}");
    }
    s.project("Caf\u{e9}").await;
    let (st, body) = s.post("/api/projects", json!({ "name": "Cafe\u{301}" })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::CONFLICT, Some("name_taken")), "NFC and NFD spell one name: {body}");
    let (_, projects) = s.get("/api/projects").await;
    assert_eq!(projects.as_array().unwrap().len(), 2, "nothing half-created");
}

#[tokio::test]
async fn bad_input_in_chats_is_refused_or_made_safe() {
    let (s, fake) = setup().await;
    let a = s.session(None, "").await;
    fake.push(Reply::text(["ok"]));
    s.say(a, "\u{1b}]0;pwned\u{7}hello\u{2028}there").await;
    let (_, session) = s.get(&format!("/api/sessions/{a}")).await;
    let title = session["title"].as_str().unwrap();
    assert!(!title.chars().any(|c| c.is_control() || c == '\u{2028}'), "an automatic title holds what a typed one may: {title:?}");
    assert!(title.contains("hello there"), "{title:?}");

    let user_id = s.history(a).await[0]["id"].as_i64().unwrap();
    for empty in ["", "  \n\t "] {
        let (st, body) = s.patch(&format!("/api/messages/{user_id}"), json!({ "content": empty })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("empty_message")), "{empty:?}: {body}");
    }
    assert_eq!(s.history(a).await[0]["content"], "\u{1b}]0;pwned\u{7}hello\u{2028}there", "the message itself is kept as typed");

    let (st, body) = s.post("/api/presets", json!({ "name": "Huge", "prompt": "Be brief.", "description": "d".repeat(10_000_000) })).await;
    assert_eq!(
        (st, body["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_description")),
        "{}",
        &body.to_string()[..200.min(body.to_string().len())]
    );
}

#[tokio::test]
async fn a_reply_past_the_message_limit_is_cut_there() {
    let (s, fake) = setup().await;
    let a = s.session(None, "").await;
    let piece = "가".repeat(10_000);
    fake.push(Reply::text(std::iter::repeat_n(piece, 150)));
    let events = s.say(a, "write forever").await;
    let done = &events.last().unwrap().data["message"];
    assert_eq!(done["status"], "stopped", "{}", done["error"]);
    assert!(done["error"].as_str().unwrap().contains("limit"), "the note says why it ends there: {}", done["error"]);
    let stored = s.history(a).await[1]["content"].as_str().unwrap().chars().count();
    assert_eq!(
        stored,
        maru::store::messages::CONTENT_MAX_CHARS,
        "a reply is stored up to the limit, never 1.5 M characters re-sent every turn"
    );
}

#[tokio::test]
async fn unknown_api_paths_answer_json_even_with_the_ui_served() {
    let ui = tempfile::tempdir().unwrap();
    std::fs::write(ui.path().join("index.html"), "<!doctype html><title>Maru</title>").unwrap();
    let s = TestServer::start_with_ui(ui.path()).await;
    let (st, body) = s.get("/api/nope").await;
    assert_eq!(
        (st, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("no_such_route")),
        "a script gets JSON, never the UI's HTML: {body}"
    );
    let (st, body) = s.get("/api/sessions/1/nope").await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_such_route")), "{body}");
    let page = s.http.get(s.url("/some/ui/route")).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("<title>Maru</title>"), "the UI's own routes still get index.html");
}

#[tokio::test]
async fn a_plain_maru_serve_shows_the_ui_built_into_it() {
    // Debug builds read ui/dist at run time (release builds carry it): make test builds it first.
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist/index.html");
    assert!(dist.is_file(), "build the web UI first (npm ci --prefix ui && npm run build --prefix ui): {}", dist.display());
    let s = TestServer::start().await;
    let res = s.http.get(s.url("/")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "maru serve without --ui-dir shows its own UI: nothing needs to sit beside the binary");
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert_eq!(res.headers()["cache-control"], "no-cache", "index.html names the current assets, so it is never cached");
    let page = res.text().await.unwrap();
    assert!(page.contains(r#"<div id="app">"#), "{page}");
    let script =
        regex::Regex::new(r#"src="(/assets/[^"]+\.js)""#).unwrap().captures(&page).expect("index.html loads a script")[1].to_string();
    let res = s.http.get(s.url(&script)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["content-type"].to_str().unwrap().contains("javascript"));
    assert!(res.headers()["cache-control"].to_str().unwrap().contains("immutable"), "hashed assets are cached for good");
    let route = s.http.get(s.url("/some/ui/route")).send().await.unwrap().text().await.unwrap();
    assert_eq!(route, page, "the UI's own routes get index.html, so a reload keeps working");
    let (st, body) = s.get("/api/nope").await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_such_route")), "API paths still answer JSON: {body}");
}

#[tokio::test]
async fn requests_too_large_answer_json() {
    let s = TestServer::start().await;
    let res = s.http.get(s.url(&format!("/api/health?{}", "a".repeat(40_000)))).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::URI_TOO_LONG);
    let body: Value = res.json().await.expect("a JSON body, not an empty one");
    assert_eq!(body["code"], "url_too_long");
    let res = s.http.get(s.url("/api/health")).bearer_auth(&s.token).header("x-big", "a".repeat(100_000)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    let body: Value = res.json().await.expect("a JSON body, not an empty one");
    assert_eq!(body["code"], "headers_too_long");
    let (st, body) = s.post("/api/projects", json!({ "name": "x", "instructions": "a".repeat(20 * 1024 * 1024) })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("body_too_large")), "a body past the limit says so: {body}");
}

#[tokio::test]
async fn deleting_or_moving_out_of_a_project_mid_reply_keeps_every_word() {
    let (s, fake) = setup().await;
    let family = s.project("Family").await;
    let work = s.project("Work").await;
    let a = s.session(Some(family), "A").await;
    fake.push(slow_reply("w", 30, 10));
    let mut turn = s.turn(&format!("/api/sessions/{a}/messages"), Some(json!({ "content": "plan the week" }))).await;
    first_token(&mut turn).await;
    let (st, moved) = s.patch(&format!("/api/sessions/{a}"), json!({ "project_id": work })).await;
    assert_eq!(st, StatusCode::OK, "a chat can be moved while it replies: {moved}");
    let (st, deleted) = s.delete(&format!("/api/projects/{work}")).await;
    assert_eq!((st, &deleted["moved_sessions"]), (StatusCode::OK, &json!(1)), "its project can be deleted: the chat moves to Default");
    let events = turn.collect().await;
    let done = &events.last().unwrap().data["message"];
    assert_eq!(done["status"], "complete", "the reply goes on: it writes to its own chat, which still exists");
    let whole: String = (0..30).map(|i| format!("w{i} ")).collect();
    assert_eq!(s.history(a).await[1]["content"], whole.as_str(), "not a word is lost by the move or the delete");
    let (_, session) = s.get(&format!("/api/sessions/{a}")).await;
    let (_, projects) = s.get("/api/projects").await;
    let default_id = projects.as_array().unwrap().iter().find(|p| p["is_default"] == true).unwrap()["id"].clone();
    assert_eq!(session["project_id"], default_id);
}
