//! Several model servers: each chat asks its own (server, model) pair, and so does the work after
//! its turn (title, memory); errors name the server; the default server is always there; the
//! old single-server settings still set it.

use maru_tests::fake_openai::{FakeModel, FakeOpenAi, Reply};
use maru_tests::server::{with_fake_model, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn add_server(s: &TestServer, name: &str, base_url: &str, key: Option<&str>) -> Value {
    let (st, v) = s.post("/api/connections", json!({ "name": name, "base_url": base_url, "api_key": key })).await;
    assert_eq!(st, StatusCode::OK, "adding a server: {v}");
    v
}

/// A loopback address nothing listens on.
async fn dead_url() -> String {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}/v1")
}

#[tokio::test]
async fn a_chat_asks_its_own_server_and_model_and_so_does_the_work_after_its_turn() {
    let (s, home) = with_fake_model().await;
    let gpu = FakeOpenAi::start().await;
    gpu.set_models(vec![FakeModel::vllm("big-model", 32_768)]);
    gpu.require_api_key("sk-gpu-secret-123456789");
    let added = add_server(&s, "Desktop GPU", &gpu.base_url(), Some("sk-gpu-secret-123456789")).await;
    assert_eq!((added["api_key_set"].as_bool(), added["is_default"].as_bool()), (Some(true), Some(false)));
    let gpu_id = added["id"].as_i64().unwrap();
    let (_, listed) = s.get("/api/connections").await;
    assert!(!listed.to_string().contains("sk-gpu"), "a server's key is never sent back: {listed}");
    assert_eq!(listed[0]["is_default"], true, "the default server comes first: {listed}");
    assert_eq!(listed[1]["name"], "Desktop GPU");

    let (st, models) = s.get(&format!("/api/models?connection_id={gpu_id}")).await;
    assert_eq!(st, StatusCode::OK, "{models}");
    assert_eq!(models[0]["id"], "big-model", "each server lists its own models, with its key: {models}");
    assert_eq!(models[0]["context_length"], 32_768);
    let (_, on_default) = s.get("/api/models").await;
    assert_ne!(on_default[0]["id"], "big-model", "without a server named, the default one's: {on_default}");

    let here = s.session(None, "").await;
    let there = s.session(None, "").await;
    let (st, v) = s.patch(&format!("/api/sessions/{there}"), json!({ "connection_id": gpu_id, "model": "big-model" })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!((v["connection_id"].as_i64(), v["model"].as_str()), (Some(gpu_id), Some("big-model")));

    gpu.push_title(Reply::text(["GPU questions"]));
    gpu.push(Reply::text(["From the GPU."]));
    let events = s.say(there, "Which GPU do you run on?").await;
    assert!(events.iter().any(|e| e.name == "done"), "{events:?}");
    let asked = gpu.chat_requests();
    assert_eq!(asked.len(), 1, "the chat's request goes to its server");
    assert_eq!(asked[0].body["model"], "big-model", "with its model");
    assert_eq!(asked[0].header("authorization"), Some("Bearer sk-gpu-secret-123456789"), "and that server's key");
    assert!(home.chat_requests().is_empty(), "the default server is not asked for another server's chat");
    maru_tests::eventually("the title, from the chat's own server", || async {
        s.get(&format!("/api/sessions/{there}")).await.1["title"] == "GPU questions"
    })
    .await;
    maru_tests::eventually("the memory extraction, from the chat's own server", || async { !gpu.extraction_requests().is_empty() }).await;
    maru_tests::eventually("the turn's background work ends", || async { !s.app.runs.extracting(there) }).await;
    assert!(
        home.title_requests().is_empty() && home.extraction_requests().is_empty(),
        "titles and memory use the chat's server, not the default one"
    );
    let (_, context) = s.get(&format!("/api/sessions/{there}/context")).await;
    assert_eq!(
        (context["server"]["name"].as_str(), context["model"].as_str()),
        (Some("Desktop GPU"), Some("big-model")),
        "the inspector says where the next request goes"
    );

    home.push(Reply::text(["From home."]));
    s.say(here, "And you?").await;
    assert_eq!(home.chat_requests()[0].body["model"], "fake-model", "a chat without a server of its own asks the default one");
    assert_eq!(gpu.chat_requests().len(), 1);
    let (_, context) = s.get(&format!("/api/sessions/{here}/context")).await;
    assert_eq!(context["server"]["is_default"], true, "{}", context["server"]);
}

#[tokio::test]
async fn errors_name_the_server_and_one_turned_off_or_removed_loses_no_chat() {
    let (s, home) = with_fake_model().await;
    let laptop = add_server(&s, "Laptop", &dead_url().await, None).await;
    let laptop_id = laptop["id"].as_i64().unwrap();
    let chat = s.session(None, "").await;
    s.patch(&format!("/api/sessions/{chat}"), json!({ "connection_id": laptop_id, "model": "small" })).await;

    let events = s.say(chat, "Are you there?").await;
    let error =
        events.iter().find(|e| e.name == "error").unwrap_or_else(|| panic!("a server down ends the turn with an error: {events:?}"));
    assert!(error.data["message"].as_str().unwrap_or("").contains("Laptop"), "the error names the server: {}", error.data);
    let history = s.history(chat).await;
    assert_eq!(history[0]["content"], "Are you there?", "the question is kept, to send again");
    assert!(history[1]["error"].as_str().unwrap_or("").contains("Laptop"), "and the stored reply says which server failed: {}", history[1]);
    let (st, v) = s.get(&format!("/api/models?connection_id={laptop_id}")).await;
    assert_eq!(st, StatusCode::BAD_GATEWAY, "{v}");
    assert!(v["message"].as_str().unwrap().starts_with("Laptop: "), "listing models names the server too: {v}");

    let (st, v) = s.patch(&format!("/api/connections/{laptop_id}"), json!({ "enabled": false })).await;
    assert_eq!((st, v["enabled"].as_bool()), (StatusCode::OK, Some(false)), "{v}");
    let turn = s.turn(&format!("/api/sessions/{chat}/messages"), Some(json!({ "content": "Now?" }))).await;
    let refusal = turn.refusal.expect("a chat on a server turned off is refused before anything is stored");
    assert_eq!((turn.status, refusal["code"].as_str()), (StatusCode::CONFLICT, Some("connection_off")), "{refusal}");
    assert_eq!(s.history(chat).await.len(), 2, "nothing of the refused message is stored");
    let other = s.session(None, "").await;
    let (st, v) = s.patch(&format!("/api/sessions/{other}"), json!({ "connection_id": laptop_id })).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::CONFLICT, Some("connection_off")), "a chat cannot move to a server turned off");

    let (st, _) = s.delete(&format!("/api/connections/{laptop_id}")).await;
    assert_eq!(st, StatusCode::OK);
    let (_, session) = s.get(&format!("/api/sessions/{chat}")).await;
    assert_eq!(
        (session["connection_id"].clone(), session["model"].clone()),
        (Value::Null, Value::Null),
        "its chat goes back to the default"
    );
    home.push(Reply::text(["Here."]));
    s.say(chat, "And now?").await;
    assert_eq!(s.history(chat).await.len(), 4, "the chat goes on, on the default server, with every earlier message");

    let default_id = s.get("/api/connections").await.1[0]["id"].as_i64().unwrap();
    for (st, v) in [
        s.patch(&format!("/api/connections/{default_id}"), json!({ "enabled": false })).await,
        s.delete(&format!("/api/connections/{default_id}")).await,
    ] {
        assert_eq!((st, v["code"].as_str()), (StatusCode::CONFLICT, Some("default_connection")), "there is always a server: {v}");
    }
    let (st, v) = s.post("/api/connections", json!({ "name": "x", "base_url": "localhost:8080" })).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_endpoint")), "{v}");
    let (st, v) = s.post("/api/connections", json!({ "name": " ", "base_url": "http://h/v1" })).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_name")), "{v}");
}

