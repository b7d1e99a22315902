//! The OpenAPI document (`GET /api/openapi.json`) held to the real server. The UI and scripts are
//! written against the document, so these fail when the two part ways: a field added, renamed or
//! dropped in a Rust type without the document following, a status the document does not list,
//! a route served but not documented, or documented but not served.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use maru::app::{Tool, ToolContext};
use maru::llm::{FoundServer, ToolSpec};
use maru_tests::fake_openai::{FakeModel, FakeOpenAi, Reply};
use maru_tests::server::{Event, TestServer, Turn};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// The served document, with every object schema closed (`additionalProperties: false`) so that
/// a field it does not name fails validation instead of passing unnoticed.
struct Spec {
    doc: Value,
    /// Operations seen answering 2xx, as (method, documented path).
    exercised: Mutex<BTreeSet<(String, String)>>,
}

impl Spec {
    async fn fetch(s: &TestServer) -> Spec {
        let (st, mut doc) = s.get("/api/openapi.json").await;
        assert_eq!(st, StatusCode::OK, "the document is served: {doc}");
        close_objects(&mut doc);
        Spec { doc, exercised: Mutex::default() }
    }

    /// Every documented (method, path).
    fn operations(&self) -> BTreeSet<(String, String)> {
        let paths = self.doc["paths"].as_object().expect("the document has paths");
        let ops =
            paths.iter().flat_map(|(path, item)| METHODS.iter().filter(|m| item.get(**m).is_some()).map(|m| (m.to_string(), path.clone())));
        ops.collect()
    }

    /// The documented path that `path` (a concrete URL path, maybe with a query) is an instance of.
    fn template(&self, path: &str) -> String {
        let path = path.split('?').next().unwrap();
        let segments: Vec<&str> = path.split('/').collect();
        let paths = self.doc["paths"].as_object().unwrap();
        let found = paths.keys().find(|t| {
            let ts: Vec<&str> = t.split('/').collect();
            ts.len() == segments.len() && ts.iter().zip(&segments).all(|(t, s)| t == s || (t.starts_with('{') && t.ends_with('}')))
        });
        found.unwrap_or_else(|| panic!("{path} answered but is not documented: scripts only know the documented routes")).clone()
    }

    /// Validates one answer (a JSON body, or one event's data) against the schema the document
    /// gives for its route, status and media type.
    fn check(&self, method: &Method, path: &str, status: StatusCode, media: &str, body: &Value) {
        let template = self.template(path);
        let method = method.as_str().to_lowercase();
        let op = &self.doc["paths"][&template][&method];
        assert!(op.is_object(), "{method} {template} answered but is not documented: scripts only know the documented routes");
        let response = &op["responses"][status.as_str()];
        assert!(
            response.is_object(),
            "{method} {template} answered {status}, a status the document does not list; the UI branches on the documented ones: {body}"
        );
        let schema = &response["content"][media]["schema"];
        assert!(schema.is_object(), "{method} {template} {status} answered as {media}, which the document does not give: {body}");
        self.validate(schema, body, &format!("{method} {template} {status}"));
        if status.is_success() {
            self.exercised.lock().unwrap().insert((method, template));
        }
    }

    /// Validates a value against a named schema: for JSON no route happened to produce here.
    fn check_schema(&self, name: &str, value: &Value) {
        let schema = json!({ "$ref": format!("#/components/schemas/{name}") });
        self.validate(&schema, value, name);
    }

    fn validate(&self, schema: &Value, value: &Value, what: &str) {
        let mut root = schema.clone();
        root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        root["components"] = self.doc["components"].clone();
        let validator =
            jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{what}: the document's schema is not valid JSON Schema: {e}"));
        let errors: Vec<String> =
            validator.iter_errors(value).map(|e| format!("  at {:?}: {}", e.instance_path().as_str(), clip(&e.to_string()))).collect();
        assert!(
            errors.is_empty(),
            "{what}: the JSON differs from the document, and the UI and scripts rely on the documented shape:\n{}\nJSON: {}",
            errors.join("\n"),
            clip(&value.to_string())
        );
    }
}

