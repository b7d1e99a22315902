//! Nothing lost, nothing stuck, nothing unbounded: the races, restarts and bad input an outside
//! probe broke, each tried many times and wider than the probe did.

use std::time::Duration;

use maru_tests::eventually;
use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model as setup, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

#[tokio::test]
async fn a_file_deleted_and_attached_elsewhere_at_once_keeps_its_content() {
    let s = TestServer::start().await;
    let (a, b) = (s.session(None, "A").await, s.session(None, "B").await);
    let mut survivors = vec![];
    for i in 0..300 {
        let bytes = format!("notes of pair {i}\nthe same bytes, attached twice\n").into_bytes();
        let (st, first) = s.upload("session_id", a, "notes.md", bytes.clone()).await;
        assert_eq!(st, StatusCode::OK, "{first}");
        let path = format!("/api/attachments/{}", first["id"]);
        let gone = s.delete(&path);
        let again = s.upload("session_id", b, "notes.md", bytes.clone());
        let ((st_del, _), (st_up, second)) = tokio::join!(gone, again);
        assert_eq!((st_del, st_up), (StatusCode::OK, StatusCode::OK), "{second}");
        survivors.push((second["id"].as_i64().unwrap(), bytes));
    }
    for (id, bytes) in survivors {
        let res = s.http.get(s.url(&format!("/api/attachments/{id}/content"))).bearer_auth(&s.token).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "a file whose upload answered 200 must be there");
        assert_eq!(res.bytes().await.unwrap(), bytes, "and hold what was uploaded, even when its twin was deleted at that moment");
        eventually("the file to be indexed", || async {
            let (_, f) = s.get(&format!("/api/attachments/{id}")).await;
            f["status"] != "indexing"
        })
        .await;
        let (_, f) = s.get(&format!("/api/attachments/{id}")).await;
        assert_eq!(f["status"], "ready", "its text is readable, not 'the stored file cannot be read': {f}");
    }
}

/// Sends a turn by hand and closes the socket `after` it is written (with a reset when `reset`).
async fn send_and_hang_up(s: &TestServer, session: i64, content: &str, after: Duration, reset: bool) {
    let body = json!({ "content": content }).to_string();
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut sock = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let req = format!(
        "POST /api/sessions/{session}/messages HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        s.token,
        body.len()
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    if !after.is_zero() {
        tokio::time::sleep(after).await;
    }
    if reset {
        // A zero linger makes the close a reset, as a killed client's is; it never blocks.
        #[allow(deprecated)]
        let _ = sock.set_linger(Some(Duration::ZERO));
    }
    drop(sock);
}

#[tokio::test]
async fn a_client_that_hangs_up_right_after_sending_leaves_no_chat_stuck() {
    let (s, fake) = setup().await;
    let mut tries = 0;
    for ms in [0, 1, 5, 20] {
        for n in 0..12 {
            let chat = s.session(None, "").await;
            fake.push(Reply::text(["an ", "answer"]).piece_delay(5));
            send_and_hang_up(&s, chat, &format!("question {ms}/{n}"), Duration::from_millis(ms), n % 2 == 1).await;
            tries += 1;
            // Either the turn runs to its end, or nothing was stored; never a reply left streaming.
            eventually("the turn to end", || async {
                let (st, _) = s.get(&format!("/api/sessions/{chat}/events")).await;
                st == StatusCode::CONFLICT
            })
            .await;
            let history = s.history(chat).await;
            assert!(
                history.iter().all(|m| m["status"] != "streaming"),
                "hung up after {ms} ms: no reply may stay 'streaming' with no turn behind it: {history:?}"
            );
            if !history.is_empty() {
                assert_eq!(history.len(), 2, "a question that was stored gets its answer: {history:?}");
                assert_eq!((history[1]["status"].as_str(), history[1]["content"].as_str()), (Some("complete"), Some("an answer")));
            }
            let (st, e) = s
                .patch(&format!("/api/messages/{}", history.first().map_or(0, |m| m["id"].as_i64().unwrap())), json!({ "content": "x" }))
                .await;
            if !history.is_empty() {
                assert_eq!(st, StatusCode::OK, "the chat is not stuck: its question can be edited: {e}");
            }
        }
    }
    assert_eq!(tries, 48);
}

#[tokio::test]
async fn a_clean_restart_adds_nothing_to_a_chat_whose_last_reply_was_deleted() {
    let (s, _fake) = setup().await;
    let chat = s.session(None, "").await;
    s.say(chat, "a question").await;
    let history = s.history(chat).await;
    let (st, _) = s.delete(&format!("/api/messages/{}", history[1]["id"])).await;
    assert_eq!(st, StatusCode::OK);
    s.app.shutdown().await;
    let data = s.stop().await;
    let s = TestServer::start_in(data).await;
    let after = s.history(chat).await;
    assert_eq!(after.len(), 1, "the chat ends with the question, as the user left it, with no invented reply: {after:?}");
}

#[tokio::test]
async fn shutting_down_mid_reply_stops_it_and_keeps_its_text() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    fake.push(Reply::text((0..400).map(|i| format!("w{i} "))).piece_delay(10));
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "go on" }))).await;
    while turn.next().await.is_some_and(|e| e.name != "token") {}
    s.app.shutdown().await;
    let data = s.stop().await;
    let s = TestServer::start_in(data).await;
    let history = s.history(chat).await;
    assert_eq!(history.len(), 2, "one question, one reply: a stopped reply is not followed by an invented one: {history:?}");
    assert_eq!(history[1]["status"], "stopped", "closing stops the reply as the stop button would");
    assert!(history[1]["content"].as_str().unwrap().starts_with("w0 "), "and keeps what was written");
}

