//! Store benchmark: fills a database with 10,000 sessions and 200,000 messages, then prints
//! p50/p99 latencies of what a user waits for, alone and while another thread writes without a
//! pause for 5 s (an indexing job, a compaction). Run with `cargo bench --bench store`.

use std::time::{Duration, Instant};

use maru::store::messages::{self, NewMessage, Role, Status};
use maru::store::{projects, sessions, Store};
use rusqlite::params;

const PROJECTS: i64 = 20;
const SESSIONS: i64 = 10_000;
const MESSAGES: i64 = 200_000;
/// A few long conversations, so "open the last 100 messages" has 100 to open.
const LONG_SESSIONS: i64 = 10;
const LONG_LEN: i64 = 2_000;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("maru.db");
    let store = Store::open(&path).expect("open");

    let t = Instant::now();
    fill(&store);
    println!("filled {SESSIONS} sessions, {MESSAGES} messages in {PROJECTS} projects in {:.1?}", t.elapsed());

    let project_id: i64 =
        store.read_now(|c| Ok(c.query_row("SELECT id FROM projects WHERE name = 'project 7'", [], |r| r.get(0))?)).unwrap();
    let long_session: i64 = store.read_now(|c| Ok(c.query_row("SELECT min(id) FROM sessions", [], |r| r.get(0))?)).unwrap();
    let short_session: i64 = store.read_now(|c| Ok(c.query_row("SELECT max(id) FROM sessions", [], |r| r.get(0))?)).unwrap();

    let list_sessions = || {
        let page = store.read_now(|c| sessions::list(c, project_id, None, Some(50))).unwrap();
        assert_eq!(page.sessions.len(), 50);
    };
    let last_messages = || {
        let page = store.read_now(|c| messages::list(c, long_session, None, Some(100))).unwrap();
        assert_eq!(page.messages.len(), 100);
    };
    report("list a project's first page of sessions (50)", 2_000, list_sessions);
    report("open a session's last 100 messages", 2_000, last_messages);

    // Another thread writes for 5 s without a pause, 200 messages per transaction.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut written = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                store
                    .with(|c| {
                        for i in 0..200 {
                            let text = format!("background write {i}: a sentence of indexed text");
                            messages::insert(
                                c,
                                &NewMessage { session_id: short_session, role: Role::User, content: &text, ..Default::default() },
                            )?;
                        }
                        Ok(())
                    })
                    .unwrap();
                written += 200;
            }
            written
        })
    };
    let until = Instant::now() + Duration::from_secs(5);
    let (mut lists, mut opens) = (vec![], vec![]);
    while Instant::now() < until {
        lists.push(time(list_sessions));
        opens.push(time(last_messages));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = writer.join().unwrap();
    print_pct("  … the same while another thread writes", &mut lists);
    print_pct("  … the last 100 messages while it writes", &mut opens);
    println!("  (the writer stored {written} messages meanwhile)");
    report("create a message", 2_000, || {
        store
            .with(|c| {
                messages::insert(
                    c,
                    &NewMessage {
                        session_id: short_session,
                        role: Role::User,
                        content: "a new message of ordinary length, about one sentence long",
                        status: Status::Complete,
                        model: None,
                        ..Default::default()
                    },
                )
            })
            .unwrap();
    });

    rusqlite::Connection::open(&path).unwrap().execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    println!("database size: {:.1} MiB ({size} bytes)", size as f64 / (1024.0 * 1024.0));
}

fn fill(store: &Store) {
    store
        .with(|tx| {
            for p in 0..PROJECTS {
                projects::create(tx, &projects::NewProject { name: format!("project {p}"), instructions: "Be brief.".into() })?;
            }
            let ids: Vec<i64> = tx.prepare("SELECT id FROM projects")?.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            let mut add_session = tx.prepare("INSERT INTO sessions (project_id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)")?;
            let mut add_message = tx.prepare(
                "INSERT INTO messages (session_id, role, content, status, created_at, updated_at, parent_id)
                 VALUES (?1, ?2, ?3, 'complete', ?4, ?4, ?5)",
            )?;
            let short_len = (MESSAGES - LONG_SESSIONS * LONG_LEN) / (SESSIONS - LONG_SESSIONS);
            let mut written = 0;
            let base = 1_700_000_000_000i64;
            for s in 0..SESSIONS {
                add_session.execute(params![ids[(s % ids.len() as i64) as usize], format!("session {s}"), base + s])?;
                let sid = tx.last_insert_rowid();
                let n = if s < LONG_SESSIONS { LONG_LEN } else if s == SESSIONS - 1 { MESSAGES - written } else { short_len };
                // One branch: each message follows the one before it.
                let mut parent: Option<i64> = None;
                for m in 0..n {
                    let role = if m % 2 == 0 { "user" } else { "assistant" };
                    let text = format!("Message {m} of session {s}: a sentence or two of ordinary chat text, the kind of length people type and models answer with, repeated for size.");
                    add_message.execute(params![sid, role, text, base + s * 1000 + m, parent])?;
                    parent = Some(tx.last_insert_rowid());
                }
                written += n;
            }
            Ok(())
        })
        .expect("fill");
}

fn time(f: impl Fn()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn report(what: &str, runs: usize, f: impl Fn()) {
    for _ in 0..50 {
        f(); // warm the page cache and statement cache
    }
    let mut times: Vec<Duration> = (0..runs).map(|_| time(&f)).collect();
    print_pct(what, &mut times);
}

fn print_pct(what: &str, times: &mut [Duration]) {
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    println!("{what:<48} p50 {:>9.1?}  p99 {:>9.1?}  ({} runs)", pct(0.50), pct(0.99), times.len());
}
