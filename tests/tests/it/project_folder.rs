//! A project linked to a folder on disk, with a real folder tree: its instructions files join
//! the project's instructions (ordered from the most general, the same text sent once, a level's
//! AGENTS.md and CLAUDE.md both sent when they differ, `@path` imports followed, changes on disk
//! picked up at the next turn without changing an unchanged prompt), and its readable files are mirrored as the project's files, followed
//! as they are edited, added and removed, and found by `search_attachment`.

use std::path::Path;

use maru_tests::eventually;
use maru_tests::fake_openai::Reply;
use maru_tests::server::{with_fake_model, TestServer};
use serde_json::{json, Value};

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn link(s: &TestServer, project: i64, folder: &Path) -> (u16, Value) {
    let (status, body) = s.patch(&format!("/api/projects/{project}"), json!({ "folder": folder.to_str().unwrap() })).await;
    (status.as_u16(), body)
}

fn system_prompt(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn instructions_files_are_found_upwards_ordered_deduplicated_and_followed_between_turns() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(&root.join("AGENTS.md"), b"Shared rule: answer briefly.\n");
    write(&root.join("app/CLAUDE.md"), b"App rule: dates as YYYY-MM-DD.\n");
    write(&root.join("app/AGENTS.md"), b"App agents rule: run the linter.\n");
    let folder = root.join("app/web");
    // The same text as the repository's, nearer: sent once, here.
    write(&folder.join("AGENTS.md"), b"Shared rule: answer briefly.\n");
    // A link out of the repository, and a file that is not text: noted, not sent, not fatal.
    let outside = tree.path().join("outside");
    write(&outside.join("CLAUDE.md"), b"Outside rule: must not be read.\n");
    std::os::unix::fs::symlink(outside.join("CLAUDE.md"), folder.join("CLAUDE.md")).unwrap();
    write(&folder.join(".codex/AGENTS.md"), &[0xff, 0xfe, 0x00, 0x41]);
    write(&root.join("app/.gemini/GEMINI.md"), b"ignored at its level anyway");
    write(&tree.path().join("GEMINI.md"), b"above the repository: never read");

    let (s, fake) = with_fake_model().await;
    let p = s.project("Web app").await;
    s.patch(&format!("/api/projects/{p}"), json!({ "instructions": "Project rule: be kind." })).await;
    let (status, project) = link(&s, p, &folder).await;
    assert_eq!(status, 200, "{project}");
    let sess = s.session(Some(p), "").await;

    s.say(sess, "first").await;
    let prompt = system_prompt(&fake.last_chat_body().unwrap());
    let at = |text: &str| prompt.find(text).unwrap_or_else(|| panic!("{text:?} is sent: {prompt}"));
    assert!(at("Project rule: be kind.") < at("App rule"), "the project's own instructions come first, then its folder's files");
    assert!(at("App rule") < at("Shared rule"), "most general first, the folder's own file last (it weighs most)");
    assert!(at("App agents rule") < at("App rule"), "a level's AGENTS.md and a different CLAUDE.md both reach the model, AGENTS.md first");
    assert_eq!(prompt.matches("Shared rule: answer briefly.").count(), 1, "a byte-identical body is sent once");
    assert!(prompt.contains(&format!("[From {}]", folder.join("AGENTS.md").display())), "kept at the nearer place, named");
    assert!(!prompt.contains("Outside rule"), "a link out of the repository is not followed");
    assert!(!prompt.contains("above the repository"), "the walk up stops at the repository's root");

    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let files = &ctx["instruction_files"];
    let skipped: Vec<(String, String)> = files["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["why"].as_str().unwrap().to_string()))
        .collect();
    let why = |path: &Path| skipped.iter().find(|(p, _)| Path::new(p) == path).map(|(_, w)| w.clone());
    assert_eq!(why(&folder.join("CLAUDE.md")).as_deref(), Some("outside"), "the inspector says why a file is not sent: {files}");
    assert_eq!(why(&root.join("app/.gemini/GEMINI.md")).as_deref(), Some("shadowed"), "GEMINI.md only where a level has neither: {files}");
    assert_eq!(why(&root.join("AGENTS.md")).as_deref(), Some("duplicate"), "{files}");
    assert_eq!(why(&folder.join(".codex/AGENTS.md")).as_deref(), Some("not_text"), "a file that is not text is noted, not fatal: {files}");
    assert_eq!(files["sent"].as_array().unwrap().len(), 3, "{files}");
    // The project's own view shows the same files before any chat is opened: its route answers
    // what the chat's inspector does (the budget aside, which this small folder does not reach).
    let (status, own) = s.get(&format!("/api/projects/{p}/instructions")).await;
    assert_eq!(status, 200, "{own}");
    assert_eq!(&own, files, "the project's view and the chat's inspector name the same files sent and left out, with why");
    let other = s.project("No folder").await;
    let (_, none) = s.get(&format!("/api/projects/{other}/instructions")).await;
    assert_eq!(none, json!({ "folder": null, "sent": [], "skipped": [] }), "a project without a folder has no instructions files");
    let (status, gone) = s.get("/api/projects/999999/instructions").await;
    assert_eq!((status.as_u16(), gone["code"].as_str()), (404, Some("not_found")), "a project that is not there says so: {gone}");

    s.say(sess, "second, nothing changed").await;
    assert_eq!(system_prompt(&fake.last_chat_body().unwrap()), prompt, "an unchanged folder keeps the prompt byte for byte");

    write(&root.join("app/CLAUDE.md"), b"App rule: dates as DD.MM.YYYY, edited.\n");
    std::fs::remove_file(folder.join("AGENTS.md")).unwrap();
    s.say(sess, "third, after editing").await;
    let edited = system_prompt(&fake.last_chat_body().unwrap());
    assert!(edited.contains("dates as DD.MM.YYYY, edited"), "an edited file is read again at the next turn: {edited}");
    assert!(
        edited.contains(&format!("[From {}]", root.join("AGENTS.md").display())),
        "with the nearer copy deleted, the shared one is sent from the root"
    );

    let (status, body) = link(&s, p, Path::new("relative/path")).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("invalid_folder")), "a folder must be an absolute path: {body}");
    let (status, body) = link(&s, p, &folder.join("nope")).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("invalid_folder")), "and exist: {body}");
}

