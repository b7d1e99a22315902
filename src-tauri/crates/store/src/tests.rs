//! Store guarantees that need a real SQLite file: migrations, transactions, reopening, concurrency.

use std::path::PathBuf;

use super::messages::{self, NewMessage, Role, Status};
use super::projects::{self, NewProject, ProjectPatch};
use super::sessions::{self, NewSession, SessionPatch};
use super::{Store, MIGRATIONS};
use crate::error::Error;

fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("maru.db");
    (dir, path)
}

fn project(store: &Store, name: &str) -> i64 {
    store.with(|c| projects::create(c, &NewProject { name: name.into(), instructions: String::new() })).unwrap().id
}

fn session(store: &Store, project_id: Option<i64>) -> i64 {
    store.with(|c| sessions::create(c, &NewSession { title: "s".into(), project_id, ..Default::default() })).unwrap().id
}

fn message(store: &Store, session_id: i64, text: &str) -> i64 {
    store
        .with(|c| {
            messages::insert(
                c,
                &NewMessage { session_id, role: Role::User, content: text, status: Status::Complete, model: None, ..Default::default() },
            )
        })
        .unwrap()
        .id
}

fn defaults(store: &Store) -> i64 {
    store.with(|c| Ok(c.query_row("SELECT count(*) FROM projects WHERE is_default = 1", [], |r| r.get(0))?)).unwrap()
}

#[test]
fn default_project_exists_once_across_reopens() {
    let (_dir, path) = temp_db();
    for _ in 0..3 {
        let store = Store::open(&path).unwrap();
        assert_eq!(defaults(&store), 1, "every open must see exactly one Default project");
    }
}

#[test]
fn default_project_survives_every_delete_path() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let id = store.with(|c| projects::default_id(c)).unwrap();
    let err = store.with(|c| projects::delete(c, id)).unwrap_err();
    assert_eq!(err.code(), "default_project", "the API refuses with a clear code");
    let raw = store.with(|c| Ok(c.execute("DELETE FROM projects WHERE id = ?1", [id])?));
    assert!(raw.is_err(), "even raw SQL cannot delete Default: the trigger guards it");
    let all = store.with(|c| Ok(c.execute("DELETE FROM projects", [])?));
    assert!(all.is_err(), "deleting every project at once is refused too");
    let err = store
        .with(|c| {
            projects::update(
                c,
                id,
                &ProjectPatch { name: Some("x".into()), instructions: None, folder: None, exclude: None, tool_approval: None },
            )
        })
        .unwrap_err();
    assert_eq!(err.code(), "default_project");
    assert_eq!(defaults(&store), 1);
}

#[test]
fn a_failure_inside_project_deletion_rolls_everything_back() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let p = project(&store, "Doomed");
    let s = session(&store, Some(p));
    message(&store, s, "precious");
    // Make the DELETE (the transaction's second step) fail after the sessions were already moved.
    store
        .with(|c| {
            Ok(c.execute_batch(
                "CREATE TRIGGER fail_delete BEFORE DELETE ON projects WHEN OLD.name = 'Doomed'
                 BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
            )?)
        })
        .unwrap();
    let err = store.with(|c| projects::delete(c, p));
    assert!(err.is_err(), "the injected failure must surface");
    let sess = store.with(|c| sessions::get(c, s)).unwrap();
    assert_eq!(sess.project_id, p, "the session move must be rolled back with the failed delete");
    assert!(store.with(|c| projects::get(c, p)).is_ok(), "the project is still there");
    let page = store.with(|c| messages::list(c, s, None, None)).unwrap();
    assert_eq!(page.messages[0].content, "precious");
}

#[test]
fn data_survives_closing_and_reopening() {
    let (_dir, path) = temp_db();
    let (p, s) = {
        let store = Store::open(&path).unwrap();
        let p = project(&store, "Kept");
        let s = session(&store, None);
        message(&store, s, "one");
        store.with(|c| sessions::update(c, s, &SessionPatch { project_id: Some(p), ..Default::default() })).unwrap();
        (p, s)
    };
    let store = Store::open(&path).unwrap();
    assert_eq!(store.with(|c| sessions::get(c, s)).unwrap().project_id, p, "the move persisted");
    assert_eq!(store.with(|c| messages::history(c, s)).unwrap()[0].content, "one", "the message persisted");
}