#[tokio::test]
async fn the_settings_endpoint_url_and_key_follow_the_default_server() {
    let (s, home) = with_fake_model().await;
    let (_, settings) = s.get("/api/settings").await;
    let (_, servers) = s.get("/api/connections").await;
    assert_eq!(servers.as_array().unwrap().len(), 1);
    assert_eq!(settings["endpoint_url"], servers[0]["base_url"], "scripts that set endpoint_url set the default server");
    assert_eq!(
        servers[0]["name"].as_str(),
        Some(format!("127.0.0.1:{}", home.port()).as_str()),
        "a name that only said the old address says the new one"
    );
    assert_eq!(servers[0]["default_model"], "fake-model", "the settings' model is the default server's default model");
    let (st, v) = s.patch("/api/settings", json!({ "api_key": "sk-set-the-old-way-12345" })).await;
    assert_eq!((st, v["api_key_set"].as_bool()), (StatusCode::OK, Some(true)), "{v}");
    assert_eq!(s.get("/api/connections").await.1[0]["api_key_set"], true, "the key is the default server's");
    let (st, v) = s.patch("/api/settings", json!({ "endpoint_url": "not a url" })).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_endpoint")), "{v}");
    assert_eq!(
        s.get("/api/connections").await.1[0]["base_url"].as_str(),
        Some(home.base_url().as_str()),
        "a refused address changes nothing"
    );

    let other = FakeOpenAi::start().await;
    let second = add_server(&s, "Second", &other.base_url(), None).await;
    let (st, v) = s.patch(&format!("/api/connections/{}", second["id"]), json!({ "is_default": true })).await;
    assert_eq!((st, v["is_default"].as_bool()), (StatusCode::OK, Some(true)), "{v}");
    let (_, servers) = s.get("/api/connections").await;
    assert_eq!((servers[0]["name"].as_str(), servers[1]["is_default"].as_bool()), (Some("Second"), Some(false)), "one default: {servers}");
    let (_, settings) = s.get("/api/settings").await;
    assert_eq!(settings["endpoint_url"].as_str(), Some(other.base_url().as_str()), "the settings show the new default server");
    assert_eq!(settings["api_key_set"], false, "and its key, not the old default's");

    assert_eq!(settings["model"], "", "with the new default server's own default model, not a model the old one had");
    s.patch(&format!("/api/connections/{}", second["id"]), json!({ "default_model": "second-model" })).await;

    let chat = s.session(None, "").await;
    other.push(Reply::text(["From the second."]));
    s.say(chat, "hi").await;
    assert_eq!(other.chat_requests().len(), 1, "a chat without its own server follows the default");
    assert_eq!(other.chat_requests()[0].body["model"], "second-model", "asking that server's default model");
    assert!(home.chat_requests().is_empty());

    let first = servers[1]["id"].clone();
    s.patch(&format!("/api/connections/{first}"), json!({ "is_default": true })).await;
    assert_eq!(s.get("/api/settings").await.1["model"], "fake-model", "each server keeps its own default model");
}

