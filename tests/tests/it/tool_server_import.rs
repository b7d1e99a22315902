//! MCP servers as people copy them: a whole command line pasted into Command is split by shell
//! rules, and the `mcp.json` that Claude Desktop, Cursor, LM Studio and VS Code write (the
//! fixtures in tests/mcp/configs are in the shapes their documentation gives) is read server by
//! server, shown before anything is added, and added at once with its secrets kept unseen. Bad
//! input is refused with a code and adds nothing.

use maru_tests::server::TestServer;
use serde_json::{json, Value};

fn config(file: &str) -> String {
    std::fs::read_to_string(format!("{}/mcp/configs/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

async fn preview(s: &TestServer, text: &str) -> (u16, Value) {
    let (status, body) = s.post("/api/tool-servers/import/preview", json!({ "text": text })).await;
    (status.as_u16(), body)
}

fn by_key<'a>(preview: &'a Value, key: &str) -> &'a Value {
    preview["servers"].as_array().unwrap().iter().find(|s| s["key"] == key).unwrap_or_else(|| panic!("{key} is listed: {preview}"))
}

fn value<'a>(server: &'a Value, list: &str, name: &str) -> &'a Value {
    server[list].as_array().unwrap().iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("{name} in {list}: {server}"))
}

async fn server_count(s: &TestServer) -> usize {
    s.get("/api/tool-servers").await.1.as_array().unwrap().len()
}