#[test]
fn upgrading_from_the_first_migration_keeps_data() {
    let (_dir, path) = temp_db();
    {
        let old = Store::open_at_version(&path, 1).unwrap();
        // Write through raw SQL: the current code's queries may need newer columns.
        old.with(|c| {
            c.execute("INSERT INTO projects (name, name_key, instructions, created_at, updated_at) VALUES ('Old project', 'old project', '', 1, 1)", [])?;
            let p = c.last_insert_rowid();
            c.execute("INSERT INTO sessions (project_id, title, created_at, updated_at) VALUES (?1, 'old', 1, 1)", [p])?;
            let sid = c.last_insert_rowid();
            for (role, content) in [("user", "from v1"), ("assistant", "answer from v1"), ("user", "again from v1")] {
                c.execute(
                    "INSERT INTO messages (session_id, role, content, created_at, updated_at) VALUES (?1, ?2, ?3, 1, 1)",
                    rusqlite::params![sid, role, content],
                )?;
            }
            c.execute("INSERT INTO memories (content, created_at, updated_at) VALUES ('likes tea', 1, 1)", [])?;
            Ok(())
        })
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let versions: i64 = store.with(|c| Ok(c.query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0))?)).unwrap();
    assert_eq!(versions as usize, MIGRATIONS.len(), "every migration is recorded after the upgrade");
    let projects = store.with(|c| projects::list(c)).unwrap();
    let old = projects.iter().find(|p| p.name == "Old project").expect("the project survives the upgrade");
    let page = store.with(|c| sessions::list(c, old.id, None, None)).unwrap();
    // As the chat shows them (with their versions), oldest first.
    let mut history = store.with(|c| messages::list(c, page.sessions[0].id, None, None)).unwrap().messages;
    history.reverse();
    assert_eq!(history[0].content, "from v1", "messages survive the upgrade and read with the new code");
    let parents: Vec<Option<i64>> = history.iter().map(|m| m.parent_id).collect();
    assert_eq!(parents, [None, Some(history[0].id), Some(history[1].id)], "an old chat becomes one branch, each message after the last");
    assert!(history.iter().all(|m| m.versions.is_empty()), "with no other versions");
    assert_eq!(store.with(|c| super::memories::accepted(c)).unwrap()[0].content, "likes tea");
}