#[tokio::test]
async fn a_claude_md_that_imports_agents_md_gives_the_model_the_rules() {
    // astral-sh/uv's shape: CLAUDE.md is the one line `@AGENTS.md`, the rules are in AGENTS.md.
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("uv");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(&root.join("CLAUDE.md"), b"@AGENTS.md\n");
    let rules = "# Repository rules\n\n- ALWAYS read CONTRIBUTING.md for guidelines.\n- PREFER `cargo nextest run` over `cargo test`.\n- AVOID `panic!`, `unreachable!` and `.unwrap()`.\n";
    write(&root.join("AGENTS.md"), rules.as_bytes());

    let (s, fake) = with_fake_model().await;
    let p = s.project("uv").await;
    let (status, project) = link(&s, p, &root).await;
    assert_eq!(status, 200, "{project}");
    let sess = s.session(Some(p), "").await;
    s.say(sess, "how do I run the tests?").await;

    let prompt = system_prompt(&fake.last_chat_body().unwrap());
    assert!(prompt.contains(rules.trim_end()), "the model receives the repository's rules: {prompt}");
    assert_eq!(prompt.matches("PREFER `cargo nextest run`").count(), 1, "the rules are sent once, not once per file: {prompt}");
    assert!(!prompt.lines().any(|l| l.trim() == "@AGENTS.md"), "the import line itself is not what the model gets: {prompt}");

    let (_, ctx) = s.get(&format!("/api/sessions/{sess}/context")).await;
    let files = &ctx["instruction_files"];
    let sent = files["sent"].as_array().unwrap();
    assert_eq!(sent.len(), 1, "{files}");
    assert_eq!(Path::new(sent[0]["path"].as_str().unwrap()), root.join("AGENTS.md"), "{files}");
    assert_eq!(
        sent[0]["imported_by"].as_str().map(Path::new),
        Some(root.join("CLAUDE.md").as_path()),
        "the inspector says which file brought the rules in: {files}"
    );
    let three = ctx["sections"].as_array().unwrap().iter().find(|s| s["id"] == "project_instructions").unwrap();
    assert_eq!(three["present"], true, "③ carries the files even without project instructions of its own: {three}");
    assert!(three["raw_chars"].as_u64().unwrap() as usize >= rules.len(), "③'s size counts the files: {three}");
}

