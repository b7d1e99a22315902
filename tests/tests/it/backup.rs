//! Getting data out of Maru and back in: a backup taken while a reply streams restores into a
//! new folder with every chat, project, memory, file and setting but the API key; chats export
//! as Markdown and JSON, projects as a zip, and a chat exported as JSON imports as it was.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use maru::app::App;
use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model as setup, Event, TestServer, Turn};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn first_token(turn: &mut Turn) -> Event {
    loop {
        let e = turn.next().await.expect("the reply streams");
        if e.name == "token" {
            return e;
        }
    }
}

/// A download's status, headers and bytes.
async fn download(s: &TestServer, path: &str) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let res = s.http.get(s.url(path)).bearer_auth(&s.token).send().await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    (status, headers, res.bytes().await.unwrap().to_vec())
}

fn header(headers: &reqwest::header::HeaderMap, name: &str) -> String {
    headers.get(name).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default()
}

/// Every entry of a zip, by name.
fn unzip(bytes: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    let mut out = std::collections::BTreeMap::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let mut data = vec![];
        entry.read_to_end(&mut data).unwrap();
        out.insert(entry.name().to_string(), data);
    }
    out
}

/// A zip holding `entries` as given (names unchecked, as an attacker would write them).
fn craft_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

async fn upload(s: &TestServer, field: &str, id: i64, name: &str, bytes: &[u8]) -> Value {
    let (status, file) = s.upload(field, id, name, bytes.to_vec()).await;
    assert_eq!(status, StatusCode::OK, "attaching {name}");
    file
}