#[test]
fn a_database_from_a_newer_maru_is_refused_untouched() {
    let (_dir, path) = temp_db();
    {
        let store = Store::open(&path).unwrap();
        project(&store, "Mine");
        store.with(|c| Ok(c.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)", [])?)).unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    match Store::open(&path) {
        Err(Error::NewerSchema { found: 999, .. }) => {}
        Err(e) => panic!("expected a newer-schema refusal, got {e}"),
        Ok(_) => panic!("a database from a newer Maru must not be opened"),
    }
    let err = Store::open(&path).err().unwrap();
    assert!(err.to_string().contains("newer version of Maru"), "the message says what happened: {err}");
    // Reopen raw: the data and the future version are still there.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = conn.query_row("SELECT count(*) FROM projects WHERE name = 'Mine'", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1, "nothing was lost");
    let v: i64 = conn.query_row("SELECT max(version) FROM schema_migrations", [], |r| r.get(0)).unwrap();
    assert_eq!(v, 999, "the newer schema record is left as it was");
    drop(conn);
    assert_eq!(std::fs::read(&path).unwrap().len(), before.len(), "the file was not rewritten");
}

#[test]
fn two_writers_at_once_both_succeed() {
    let (_dir, path) = temp_db();
    let a = Store::open(&path).unwrap();
    let b = Store::open(&path).unwrap();
    let sa = session(&a, None);
    let sb = session(&b, None);
    let writers: Vec<_> = [(a, sa), (b, sb)]
        .into_iter()
        .map(|(store, s)| {
            std::thread::spawn(move || {
                for i in 0..200 {
                    store
                        .with(|tx| {
                            messages::insert(
                                tx,
                                &NewMessage {
                                    session_id: s,
                                    role: Role::User,
                                    content: &format!("{i}"),
                                    status: Status::Complete,
                                    model: None,
                                    ..Default::default()
                                },
                            )?;
                            Ok(())
                        })
                        .expect("a concurrent writer must wait for the lock, not fail");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let store = Store::open(&path).unwrap();
    let total: i64 = store.with(|c| Ok(c.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))?)).unwrap();
    assert_eq!(total, 400, "every write from both connections landed");
}

#[test]
fn replies_left_streaming_become_interrupted_with_their_text() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    let id = store
        .with(|c| {
            messages::insert(
                c,
                &NewMessage {
                    session_id: s,
                    role: Role::Assistant,
                    content: "",
                    status: Status::Streaming,
                    model: None,
                    ..Default::default()
                },
            )
        })
        .unwrap()
        .id;
    assert!(store.with(|c| messages::save_partial(c, s, id, "half an ans")).unwrap());
    assert_eq!(store.with(|c| messages::mark_interrupted(c)).unwrap(), 1);
    let m = store.with(|c| messages::get(c, id)).unwrap();
    assert_eq!(m.status, Status::Interrupted);
    assert_eq!(m.content, "half an ans", "the partial text is kept");
    assert_eq!(m.error_code.as_deref(), Some("interrupted"), "the UI words it by code in its language");
}

#[test]
fn project_names_are_unique_ignoring_case_in_any_script() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    project(&store, "Ärger");
    let err = store.with(|c| projects::create(c, &NewProject { name: "ärger".into(), instructions: String::new() })).unwrap_err();
    assert_eq!(err.code(), "name_taken", "case folding is not ASCII-only");
    let p = project(&store, "가족");
    let renamed = store
        .with(|c| {
            projects::update(
                c,
                p,
                &ProjectPatch { name: Some("  가족  ".into()), instructions: None, folder: None, exclude: None, tool_approval: None },
            )
        })
        .unwrap();
    assert_eq!(renamed.name, "가족", "renaming to its own name (trimmed) is fine");
}

#[test]
fn the_api_key_never_shows_in_debug_output() {
    let patch: super::settings::SettingsPatch = serde_json::from_str(r#"{"api_key": "sk-secret-123"}"#).unwrap();
    let server = super::connections::ServerConnection { api_key: Some("sk-secret-123".into()), ..Default::default() };
    let conn_patch: super::connections::ConnectionPatch = serde_json::from_str(r#"{"api_key": "sk-secret-123"}"#).unwrap();
    let settings = super::settings::Settings { server: server.clone(), ..Default::default() };
    for text in [format!("{patch:?}"), format!("{settings:?}"), format!("{server:?}"), format!("{conn_patch:?}")] {
        assert!(!text.contains("sk-secret-123"), "a key in a log line is a leaked key: {text}");
        assert!(text.contains("redacted"), "but the log still says a key is set: {text}");
    }
}

#[test]
fn ids_are_never_reused_after_a_delete() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    let last = message(&store, s, "last one");
    store.with(|c| messages::delete(c, last)).unwrap();
    let next = message(&store, s, "next");
    assert!(next > last, "a turn still writing to message {last} must never find someone else's message there");
    store.with(|c| sessions::delete(c, s)).unwrap();
    let reopened = Store::open(&path).unwrap();
    assert!(session(&reopened, None) > s, "a deleted chat's id is not handed to a new chat, even after a restart");
}

#[test]
fn upgrading_from_the_second_migration_keeps_every_table_and_id() {
    let (_dir, path) = temp_db();
    {
        let old = Store::open_at_version(&path, 2).unwrap();
        old.with(|c| {
            c.execute_batch(
                "INSERT INTO sessions (id, project_id, title, created_at, updated_at) VALUES (7, 1, 'kept', 1, 1);
                 INSERT INTO messages (id, session_id, role, content, runtime_note, tool_calls, created_at, updated_at)
                     VALUES (40, 7, 'assistant', 'answer', NULL, '[]', 1, 1);
                 INSERT INTO memories (id, content, source_session_id, created_at, updated_at) VALUES (3, 'likes tea', 7, 1, 1);
                 INSERT INTO prompt_snapshots VALUES (7, 'i', 'p', 'prompt', '{}', 1, 'first', 1);",
            )?;
            Ok(())
        })
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let (msgs, snaps, source): (i64, i64, Option<i64>) = store
        .read_now(|c| {
            Ok(c.query_row(
                "SELECT (SELECT count(*) FROM messages WHERE session_id = 7), (SELECT count(*) FROM prompt_snapshots), (SELECT source_session_id FROM memories WHERE id = 3)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?)
        })
        .unwrap();
    assert_eq!((msgs, snaps, source), (1, 1, Some(7)), "rebuilding the tables keeps messages, snapshots and where a fact came from");
    store.with(|c| sessions::delete(c, 7)).unwrap();
    let left: i64 = store.read_now(|c| Ok(c.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))?)).unwrap();
    assert_eq!(left, 0, "deleting a chat still deletes its messages: the cascade survives the rebuild");
    assert!(session(&store, None) > 7, "new ids continue after the old ones");
    let fk: i64 = store.read_now(|c| Ok(c.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0))?)).unwrap();
    assert_eq!(fk, 0, "no dangling references after the upgrade");
}

#[test]
fn reads_do_not_wait_for_a_long_write() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let p = project(&store, "Busy");
    let s = session(&store, Some(p));
    message(&store, s, "hello");
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let writer = {
        let store = store.clone();
        std::thread::spawn(move || {
            store
                .with(|c| {
                    message_in(c, s, "written slowly");
                    started_tx.send(()).unwrap();
                    // An indexing job or a compaction holding the writer.
                    std::thread::sleep(std::time::Duration::from_secs(1));
                    Ok(())
                })
                .unwrap();
        })
    };
    started_rx.recv().unwrap();
    let started = std::time::Instant::now();
    let page = store.read_now(|c| sessions::list(c, p, None, None)).unwrap();
    let history = store.read_now(|c| messages::history(c, s)).unwrap();
    let waited = started.elapsed();
    assert!(!writer.is_finished(), "the write was still holding the writer while we read");
    assert_eq!(page.sessions.len(), 1, "listing chats works during the write");
    assert_eq!(history.len(), 1, "readers see the last commit, not the write in progress");
    writer.join().unwrap();
    assert_eq!(store.read_now(|c| messages::history(c, s)).unwrap().len(), 2, "and the write lands when it commits");
    eprintln!("reads during a 1 s write took {waited:?}");
}

fn message_in(c: &rusqlite::Connection, session_id: i64, text: &str) {
    messages::insert(c, &NewMessage { session_id, role: Role::User, content: text, ..Default::default() }).unwrap();
}

#[test]
fn a_name_in_nfc_and_nfd_is_one_name() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    project(&store, "Caf\u{e9}");
    let err = store.with(|c| projects::create(c, &NewProject { name: "Cafe\u{301}".into(), instructions: String::new() })).unwrap_err();
    assert_eq!(err.code(), "name_taken", "macOS types NFD, Linux NFC: the user sees one name and must get one project");
    for bad in ["\u{200b}\u{200b}", "\u{feff}\u{200c}", "\u{301}", "a\u{2028}b"] {
        let err = store.with(|c| projects::create(c, &NewProject { name: bad.into(), instructions: String::new() })).unwrap_err();
        assert_eq!(err.code(), "invalid_name", "{bad:?} must be refused with a clear error, not stored");
    }
}