#[tokio::test]
async fn a_pasted_command_line_is_split_by_shell_rules_and_an_open_quote_is_refused() {
    let s = TestServer::start().await;
    let (status, split) =
        s.post("/api/tool-servers/command-line", json!({ "line": r#"node "/home/me/My Servers/weather/index.js" stdio"# })).await;
    assert_eq!(status, 200, "{split}");
    assert_eq!(
        split,
        json!({ "command": "node", "args": ["/home/me/My Servers/weather/index.js", "stdio"] }),
        "the program runs with its arguments, the quoted path kept whole, instead of failing as a program named by the whole line"
    );
    let (status, refused) = s.post("/api/tool-servers/command-line", json!({ "line": "npx -y \"@scope/server" })).await;
    assert_eq!(
        (status.as_u16(), refused["code"].as_str()),
        (400, Some("invalid_command_line")),
        "an open quote is said, not guessed: {refused}"
    );
}

#[tokio::test]
async fn claude_desktops_config_is_previewed_then_added_with_its_secret_kept_unseen() {
    let s = TestServer::start().await;
    let text = config("claude_desktop_config.json");
    let (status, shown) = preview(&s, &text).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!(server_count(&s).await, 0, "a preview adds nothing");
    let names: Vec<&str> = shown["servers"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["filesystem", "brave-search", "github"], "every server of the file, in its order");
    let fs = by_key(&shown, "filesystem");
    assert_eq!(fs["command"], "npx");
    assert_eq!(
        fs["args"],
        json!(["-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop", "/Users/username/Downloads"])
    );
    let brave = by_key(&shown, "brave-search");
    assert_eq!(value(brave, "env", "BRAVE_API_KEY")["secret"], true, "an API key is recognised as a secret: {brave}");
    let github = by_key(&shown, "github");
    assert_eq!(value(github, "env", "GITHUB_PERSONAL_ACCESS_TOKEN")["placeholder"], true, "<YOUR_TOKEN> is to be filled in: {github}");
    assert!(!shown.to_string().contains("BSAq7vN2kT9x"), "a secret's value never comes back: {shown}");

    let (status, added) = s.post("/api/tool-servers/import", json!({ "text": text, "chosen": ["filesystem", "brave-search"] })).await;
    assert_eq!(status, 200, "{added}");
    assert_eq!(added.as_array().unwrap().len(), 2, "only the chosen ones: {added}");
    assert!(!added.to_string().contains("BSAq7vN2kT9x"), "nor in what adding answers: {added}");
    let (_, list) = s.get("/api/tool-servers").await;
    let brave = list.as_array().unwrap().iter().find(|s| s["name"] == "brave-search").unwrap();
    assert_eq!(brave["env_keys"], json!(["BRAVE_API_KEY"]), "its variable is kept by name: {brave}");
    assert!(!list.to_string().contains("BSAq7vN2kT9x"), "and its value is never listed: {list}");
    let stored = s.app.store.read(maru::store::tool_servers::list).await.unwrap();
    let kept = stored.iter().find(|s| s.name == "brave-search").unwrap();
    assert_eq!(kept.env["BRAVE_API_KEY"], "BSAq7vN2kT9xWm4pLr8sYc3dFh6jKe1gZ0u", "the key is stored, for the server to start with");

    // The same file again: its names are yours now, and the preview says so.
    let (_, again) = preview(&s, &text).await;
    let fs = by_key(&again, "filesystem");
    assert_eq!(
        (fs["clash"].as_bool(), fs["name"].as_str()),
        (Some(true), Some("filesystem-2")),
        "a clash is said, with the name it would get: {fs}"
    );
    assert_eq!(by_key(&again, "github")["clash"], false, "github was not added before: {again}");
}

#[tokio::test]
async fn cursors_lm_studios_and_vs_codes_files_are_read_as_they_write_them() {
    let s = TestServer::start().await;
    let (status, cursor) = preview(&s, &config("cursor_mcp.json")).await;
    assert_eq!(status, 200, "{cursor}");
    let remote = by_key(&cursor, "remote-server");
    assert_eq!((remote["transport"].as_str(), remote["url"].as_str()), (Some("http"), Some("http://localhost:3000/mcp")), "{remote}");
    assert_eq!(value(remote, "headers", "API_KEY")["secret"], true, "{remote}");
    assert_eq!(by_key(&cursor, "python-server")["transport"], "stdio", "\"type\": \"stdio\" is a program: {cursor}");

    let (status, lm) = preview(&s, &config("lm_studio_mcp.json")).await;
    assert_eq!(status, 200, "{lm}");
    let hf = by_key(&lm, "hf-mcp-server");
    assert_eq!(hf["url"], "https://huggingface.co/mcp");
    let auth = value(hf, "headers", "Authorization");
    assert_eq!((auth["secret"].as_bool(), auth["placeholder"].as_bool()), (Some(true), Some(true)), "a bearer token left to fill in: {hf}");

    let (status, vscode) = preview(&s, &config("vscode_mcp.json")).await;
    assert_eq!(status, 200, "{vscode}");
    assert_eq!(by_key(&vscode, "github")["transport"], "http", "VS Code's \"servers\" with \"type\": \"http\": {vscode}");
    assert_eq!(by_key(&vscode, "Perplexity")["name"], "Perplexity");

    let everything: Vec<String> = ["server-name", "python-server", "remote-server"].map(String::from).to_vec();
    let (status, added) = s.post("/api/tool-servers/import", json!({ "text": config("cursor_mcp.json"), "chosen": everything })).await;
    assert_eq!((status.as_u16(), added.as_array().map(Vec::len)), (200, Some(3)), "many servers at once: {added}");
    let (status, added) =
        s.post("/api/tool-servers/import", json!({ "text": config("lm_studio_mcp.json"), "chosen": ["hf-mcp-server"] })).await;
    assert_eq!(status, 200, "{added}");
    assert_eq!(added[0]["header_keys"], json!(["Authorization"]), "{added}");
    assert_eq!(server_count(&s).await, 4);
}

#[tokio::test]
async fn bad_input_is_refused_with_a_code_and_adds_nothing() {
    let s = TestServer::start().await;
    let cases: Vec<(String, &str, &str)> = vec![
        ("{ \"mcpServers\": { \"x\": { \"command\": \"npx\", } }".into(), "mcp_config_not_json", "text that is not JSON"),
        ("{\"servers_list\": []}".into(), "mcp_config_no_servers", "JSON without mcpServers"),
        (format!("{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}", "x".repeat(5 * 1024 * 1024)), "mcp_config_too_large", "a 5 MB file"),
        (
            json!({ "mcpServers": (0..10_000).map(|i| (format!("s{i}"), json!({ "command": "npx" }))).collect::<serde_json::Map<_, _>>() })
                .to_string(),
            "mcp_config_too_many",
            "10,000 servers",
        ),
    ];
    for (text, code, what) in &cases {
        let (status, body) = preview(&s, text).await;
        assert_eq!((status, body["code"].as_str()), (400, Some(*code)), "{what} is refused with its code: {body}");
        let (status, body) = s.post("/api/tool-servers/import", json!({ "text": text, "chosen": ["x"] })).await;
        assert_eq!((status.as_u16(), body["code"].as_str()), (400, Some(*code)), "{what} adds nothing: {body}");
    }
    let (_, not_json) = preview(&s, &cases[0].0).await;
    assert!(not_json["params"]["line"].is_string(), "it says where the JSON breaks: {not_json}");

    // A server with neither a command nor an address: shown with why, and choosing it adds nothing.
    let text = json!({ "mcpServers": { "good": { "command": "npx", "args": ["-y", "x"] }, "empty": { "env": { "A": "b" } } } }).to_string();
    let (_, shown) = preview(&s, &text).await;
    assert_eq!(by_key(&shown, "empty")["problem"]["code"], "mcp_server_incomplete", "{shown}");
    assert!(by_key(&shown, "good")["problem"].is_null(), "the others can still be added: {shown}");
    let (status, body) = s.post("/api/tool-servers/import", json!({ "text": text, "chosen": ["good", "empty"] })).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (400, Some("mcp_server_unusable")), "{body}");
    assert_eq!(body["params"]["name"], "empty", "it names the server: {body}");
    let (status, body) = s.post("/api/tool-servers/import", json!({ "text": text, "chosen": ["nope"] })).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (400, Some("mcp_server_not_in_file")), "{body}");
    let (status, body) = s.post("/api/tool-servers/import", json!({ "text": text, "chosen": [] })).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (400, Some("mcp_config_nothing_chosen")), "{body}");
    assert_eq!(server_count(&s).await, 0, "none of it added anything, not even the good server");
}

#[tokio::test]
async fn a_whole_command_line_in_a_files_command_is_split_as_the_form_splits_it() {
    let s = TestServer::start().await;
    let text = json!({ "mcpServers": { "weather": { "command": "node /opt/weather/build/index.js stdio" } } }).to_string();
    let (_, shown) = preview(&s, &text).await;
    let weather = by_key(&shown, "weather");
    assert_eq!(
        (weather["command"].as_str(), &weather["args"]),
        (Some("node"), &json!(["/opt/weather/build/index.js", "stdio"])),
        "{weather}"
    );
    assert_eq!(weather["notes"][0]["code"], "command_split", "and says it did: {weather}");
}
