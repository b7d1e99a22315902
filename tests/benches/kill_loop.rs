//! Kill -9 stress: a Maru server process is killed at a random point of a streamed turn, again
//! and again, on one data folder. After each kill the folder is reopened as the next start would
//! and checked: every message whose send was accepted is there, no reply is left `streaming`,
//! a question never answered says so, and SQLite's integrity check passes. Prints the counts.
//!
//! Run with `cargo bench -p maru-tests --bench kill_loop` (MARU_KILL_RUNS=N, default 50).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use maru::store::messages::{self, Role, Status};
use maru_tests::fake_openai::{FakeOpenAi, Reply};
use serde_json::json;

const CHILD_ENV: &str = "MARU_KILL_LOOP_CHILD_DATA";
const TOKEN: &str = "kill-loop-token";

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        runtime.block_on(serve(dir));
        return;
    }
    runtime.block_on(stress());
}

/// The child: serves the data folder until it is killed.
async fn serve(dir: String) {
    let app = maru::app::App::open(std::path::Path::new(&dir)).unwrap();
    let opts =
        maru::server::ServeOptions { host: "127.0.0.1".into(), port: 0, token: Some(TOKEN.into()), allow_remote: false, ui_dir: None };
    let bound = maru::server::bind(app, &opts).await.unwrap();
    println!("CHILD_PORT {}", bound.addr.port());
    bound.run().await.unwrap();
}

fn spawn_child(dir: &std::path::Path) -> (Child, u16) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, dir)
        .env("MARU_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let port = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("CHILD_PORT ").map(|p| p.trim().parse().unwrap()))
        .expect("the child reports its port");
    (child, port)
}

/// A small deterministic generator: the same seed kills at the same points.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[derive(Default, Debug)]
struct Counts {
    killed_before_accepted: usize,
    reply_complete: usize,
    reply_interrupted_with_text: usize,
    reply_interrupted_before_it_began: usize,
    reply_interrupted_empty: usize,
}

async fn stress() {
    let runs: usize = std::env::var("MARU_KILL_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(50);
    let seed = std::env::var("MARU_KILL_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(20261129);
    let mut rng = Lcg(seed);
    let fake = FakeOpenAi::start().await;
    let data = tempfile::tempdir().unwrap();
    let http = reqwest::Client::new();
    let mut accepted: Vec<String> = vec![];
    let mut counts = Counts::default();
    let mut session = None;
    let started = Instant::now();

    for run in 0..runs {
        // The model thinks 0-200 ms, then 40 words 5-25 ms apart: killed somewhere in [0, 1.2 s).
        fake.push(Reply::text((0..40).map(|i| format!("w{i} "))).delay(rng.below(200)).piece_delay(5 + rng.below(20)));
        let (mut child, port) = spawn_child(data.path());
        let base = format!("http://127.0.0.1:{port}");
        let auth = format!("Bearer {TOKEN}");
        let sid = match session {
            Some(s) => s,
            None => {
                http.patch(format!("{base}/api/settings"))
                    .header("authorization", &auth)
                    .json(&json!({ "endpoint_url": fake.base_url(), "model": "m" }))
                    .send()
                    .await
                    .unwrap();
                let s: serde_json::Value = http
                    .post(format!("{base}/api/sessions"))
                    .header("authorization", &auth)
                    .json(&json!({}))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                *session.insert(s["id"].as_i64().unwrap())
            }
        };
        let question = format!("question {run}");
        // One kill in ten lands in the first milliseconds, around storing the question.
        let kill_after = Duration::from_micros(if rng.below(10) == 0 { rng.below(3_000) } else { rng.below(1_200_000) });
        let send = http
            .post(format!("{base}/api/sessions/{sid}/messages"))
            .header("authorization", &auth)
            .json(&json!({ "content": question }))
            .send();
        // A 200 is Maru's promise that the message is stored; a send killed before it may or
        // may not have been (the user saw it fail).
        let was_accepted = std::cell::Cell::new(false);
        tokio::select! {
            _ = async {
                let Ok(mut res) = send.await else { return };
                was_accepted.set(res.status().is_success());
                while let Ok(Some(_)) = res.chunk().await {}
            } => {}
            _ = tokio::time::sleep(kill_after) => {}
        }
        let was_accepted = was_accepted.get();
        child.kill().unwrap(); // SIGKILL: no chance to clean up
        child.wait().unwrap();
        if was_accepted {
            accepted.push(question.clone());
        }

        let app = maru::app::App::open(data.path()).expect("the data folder opens after every kill");
        let history = app.store.read_now(|c| messages::history(c, sid)).unwrap();
        let integrity: String = app.store.read_now(|c| Ok(c.query_row("PRAGMA integrity_check", [], |r| r.get(0))?)).unwrap();
        assert_eq!(integrity, "ok", "run {run}: the database must stay intact");
        assert!(history.iter().all(|m| m.status != Status::Streaming), "run {run}: no reply is left streaming after a restart");
        for q in &accepted {
            assert!(history.iter().any(|m| m.role == Role::User && &m.content == q), "run {run}: the accepted message {q:?} was lost");
        }
        let stored = history.iter().any(|m| m.role == Role::User && m.content == question);
        if !stored {
            counts.killed_before_accepted += 1;
        } else {
            let reply = history.last().unwrap();
            assert_eq!(reply.role, Role::Assistant, "run {run}: every stored question has a reply or a marker after a restart");
            match (reply.status, reply.content.is_empty(), reply.error.as_deref().unwrap_or("")) {
                (Status::Complete, _, _) => counts.reply_complete += 1,
                (Status::Interrupted, false, _) => counts.reply_interrupted_with_text += 1,
                (Status::Interrupted, true, e) if e.contains("began") => counts.reply_interrupted_before_it_began += 1,
                (Status::Interrupted, true, _) => counts.reply_interrupted_empty += 1,
                (other, _, e) => panic!("run {run}: unexpected reply status {other:?} ({e})"),
            }
        }
        drop(app);
    }
    println!("kill -9 loop: {runs} kills in {:.1?}, seed {seed}", started.elapsed());
    println!("  accepted messages: {} (all present after every restart)", accepted.len());
    println!("  {counts:?}");
    println!("  no reply left streaming, integrity_check ok after every kill");
}