#[test]
fn a_crash_between_regenerate_and_its_new_reply_keeps_the_old_reply_as_a_version() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    let question = message(&store, s, "asked once");
    let old = store
        .with(|c| {
            messages::insert(c, &NewMessage { session_id: s, role: Role::Assistant, content: "the old answer", ..Default::default() })
        })
        .unwrap();
    // A regenerate opens the new version in a later transaction; Maru dies in between.
    store
        .with(|c| {
            messages::branch_at(c, s, Some(question))?;
            super::turns::begin(c, s)
        })
        .unwrap();
    assert_eq!(store.with(|c| messages::mark_interrupted(c)).unwrap(), 1);
    let mut history = store.read_now(|c| messages::list(c, s, None, None)).unwrap().messages;
    history.reverse();
    assert_eq!(history.len(), 2, "the question and a reply that says it never began");
    assert_eq!(history[1].error_code.as_deref(), Some("interrupted_before_start"));
    assert_eq!(history[1].versions, [old.id, history[1].id], "the old answer is still there, one version back");
}

#[test]
fn a_summary_goes_when_the_version_it_covers_is_no_longer_shown() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    let reply = |text: &str| {
        let m = NewMessage { session_id: s, role: Role::Assistant, content: text, ..Default::default() };
        store.with(|c| messages::insert(c, &m)).unwrap().id
    };
    let q1 = message(&store, s, "q1");
    let a1 = reply("a1");
    let q2 = message(&store, s, "q2");
    reply("a2");
    let summaries = |store: &Store| store.with(|c| super::summaries::list(c, s)).unwrap().len();
    store.with(|c| super::summaries::add(c, s, a1, 1, "the first turn")).unwrap();

    // A new version of the second reply: the summary of the first turn still holds.
    store.with(|c| messages::branch_at(c, s, Some(q2))).unwrap();
    reply("a2, again");
    assert_eq!(summaries(&store), 1, "a version after what a summary covers leaves it");

    // A new version of the first reply: the summary described the old one.
    store.with(|c| messages::branch_at(c, s, Some(q1))).unwrap();
    let a1_again = reply("a1, again");
    assert_eq!(summaries(&store), 0, "a summary of a version no longer shown would tell the model the wrong story");
    store.with(|c| super::summaries::add(c, s, a1_again, 1, "the new first turn")).unwrap();
    store.with(|c| messages::choose(c, a1)).unwrap();
    assert_eq!(summaries(&store), 0, "and so does switching back");
    let shown: Vec<String> = store.read_now(|c| messages::history(c, s)).unwrap().into_iter().map(|m| m.content).collect();
    assert_eq!(shown, ["q1", "a1", "q2", "a2, again"], "the first branch comes back as it was last chosen");
}

#[test]
fn a_user_message_left_without_a_reply_gets_an_interrupted_one() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    message(&store, s, "asked just before a crash");
    store.with(|c| super::turns::begin(c, s)).unwrap();
    assert_eq!(store.with(|c| messages::mark_interrupted(c)).unwrap(), 1);
    let history = store.read_now(|c| messages::history(c, s)).unwrap();
    assert_eq!(history.len(), 2, "the question stays and a reply marks where the answer would be");
    assert_eq!(history[1].status, Status::Interrupted);
    assert!(
        history[1].error.as_deref().unwrap().contains("before this reply began"),
        "it says the reply never began: {:?}",
        history[1].error
    );
    assert_eq!(history[1].error_code.as_deref(), Some("interrupted_before_start"));
    assert_eq!(store.with(|c| messages::mark_interrupted(c)).unwrap(), 0, "marking twice adds nothing");
}

#[test]
fn a_chat_that_ends_with_a_question_after_a_clean_end_is_left_as_it_is() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    message(&store, s, "answered, and then the answer was deleted");
    // The turn began and ended (its reply was deleted afterwards): nothing was cut.
    store.with(|c| super::turns::begin(c, s)).unwrap();
    store.with(|c| super::turns::end(c, s)).unwrap();
    assert_eq!(store.with(|c| messages::mark_interrupted(c)).unwrap(), 0, "a restart must not invent a reply");
    assert_eq!(store.read_now(|c| messages::history(c, s)).unwrap().len(), 1, "the chat ends as the user left it");
}