#[tokio::test]
async fn a_backup_taken_while_a_reply_streams_restores_everything_but_the_api_key() {
    let (s, fake) = setup().await;
    let (st, v) = s
        .patch(
            "/api/settings",
            json!({ "api_key": "sk-secret-key-for-the-backup-test", "custom_instructions": "Answer briefly.", "theme": "dark" }),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = s
        .post(
            "/api/connections",
            json!({ "name": "Hosted", "base_url": "https://api.example.com/v1", "api_key": "sk-secret-of-a-second-server" }),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let work = s.project("Work").await;
    s.patch(&format!("/api/projects/{work}"), json!({ "instructions": "We ship on Fridays." })).await;
    let done = s.session(Some(work), "Finished chat").await;
    fake.push(Reply::text(["The ", "launch ", "is ", "Friday."]));
    s.say(done, "when is the launch?").await;
    let (st, v) = s.post("/api/memories", json!({ "content": "Runs vLLM on a DGX Spark." })).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    upload(&s, "project_id", work, "plan.md", b"# Plan\n\nShip on Friday.").await;
    std::fs::create_dir_all(s.data.path().join("prompts")).unwrap();
    std::fs::write(s.data.path().join("prompts/base.md"), "You are my own assistant.\n").unwrap();

    // A long reply streams while the backup is made.
    let streaming = s.session(None, "Streaming chat").await;
    fake.push(Reply::text((0..300).map(|i| format!("w{i} "))).piece_delay(5));
    let mut turn = s.turn(&format!("/api/sessions/{streaming}/messages"), Some(json!({ "content": "count slowly" }))).await;
    first_token(&mut turn).await;
    let started = Instant::now();
    let (st, headers, zip) = download(&s, "/api/backup").await;
    let took = started.elapsed();
    assert_eq!(st, StatusCode::OK, "{}", String::from_utf8_lossy(&zip));
    assert_eq!(header(&headers, "content-type"), "application/zip");
    assert!(header(&headers, "content-disposition").contains("maru-backup-"), "the download is named as a backup");
    let ended = turn.collect().await;
    assert_eq!(ended.last().unwrap().name, "done", "the backup never disturbs the reply: {ended:?}");
    println!("backup: {} bytes in {took:?} while a reply streamed", zip.len());

    let entries = unzip(&zip);
    assert!(entries.contains_key("maru.db") && entries.contains_key("backup.json"), "{:?}", entries.keys());
    assert!(entries.keys().any(|k| k.starts_with("blobs/")), "attached files are in the backup");
    assert_eq!(entries["prompts/base.md"], b"You are my own assistant.\n", "prompt overrides are in the backup");
    assert!(!entries.keys().any(|k| k.starts_with("logs/") || k.ends_with(".lock")), "logs and the lock stay out: {:?}", entries.keys());
    let db = &entries["maru.db"];
    assert!(!db.windows(b"sk-secret".len()).any(|w| w == b"sk-secret"), "the API key must not be anywhere in the backup's database");
    let live_messages = s.history(streaming).await;

    // Restore into a new folder, then open it as Maru would.
    let work_dir = tempfile::tempdir().unwrap();
    let file = work_dir.path().join("backup.zip");
    std::fs::write(&file, &zip).unwrap();
    let restored_dir = work_dir.path().join("restored");
    let restored = maru::backup::restore(&file, &restored_dir).expect("a backup restores into a new folder");
    assert_eq!((restored.projects, restored.sessions, restored.memories), (2, 2, 1), "{restored}");
    let printed = restored.to_string();
    assert!(printed.contains("2 chats") && printed.contains("API key"), "restore says what it restored: {printed}");

    let conn = rusqlite::Connection::open(restored_dir.join("maru.db")).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok", "the restored database is whole");
    drop(conn);

    let app = App::open(&restored_dir).expect("Maru opens the restored folder");
    let projects = maru::api::list_projects(&app).await.unwrap();
    let restored_work = projects.iter().find(|p| p.name == "Work").expect("the project is back");
    assert_eq!(restored_work.instructions, "We ship on Fridays.");
    let settings = maru::api::get_settings(&app).await.unwrap();
    assert_eq!(settings.custom_instructions, "Answer briefly.", "settings are back");
    assert_eq!(settings.theme, maru::store::settings::Theme::Dark);
    assert!(settings.endpoint_url.starts_with("http://127.0.0.1"), "the server address is kept");
    assert!(!settings.api_key_set, "the API key is left out of backups: it is set again by hand");
    let servers = maru::api::connections::list_connections(&app).await.unwrap();
    let hosted = servers.iter().find(|c| c.name == "Hosted").expect("every server is back");
    assert!(!hosted.api_key_set, "without its key, like the default server's");
    let memories = maru::api::list_memories(&app, Default::default()).await.unwrap();
    assert_eq!(memories.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(), ["Runs vLLM on a DGX Spark."]);

    let page = maru::api::list_messages(&app, done, Default::default()).await.unwrap();
    let texts: Vec<&str> = page.messages.iter().rev().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["when is the launch?", "The launch is Friday."], "a finished chat comes back word for word");
    let page = maru::api::list_messages(&app, streaming, Default::default()).await.unwrap();
    let reply = page.messages.first().expect("the streaming reply was in the snapshot");
    let final_text = live_messages.last().unwrap()["content"].as_str().unwrap();
    assert!(final_text.starts_with(&reply.content), "the snapshot holds a saved state of the reply, never a torn one");
    assert_eq!(page.messages.len(), 2, "the question and the reply as far as it was saved");

    let files = maru::api::attachments::list(
        &app,
        maru::api::attachments::AttachmentScope { session_id: None, project_id: Some(restored_work.id) },
    )
    .await
    .unwrap();
    let (_, bytes) = maru::api::attachments::download(&app, files[0].id).await.unwrap();
    assert_eq!(bytes, b"# Plan\n\nShip on Friday.", "attached files come back byte for byte");
    assert_eq!(std::fs::read_to_string(restored_dir.join("prompts/base.md")).unwrap(), "You are my own assistant.\n");
}

#[tokio::test]
async fn restore_refuses_a_folder_in_use_other_zips_and_paths_outside_the_folder() {
    let s = TestServer::start().await;
    let (_, _, zip) = download(&s, "/api/backup").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.zip");
    std::fs::write(&file, &zip).unwrap();

    let full = dir.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("notes.txt"), "mine").unwrap();
    let e = maru::backup::restore(&file, &full).expect_err("a folder with something in it is never overwritten");
    assert_eq!(e.code(), "data_dir_not_empty", "{e}");
    assert_eq!(std::fs::read_to_string(full.join("notes.txt")).unwrap(), "mine", "what was there is untouched");

    let manifest = &unzip(&zip)["backup.json"];
    let slip = dir.path().join("slip.zip");
    std::fs::write(&slip, craft_zip(&[("backup.json", manifest), ("maru.db", b"x"), ("../escaped.txt", b"gotcha")])).unwrap();
    let target = dir.path().join("target");
    let e = maru::backup::restore(&slip, &target).expect_err("an entry pointing outside the folder is refused");
    assert_eq!(e.code(), "unsafe_backup_entry", "{e}");
    assert!(!dir.path().join("escaped.txt").exists(), "nothing was written outside the folder");
    assert!(!target.exists(), "nothing was written at all");

    let other = dir.path().join("other.zip");
    std::fs::write(&other, craft_zip(&[("readme.txt", b"hello")])).unwrap();
    let e = maru::backup::restore(&other, &target).expect_err("a zip that is not a backup is refused");
    assert_eq!(e.code(), "not_a_backup", "{e}");

    let damaged = dir.path().join("damaged.zip");
    std::fs::write(&damaged, craft_zip(&[("backup.json", manifest), ("maru.db", b"not a database at all, just text")])).unwrap();
    let e = maru::backup::restore(&damaged, &target).expect_err("a database that fails its integrity check is refused");
    assert_eq!(e.code(), "backup_damaged", "{e}");
    assert!(!target.exists(), "a failed restore leaves no half-restored folder behind");
}