async fn folder_files(s: &TestServer, project: i64) -> Vec<(String, String)> {
    let (_, files) = s.get(&format!("/api/attachments?project_id={project}")).await;
    let mut out: Vec<(String, String)> = files
        .as_array()
        .unwrap_or(&vec![])
        .iter()
        .filter(|f| f["folder_path"].is_string())
        .map(|f| (f["folder_path"].as_str().unwrap().to_string(), f["sha256"].as_str().unwrap().to_string()))
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_folders_readable_files_are_mirrored_kept_in_sync_and_searched() {
    let tree = tempfile::tempdir().unwrap();
    let folder = tree.path().join("notes");
    write(&folder.join("docs/guide.md"), "# Guide\n\nThe harbour ferry leaves at 07:40 from pier three.\n".as_bytes());
    write(&folder.join("todo.txt"), b"buy stamps\n");
    write(&folder.join(".hidden/secret.md"), b"hidden");
    write(&folder.join(".gitignore"), b"build/\n");
    write(&folder.join("build/out.txt"), b"ignored output");
    write(&folder.join("photo.bin"), &[0u8, 159, 146, 150, 0, 1, 2, 3]);
    let outside = tree.path().join("outside.md");
    write(&outside, b"outside the folder");
    std::os::unix::fs::symlink(&outside, folder.join("link.md")).unwrap();

    let (s, fake) = with_fake_model().await;
    let p = s.project("Notes").await;
    let (status, body) = link(&s, p, &folder).await;
    assert_eq!(status, 200, "{body}");
    eventually("the folder's readable files are mirrored", || async { folder_files(&s, p).await.len() == 2 }).await;
    let names: Vec<String> = folder_files(&s, p).await.into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["docs/guide.md", "todo.txt"], "hidden and .gitignore'd paths, binaries and links out of the folder are left out");

    let sess = s.session(Some(p), "").await;
    eventually("the guide is indexed", || async {
        let (_, files) = s.get(&format!("/api/attachments?project_id={p}")).await;
        files.as_array().unwrap().iter().all(|f| f["status"] == "ready")
    })
    .await;
    fake.push(Reply::tool_call("search_attachment", r#"{"query":"ferry pier"}"#));
    fake.push(Reply::text(["The ferry leaves at 07:40."]));
    let events = s.say(sess, "When does the ferry leave?").await;
    let result = events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("the tool ran: {events:?}"));
    assert!(result.data["content"].as_str().unwrap().contains("07:40"), "search_attachment finds the folder's text: {result:?}");

    let before = folder_files(&s, p).await;
    write(&folder.join("docs/guide.md"), b"# Guide\n\nThe ferry now leaves at 08:15.\n");
    std::fs::remove_file(folder.join("todo.txt")).unwrap();
    write(&folder.join("later.md"), b"A new note.\n");
    eventually("an edit, a removal and an addition on disk are followed", || async {
        let now = folder_files(&s, p).await;
        let names: Vec<&str> = now.iter().map(|(n, _)| n.as_str()).collect();
        names == ["docs/guide.md", "later.md"] && now[0].1 != before[0].1
    })
    .await;

    let (status, body) = s.patch(&format!("/api/projects/{p}"), json!({ "folder": null })).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    eventually("unlinking takes the mirrored files away", || async { folder_files(&s, p).await.is_empty() }).await;
    assert!(folder.join("docs/guide.md").exists(), "the user's own files are never touched");
}

/// A folder chosen carelessly: the system's folders are refused with their own code, and a
/// folder whose look blocks for ever (here a `.gitignore` that is a pipe nobody writes, which
/// the walk opens; `/proc/kmsg` blocks the same way) holds up no other project's folder.
#[tokio::test]
async fn system_folders_are_refused_and_a_stuck_folder_holds_up_no_other() {
    let (s, _fake) = with_fake_model().await;
    let careless = s.project("Careless").await;
    for system in ["/proc", "/", "/sys/kernel", "/dev"] {
        let (status, body) = link(&s, careless, Path::new(system)).await;
        assert_eq!((status, body["code"].as_str()), (400, Some("system_folder")), "{system} is refused as a system folder: {body}");
    }
    let (_, project) = s.get(&format!("/api/projects/{careless}")).await;
    assert_eq!(project["folder"], Value::Null, "a refused link changes nothing");

    let tree = tempfile::tempdir().unwrap();
    let stuck = tree.path().join("stuck");
    write(&stuck.join("a.md"), b"never read while the walk is stuck\n");
    let pipe = std::ffi::CString::new(stuck.join(".gitignore").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(pipe.as_ptr(), 0o600) }, 0, "a pipe for the test");
    let (status, body) = link(&s, careless, &stuck).await;
    assert_eq!(status, 200, "the folder itself can be linked: {body}");

    let notes = tree.path().join("notes");
    write(&notes.join("guide.md"), b"# Guide\n\nThe ferry leaves at 07:40.\n");
    let other = s.project("Notes").await;
    let (status, body) = link(&s, other, &notes).await;
    assert_eq!(status, 200, "{body}");
    eventually("a normal folder is mirrored while another project's folder is stuck", || async {
        folder_files(&s, other).await.len() == 1
    })
    .await;
    write(&notes.join("later.md"), b"A new note.\n");
    eventually("and a change in it is still followed", || async { folder_files(&s, other).await.len() == 2 }).await;
    let (status, _) = s.get(&format!("/api/attachments?project_id={careless}")).await;
    assert_eq!(status.as_u16(), 200, "the stuck project still answers");
}