#[tokio::test]
async fn a_chat_switched_between_two_servers_goes_on_when_one_goes_down() {
    let (s, home) = with_fake_model().await;
    let gpu = FakeOpenAi::start().await;
    let gpu_id = add_server(&s, "GPU", &gpu.base_url(), None).await["id"].as_i64().unwrap();
    let (on_home, on_gpu) = (s.session(None, "").await, s.session(None, "").await);
    s.patch(&format!("/api/sessions/{on_gpu}"), json!({ "connection_id": gpu_id, "model": "gpu-model" })).await;
    home.push(Reply::text(["Home here."]));
    gpu.push(Reply::text(["GPU here."]));
    s.say(on_home, "Who are you?").await;
    s.say(on_gpu, "Who are you?").await;
    assert_eq!((home.chat_requests().len(), gpu.chat_requests().len()), (1, 1), "a chat on each server, each asked once");

    // The GPU server goes away: its chat says so, naming it; the other chat is not touched.
    gpu.stop().await;
    let events = s.say(on_gpu, "Still there?").await;
    let error = events.iter().find(|e| e.name == "error").unwrap_or_else(|| panic!("{events:?}"));
    assert!(error.data["message"].as_str().unwrap_or("").starts_with("GPU: "), "{}", error.data);
    home.push(Reply::text(["Still here."]));
    let events = s.say(on_home, "And you?").await;
    assert!(events.iter().any(|e| e.name == "done"), "the other server's chat answers meanwhile: {events:?}");

    // The chat moves to the server that answers, and goes on with everything it had.
    let (st, v) = s.patch(&format!("/api/sessions/{on_gpu}"), json!({ "connection_id": null, "model": null })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    home.push(Reply::text(["Home takes over."]));
    s.say(on_gpu, "Can you take over?").await;
    let asked = home.last_chat_body().unwrap();
    let sent: Vec<&str> = asked["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert!(
        sent.iter().any(|c| c.contains("GPU here.")) && sent.iter().any(|c| c.contains("Can you take over?")),
        "the switched chat's history reaches the new server whole: {sent:?}"
    );
    assert_eq!(asked["model"], "fake-model", "with the default server's model");

    // Each reply says which server wrote it (or failed), by the name it had then: renaming a
    // server later does not rewrite its chats' history.
    let (st, v) = s.patch(&format!("/api/connections/{gpu_id}"), json!({ "name": "Old GPU" })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (_, listed) = s.get("/api/connections").await;
    let default_name = listed[0]["name"].clone();
    let servers: Vec<Value> =
        s.history(on_gpu).await.into_iter().filter(|m| m["role"] == "assistant").map(|m| m["server"].clone()).collect();
    assert_eq!(servers, [json!("GPU"), json!("GPU"), default_name], "the replies' servers, in order");
    let (_, context) = s.get(&format!("/api/sessions/{on_gpu}/context")).await;
    assert_eq!(context["last_reply"]["server"], listed[0]["name"], "the inspector names the last reply's server: {context}");
}

#[tokio::test]
async fn an_address_too_long_or_with_a_secret_in_it_is_refused_and_never_shown() {
    let s = TestServer::start().await;
    let long = format!("http://127.0.0.1:8080/{}", "v".repeat(100_000));
    let (st, v) = s.post("/api/connections", json!({ "name": "Pasted", "base_url": long })).await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::BAD_REQUEST, Some("url_too_long")), "a pasted page is not an address");
    assert!(v.to_string().len() < 1_000, "the refusal does not send the 100,000 characters back: {} bytes", v.to_string().len());

    for (path, body) in [
        ("/api/connections", json!({ "name": "Hosted", "base_url": "http://user:hunter2-secret@api.example.com/v1" })),
        ("/api/settings", json!({ "endpoint_url": "https://hunter2-secret@gpu.example.com/v1" })),
    ] {
        let (st, v) = if path == "/api/settings" { s.patch(path, body).await } else { s.post(path, body).await };
        assert_eq!((st, v["code"].as_str()), (StatusCode::BAD_REQUEST, Some("credentials_in_url")), "{path}: {v}");
        assert!(v["message"].as_str().unwrap().contains("API key field"), "the refusal says where the key goes: {v}");
        assert!(!v.to_string().contains("hunter2"), "and does not repeat it: {v}");
    }
    let (_, listed) = s.get("/api/connections").await;
    assert!(!listed.to_string().contains("hunter2"), "nothing of a refused address was kept: {listed}");

    // An address saved before this was refused keeps working, and is never listed with its secret.
    let old = "INSERT INTO connections (name, base_url, created_at, updated_at)
               VALUES ('user:hunter2-secret@old.example.com', 'http://user:hunter2-secret@old.example.com/v1', 0, 0)";
    s.app.store.with(|c| Ok(c.execute_batch(old)?)).unwrap();
    let (_, listed) = s.get("/api/connections").await;
    assert!(!listed.to_string().contains("hunter2"), "an old address's secret is never listed: {listed}");
    let old = listed.as_array().unwrap().iter().find(|c| c["base_url"] == "http://old.example.com/v1");
    assert!(old.is_some_and(|c| c["name"] == "old.example.com"), "it is listed by its host: {listed}");
}