#[tokio::test]
async fn the_restore_command_prints_what_it_restored() {
    let s = TestServer::start().await;
    s.session(None, "Kept").await;
    let (_, _, zip) = download(&s, "/api/backup").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backup.zip");
    std::fs::write(&file, &zip).unwrap();
    let bin = env!("CARGO_MANIFEST_DIR").to_string() + "/../target/debug/maru";
    let bin = std::env::var("MARU_BIN").ok().or_else(|| std::path::Path::new(&bin).exists().then_some(bin));
    // Without the binary this test would check nothing: it fails and says what to build.
    let bin = bin
        .or_else(|| {
            let target = std::env::var("CARGO_TARGET_DIR").ok()?;
            let p = format!("{target}/debug/maru");
            std::path::Path::new(&p).exists().then_some(p)
        })
        .expect("the `maru restore` command is tested on the built binary: build it first with `cargo build -p maru --no-default-features --bin maru` (or set MARU_BIN to it)");
    let to = dir.path().join("new");
    let out = std::process::Command::new(&bin).arg("restore").arg(&file).arg("--data-dir").arg(&to).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("1 chats") && stdout.contains(&to.display().to_string()), "{stdout}");
    assert!(!to.join("logs").exists(), "a restore writes no logs into the restored folder");
    let again = std::process::Command::new(&bin).arg("restore").arg(&file).arg("--data-dir").arg(&to).output().unwrap();
    assert!(!again.status.success(), "restoring over a folder is refused");
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"), "{}", String::from_utf8_lossy(&again.stderr));
}