#[tokio::test]
async fn editing_a_question_while_its_reply_streams_is_refused() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    fake.push(Reply::text((0..50).map(|i| format!("w{i} "))).piece_delay(10));
    let mut turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "the question as asked" }))).await;
    while turn.next().await.is_some_and(|e| e.name != "token") {}
    let question = s.history(chat).await[0]["id"].as_i64().unwrap();
    let (st, body) = s.patch(&format!("/api/messages/{question}"), json!({ "content": "another question" })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::CONFLICT, Some("turn_running")), "the reply answers the old text: {body}");
    turn.collect().await;
    assert_eq!(s.history(chat).await[0]["content"], "the question as asked", "the refused edit changed nothing");
    let (st, _) = s.patch(&format!("/api/messages/{question}"), json!({ "content": "another question" })).await;
    assert_eq!(st, StatusCode::OK, "once the reply is done the edit is accepted");
}

#[tokio::test]
async fn bad_server_addresses_are_refused_and_nothing_is_stored() {
    let s = TestServer::start().await;
    let (_, before) = s.get("/api/settings").await;
    for bad in [
        "http://[::1:8000/v1",
        "http://127.0.0.1:65536/v1",
        "http://127.0.0.1:8080/v1\u{0}",
        "http://127.0.0.1:8080/\u{202e}1v",
        "http://127.0.0.1:8080/v1\u{200f}",
        "http://",
        "javascript:alert(1)",
    ] {
        let (st, body) = s.patch("/api/settings", json!({ "endpoint_url": bad })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_endpoint")), "{bad:?}: {body}");
        assert!(body["message"].is_string(), "with a message that says why");
    }
    let (_, after) = s.get("/api/settings").await;
    assert_eq!(before["endpoint_url"], after["endpoint_url"], "nothing is stored");
}

#[tokio::test]
async fn names_differing_only_by_invisible_characters_are_taken() {
    let s = TestServer::start().await;
    s.project("Work").await;
    for twin in ["Wo\u{200b}rk", "Work\u{ad}", "\u{200e}Work", "Work\u{2060}", "W\u{feff}ork"] {
        let (st, body) = s.post("/api/projects", json!({ "name": twin })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::CONFLICT, Some("name_taken")), "{twin:?} shows as Work: {body}");
    }
    for blank in ["\u{ad}", "\u{200e}\u{200f}", "\u{3164}"] {
        let (st, body) = s.post("/api/projects", json!({ "name": blank })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_name")), "{blank:?}: {body}");
        let (st, body) = s.post("/api/memories", json!({ "content": blank })).await;
        assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_memory")), "{blank:?}: {body}");
    }
    let (_, projects) = s.get("/api/projects").await;
    assert_eq!(projects.as_array().unwrap().len(), 2, "Default and Work, nothing else stored");
    let (_, memories) = s.get("/api/memories").await;
    assert_eq!(memories.as_array().map_or(0, |m| m.len()), 0, "no empty memory was kept");
}

#[tokio::test]
async fn uploads_that_are_not_what_they_say_get_a_json_error() {
    let s = TestServer::start().await;
    let chat = s.session(None, "").await;
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let (st, body) = s.upload("session_id", chat, "photo.jpg", png).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("type_mismatch")), "a PNG named .jpg: {body}");
    for (content_type, body) in [
        ("text/plain", "just text".to_string()),
        ("multipart/form-data", "--x\r\n\r\n".to_string()),
        ("multipart/form-data; boundary=", "--\r\n".to_string()),
        ("application/json", "{}".to_string()),
    ] {
        let res = s
            .http
            .post(s.url("/api/attachments"))
            .bearer_auth(&s.token)
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        let status = res.status();
        let json: Value = serde_json::from_str(&res.text().await.unwrap()).expect("every error is JSON, never plain text");
        assert!(status.is_client_error(), "{content_type}: {status}");
        assert_eq!(json["code"], "invalid_upload", "{content_type}: {json}");
    }
    let (_, files) = s.get(&format!("/api/attachments?session_id={chat}")).await;
    assert_eq!(files.as_array().unwrap().len(), 0, "nothing stored");
}