/// Long JSON (a whole system prompt) cut to what a failure message needs.
fn clip(text: &str) -> String {
    match text.char_indices().nth(600) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Closes every object schema that lists its properties.
fn close_objects(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("type") == Some(&json!("object")) && map.get("properties").is_some_and(Value::is_object) {
                map.entry("additionalProperties").or_insert(json!(false));
            }
            map.values_mut().for_each(close_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// A client whose every answer is checked against the document.
struct Client<'a> {
    s: &'a TestServer,
    spec: &'a Spec,
}

impl Client<'_> {
    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> reqwest::Response {
        let mut req = self.s.http.request(method, self.s.url(path)).bearer_auth(&self.s.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        req.send().await.expect("request reaches the server")
    }

    /// A JSON request; returns the status and the checked body.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let res = self.send(method.clone(), path, body).await;
        self.json(&method, path, res).await
    }

    async fn json(&self, method: &Method, path: &str, res: reqwest::Response) -> (StatusCode, Value) {
        let status = res.status();
        let media = media_type(&res);
        let text = res.text().await.expect("body");
        let body: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path} answered {status} with no JSON ({e}): {text}"));
        self.spec.check(method, path, status, &media, &body);
        (status, body)
    }

    async fn ok(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let (st, v) = self.call(method.clone(), path, body).await;
        assert!(st.is_success(), "{method} {path}: {st} {v}");
        v
    }

    async fn get(&self, path: &str) -> Value {
        self.ok(Method::GET, path, None).await
    }

    /// Deletes `path`, then checks the effect rather than the answer's words: the item `id` is
    /// no longer in what `listing` answers (a list, or an object holding one), or `listing`
    /// itself is gone (404).
    async fn delete(&self, path: &str, listing: &str, id: &Value) {
        self.ok(Method::DELETE, path, None).await;
        let (status, listed) = self.s.get(listing).await;
        if status == StatusCode::NOT_FOUND {
            return;
        }
        assert_eq!(status, StatusCode::OK, "{listing}: {listed}");
        assert_ne!(listed["id"], *id, "DELETE {path} answered 200 but {listing} still answers it: {listed}");
        let items = listed.as_array().or_else(|| listed.as_object().and_then(|o| o.values().find_map(Value::as_array)));
        let items = items.unwrap_or_else(|| panic!("{listing} answers a list to look in: {listed}"));
        assert!(!items.iter().any(|i| i["id"] == *id), "DELETE {path} answered 200 but {id} is still in {listing}: {listed}");
    }

    /// Opens a turn's event stream (a refusal is checked and fails the test).
    async fn open(&self, method: Method, path: &str, body: Option<Value>) -> Turn {
        let res = self.send(method.clone(), path, body).await;
        if media_type(&res) != "text/event-stream" {
            let (st, v) = self.json(&method, path, res).await;
            panic!("{method} {path} did not stream: {st} {v}");
        }
        Turn::from_response(res)
    }

    /// Reads a stream to its end, checking each event's data; the UI dispatches on the event's
    /// name, so it must be the data's `type`.
    async fn events(&self, method: Method, path: &str, turn: Turn) -> Vec<Event> {
        let events = turn.collect().await;
        assert!(!events.is_empty(), "{method} {path} streamed no event");
        for e in &events {
            self.spec.check(&method, path, StatusCode::OK, "text/event-stream", &e.data);
            assert_eq!(e.data["type"], e.name.as_str(), "{method} {path}: an event is named by its type, the UI relies on it: {e:?}");
        }
        events
    }

    async fn turn(&self, method: Method, path: &str, body: Option<Value>) -> Vec<Event> {
        let turn = self.open(method.clone(), path, body).await;
        self.events(method, path, turn).await
    }
}

fn media_type(res: &reqwest::Response) -> String {
    let ct = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
    ct.split(';').next().unwrap().trim().to_string()
}

fn names(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.name.as_str()).collect()
}

/// A tool, so turns carry tool calls and results.
struct Add;

impl Tool for Add {
    fn spec(&self) -> ToolSpec {
        let parameters = json!({ "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } } });
        ToolSpec { name: "add".into(), description: "Adds two numbers".into(), parameters }
    }
    fn call(&self, _: ToolContext, args: Value) -> BoxFuture<'static, Result<maru::tools::ToolReply, maru::tools::ToolReply>> {
        let sum = args["a"].as_f64().zip(args["b"].as_f64()).map(|(a, b)| a + b);
        let reply = sum
            .map(|s| maru::tools::ToolReply::text(s.to_string()))
            .ok_or_else(|| maru::tools::ToolReply::failed(maru::tools::ToolFailure::BadArguments, "a and b must be numbers".into()));
        Box::pin(async move { reply })
    }
}

/// A data folder whose prompt templates are overridden every way the inspector reports: managed
/// and unchanged, managed and edited, managed and older (updated at start), and hand-written.
fn data_with_overrides() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    maru::prompt::Templates::export(data.path()).expect("export the templates");
    let prompts = data.path().join("prompts");
    let edit = |name: &str, f: &dyn Fn(String) -> String| {
        let path = prompts.join(format!("{name}.md"));
        std::fs::write(&path, f(std::fs::read_to_string(&path).unwrap())).unwrap();
    };
    edit("presets/code-reviewer", &|t| t + "\nAlso check the tests.");
    edit("tool_result", &|t| t.replacen("version=1", "version=0", 1));
    edit("base", &|_| "You are a terse assistant.\n".into());
    data
}