#[tokio::test]
async fn a_chat_exports_as_markdown_and_json_and_imports_again_as_it_was() {
    let (s, fake) = setup().await;
    let work = s.project("Work").await;
    s.patch(&format!("/api/projects/{work}"), json!({ "instructions": "Be exact." })).await;
    let chat = s.session(Some(work), "Launch: Q3/Q4 plans").await;
    fake.push(Reply::text(["It is **Friday**."]));
    s.say(chat, "when is the launch?").await;
    fake.push(Reply::text(["Yes, ", "at noon."]));
    s.say(chat, "at noon?").await;

    let (st, headers, md) = download(&s, &format!("/api/sessions/{chat}/export?format=markdown")).await;
    assert_eq!(st, StatusCode::OK);
    assert!(header(&headers, "content-type").starts_with("text/markdown"), "{headers:?}");
    let disposition = header(&headers, "content-disposition");
    assert!(disposition.starts_with("attachment;") && disposition.contains("Launch Q3 Q4 plans.md"), "a safe file name: {disposition}");
    let md = String::from_utf8(md).unwrap();
    assert!(md.starts_with("# Launch: Q3/Q4 plans\n"), "the title heads the file: {md}");
    assert!(md.contains("Project: Work"), "{md}");
    let order: Vec<usize> =
        ["## You", "when is the launch?", "## Assistant (fake-model)", "It is **Friday**.", "at noon?", "Yes, at noon."]
            .iter()
            .map(|needle| md.find(needle).unwrap_or_else(|| panic!("{needle} is in the Markdown: {md}")))
            .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "messages come in order under their role's heading: {md}");

    let (st, headers, body) = download(&s, &format!("/api/sessions/{chat}/export?format=json")).await;
    assert_eq!(st, StatusCode::OK);
    assert!(header(&headers, "content-disposition").contains(".json"));
    let export: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((export["format"].as_str(), export["version"].as_u64()), (Some("maru-chat"), Some(1)));
    assert_eq!(export["project"], json!({ "name": "Work", "instructions": "Be exact.", "is_default": false }));
    assert_eq!(export["session"]["title"], "Launch: Q3/Q4 plans");
    let roles: Vec<&str> = export["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(export["messages"][1]["model"], "fake-model");
    assert_eq!(export["messages"][1]["status"], "complete");

    // Into the same project when it exists; messages, their order and figures as they were.
    let (st, imported) = s.post("/api/import", export.clone()).await;
    assert_eq!(st, StatusCode::OK, "{imported}");
    assert_eq!(imported["project_id"], work, "an imported chat goes to the project of its name");
    assert_eq!(imported["title"], "Launch: Q3/Q4 plans");
    assert!(imported["imported_at"].is_i64(), "an imported chat is marked as a copy, so it is not taken for the original: {imported}");
    assert!(s.get(&format!("/api/sessions/{chat}")).await.1["imported_at"].is_null(), "the original is not a copy");
    let strip = |ms: Vec<Value>| -> Vec<Value> {
        ms.into_iter()
            .map(|m| json!([m["role"], m["content"], m["status"], m["model"], m["completion_tokens"], m["ttft_ms"], m["created_at"]]))
            .collect()
    };
    let new_id = imported["id"].as_i64().unwrap();
    assert_ne!(new_id, chat, "an import is a new chat, never a change to an old one");
    assert_eq!(strip(s.history(new_id).await), strip(s.history(chat).await), "the imported chat reads as the exported one");

    // Its project gone, a chat goes to Default.
    s.delete(&format!("/api/projects/{work}")).await;
    let (st, imported) = s.post("/api/import", export.clone()).await;
    assert_eq!(st, StatusCode::OK, "{imported}");
    let (_, projects) = s.get("/api/projects").await;
    assert_eq!(imported["project_id"], projects[0]["id"], "no project of that name: the chat goes to Default");
    let (_, _, body) = download(&s, &format!("/api/sessions/{}/export?format=json", imported["id"])).await;
    let again: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(again["messages"].as_array().unwrap().len(), 4, "an imported chat exports again whole");
}