#[tokio::test]
async fn a_file_whose_text_inflates_is_cut_at_the_limit_and_says_so() {
    let s = TestServer::start().await;
    let chat = s.session(None, "").await;
    let (st, _) = s.patch("/api/settings", json!({ "attachment_text_max_chars": 100_000 })).await;
    assert_eq!(st, StatusCode::OK);
    // One line of three million characters: once stored as one passage.
    let line = format!("needle-at-start {}", "filler ".repeat(430_000));
    let (st, file) = s.upload("session_id", chat, "huge.txt", line.into_bytes()).await;
    assert_eq!(st, StatusCode::OK, "{file}");
    let id = file["id"].as_i64().unwrap();
    eventually("indexing", || async { s.get(&format!("/api/attachments/{id}")).await.1["status"] != "indexing" }).await;
    let (_, file) = s.get(&format!("/api/attachments/{id}")).await;
    assert_eq!(file["status"], "ready", "{file}");
    assert_eq!(file["note_reason"]["code"], "text_cut", "the file says its text was cut: {file}");
    assert_eq!(file["note_reason"]["params"]["chars"], "100000", "and how much was kept: {file}");
    let db = rusqlite::Connection::open(s.data.path().join("maru.db")).unwrap();
    let (n, longest, total): (i64, i64, i64) = db
        .query_row("SELECT count(*), max(length(text)), sum(length(text)) FROM passages", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    assert!(n > 50 && longest <= 2_000, "one huge line is many small passages ({n}, the longest {longest} characters)");
    assert!(total <= 200_000, "no more than the limit (and the passages' overlap) is stored: {total}");
    let (st, body) = s.patch("/api/settings", json!({ "attachment_text_max_chars": 5 })).await;
    assert_eq!((st, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_text_limit")), "{body}");
}

#[tokio::test]
async fn a_long_query_over_a_long_message_is_bounded() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    fake.push(Reply::text([format!("{} the budget meeting is on Thursday {}", "word ".repeat(40_000), "more ".repeat(40_000))]));
    s.say(chat, "tell me everything").await;
    let repeated = "budget ".repeat(300);
    let (st, hits) = s.get(&format!("/api/search?q={}", repeated.trim().replace(' ', "+"))).await;
    assert_eq!(st, StatusCode::OK, "{hits}");
    let hit = &hits[0];
    assert_eq!(hit["session_id"], chat, "the word repeated 300 times is one word, found");
    let snippet: Vec<char> = hit["snippet"].as_str().unwrap().chars().collect();
    let [a, b] = [hit["highlights"][0][0].as_u64().unwrap() as usize, hit["highlights"][0][1].as_u64().unwrap() as usize];
    assert_eq!(snippet[a..b].iter().collect::<String>(), "budget", "and highlighted where it is");
    let many: String = (0..600).map(|n| format!("w{n}x ")).collect::<String>() + "Thursday";
    let (st, hits) = s.get(&format!("/api/search?q={}", many.trim().replace(' ', "+"))).await;
    assert_eq!(st, StatusCode::OK, "600 distinct words are searched as the first few: {hits}");
}

#[tokio::test]
async fn every_tool_the_prompt_names_is_offered() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    let tool_names: Vec<String> = s
        .app
        .tools
        .specs(&maru::app::Offer { has_files: true, memory_on: true, ..Default::default() })
        .into_iter()
        .map(|t| t.name)
        .collect();
    for n in 0..60 {
        s.post("/api/memories", json!({ "content": format!("Fact number {n} about the user, told at some length to fill section five.") }))
            .await;
    }
    s.upload("session_id", chat, "notes.md", b"# notes\nsome text".to_vec()).await;
    for (mode, budget) in [("off", 500), ("review", 500), ("off", 12_000), ("auto", 12_000)] {
        let (st, body) = s.patch("/api/settings", json!({ "memory_mode": mode, "memory_budget_chars": budget })).await;
        assert_eq!(st, StatusCode::OK, "{body}");
        s.say(chat, "hello").await;
        let req = fake.chat_requests().pop().unwrap().body;
        let system = req["messages"][0]["content"].as_str().unwrap().to_string();
        let offered: Vec<&str> =
            req["tools"].as_array().map_or(vec![], |t| t.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect());
        for name in &tool_names {
            if system.contains(name.as_str()) {
                assert!(
                    offered.contains(&name.as_str()),
                    "memory {mode}: the prompt names {name}, so the request must offer it ({offered:?})"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_deleted_projects_files_stay_with_its_chats_only() {
    let (s, _fake) = setup().await;
    let p = s.project("Trip").await;
    let (in_a, in_b) = (s.session(Some(p), "A").await, s.session(Some(p), "B").await);
    let elsewhere = s.session(None, "elsewhere").await;
    let (st, _) = s.upload("project_id", p, "itinerary.md", b"# Day one\nfly to Jeju".to_vec()).await;
    assert_eq!(st, StatusCode::OK);
    let (st, _) = s.delete(&format!("/api/projects/{p}")).await;
    assert_eq!(st, StatusCode::OK);
    for chat in [in_a, in_b] {
        let (_, files) = s.get(&format!("/api/attachments?session_id={chat}")).await;
        assert_eq!(files[0]["name"], "itinerary.md", "a chat from the project keeps seeing its file: {files}");
        let (_, ctx) = s.get(&format!("/api/sessions/{chat}/context")).await;
        assert!(ctx["system_prompt"].as_str().unwrap().contains("itinerary.md"), "and the model still reads it in section 4");
    }
    let (_, ctx) = s.get(&format!("/api/sessions/{elsewhere}/context")).await;
    assert!(!ctx["system_prompt"].as_str().unwrap().contains("itinerary.md"), "a chat that was never in the project does not see it");
    let (_, default) = s.get("/api/projects").await;
    let default_id = default[0]["id"].as_i64().unwrap();
    let (_, files) = s.get(&format!("/api/attachments?project_id={default_id}")).await;
    assert_eq!(files.as_array().unwrap().len(), 0, "Default did not gain the file");
    // Deleting one chat leaves the other's copy readable.
    s.delete(&format!("/api/sessions/{in_a}")).await;
    let (_, files) = s.get(&format!("/api/attachments?session_id={in_b}")).await;
    let res = s.http.get(s.url(&format!("/api/attachments/{}/content", files[0]["id"]))).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(res.bytes().await.unwrap(), &b"# Day one\nfly to Jeju"[..], "the content is stored once and kept while a chat links it");
}

/// A regenerate, or a new message, right after a turn that answered shows the answer's first
/// words before it stores anything (its request went out ahead: `chat::ahead`). When storing
/// then fails (a trigger refuses the reply's row, as a full disk would), the error follows those
/// words in the stream, says that nothing was stored (the window gives a message back to be sent
/// again), and the chat stays exactly as it was: no extra version, no question without its reply,
/// no word of that answer stored; and the chat goes on once replies can be stored.
#[tokio::test]
async fn a_turn_whose_reply_cannot_be_stored_tells_why_after_its_first_words_and_changes_nothing() {
    for (path, body) in [("regenerate", json!({})), ("messages", json!({ "content": "second question" }))] {
        let (s, fake) = setup().await;
        let a = s.session(None, "A").await;
        // Refuses every reply but the first: created before the first turn, so that nothing is
        // written between that turn and this one (which would keep its request from going out
        // ahead).
        let refuse = "CREATE TRIGGER no_second_reply BEFORE INSERT ON messages WHEN NEW.status = 'streaming'
                      AND (SELECT count(*) FROM messages WHERE role = 'assistant') > 0
                      BEGIN SELECT RAISE(ABORT, 'no room for the reply'); END";
        s.app.store.with(|c| Ok(c.execute_batch(refuse)?)).unwrap();
        fake.push(Reply::text(["first answer"]));
        s.say(a, "first question").await;
        let before = s.history(a).await;

        fake.push(Reply::text(["must ", "not land"]));
        let turn = s.turn(&format!("/api/sessions/{a}/{path}"), Some(body.clone())).await;
        assert_eq!(turn.status, StatusCode::OK, "{path}: the first words are shown before the reply is stored: {:?}", turn.refusal);
        let events = turn.collect().await;
        let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["token", "error"], "{path}: the first words, then why the rest is not coming: {events:?}");
        assert_eq!(events[0].data["text"], "must ", "{path}: {events:?}");
        assert!(
            events[1].data["code"].is_string(),
            "{path}: the error is Maru's {{code, message}}, which the window translates: {events:?}"
        );
        assert_eq!(
            events[1].data["nothing_stored"], true,
            "{path}: the error says nothing was stored, so the window gives a message back to be sent again: {events:?}"
        );
        assert_eq!(s.history(a).await, before, "{path}: the refused turn changed nothing in the chat");
        let landed: i64 = s
            .app
            .store
            .with(|c| {
                let sql =
                    "SELECT count(*) FROM messages WHERE content LIKE '%must%' OR content LIKE '%land%' OR content LIKE 'second question%'";
                Ok(c.query_row(sql, [], |r| r.get(0))?)
            })
            .unwrap();
        assert_eq!(landed, 0, "{path}: neither the refused question nor a word of its answer is stored, in any version");

        s.app.store.with(|c| Ok(c.execute_batch("DROP TRIGGER no_second_reply")?)).unwrap();
        fake.push(Reply::text(["second answer"]));
        let events = s.turn(&format!("/api/sessions/{a}/{path}"), Some(body)).await.collect().await;
        assert_eq!(events.last().unwrap().name, "done", "{path}: the chat goes on once replies can be stored: {events:?}");
        let texts: Vec<Value> = s.history(a).await.iter().map(|m| m["content"].clone()).collect();
        let asked = if path == "messages" { vec!["first question", "first answer", "second question"] } else { vec!["first question"] };
        let mut shown: Vec<Value> = asked.into_iter().map(Value::from).collect();
        shown.push(json!("second answer"));
        assert_eq!(texts, shown, "{path}: the new turn is the one shown");
    }
}

/// A turn sends its request while the transaction storing its reply commits (after a write, so
/// none went out ahead of the turn: see the test above for those). When that commit fails (here
/// a trigger refuses the reply row, as a full disk would), the caller gets the error and the chat
/// stays exactly as it was: no question without its reply, no extra version, and no word of the
/// answer the server had begun lands anywhere.
#[tokio::test]
async fn a_turn_whose_reply_cannot_be_stored_is_refused_whole_though_its_request_went_out() {
    let (s, fake) = setup().await;
    let a = s.session(None, "A").await;
    fake.push(Reply::text(["first answer"]));
    s.say(a, "first question").await;
    let before = s.history(a).await;
    let refuse = "CREATE TRIGGER no_reply BEFORE INSERT ON messages WHEN NEW.status = 'streaming'
                  BEGIN SELECT RAISE(ABORT, 'no room for the reply'); END";
    s.app.store.with(|c| Ok(c.execute_batch(refuse)?)).unwrap();
    // A write since the last answer (the chat's row touched), as a rename or another window's
    // edit would be: no request goes out ahead, and the turn's own goes out while it commits.
    s.app.store.with(|c| Ok(c.execute("UPDATE sessions SET updated_at = updated_at WHERE id = ?1", [a]).map(|_| ())?)).unwrap();

    for (path, body) in [("messages", json!({ "content": "second question" })), ("regenerate", json!({}))] {
        fake.push(Reply::text(["an answer that must not land"]));
        let (st, err) = s.post(&format!("/api/sessions/{a}/{path}"), body).await;
        assert!(!st.is_success(), "{path}: a turn whose reply cannot be stored is refused, not streamed: {st} {err}");
        assert!(err["code"].is_string(), "{path}: the refusal is Maru's {{code, message}} error: {err}");
        assert_eq!(s.history(a).await, before, "{path}: the refused turn changed nothing in the chat");
    }
    let landed: i64 = s
        .app
        .store
        .with(|c| Ok(c.query_row("SELECT count(*) FROM messages WHERE content LIKE '%must not land%'", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(landed, 0, "no word of the refused answers is stored, in any version");

    s.app.store.with(|c| Ok(c.execute_batch("DROP TRIGGER no_reply")?)).unwrap();
    fake.push(Reply::text(["third answer"]));
    let events = s.say(a, "third question").await;
    assert_eq!(events.last().unwrap().name, "done", "the chat goes on once replies can be stored: {events:?}");
    let texts: Vec<Value> = s.history(a).await.iter().map(|m| m["content"].clone()).collect();
    assert_eq!(texts, [json!("first question"), json!("first answer"), json!("third question"), json!("third answer")]);
}