#[tokio::test]
async fn every_answer_matches_the_document() {
    let fake = FakeOpenAi::start().await;
    fake.set_models(vec![FakeModel::vllm("fake-model", 8192), FakeModel::llama_cpp("small")]);
    let s = TestServer::start_in(data_with_overrides()).await;
    s.app.tools.register(Arc::new(Add));
    let spec = Spec::fetch(&s).await;
    let c = Client { s: &s, spec: &spec };
    use Method as M;

    c.get("/api/health").await;
    c.get("/api/openapi.json").await;

    // Settings first: the model server, and custom instructions long enough to be cut.
    let long: String = (0..40).map(|i| format!("Rule {i}: {}\n\n", "be precise ".repeat(30))).collect();
    let patch = json!({ "endpoint_url": fake.base_url(), "model": "fake-model", "custom_instructions": long,
                        "temperature": 0.5, "api_key": "sk-test", "language": "ko" });
    c.ok(M::PATCH, "/api/settings", Some(patch)).await;
    c.get("/api/settings").await;
    c.get("/api/embeddings").await;

    // What changes, as another window hears it: one event of each kind below, held to the document.
    let mut changes = c.open(M::GET, "/api/events", None).await;

    // Projects and sessions.
    let work = c.ok(M::POST, "/api/projects", Some(json!({ "name": "Work", "instructions": "Ship it." }))).await["id"].clone();
    c.ok(M::PATCH, &format!("/api/projects/{work}"), Some(json!({ "instructions": "Ship it today." }))).await;
    c.get("/api/projects").await;
    // A project without a folder: its sync's state says there is nothing to sync.
    c.get(&format!("/api/projects/{work}/folder")).await;
    // Its instructions files: none without a folder; with one, a file sent and one left out.
    c.get(&format!("/api/projects/{work}/instructions")).await;
    let rules = tempfile::tempdir().unwrap();
    std::fs::write(rules.path().join("AGENTS.md"), "Answer briefly.\n").unwrap();
    std::fs::write(rules.path().join("CLAUDE.md"), "@missing.md\n").unwrap();
    let ruled = c.ok(M::POST, "/api/projects", Some(json!({ "name": "Ruled", "instructions": "" }))).await["id"].clone();
    c.ok(M::PATCH, &format!("/api/projects/{ruled}"), Some(json!({ "folder": rules.path().to_str().unwrap() }))).await;
    let found = c.get(&format!("/api/projects/{ruled}/instructions")).await;
    assert!(
        !found["sent"].as_array().unwrap().is_empty() && !found["skipped"].as_array().unwrap().is_empty(),
        "both lists hold an entry, so both are held to the document: {found}"
    );
    let sess = c.ok(M::POST, "/api/sessions", Some(json!({ "project_id": work, "title": "plan" }))).await["id"].clone();
    c.ok(M::POST, "/api/sessions", Some(json!({ "project_id": work }))).await;
    let page = c.get(&format!("/api/sessions?project_id={work}&limit=1")).await;
    let cursor = page["next_cursor"].as_str().expect("a second page");
    c.get(&format!("/api/sessions?project_id={work}&limit=1&cursor={cursor}")).await;
    c.get(&format!("/api/sessions/{sess}")).await;
    c.ok(M::PATCH, &format!("/api/sessions/{sess}"), Some(json!({ "title": "Plan", "preset": "code-reviewer" }))).await;

    let mut kinds = BTreeSet::new();
    while kinds.len() < 2 {
        let e = changes.next().await.expect("the change feed stays open");
        spec.check(&M::GET, "/api/events", StatusCode::OK, "text/event-stream", &e.data);
        assert_eq!(e.data["type"], e.name.as_str(), "a change is named by its type: {e:?}");
        kinds.insert(e.name);
    }
    drop(changes);

    // Memories and presets.
    let memory = c.ok(M::POST, "/api/memories", Some(json!({ "content": "Runs vLLM.", "source_session_id": sess }))).await["id"].clone();
    c.ok(M::PATCH, &format!("/api/memories/{memory}"), Some(json!({ "pinned": true }))).await;
    c.get("/api/memories").await;
    let preset =
        c.ok(M::POST, "/api/presets", Some(json!({ "name": "Pirate", "description": "Arr", "prompt": "Talk like a pirate." }))).await;
    let preset = preset["id"].clone();
    c.ok(M::PATCH, &format!("/api/presets/{preset}"), Some(json!({ "description": "Arr!" }))).await;
    c.get("/api/presets").await;

    // Skills.
    let text = "---\nname: trip-plan\ndescription: Plan a trip day by day.\n---\nOne activity each morning.\n";
    let skill =
        c.ok(M::POST, "/api/skills", Some(json!({ "text": text, "files": [{ "path": "notes.md", "content": "Bring water." }] }))).await;
    c.ok(M::PATCH, &format!("/api/skills/{}", skill["id"]), Some(json!({ "enabled": false, "off_in": [1] }))).await;
    c.get("/api/skills").await;
    c.delete(&format!("/api/skills/{}", skill["id"]), "/api/skills", &skill["id"]).await;

    // Tool servers: one that cannot start (its command does not exist), a small real one whose
    // calls are approved and denied, and calls that no longer wait. The third-party servers are
    // in tool_servers.rs.
    let server = json!({ "name": "missing", "transport": "stdio", "command": "no-such-command-maru-test", "env": { "TOKEN": "x" } });
    let missing = c.ok(M::POST, "/api/tool-servers", Some(server)).await["id"].clone();
    let (status, failed) = c.call(M::GET, &format!("/api/tool-servers/{missing}/tools"), None).await;
    assert_eq!((status.as_u16(), failed["code"].as_str()), (409, Some("tool_server_failed")), "{failed}");
    let listed = c.get("/api/tool-servers").await;
    let why = &listed.as_array().unwrap().iter().find(|t| t["id"] == missing).unwrap()["why"];
    assert_eq!(
        (why["code"].as_str(), why["params"]["command"].as_str()),
        (Some("tool_server_cannot_run"), Some("no-such-command-maru-test")),
        "the list says why by a code, for the user's language, naming the program: {listed}"
    );
    c.ok(M::PATCH, &format!("/api/tool-servers/{missing}"), Some(json!({ "enabled": false, "off_in": [1] }))).await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/mini_server.py");
    let mini = json!({ "name": "mini", "transport": "stdio", "command": "python3", "args": [script] });
    let mini = c.ok(M::POST, "/api/tool-servers", Some(mini)).await["id"].clone();
    c.get(&format!("/api/tool-servers/{mini}/tools")).await;
    c.get("/api/tool-servers").await;
    for answer in ["approve", "deny"] {
        fake.push(Reply::tool_call("mini__echo", r#"{"message": "hi"}"#));
        fake.push(Reply::text(["ok"]));
        let mut turn = s.turn(&format!("/api/sessions/{sess}/messages"), Some(json!({ "content": "echo" }))).await;
        let asked = loop {
            let e = turn.next().await.expect("the call waits for approval");
            if e.name == "approval_needed" {
                break e;
            }
        };
        let path = format!("/api/tool-calls/{}/{answer}", asked.data["approval"].as_str().unwrap());
        c.ok(M::POST, &path, (answer == "approve").then(|| json!({}))).await;
        let (status, again) = c.call(M::POST, &path, (answer == "approve").then(|| json!({ "always": true }))).await;
        assert_eq!((status.as_u16(), again["code"].as_str()), (409, Some("not_pending")), "{again}");
        let rest = turn.collect().await;
        assert!(rest.iter().any(|e| e.name == "tool_result"), "{rest:?}");
    }
    c.delete(&format!("/api/tool-servers/{missing}"), "/api/tool-servers", &missing).await;
    c.delete(&format!("/api/tool-servers/{mini}"), "/api/tool-servers", &mini).await;
    // A pasted command line, and servers from an mcp.json (previewed, then added; a refusal too).
    c.ok(M::POST, "/api/tool-servers/command-line", Some(json!({ "line": "node 'My Server/index.js' stdio" }))).await;
    let (status, open) = c.call(M::POST, "/api/tool-servers/command-line", Some(json!({ "line": "node 'index.js" }))).await;
    assert_eq!((status.as_u16(), open["code"].as_str()), (400, Some("invalid_command_line")), "{open}");
    let config = json!({ "mcpServers": {
        "weather": { "command": "node /opt/weather/index.js", "env": { "WEATHER_API_KEY": "k-123" } },
        "remote": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer <TOKEN>" } },
        "empty": {}
    } })
    .to_string();
    c.ok(M::POST, "/api/tool-servers/import/preview", Some(json!({ "text": config }))).await;
    let (status, refused) = c.call(M::POST, "/api/tool-servers/import/preview", Some(json!({ "text": "[1, 2" }))).await;
    assert_eq!((status.as_u16(), refused["code"].as_str()), (400, Some("mcp_config_not_json")), "{refused}");
    let added = c.ok(M::POST, "/api/tool-servers/import", Some(json!({ "text": config, "chosen": ["weather", "remote"] }))).await;
    for server in added.as_array().unwrap() {
        c.delete(&format!("/api/tool-servers/{}", server["id"]), "/api/tool-servers", &server["id"]).await;
    }

    // Turns: reasoning and usage; a tool call and its result; a failure; an edit and resend.
    let messages = format!("/api/sessions/{sess}/messages");
    fake.push(Reply::reasoning(["Think", "ing"], ["Hel", "lo"]).with_usage(120, 3, 96));
    let events = c.turn(M::POST, &messages, Some(json!({ "content": "hi" }))).await;
    assert!(names(&events).contains(&"reasoning") && names(&events).contains(&"usage"), "{events:?}");
    fake.push(Reply::tool_call("add", r#"{"a": 2, "b": 3}"#));
    fake.push(Reply::text(["5"]));
    let events = c.turn(M::POST, &messages, Some(json!({ "content": "2+3?" }))).await;
    assert!(names(&events).contains(&"tool_call") && names(&events).contains(&"tool_result"), "{events:?}");
    fake.push(Reply::server_error("CUDA out of memory"));
    let events = c.turn(M::POST, &format!("/api/sessions/{sess}/regenerate"), None).await;
    assert_eq!(names(&events).last(), Some(&"error"), "{events:?}");
    let page = c.get(&format!("{messages}?limit=500")).await;
    let failed = &page["messages"][0];
    assert_eq!(failed["versions"].as_array().map(Vec::len), Some(2), "the failed regenerate is a second version: {failed}");
    let chosen = c.ok(M::POST, &format!("/api/messages/{}/choose", failed["versions"][0]), None).await;
    assert_eq!(chosen["messages"][0]["content"], "5", "choosing the first version shows its answer again");
    let forked = c.ok(M::POST, &format!("/api/messages/{}/fork", failed["versions"][0]), None).await;
    assert_ne!(forked["id"], json!(sess), "continuing from a message is a new chat: {forked}");
    let temporary = c.ok(M::POST, "/api/sessions", Some(json!({ "temporary": true }))).await;
    let kept = c.ok(M::POST, &format!("/api/sessions/{}/keep", temporary["id"]), None).await;
    assert_eq!(kept["temporary"], false, "{kept}");
    fake.push_title(Reply::text(["Arithmetic"]));
    let titled = c.ok(M::POST, &format!("/api/sessions/{sess}/title"), None).await;
    assert_eq!(titled["title"], "Arithmetic", "{titled}");
    let first_user = page["messages"].as_array().unwrap().iter().rfind(|m| m["role"] == "user").unwrap()["id"].clone();
    fake.push(Reply::text(["Hello again"]).with_usage(100, 2, None));
    c.turn(M::POST, &format!("/api/messages/{first_user}/resend"), Some(json!({ "content": "hello" }))).await;
    fake.push(Reply::tool_call("add", r#"{"a": 1, "b": 1}"#));
    fake.push(Reply::text(["2"]));
    c.turn(M::POST, &messages, Some(json!({ "content": "1+1?" }))).await;

    // A second listener on a running turn, then stopping it.
    fake.push(Reply::text(["one ", "two ", "three"]).piece_delay(100));
    let running = c.open(M::POST, &messages, Some(json!({ "content": "count" }))).await;
    let attached = c.open(M::GET, &format!("/api/sessions/{sess}/events"), None).await;
    c.events(M::GET, &format!("/api/sessions/{sess}/events"), attached).await;
    c.events(M::POST, &messages, running).await;
    fake.push(Reply::text(["partial "]).then_hang());
    let mut hanging = c.open(M::POST, &messages, Some(json!({ "content": "go on" }))).await;
    let first = hanging.next().await.expect("the reply starts");
    spec.check(&M::POST, &messages, StatusCode::OK, "text/event-stream", &first.data);
    let stopped = c.ok(M::POST, &format!("/api/sessions/{sess}/stop"), None).await;
    assert_eq!(stopped["stopped"], true, "{stopped}");
    c.events(M::POST, &messages, hanging).await;

    // What the turns left behind: messages with tool calls, the inspector with cuts and overrides.
    let page = c.get(&format!("{messages}?limit=2")).await;
    c.get(&format!("{messages}?limit=2&before={}", page["next_before"])).await;
    let all = c.get(&format!("{messages}?limit=500")).await;
    let all = all["messages"].as_array().unwrap();
    assert!(all.iter().any(|m| !m["tool_calls"].as_array().unwrap().is_empty()), "a message with tool calls was checked");
    fake.push(Reply::text(["A summary of the turns so far."]));
    let compacted = c.ok(M::POST, &format!("/api/sessions/{sess}/compact"), None).await;
    assert_eq!(compacted["compacted"], true, "compact now summarised the older turns: {compacted}");
    let ctx = c.get(&format!("/api/sessions/{sess}/context")).await;
    assert!(ctx["sections"].as_array().unwrap().iter().any(|s| !s["cuts"].as_array().unwrap().is_empty()), "a cut was checked: {ctx}");
    let kinds: BTreeSet<&str> = ctx["overrides"].as_array().unwrap().iter().map(|o| o["source"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.len(), 4, "every kind of override was checked: {kinds:?}");
    assert!(!ctx["last_reply"].is_null() && !ctx["last_sent"].is_null(), "{ctx}");
    assert!(!ctx["summaries"].as_array().unwrap().is_empty(), "the compacted chat has a summary to undo: {ctx}");
    c.ok(M::DELETE, &format!("/api/sessions/{sess}/summaries"), None).await;
    let ctx = c.get(&format!("/api/sessions/{sess}/context")).await;
    assert_eq!(ctx["summaries"], json!([]), "undoing compaction left no summary behind: {ctx}");

    // Files: one for the chat and one for its project, listed, read back, searched by the model.
    let upload = |field: &'static str, id: Value, name: &'static str, bytes: &'static [u8]| {
        let form = reqwest::multipart::Form::new()
            .text(field, id.to_string())
            .part("file", reqwest::multipart::Part::bytes(bytes).file_name(name));
        s.http.post(s.url("/api/attachments")).bearer_auth(&s.token).multipart(form).send()
    };
    let res = upload("session_id", sess.clone(), "notes.md", b"# Notes\n\nThe launch is on Friday.").await.unwrap();
    let (st, file) = c.json(&M::POST, "/api/attachments", res).await;
    assert_eq!(st, StatusCode::OK, "{file}");
    let res = upload("project_id", work.clone(), "plan.txt", b"Budget review on Monday.").await.unwrap();
    assert_eq!(c.json(&M::POST, "/api/attachments", res).await.0, StatusCode::OK);
    let res = upload("project_id", work.clone(), "empty.txt", b"").await.unwrap();
    assert_eq!(c.json(&M::POST, "/api/attachments", res).await.0, StatusCode::BAD_REQUEST);
    c.get(&format!("/api/attachments?session_id={sess}")).await;
    c.get(&format!("/api/attachments?project_id={work}")).await;
    let file_id = file["id"].clone();
    for _ in 0..200 {
        if c.get(&format!("/api/attachments/{file_id}")).await["status"] != "indexing" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let content = s.http.get(s.url(&format!("/api/attachments/{file_id}/content"))).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(content.status(), StatusCode::OK);
    assert_eq!(&content.bytes().await.unwrap()[..], b"# Notes\n\nThe launch is on Friday.", "a file downloads as attached");
    let res = upload("session_id", sess.clone(), "dot.png", maru_tests::pdf::PNG_1X1).await.unwrap();
    let image = c.json(&M::POST, "/api/attachments", res).await.1["id"].clone();
    let mut thumb = reqwest::StatusCode::NOT_FOUND;
    for _ in 0..200 {
        thumb = s.http.get(s.url(&format!("/api/attachments/{image}/thumbnail"))).bearer_auth(&s.token).send().await.unwrap().status();
        if thumb == StatusCode::OK {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(thumb, StatusCode::OK, "an image gets a thumbnail");
    // Bytes, not JSON: nothing to validate beyond the status and the bytes.
    spec.exercised.lock().unwrap().insert(("get".into(), "/api/attachments/{id}/content".into()));
    spec.exercised.lock().unwrap().insert(("get".into(), "/api/attachments/{id}/thumbnail".into()));
    fake.push(Reply::tool_call("search_attachment", r#"{"query": "launch"}"#));
    fake.push(Reply::text(["Friday."]));
    let events = c.turn(M::POST, &messages, Some(json!({ "content": "when is the launch?" }))).await;
    assert!(names(&events).contains(&"tool_result"), "{events:?}");

    c.get("/api/search?q=launch").await;

    // A fact the model proposes, reviewed and accepted.
    fake.push(Reply::tool_call("remember", r#"{"fact": "Likes short answers."}"#));
    fake.push(Reply::text(["Noted."]));
    c.turn(M::POST, &messages, Some(json!({ "content": "keep it short from now on" }))).await;
    let pending = c.get("/api/memories?status=pending").await;
    let proposal = pending[0]["id"].clone();
    c.ok(M::POST, &format!("/api/memories/{proposal}/accept"), None).await;
    c.get("/api/memories?status=all").await;

    // Another app's call of a shared tool, as Settings lists it.
    c.ok(
        M::PATCH,
        "/api/settings",
        Some(json!({ "sharing": { "memory_read": true, "memory_write": false, "chats": true, "projects": [] } })),
    )
    .await;
    s.app.shared().call("spec-client", "search_chats", json!({ "query": "launch" }).as_object().cloned()).await.unwrap();
    c.get("/api/sharing/calls").await;

    // The model server.
    c.get("/api/models").await;
    let found = c.get("/api/servers").await;
    if found.as_array().unwrap().is_empty() {
        // Nothing listens on the usual ports here: hold a found server's JSON to the document anyway.
        let server = FoundServer {
            base_url: "http://127.0.0.1:8080/v1".into(),
            kind_guess: "llama.cpp",
            models: vec!["m".into()],
            needs_api_key: false,
        };
        spec.check_schema("FoundServer", &serde_json::to_value(server).unwrap());
    }

    // The demo model, with a stand-in for llama.cpp's server.
    let bin = tempfile::tempdir().unwrap();
    let (server, model) = maru_tests::demo::fake_llama_server(bin.path());
    s.app.demo.use_files(server, model);
    c.get("/api/demo").await;
    c.ok(M::POST, "/api/demo", None).await;

    // Errors, each in the documented `{code, message}` shape and status.
    let no_token = s.http.get(s.url("/api/projects")).send().await.unwrap();
    assert_eq!(c.json(&M::GET, "/api/projects", no_token).await.0, StatusCode::UNAUTHORIZED);
    let refusals = [
        (M::POST, "/api/projects".to_string(), Some(json!({ "name": "" })), 400),
        (M::POST, "/api/projects".to_string(), Some(json!({ "name": "work" })), 409),
        (M::GET, "/api/sessions/abc".to_string(), None, 400),
        (M::GET, "/api/sessions/999999".to_string(), None, 404),
        (M::POST, messages.clone(), Some(json!({ "content": " " })), 400),
        (M::GET, format!("/api/sessions/{sess}/events"), None, 409),
        (M::POST, "/api/sessions/999999/regenerate".to_string(), None, 404),
    ];
    for (method, path, body, want) in refusals {
        let (st, v) = c.call(method.clone(), &path, body).await;
        assert_eq!(st.as_u16(), want, "{method} {path}: {v}");
    }
    c.ok(M::PATCH, "/api/settings", Some(json!({ "endpoint_url": "http://127.0.0.1:9/v1" }))).await;
    let (st, v) = c.call(M::GET, "/api/models", None).await;
    assert_eq!(st, StatusCode::BAD_GATEWAY, "a server that is down: {v}");
    // Model servers: one added, turned off (a chat cannot move to it then), and removed.
    let added =
        c.ok(M::POST, "/api/connections", Some(json!({ "name": "Second", "base_url": "http://127.0.0.1:9/v1", "api_key": "k" }))).await;
    let id = &added["id"];
    c.ok(M::PATCH, &format!("/api/connections/{id}"), Some(json!({ "name": "Second GPU", "enabled": false }))).await;
    c.get("/api/connections").await;
    let (st, v) = c.call(M::GET, &format!("/api/models?connection_id={id}"), None).await;
    assert_eq!(st, StatusCode::BAD_GATEWAY, "{v}");
    let (st, v) = c.call(M::PATCH, &format!("/api/sessions/{sess}"), Some(json!({ "connection_id": id }))).await;
    assert_eq!(st, StatusCode::CONFLICT, "a chat cannot move to a server turned off: {v}");
    c.delete(&format!("/api/connections/{id}"), "/api/connections", id).await;

    // Exports, a backup and an import. Files, not JSON, apart from the chat as JSON.
    let export = c.get(&format!("/api/sessions/{sess}/export?format=json")).await;
    c.ok(M::POST, "/api/import", Some(export)).await;
    // Another app's export: checked, then stored in the background, followed by its job.
    let chatgpt = json!([{ "title": "Hi", "create_time": 1.7e9, "update_time": 1.7e9, "id": "c", "current_node": "u", "mapping": {
        "r": { "id": "r", "parent": null, "children": ["u"], "message": null },
        "u": { "id": "u", "parent": "r", "children": [], "message": { "author": { "role": "user" }, "content": { "content_type": "text", "parts": ["hi"] } } }
    } }]);
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(serde_json::to_vec(&chatgpt).unwrap()).file_name("conversations.json"));
    let res = s.http.post(s.url("/api/import")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    let (st, job) = c.json(&M::POST, "/api/import", res).await;
    assert_eq!(st, StatusCode::ACCEPTED, "{job}");
    c.get(&format!("/api/import/jobs/{}", job["id"])).await;
    let zip = s.http.get(s.url(&format!("/api/projects/{work}/export"))).bearer_auth(&s.token).send().await.unwrap().bytes().await.unwrap();
    let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(zip.to_vec()).file_name("work.zip"));
    let res = s.http.post(s.url("/api/import/project")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    let (st, imported) = c.json(&M::POST, "/api/import/project", res).await;
    assert_eq!(st, StatusCode::OK, "{imported}");
    c.get("/api/search/files?q=anything").await;
    // A zip of skills: one imported, and one that is not a zip.
    let skills_zip = {
        use std::io::Write;
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file("zipped/SKILL.md", zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(b"---\nname: zipped\ndescription: From a zip.\n---\nDo it.\n").unwrap();
        w.finish().unwrap().into_inner()
    };
    for (bytes, expected) in [(skills_zip, StatusCode::OK), (b"not a zip".to_vec(), StatusCode::BAD_REQUEST)] {
        let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(bytes).file_name("skills.zip"));
        let res = s.http.post(s.url("/api/skills/import")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
        let (st, v) = c.json(&M::POST, "/api/skills/import", res).await;
        assert_eq!(st, expected, "{v}");
    }
    // A restore: its answer (the restart that follows is `maru serve`'s, in
    // src-tauri/tests/it/serve_restore.rs; in process, the restored folder just waits beside).
    let backup = s.http.get(s.url("/api/backup")).bearer_auth(&s.token).send().await.unwrap().bytes().await.unwrap();
    for bytes in [b"not a zip".to_vec(), backup.to_vec()] {
        let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(bytes).file_name("backup.zip"));
        let res = s.http.post(s.url("/api/restore")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
        c.json(&M::POST, "/api/restore", res).await;
    }
    let name = s.data.path().file_name().unwrap().to_string_lossy().into_owned();
    for e in std::fs::read_dir(s.data.path().parent().unwrap()).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with(&format!(".{name}-restoring-")) {
            std::fs::remove_dir_all(e.path()).unwrap();
        }
    }
    for (path, kind) in [
        (format!("/api/sessions/{sess}/export?format=markdown"), "text/markdown"),
        (format!("/api/projects/{work}/export"), "application/zip"),
        ("/api/backup".to_string(), "application/zip"),
    ] {
        let res = s.http.get(s.url(&path)).bearer_auth(&s.token).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let ct = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        assert!(ct.starts_with(kind), "{path} answers as the document says ({kind}), not {ct}");
        let template = spec.template(&path);
        assert!(spec.doc["paths"][&template]["get"]["responses"]["200"]["content"][kind].is_object(), "{template} documents {kind}");
        spec.exercised.lock().unwrap().insert(("get".into(), template));
    }

    // Edits and deletes last.
    let last = &all[0]["id"];
    let user = all.iter().find(|m| m["role"] == "user").unwrap()["id"].clone();
    c.ok(M::PATCH, &format!("/api/messages/{user}"), Some(json!({ "content": "edited" }))).await;
    c.delete(&format!("/api/messages/{last}"), &format!("/api/sessions/{sess}/messages?limit=500"), last).await;
    c.delete(&format!("/api/memories/{memory}"), "/api/memories", &memory).await;
    c.delete(&format!("/api/presets/{preset}"), "/api/presets", &preset).await;
    c.delete(&format!("/api/attachments/{file_id}"), &format!("/api/attachments/{file_id}"), &file_id).await;
    c.delete(&format!("/api/sessions/{sess}"), &format!("/api/sessions/{sess}"), &sess).await;
    c.delete(&format!("/api/projects/{work}"), "/api/projects", &work).await;

    let exercised = spec.exercised.lock().unwrap().clone();
    let missed: Vec<String> = spec.operations().difference(&exercised).map(|(m, p)| format!("{m} {p}")).collect();
    assert!(missed.is_empty(), "documented but never seen answering here, so their JSON is unchecked; add them: {missed:?}");
}

#[tokio::test]
async fn every_documented_route_is_served_and_no_other_method() {
    let s = TestServer::start().await;
    let spec = Spec::fetch(&s).await;
    let documented = spec.operations();
    let paths: BTreeSet<&String> = documented.iter().map(|(_, p)| p).collect();
    for path in paths {
        // An id that does not exist: the calls change nothing.
        let concrete = path.replace("{id}", "999999");
        for method in METHODS {
            // The change feed never ends: its answer's head is all there is to read.
            if (method, path.as_str()) == ("get", "/api/events") {
                let res = s.http.get(s.url(path)).bearer_auth(&s.token).send().await.unwrap();
                assert_eq!(res.status(), StatusCode::OK, "GET /api/events is documented and served");
                continue;
            }
            let (st, body) = s.call(Method::from_bytes(method.to_uppercase().as_bytes()).unwrap(), &concrete, None).await;
            if documented.contains(&(method.to_string(), path.clone())) {
                assert!(
                    body["code"] != "no_such_route" && st != StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {path} is documented but not served, and scripts call what the document lists: {st} {body}"
                );
            } else {
                assert_eq!(
                    st,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {path} is served but not documented, so no script or UI can know it: {body}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_ui_calls_only_documented_routes_and_knows_each_schema_by_its_name() {
    let s = TestServer::start().await;
    let spec = Spec::fetch(&s).await;
    let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/backend");

    // The UI's client is typed by the paths of its copy of the document (openapi-typescript), so
    // a call to a route the document lacks does not compile; the copy is the served document.
    let copy = std::fs::read_to_string(ui.join("generated/openapi.json")).expect("the UI's copy of the document");
    let copy: serde_json::Value = serde_json::from_str(&copy).expect("the copy is JSON");
    let (_, served) = s.get("/api/openapi.json").await;
    assert!(
        copy == served,
        "ui/src/backend/generated/openapi.json is not the document maru serve answers with: \
         run `MARU_WRITE_TS=1 cargo test -p maru-server typescript` and `npm run generate --prefix ui`"
    );

    // The UI's types are generated from the same document: every schema under its own name.
    let types = std::fs::read_to_string(ui.join("generated/index.ts")).expect("the UI's generated types");
    for name in spec.doc["components"]["schemas"].as_object().unwrap().keys() {
        assert!(
            types.contains(&format!("export type {name} = components['schemas']['{name}'];")),
            "schema {name} has no type of its name in ui/src/backend/generated/index.ts: run `npm run generate --prefix ui`"
        );
    }
}