#[tokio::test]
async fn imports_refuse_other_formats_and_versions_with_their_own_code() {
    let s = TestServer::start().await;
    let cases = [
        (json!({ "messages": [] }), "unsupported_import", "JSON that is not a Maru chat"),
        (json!({ "format": "chatgpt", "version": 1 }), "unsupported_import", "another app's export"),
        (json!({ "format": "maru-chat", "version": 99 }), "unsupported_import_version", "a newer format version"),
        (json!({ "format": "maru-chat", "version": 1, "messages": "many" }), "invalid_import", "a damaged export"),
    ];
    for (body, code, what) in cases {
        let (st, v) = s.post("/api/import", body).await;
        assert_eq!((st, v["code"].as_str().unwrap_or_default()), (StatusCode::BAD_REQUEST, code), "{what} is refused: {v}");
    }
    let (_, page) = s.get("/api/sessions").await;
    assert_eq!(page["sessions"].as_array().unwrap().len(), 0, "a refused import adds no chat");
    let (st, v) = s.get("/api/sessions/999999/export?format=markdown").await;
    assert_eq!((st, v["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{v}");
    let (st, v) = s.get("/api/sessions/1/export?format=pdf").await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "an unknown export format is refused: {v}");
}

#[tokio::test]
async fn a_project_exports_as_a_zip_with_its_chats_and_files() {
    let (s, fake) = setup().await;
    let work = s.project("Work").await;
    s.patch(&format!("/api/projects/{work}"), json!({ "instructions": "Be exact." })).await;
    let a = s.session(Some(work), "Plans").await;
    fake.push(Reply::text(["Friday."]));
    s.say(a, "when?").await;
    s.session(Some(work), "Plans").await;
    upload(&s, "project_id", work, "brief.md", b"# Brief").await;
    upload(&s, "session_id", a, "notes.txt", b"chat notes").await;
    let other = s.session(None, "Elsewhere").await;

    let (st, headers, zip) = download(&s, &format!("/api/projects/{work}/export")).await;
    assert_eq!(st, StatusCode::OK, "{}", String::from_utf8_lossy(&zip));
    assert_eq!(header(&headers, "content-type"), "application/zip");
    assert!(header(&headers, "content-disposition").contains("Work.zip"));
    let entries = unzip(&zip);
    let names: Vec<&str> = entries.keys().map(String::as_str).collect();
    let project: Value = serde_json::from_slice(&entries["project.json"]).unwrap();
    assert_eq!((project["name"].as_str(), project["instructions"].as_str()), (Some("Work"), Some("Be exact.")));
    for want in ["chats/Plans.json", "chats/Plans.md", "chats/Plans (2).json", "chats/Plans (2).md", "files/brief.md"] {
        assert!(names.contains(&want), "{want} is in the zip (two chats of one title both kept): {names:?}");
    }
    assert_eq!(entries["files/brief.md"], b"# Brief", "the project's files are in the zip as attached");
    assert!(entries.iter().any(|(k, v)| k.starts_with("files/Plans") && k.ends_with("/notes.txt") && v == b"chat notes"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("Elsewhere")), "chats of other projects stay out (chat {other})");
    let md =
        String::from_utf8(entries.iter().find(|(k, v)| k.ends_with(".md") && k.starts_with("chats/") && v.len() > 60).unwrap().1.clone())
            .unwrap();
    assert!(md.contains("when?") && md.contains("Friday."), "{md}");
    let chat: Value =
        serde_json::from_slice(entries.iter().find(|(k, _)| k.ends_with(".json") && k.starts_with("chats/")).unwrap().1).unwrap();
    assert_eq!(chat["format"], "maru-chat", "each chat's JSON imports like a single chat export");
    let (st, v) = s.get("/api/projects/999999/export").await;
    assert_eq!(st, StatusCode::NOT_FOUND, "{v}");
    tokio::time::sleep(Duration::from_millis(10)).await;
    let leftovers: Vec<_> =
        std::fs::read_dir(s.data.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).collect();
    assert!(leftovers.is_empty(), "exports leave no spooled files in the data folder: {leftovers:?}");
}

#[tokio::test]
async fn spooled_exports_a_crash_left_behind_are_removed_at_start() {
    let data = tempfile::tempdir().unwrap();
    for name in [".backup-41-7.tmp", ".backup-db-41-8.tmp", ".export-41-9.tmp", "mine.tmp"] {
        std::fs::write(data.path().join(name), "x").unwrap();
    }
    let app = App::open(data.path()).unwrap();
    let left: Vec<String> = std::fs::read_dir(data.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert_eq!(left, ["mine.tmp"], "half-written backups go (they can be as large as the data), other files stay");
    drop(app);
}

#[tokio::test]
async fn a_failed_reply_exports_and_imports_with_its_error_code() {
    let (s, fake) = setup().await;
    let chat = s.session(None, "").await;
    fake.push(Reply::server_error("CUDA out of memory"));
    s.say(chat, "hi").await;
    let (_, _, body) = download(&s, &format!("/api/sessions/{chat}/export?format=json")).await;
    let export: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(export["messages"][1]["error_code"], "model_server.server_error", "the export keeps why it failed");
    let (st, imported) = s.post("/api/import", export.clone()).await;
    assert_eq!(st, StatusCode::OK, "{imported}");
    let history = s.history(imported["id"].as_i64().unwrap()).await;
    assert_eq!(history[1]["error_code"], "model_server.server_error", "so the imported chat says it in the UI's language too");
    let server = export["messages"][1]["server"].clone();
    assert!(server.as_str().is_some_and(|n| !n.is_empty()), "the export says which server failed: {export}");
    assert_eq!(history[1]["server"], server, "and so does the imported copy");
}

async fn import_project(s: &TestServer, zip: Vec<u8>) -> (StatusCode, Value) {
    let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(zip).file_name("project.zip"));
    let res = s.http.post(s.url("/api/import/project")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_project_zip_comes_back_as_a_new_project_with_its_chats_and_files() {
    let (s, _fake) = setup().await;
    let p = s.project("Garden").await;
    s.patch(&format!("/api/projects/{p}"), json!({ "instructions": "Latin names, please." })).await;
    let chat = s.session(Some(p), "Roses").await;
    s.say(chat, "When do I prune roses?").await;
    s.upload("session_id", chat, "pruning.md", b"Prune in late winter.".to_vec()).await;
    s.upload("project_id", p, "plants.txt", b"rosa, lavandula".to_vec()).await;
    let (_, _, zip) = download(&s, &format!("/api/projects/{p}/export")).await;

    let (status, imported) = import_project(&s, zip).await;
    assert_eq!(status, StatusCode::OK, "{imported}");
    let project = &imported["project"];
    assert_eq!(project["name"], "Garden (2)", "a taken name gets a number, the original is untouched: {imported}");
    assert_eq!(project["instructions"], "Latin names, please.");
    assert_eq!((imported["chats"].as_u64(), imported["files"].as_u64()), (Some(1), Some(2)), "{imported}");
    assert_eq!(imported["skipped"], json!([]), "nothing was left out: {imported}");
    let id = project["id"].as_i64().unwrap();
    let (_, page) = s.get(&format!("/api/sessions?project_id={id}")).await;
    let sessions = page["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{page}");
    assert!(sessions[0]["imported_at"].is_i64(), "an imported chat is marked as a copy: {}", sessions[0]);
    let copy = sessions[0]["id"].as_i64().unwrap();
    let history = s.history(copy).await;
    assert_eq!(history[0]["content"], "When do I prune roses?", "the chat's messages come back");
    let (_, own) = s.get(&format!("/api/attachments?session_id={copy}")).await;
    assert_eq!(own[0]["name"], "pruning.md", "the chat's own file goes with the chat: {own}");
    let (_, shared) = s.get(&format!("/api/attachments?project_id={id}")).await;
    assert_eq!(shared[0]["name"], "plants.txt", "the project's file with the project: {shared}");
}

#[tokio::test]
async fn a_zip_that_is_not_a_maru_project_is_refused_and_changes_nothing() {
    let (s, _fake) = setup().await;
    let (_, before) = s.get("/api/projects").await;
    let (status, body) = import_project(&s, b"not a zip at all".to_vec()).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_import")), "{body}");
    let mut other = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    other.start_file("notes.txt", zip::write::SimpleFileOptions::default()).unwrap();
    other.write_all(b"hello").unwrap();
    let other = other.finish().unwrap().into_inner();
    let (status, body) = import_project(&s, other).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("unsupported_import")), "{body}");
    let (_, after) = s.get("/api/projects").await;
    assert_eq!(before, after, "a refused import adds no project");
}

/// Sets what the zip says `name` unpacks to, in its local header and in its central directory,
/// as a crafted zip would (the zip writer always tells the truth).
fn declare_size(zip: &mut [u8], name: &str, size: u32) {
    let (mut local, mut central) = (false, false);
    for at in 0..zip.len().saturating_sub(46) {
        let len = |off: usize| usize::from(u16::from_le_bytes([zip[at + off], zip[at + off + 1]]));
        if zip[at..at + 4] == *b"PK\x03\x04" && zip.get(at + 30..at + 30 + len(26)) == Some(name.as_bytes()) {
            zip[at + 22..at + 26].copy_from_slice(&size.to_le_bytes());
            local = true;
        } else if zip[at..at + 4] == *b"PK\x01\x02" && zip.get(at + 46..at + 46 + len(28)) == Some(name.as_bytes()) {
            zip[at + 24..at + 28].copy_from_slice(&size.to_le_bytes());
            central = true;
        }
    }
    assert!(local && central, "{name} is in the zip");
}

/// A real backup's entries, to craft others from.
async fn backup_entries() -> std::collections::BTreeMap<String, Vec<u8>> {
    let s = TestServer::start().await;
    s.session(None, "Kept").await;
    let (_, _, zip) = download(&s, "/api/backup").await;
    unzip(&zip)
}

#[tokio::test]
async fn a_backup_with_two_entries_of_one_name_is_refused() {
    let entries = backup_entries().await;
    let dir = tempfile::tempdir().unwrap();
    // A second maru.db after the real one: the zip writer refuses a name twice, so it is
    // written under another name of the same length and renamed in the bytes.
    let mut zip =
        craft_zip(&[("backup.json", &entries["backup.json"]), ("maru.db", &entries["maru.db"]), ("maru.dX", b"not the database")]);
    let at: Vec<usize> = (0..zip.len() - 7).filter(|&i| &zip[i..i + 7] == b"maru.dX").collect();
    assert_eq!(at.len(), 2, "the name is in the local header and the central directory");
    for i in at {
        zip[i..i + 7].copy_from_slice(b"maru.db");
    }
    let file = dir.path().join("twice.zip");
    std::fs::write(&file, &zip).unwrap();
    let target = dir.path().join("target");
    let e = maru::backup::restore(&file, &target).expect_err("a backup naming maru.db twice is refused, not the later one kept");
    assert_eq!(e.code(), "not_a_backup", "{e}");
    assert!(e.to_string().contains("\"maru.db\" twice"), "it says which entry is doubled: {e}");
    assert!(!target.exists(), "nothing was written");

    // The same place written two ways.
    let zip = craft_zip(&[
        ("backup.json", &entries["backup.json"]),
        ("maru.db", &entries["maru.db"]),
        ("prompts/base.md", b"Mine."),
        ("prompts//base.md", b"Theirs."),
    ]);
    std::fs::write(&file, &zip).unwrap();
    let e = maru::backup::restore(&file, &target).expect_err("two names for one file are refused");
    assert_eq!(e.code(), "not_a_backup", "{e}");
    assert!(!target.exists(), "nothing was written");
}

#[tokio::test]
async fn an_entry_too_large_for_its_place_or_larger_than_it_says_is_refused_before_it_fills_the_disk() {
    let entries = backup_entries().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("crafted.zip");
    let target = dir.path().join("target");
    let base = [("backup.json", &entries["backup.json"][..]), ("maru.db", &entries["maru.db"][..])];

    // A stored file that says it is 4 GB: refused on what it says, before a byte is unpacked.
    let blob = "blobs/ab/ab".to_string() + &"0".repeat(62);
    let mut zip = craft_zip(&[base[0], base[1], (blob.as_str(), b"small really")]);
    declare_size(&mut zip, &blob, 0xFFFF_FFF0);
    std::fs::write(&file, &zip).unwrap();
    let e = maru::backup::restore(&file, &target).expect_err("a 4 GB stored file is past any file Maru keeps");
    assert_eq!(e.code(), "backup_too_large", "{e}");
    assert!(e.to_string().contains(&blob), "it names the entry: {e}");
    assert!(!target.exists(), "refused before anything was unpacked");

    // A prompt template of 2 MB, said truthfully.
    let big = "You are a helpful assistant.\n".repeat(80_000);
    std::fs::write(&file, craft_zip(&[base[0], base[1], ("prompts/base.md", big.as_bytes())])).unwrap();
    let e = maru::backup::restore(&file, &target).expect_err("a 2 MB template is no template");
    assert_eq!(e.code(), "backup_too_large", "{e}");
    assert!(!target.exists(), "refused before anything was unpacked");

    // An entry that says 10 bytes and inflates to 100 KB: unpacking stops at what it said.
    let mut zip = craft_zip(&[base[0], base[1], ("prompts/base.md", "line\n".repeat(20_000).as_bytes())]);
    declare_size(&mut zip, "prompts/base.md", 10);
    std::fs::write(&file, &zip).unwrap();
    let e = maru::backup::restore(&file, &target).expect_err("an entry larger than it says is refused");
    assert_eq!(e.code(), "not_a_backup", "{e}");
    assert!(e.to_string().contains("more than the backup says"), "{e}");
    assert!(!target.exists(), "and what was unpacked of it is gone");
}

async fn post_restore(s: &TestServer, zip: Vec<u8>) -> (StatusCode, Value) {
    let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(zip).file_name("backup.zip"));
    let res = s.http.post(s.url("/api/restore")).bearer_auth(&s.token).multipart(form).send().await.unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn two_restores_at_once_give_one_restore_and_one_clear_refusal() {
    let s = TestServer::start().await;
    s.session(None, "Kept").await;
    let (_, _, zip) = download(&s, "/api/backup").await;
    let (a, b) = tokio::join!(post_restore(&s, zip.clone()), post_restore(&s, zip.clone()));
    let (won, lost) = if a.0 == StatusCode::OK { (a, b) } else { (b, a) };
    assert_eq!(won.0, StatusCode::OK, "one restore goes through: {won:?} {lost:?}");
    assert_eq!((lost.0, lost.1["code"].as_str()), (StatusCode::CONFLICT, Some("restore_running")), "the other is told why: {lost:?}");
    let message = lost.1["message"].as_str().unwrap();
    assert!(!message.contains("restoring-") && !message.contains("not empty"), "and not of a folder it never saw: {message}");
    // Maru restarts on the first: a restore after it is refused the same way.
    let (status, v) = post_restore(&s, zip).await;
    assert_eq!((status, v["code"].as_str()), (StatusCode::CONFLICT, Some("restore_running")), "{v}");

    let name = s.data.path().file_name().unwrap().to_string_lossy().into_owned();
    for e in std::fs::read_dir(s.data.path().parent().unwrap()).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with(&format!(".{name}-restoring-")) {
            std::fs::remove_dir_all(e.path()).unwrap();
        }
    }
}