#[test]
fn every_prompt_input_bumps_the_revision_and_chatting_does_not() {
    use super::{memories, presets, prompt_inputs, settings};
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let p = project(&store, "Family");
    let s = session(&store, None);
    let preset = store
        .with(|c| presets::create(c, &presets::NewPreset { name: "Terse".into(), prompt: "Be terse.".into(), ..Default::default() }))
        .unwrap()
        .id;
    let rev = || store.read_now(prompt_inputs::revision).unwrap();
    type Write<'a> = Box<dyn Fn(&rusqlite::Connection) -> crate::error::Result<()> + 'a>;
    let changes: Vec<(&str, Write)> = vec![
        (
            "custom instructions",
            Box::new(|c| settings::update(c, &serde_json::from_str(r#"{"custom_instructions":"Answer in Korean."}"#).unwrap()).map(|_| ())),
        ),
        (
            "project instructions",
            Box::new(move |c| {
                projects::update(
                    c,
                    p,
                    &ProjectPatch {
                        instructions: Some("Calendar first.".into()),
                        name: None,
                        folder: None,
                        exclude: None,
                        tool_approval: None,
                    },
                )
                .map(|_| ())
            }),
        ),
        (
            "project name",
            Box::new(move |c| {
                projects::update(
                    c,
                    p,
                    &ProjectPatch { name: Some("Home".into()), instructions: None, folder: None, exclude: None, tool_approval: None },
                )
                .map(|_| ())
            }),
        ),
        (
            "a session's move",
            Box::new(move |c| sessions::update(c, s, &SessionPatch { project_id: Some(p), ..Default::default() }).map(|_| ())),
        ),
        ("a session's preset", Box::new(move |c| sessions::set_preset(c, s, Some(&presets::user_key(preset))).map(|_| ()))),
        (
            "a preset's text",
            Box::new(move |c| {
                presets::update(c, preset, &presets::PresetPatch { prompt: Some("Be very terse.".into()), ..Default::default() })
                    .map(|_| ())
            }),
        ),
        (
            "a new memory",
            Box::new(|c| memories::create(c, &memories::NewMemory { content: "Runs vLLM.".into(), ..Default::default() }).map(|_| ())),
        ),
        (
            "an edited memory",
            Box::new(|c| {
                memories::update(c, 1, &memories::MemoryPatch { content: Some("Runs vLLM on a DGX Spark.".into()), pinned: None })
                    .map(|_| ())
            }),
        ),
        ("a deleted memory", Box::new(|c| memories::delete(c, 1))),
        ("a deleted preset", Box::new(move |c| presets::delete(c, preset).map(|_| ()))),
        ("a deleted project", Box::new(move |c| projects::delete(c, p).map(|_| ()))),
    ];
    for (what, write) in changes {
        let before = rev();
        store.with(|c| write(c)).unwrap();
        assert!(rev() > before, "{what} changes the system prompt, so a cached prompt must not be reused after it");
    }
    let before = rev();
    message(&store, s, "just chatting");
    store.with(|c| sessions::set_title_if_empty(c, s, "a title")).unwrap();
    assert_eq!(rev(), before, "messages are not prompt inputs: chatting keeps the cached prompt");
}

#[test]
fn a_malformed_stored_setting_falls_back_alone() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store
        .with(|c| {
            c.execute_batch(
                r#"INSERT INTO settings (key, value) VALUES ('theme', '"dark"'), ('temperature', '"hot"'), ('from_a_newer_maru', '1');"#,
            )?;
            Ok(())
        })
        .unwrap();
    let s = store.read_now(super::settings::load).unwrap();
    assert_eq!(s.theme, super::settings::Theme::Dark, "the good values are kept");
    assert_eq!(s.temperature, None, "a value that does not parse goes back to its default instead of losing every setting");
}

#[test]
fn the_one_server_setting_becomes_the_default_server_with_its_key() {
    use super::{connections, settings};
    let (_dir, path) = temp_db();
    let chat = {
        let old = Store::open_at_version(&path, 20).unwrap();
        old.with(|c| {
            c.execute("INSERT INTO settings (key, value) VALUES ('endpoint_url', '\"https://gpu.example.com/v1\"')", [])?;
            c.execute("INSERT INTO settings (key, value) VALUES ('api_key', '\"sk-old-key-1234\"')", [])?;
            c.execute("INSERT INTO settings (key, value) VALUES ('model', '\"qwen3\"')", [])?;
            // Raw SQL: the current code's queries read newer columns.
            c.execute("INSERT INTO sessions (project_id, title, created_at, updated_at) VALUES (1, '', 1, 1)", [])?;
            Ok(c.last_insert_rowid())
        })
        .unwrap()
    };
    let store = Store::open(&path).unwrap();
    let servers = store.with(|c| connections::list(c)).unwrap();
    assert_eq!(servers.len(), 1, "the setting becomes one server: {servers:?}");
    let d = &servers[0];
    assert_eq!(
        (d.name.as_str(), d.base_url.as_str(), d.api_key.as_deref(), d.is_default, d.enabled),
        ("gpu.example.com", "https://gpu.example.com/v1", Some("sk-old-key-1234"), true, true),
        "the user's server, key and all, is the default one after the upgrade: nothing to set again"
    );
    let s = store.with(|c| settings::for_session(c, chat)).unwrap();
    assert_eq!((s.server.id, s.model.as_str()), (d.id, "qwen3"), "an old chat asks the same server and model as before");
    let left: i64 = store
        .with(|c| Ok(c.query_row("SELECT count(*) FROM settings WHERE key IN ('endpoint_url', 'api_key')", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(left, 0, "the key is kept once, with its server");
}

#[test]
fn a_chat_on_its_own_server_and_what_deleting_that_server_leaves() {
    use super::connections::{self, ConnectionPatch, NewConnection};
    use super::settings;
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    assert!(store.with(|c| connections::list(c)).unwrap().is_empty(), "a fresh store has no server nobody set up");
    let laptop = NewConnection { name: "Laptop".into(), base_url: "http://127.0.0.1:8080/v1".into(), ..Default::default() };
    let laptop = store.with(|c| connections::create(c, &laptop)).unwrap();
    assert!(laptop.is_default, "the first server added is the default one");
    let new = NewConnection { name: "Desktop GPU".into(), base_url: "http://10.0.0.2:8000/v1/".into(), ..Default::default() };
    let gpu = store.with(|c| connections::create(c, &new)).unwrap();
    assert!(!gpu.is_default, "a second one is not");
    assert_eq!(gpu.base_url, "http://10.0.0.2:8000/v1", "a trailing slash is not part of the address");
    let chat = store.with(|c| sessions::create(c, &NewSession::default())).unwrap().id;
    store
        .with(|c| settings::update(c, &settings::SettingsPatch { model: Some(Some("default-model".into())), ..Default::default() }))
        .unwrap();

    store.with(|c| sessions::set_connection(c, chat, Some(gpu.id))).unwrap();
    let s = store.with(|c| settings::for_session(c, chat)).unwrap();
    assert_eq!(
        (s.server.name.as_str(), s.model.as_str()),
        ("Desktop GPU", ""),
        "the default model names the default server's model: not asked of another"
    );
    store.with(|c| sessions::set_model(c, chat, Some("llama-70b"))).unwrap();
    assert_eq!(store.with(|c| settings::for_session(c, chat)).unwrap().model, "llama-70b");

    let off = ConnectionPatch { enabled: Some(false), ..Default::default() };
    store.with(|c| connections::update(c, gpu.id, &off)).unwrap();
    let err = store.with(|c| settings::check_server_on(&settings::for_session(c, chat)?)).unwrap_err();
    assert_eq!(err.code(), "connection_off", "a chat on a server turned off is told so, naming it: {err}");
    assert!(err.to_string().contains("Desktop GPU"), "{err}");

    store.with(|c| connections::delete(c, gpu.id)).unwrap();
    let session = store.with(|c| sessions::get(c, chat)).unwrap();
    assert_eq!((session.connection_id, session.model), (None, None), "its chats go back to the default server and model");
    let d = store.with(|c| connections::default(c)).unwrap();
    for err in [store.with(|c| connections::delete(c, d.id)).unwrap_err(), store.with(|c| connections::update(c, d.id, &off)).unwrap_err()]
    {
        assert_eq!(err.code(), "default_connection", "there is always a server to ask: {err}");
    }
    let again = NewConnection { name: d.name.to_uppercase(), base_url: "http://h/v1".into(), ..Default::default() };
    assert_eq!(store.with(|c| connections::create(c, &again)).unwrap_err().code(), "name_taken", "names are told apart ignoring case");
    let long = NewConnection { name: "x".repeat(10_000), base_url: "http://h/v1".into(), ..Default::default() };
    assert_eq!(store.with(|c| connections::create(c, &long)).unwrap_err().code(), "invalid_name");
}

#[test]
fn every_declared_bound_is_the_one_a_save_checks() {
    use super::settings::{self, SettingsPatch, BOUNDS};
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let bounds = serde_json::to_value(BOUNDS).unwrap();
    let patch = |key: &str, v: f64| -> SettingsPatch {
        // Integers are written as integers: the patch's u32 fields take no fraction.
        let n = if v.fract() == 0.0 { serde_json::json!(v as i64) } else { serde_json::json!(v) };
        serde_json::from_value(serde_json::json!({ key: n })).unwrap()
    };
    for (key, b) in bounds.as_object().unwrap() {
        let (min, max) = (b["min"].as_f64().unwrap(), b["max"].as_f64().unwrap());
        for inside in [min.max(0.02), max] {
            store.with(|c| settings::update(c, &patch(key, inside))).unwrap_or_else(|e| panic!("{key} = {inside} is allowed: {e}"));
        }
        let above = if max.fract() == 0.0 && min.fract() == 0.0 { max + 1.0 } else { max + 0.5 };
        let err = store.with(|c| settings::update(c, &patch(key, above))).expect_err(key);
        assert!(
            err.code().starts_with("invalid_"),
            "{key} = {above}: the UI shows the bounds it reads, so the save must keep to them: {err}"
        );
        assert_eq!(store.with(|c| settings::load(c)).unwrap().model, "", "a refused value changes nothing else");
    }
}

#[test]
fn a_rolled_back_write_tells_no_one() {
    use super::changes::Change;
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let before = store.with(|c| sessions::create(c, &NewSession::default())).unwrap();
    let mut heard = store.changes();
    let failed = store.with(|c| {
        sessions::update(c, before.id, &SessionPatch { title: Some("renamed".into()), ..Default::default() })?;
        Err::<(), _>(Error::invalid(crate::error::Code::InvalidTitle, "refused after writing"))
    });
    assert!(failed.is_err());
    let kept = store.with(|c| sessions::create(c, &NewSession::default())).unwrap();
    assert_eq!(
        heard.try_recv().unwrap(),
        Change::SessionChanged { session_id: kept.id },
        "the first change heard is the kept chat's: a page must never hear of a change the store undid"
    );
    assert!(heard.try_recv().is_err(), "and nothing else");
}

#[test]
fn a_long_server_address_set_the_old_way_still_names_its_server() {
    use super::{connections, settings};
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let url = format!("https://{}.example.com:8443/v1", "gpu".repeat(40));
    let patch = settings::SettingsPatch { endpoint_url: Some(Some(url.clone())), ..Default::default() };
    store.with(|c| settings::update(c, &patch)).expect("a long but valid address is a server address");
    let d = store.with(|c| connections::default(c)).unwrap();
    assert_eq!(d.base_url, url);
    assert!(d.name.chars().count() <= connections::NAME_MAX_CHARS, "its name, made of the address, fits: {}", d.name);
    let again = settings::SettingsPatch { endpoint_url: Some(Some(format!("{url}/"))), ..Default::default() };
    store.with(|c| settings::update(c, &again)).unwrap();
    assert_eq!(store.with(|c| connections::default(c)).unwrap().name, d.name, "the same address set again keeps the name, never \"(2)\"");
    let off = connections::ConnectionPatch { name: Some("GPU box".into()), ..Default::default() };
    store.with(|c| connections::update(c, d.id, &off)).expect("and it can be renamed later");
}

fn count_messages(store: &Store, session_id: i64) -> i64 {
    store.read_now(|c| Ok(c.query_row("SELECT count(*) FROM messages WHERE session_id = ?1", [session_id], |r| r.get(0))?)).unwrap()
}

fn insert_text(conn: &rusqlite::Connection, session_id: i64, text: &str) -> crate::error::Result<i64> {
    messages::insert_id(conn, &NewMessage { session_id, role: Role::User, content: text, status: Status::Complete, ..Default::default() })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_in_two_steps_keeps_both_steps_or_neither() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);

    let (first, rest) = store
        .write_in_two(move |tx| Ok((insert_text(tx, s, "asked")?, "answered")), move |tx, text| insert_text(tx, s, text))
        .await
        .unwrap();
    assert!(first > 0, "the first step's result comes back before the second commits");
    rest.await.unwrap();
    assert_eq!(count_messages(&store, s), 2, "both steps' rows are kept together");

    let (_, rest) = store
        .write_in_two(
            move |tx| Ok((insert_text(tx, s, "asked")?, ())),
            |_, ()| -> crate::error::Result<()> { Err(Error::invalid(crate::error::Code::EmptyMessage, "no")) },
        )
        .await
        .unwrap();
    assert!(rest.await.is_err());
    assert_eq!(
        count_messages(&store, s),
        2,
        "a second step that fails takes the first step's writes with it: a question is never left without its reply"
    );

    let failed = store
        .write_in_two(
            move |tx| -> crate::error::Result<((), ())> {
                insert_text(tx, s, "asked")?;
                Err(Error::invalid(crate::error::Code::EmptyMessage, "no"))
            },
            |_, ()| Ok(()),
        )
        .await;
    assert!(failed.is_err(), "the first step's error is the answer");
    assert_eq!(count_messages(&store, s), 2, "a first step that fails keeps nothing");

    let (_, rest) =
        store.write_in_two(move |tx| Ok((insert_text(tx, s, "asked")?, ())), move |tx, ()| insert_text(tx, s, "answered")).await.unwrap();
    drop(rest);
    assert_eq!(count_messages(&store, s), 2, "the second step runs only when awaited: dropped unawaited, nothing of either is kept");

    message(&store, s, "after");
    assert_eq!(count_messages(&store, s), 3, "the writer is free and out of any transaction after each of them");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_in_two_steps_waits_for_another_write_rather_than_failing() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let s = session(&store, None);
    // Another Maru on the same folder holds the database's write lock for a moment.
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
    });
    // And a write of this process holds the writer meanwhile.
    let busy = store.clone();
    let held = tokio::task::spawn_blocking(move || busy.with(|tx| insert_text(tx, s, "meanwhile")));
    let (_, rest) =
        store.write_in_two(move |tx| Ok((insert_text(tx, s, "asked")?, ())), move |tx, ()| insert_text(tx, s, "answered")).await.unwrap();
    rest.await.expect("a write that finds the database locked waits its turn, as every other write does");
    held.await.unwrap().unwrap();
    release.join().unwrap();
    assert_eq!(count_messages(&store, s), 3, "every write landed");
}

#[test]
fn settings_read_in_a_write_follow_every_change_to_them() {
    use super::settings;
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let model = |store: &Store| store.with(|tx| store.settings(tx)).unwrap().model;
    let patch = |model: &str| settings::SettingsPatch { model: Some(Some(model.into())), ..Default::default() };
    assert_eq!(model(&store), "");

    store.with(|tx| settings::update(tx, &patch("first"))).unwrap();
    assert_eq!(model(&store), "first", "a turn uses the settings the user has just saved");

    let undone: crate::error::Result<()> = store.with(|tx| {
        settings::update(tx, &patch("undone"))?;
        assert_eq!(store.settings(tx)?.model, "undone", "a write sees its own change");
        Err(Error::invalid(crate::error::Code::EmptyMessage, "rolled back"))
    });
    assert!(undone.is_err());
    assert_eq!(model(&store), "first", "a change that was rolled back is not kept in memory either");

    // Another Maru on the same folder changes them.
    let other = Store::open(&path).unwrap();
    other.with(|tx| settings::update(tx, &patch("other"))).unwrap();
    assert_eq!(model(&store), "other", "a change another process committed is seen at once");
}

#[tokio::test]
async fn every_write_changes_the_version_and_reading_does_not() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let sid = session(&store, None);
    let ((), left) = store.write_noting_version(|_| Ok(())).await.unwrap();
    assert_eq!(store.version(), Some(left), "the version a write left stays while nothing else is written");
    store.read(move |c| sessions::get(c, sid)).await.unwrap();
    assert_eq!(store.version(), Some(left), "reading writes nothing: a request sent ahead stays valid");
    message(&store, sid, "a new message");
    assert_ne!(store.version(), Some(left), "a write in this process changes it");
    let now = store.version().unwrap();
    // Another connection to the same file: what another process's write looks like.
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute("UPDATE sessions SET title = 'renamed' WHERE id = ?1", [sid]).unwrap();
    assert_ne!(store.version(), Some(now), "a write by another connection changes it too");
}

#[test]
fn a_search_past_its_ranking_budget_says_its_matches_are_unranked() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    // Ranking that would take seconds (a query of common words over a large index) is cut at its
    // budget; the cheap unranked matches come back instead, marked so the model is told.
    let slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n";
    let find = |ranked: bool| conn.query_row(if ranked { slow } else { "SELECT 7" }, [], |r| r.get::<_, i64>(0));
    // A search's whole deadline far off: only the ranking's own budget cuts (on a loaded machine
    // the unranked query must not miss the deadline too).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let (found, ranked) = super::ranked_or_said(&conn, deadline, find).unwrap();
    assert_eq!((found, ranked), (7, false), "matches past the ranking budget are still found, and said to be unranked");
    let (found, ranked) = super::ranked_or_said(&conn, deadline, |_| conn.query_row("SELECT 3", [], |r| r.get::<_, i64>(0))).unwrap();
    assert_eq!((found, ranked), (3, true), "a ranking within its budget is said to be ranked");
}