#[tokio::test]
async fn a_folders_own_skills_are_offered_loaded_and_followed_as_they_change() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(
        &root.join(".claude/skills/release/SKILL.md"),
        b"---\nname: release\ndescription: Cut a release of this repository.\n---\nBump the version, then read checklist.md (RELEASE-PROCEDURE).\n",
    );
    write(&root.join(".claude/skills/release/checklist.md"), b"1. Changelog. 2. Tag.\n");
    write(&root.join(".claude/skills/release/logo.png"), &[0x89, b'P', b'N', b'G', 0x00, 0x00]);
    write(
        &root.join(".agents/skills/review/SKILL.md"),
        b"---\nname: review\ndescription: Review a change the team's way.\n---\nRead the diff twice (REVIEW-PROCEDURE).\n",
    );
    write(&root.join(".agents/skills/broken/SKILL.md"), b"no front matter here\n");

    let (s, fake) = with_fake_model().await;
    let p = s.project("Repo").await;
    let (status, project) = link(&s, p, &root).await;
    assert_eq!(status, 200, "{project}");
    let sess = s.session(Some(p), "").await;
    fake.push(Reply::tool_call("load_skill", r#"{"name": "release"}"#));
    fake.push(Reply::tool_call("read_skill_file", r#"{"name": "release", "path": "checklist.md"}"#));
    fake.push(Reply::text(["Releasing."]));
    s.say(sess, "cut a release").await;

    let requests: Vec<Value> = fake.chat_requests().into_iter().map(|r| r.body).collect();
    let prompt = system_prompt(&requests[0]);
    assert!(prompt.contains("- release: Cut a release of this repository."), "a .claude/skills skill of the folder is offered: {prompt}");
    assert!(prompt.contains("- review: Review a change the team's way."), "and a .agents/skills one: {prompt}");
    assert!(!prompt.contains("broken"), "a SKILL.md that is not a skill is left out");
    let last = requests.last().unwrap()["messages"].to_string();
    assert!(last.contains("RELEASE-PROCEDURE"), "the folder's skill loads from disk: {last}");
    assert!(last.contains("1. Changelog. 2. Tag."), "and its reference file reads: {last}");
    assert!(!last.contains("logo.png"), "a binary file is not offered as a reference file");

    // Edited on disk: the next turn offers the new words; removed: it is gone.
    write(
        &root.join(".agents/skills/review/SKILL.md"),
        b"---\nname: review\ndescription: Review a change, tests first.\n---\nRead the tests first.\n",
    );
    std::fs::remove_dir_all(root.join(".claude/skills/release")).unwrap();
    s.say(sess, "again").await;
    let prompt = system_prompt(&fake.last_chat_body().unwrap());
    assert!(prompt.contains("- review: Review a change, tests first."), "an edited SKILL.md is read again: {prompt}");
    assert!(!prompt.contains("- release:"), "a removed skill is no longer offered: {prompt}");
}

/// A linked folder you can see: the sync says how far it got and when it is done; a file with
/// nothing to read is skipped (with why), not failed; `.maruignore` leaves out what it names.
#[tokio::test]
async fn a_folder_sync_reports_found_read_skipped_and_done_and_honours_maruignore() {
    let tree = tempfile::tempdir().unwrap();
    let folder = tree.path().join("repo");
    write(&folder.join("notes.md"), b"# Notes\n\nThe harbour ferry.\n");
    write(&folder.join("empty.txt"), b"");
    write(&folder.join("logo.bin"), &[0u8, 159, 146, 150, 0, 1, 2, 3]);
    write(&folder.join(".maruignore"), b"drafts/\n*.log\n");
    write(&folder.join("drafts/wip.md"), b"not for Maru");
    write(&folder.join("run.log"), b"a log line");
    let s = TestServer::start().await;
    let p = s.project("Repo").await;
    let (st, before) = s.get(&format!("/api/projects/{p}/folder")).await;
    assert_eq!(st.as_u16(), 200, "{before}");
    assert_eq!((&before["running"], &before["done"]), (&json!(false), &json!(false)), "nothing linked, nothing synced: {before}");

    let (status, body) = link(&s, p, &folder).await;
    assert_eq!(status, 200, "{body}");
    eventually("the sync says it is done", || async { s.get(&format!("/api/projects/{p}/folder")).await.1["done"] == true }).await;
    let (_, sync) = s.get(&format!("/api/projects/{p}/folder")).await;
    assert_eq!(sync["running"], false, "{sync}");
    assert_eq!(
        folder_files(&s, p).await.into_iter().map(|(n, _)| n).collect::<Vec<_>>(),
        ["notes.md"],
        ".maruignore'd paths are left out: {sync}"
    );
    assert_eq!(
        (sync["found"].as_u64(), sync["read"].as_u64()),
        (Some(2), Some(2)),
        "found: the files Maru may read (not the empty or ignored ones), all read: {sync}"
    );
    let skipped: Vec<(&str, &str)> =
        sync["skipped"].as_array().unwrap().iter().map(|f| (f["path"].as_str().unwrap(), f["reason"].as_str().unwrap())).collect();
    assert!(skipped.contains(&("empty.txt", "empty")), "an empty file is skipped, saying why: {sync}");
    assert!(skipped.contains(&("logo.bin", "not_readable_kind")), "a file with no text is skipped, saying why: {sync}");
    assert!(!skipped.iter().any(|(p, _)| p.contains("drafts") || p.ends_with(".log")), "ignored files are not even listed: {sync}");
    assert_eq!(sync["failed"], json!([]), "nothing failed: skipped files are no failure: {sync}");
    assert!(sync["error"].is_null(), "{sync}");
}

/// Patterns in the project's settings leave paths out as `.maruignore` does, without writing
/// into the user's folder: what they name leaves the project's files (and search) once saved,
/// comes back when the pattern goes, and a line that is not a pattern is refused, naming it.
#[tokio::test]
async fn the_projects_own_patterns_leave_paths_out_and_bring_them_back() {
    let tree = tempfile::tempdir().unwrap();
    let folder = tree.path().join("repo");
    write(&folder.join("notes.md"), b"# Notes\n\nThe harbour ferry.\n");
    write(&folder.join("vendor/lib.md"), b"# Vendored\n\nThe lighthouse keeper.\n");
    write(&folder.join("out/build.txt"), b"generated");
    let s = TestServer::start().await;
    let p = s.project("Repo").await;
    let (status, body) = link(&s, p, &folder).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["exclude"], json!([]), "a project leaves nothing out until the user says so: {body}");
    let names = || async { folder_files(&s, p).await.into_iter().map(|(n, _)| n).collect::<Vec<_>>() };
    eventually("every file is mirrored", || async { names().await.len() == 3 }).await;

    let (status, body) = s.patch(&format!("/api/projects/{p}"), json!({ "exclude": ["vendor/", "", "  out/*.txt  "] })).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    assert_eq!(
        body["exclude"],
        json!(["vendor/", "out/*.txt"]),
        "the patterns are kept as the user wrote them, blank lines dropped: {body}"
    );
    eventually("the excluded files leave the project", || async { names().await == ["notes.md"] }).await;
    assert!(folder.join("vendor/lib.md").exists() && !folder.join(".maruignore").exists(), "the user's folder is not touched");
    let saved = || async {
        let (_, all) = s.get("/api/projects").await;
        all.as_array().unwrap().iter().find(|x| x["id"] == p).unwrap()["exclude"].clone()
    };
    assert_eq!(saved().await, json!(["vendor/", "out/*.txt"]), "the patterns are read back with the project");

    let (status, body) = s.patch(&format!("/api/projects/{p}"), json!({ "exclude": ["docs/{a,b"] })).await;
    assert_eq!((status.as_u16(), body["code"].as_str()), (400, Some("invalid_exclude")), "{body}");
    assert_eq!(body["params"]["pattern"], "docs/{a,b", "the refusal names the line to fix: {body}");
    assert_eq!(saved().await, json!(["vendor/", "out/*.txt"]), "a refused change leaves the saved patterns as they were");

    s.patch(&format!("/api/projects/{p}"), json!({ "exclude": [] })).await;
    eventually("the files come back when the patterns go", || async { names().await.len() == 3 }).await;

    let (_, default) = s.get("/api/projects").await;
    let default_id = default.as_array().unwrap().iter().find(|p| p["is_default"] == true).unwrap()["id"].as_i64().unwrap();
    let (status, body) = s.patch(&format!("/api/projects/{default_id}"), json!({ "exclude": ["x"] })).await;
    assert_eq!(status.as_u16(), 409, "the Default project has no folder to leave paths out of: {body}");
}