#[test]
fn a_search_out_of_time_still_gives_passages_with_the_words() {
    use super::attachments::{self, NewAttachment, NewPassage};
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let sid = session(&store, None);
    let text = "노아의 방주는 고페르나무로 만들었다.";
    let terms = maru_retrieval::analysis::index_terms(text);
    let found = store
        .with(|c| {
            let new = NewAttachment {
                sha256: "ab",
                session_id: Some(sid),
                project_id: None,
                name: "노아의_방주.md",
                kind: maru_types::attachments::Kind::Markdown,
                mime: "text/markdown",
                size: text.len() as i64,
                folder_path: None,
            };
            attachments::put_blob(c, "ab", text.len() as i64)?;
            attachments::insert(c, &new)?;
            let run = attachments::begin_indexing(c, "ab")?.unwrap();
            let passage = NewPassage { page: None, line_start: 1, line_end: 1, heading: None, text, terms: &terms };
            attachments::add_passages(c, "ab", run, 0, &[passage])?;
            attachments::finish_indexing(c, "ab", run, None, None)?;
            // No time at all: on a busy machine the search's budget can be gone before it starts.
            attachments::search_within(c, "노아의 방주를 만든 재질은?", (sid, 1), None, 5, std::time::Duration::ZERO)
        })
        .unwrap();
    assert_eq!(found.hits.len(), 1, "a search out of time never says nothing matches while the words are there");
    assert!(found.unranked, "and it says its passages are unranked, so the model is told");
}
