//! Retrieval benchmark: how often what `search_attachment` gives the model holds the answer, on a
//! public question-answering set nobody here wrote, beside plain BM25 baselines given the same
//! number of characters. Prints, for each half of the set:
//! - answer-in-result: the share of questions whose tool result (what the model reads) contains
//!   one of the question's answers;
//! - the mean characters of a result, and p50/p99 of the search itself;
//! - indexing speed (MB/s, from upload until every file is searchable);
//! - the baselines (`retrieval_baselines.py`: BM25 from `bm25s` over whitespace tokens and over
//!   Kiwi morphemes from `kiwipiepy`, paragraphs taken best first up to each question's character
//!   budget, which is Maru's own result length for that question), and Maru / the best of them.
//!
//! Data: KorQuAD 1.0 dev (`../shared/data/korquad/`, read as it is, CC BY-ND 2.0 KR, LG CNS).
//! Articles 0–69 are the half to tune on; 70–139 are held out and only reported.
//!
//! Every question goes through a real turn over HTTP: Maru serving (this process, built with the
//! bench profile, the shipped build's optimisation), each article uploaded as a project file, a
//! scripted model calling `search_attachment` with the question as its query and `limit` 5.
//!
//! Run with `make bench` or `cargo bench -p maru-tests --bench retrieval`. MARU_BENCH_QUESTIONS
//! caps the questions of each half (all of them by default: 2,915 + 2,859), MARU_BENCH_HALF=tuning
//! measures only the tuning half; MARU_KORQUAD names
//! another copy of the set; MARU_BENCH_PYTHON a Python with `bm25s` and `kiwipiepy` (else the
//! baselines get a virtual environment of their own under ~/.cache/maru/bench-venv).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use maru::store::attachments as table;
use maru_tests::fake_openai::Reply;
use maru_tests::server::with_fake_model;
use serde_json::{json, Value};

/// A question of the set, with what counts as its answer.
struct Question {
    text: String,
    answers: Vec<String>,
}

struct Half {
    name: &'static str,
    articles: std::ops::Range<usize>,
}

const HALVES: [Half; 2] =
    [Half { name: "tuning (articles 0-69)", articles: 0..70 }, Half { name: "held out (articles 70-139)", articles: 70..140 }];

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let set = korquad();
    let cap: usize = std::env::var("MARU_BENCH_QUESTIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
    // MARU_BENCH_HALF=tuning measures only the half tuned on (while tuning).
    let only = std::env::var("MARU_BENCH_HALF").ok();
    for half in HALVES.iter().filter(|h| only.as_deref().is_none_or(|o| h.name.starts_with(o))) {
        let measured = runtime.block_on(measure(&set, half, cap));
        let baselines = baselines(half, &measured.budgets);
        report(half, &measured, &baselines);
    }
}

fn korquad() -> Value {
    let path = std::env::var_os("MARU_KORQUAD")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/korquad/KorQuAD_v1.0_dev.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the retrieval benchmark reads KorQuAD 1.0 dev at {} ({e}); set MARU_KORQUAD", path.display()));
    serde_json::from_str(&text).expect("KorQuAD is JSON")
}

/// An article as the user would have it: one Markdown file, its title a heading, a paragraph
/// each.
fn article_file(article: &Value) -> (String, String) {
    let title = article["title"].as_str().unwrap_or("untitled");
    let paragraphs: Vec<&str> = article["paragraphs"].as_array().unwrap().iter().map(|p| p["context"].as_str().unwrap()).collect();
    let name = format!("{}.md", title.replace(['/', '\\'], "-"));
    (name, format!("# {title}\n\n{}\n", paragraphs.join("\n\n")))
}

fn questions(article: &Value) -> Vec<Question> {
    let mut out = vec![];
    for p in article["paragraphs"].as_array().unwrap() {
        for qa in p["qas"].as_array().unwrap() {
            let answers = qa["answers"].as_array().unwrap().iter().filter_map(|a| a["text"].as_str().map(str::to_string)).collect();
            out.push(Question { text: qa["question"].as_str().unwrap().to_string(), answers });
        }
    }
    out
}

/// What Maru did on one half.
struct Measured {
    questions: usize,
    answered: usize,
    mean_chars: f64,
    search: Vec<Duration>,
    indexed_mb_s: f64,
    /// Each question's result length, for the baselines: (question index in the half, chars).
    budgets: Vec<usize>,
}

async fn measure(set: &Value, half: &Half, cap: usize) -> Measured {
    let (s, fake) = with_fake_model().await;
    // Only the search is measured: no facts are looked for after each turn.
    s.patch("/api/settings", json!({ "memory_mode": "off" })).await;
    let project = s.project("KorQuAD").await;
    let articles = &set["data"].as_array().unwrap()[half.articles.clone()];
    let started = Instant::now();
    let mut bytes = 0usize;
    for article in articles {
        let (name, text) = article_file(article);
        bytes += text.len();
        let (status, body) = s.upload("project_id", project, &name, text.into_bytes()).await;
        assert!(status.is_success(), "uploading {name}: {body}");
    }
    loop {
        let (_, files) = s.get(&format!("/api/attachments?project_id={project}")).await;
        let files = files.as_array().unwrap();
        if files.iter().all(|f| f["status"] == "ready") {
            break;
        }
        assert!(files.iter().all(|f| f["status"] != "failed"), "every article is indexed: {files:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let indexed_mb_s = bytes as f64 / 1e6 / started.elapsed().as_secs_f64();

    let questions: Vec<Question> = articles.iter().flat_map(questions).take(cap).collect();
    let (mut answered, mut chars, mut search, mut budgets) = (0, 0usize, vec![], vec![]);
    for (i, q) in questions.iter().enumerate() {
        // A chat a question: the history stays one exchange long, as a first question's is.
        let session = s.session(Some(project), &format!("q{i}")).await;
        fake.push(Reply::tool_call("search_attachment", json!({ "query": q.text, "limit": 5 }).to_string()));
        fake.push(Reply::text(["ok"]));
        let events = s.say(session, &q.text).await;
        let result = events.iter().find(|e| e.name == "tool_result").unwrap_or_else(|| panic!("the tool ran: {events:?}"));
        let text = result.data["content"].as_str().unwrap_or_default().to_string();
        if q.answers.iter().any(|a| text.contains(a.as_str())) {
            answered += 1;
        }
        let n = text.chars().count();
        chars += n;
        budgets.push(n);
        // The search alone, as the tool runs it (the turn around it is not search time).
        let asked = q.text.clone();
        let t = Instant::now();
        s.app.store.read(move |c| table::search(c, &asked, session, project, None, 5)).await.unwrap();
        search.push(t.elapsed());
        s.delete(&format!("/api/sessions/{session}")).await;
    }
    search.sort();
    Measured {
        questions: questions.len(),
        answered,
        mean_chars: chars as f64 / questions.len().max(1) as f64,
        search,
        indexed_mb_s,
        budgets,
    }
}

/// The baselines' answer-in-result rates at Maru's budgets: name → rate.
fn baselines(half: &Half, budgets: &[usize]) -> Vec<(String, f64)> {
    let python = std::env::var("MARU_BENCH_PYTHON").unwrap_or_else(|_| venv());
    let dir = tempfile::tempdir().unwrap();
    let budgets_file = dir.path().join("budgets.json");
    std::fs::write(&budgets_file, serde_json::to_vec(budgets).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/retrieval_baselines.py");
    let korquad = std::env::var("MARU_KORQUAD")
        .unwrap_or_else(|_| format!("{}/../../shared/data/korquad/KorQuAD_v1.0_dev.json", env!("CARGO_MANIFEST_DIR")));
    let out = std::process::Command::new(&python)
        .arg(&script)
        .args([&korquad, &half.articles.start.to_string(), &half.articles.end.to_string()])
        .arg(&budgets_file)
        .output()
        .unwrap_or_else(|e| panic!("running the baselines with {python}: {e}"));
    assert!(out.status.success(), "the baselines failed: {}", String::from_utf8_lossy(&out.stderr));
    let rates: Value = serde_json::from_slice(&out.stdout).expect("the baselines print JSON");
    rates.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_f64().unwrap())).collect()
}

/// A Python with the baselines' packages, from PyPI, made once.
fn venv() -> String {
    let home = std::env::var("HOME").unwrap();
    let venv = Path::new(&home).join(".cache/maru/bench-venv");
    let python = venv.join("bin/python");
    let ready = std::process::Command::new(&python).args(["-c", "import bm25s, kiwipiepy"]).status().is_ok_and(|s| s.success());
    if !ready {
        eprintln!("== the baselines' Python packages (bm25s, kiwipiepy) into {}", venv.display());
        let made = std::process::Command::new("python3").arg("-m").arg("venv").arg(&venv).status().unwrap();
        assert!(made.success(), "python3 -m venv");
        let pip = std::process::Command::new(venv.join("bin/pip")).args(["install", "-q", "bm25s", "kiwipiepy"]).status().unwrap();
        assert!(pip.success(), "pip install bm25s kiwipiepy");
    }
    python.to_string_lossy().into_owned()
}

fn report(half: &Half, m: &Measured, baselines: &[(String, f64)]) {
    let pct = |d: &[Duration], p: f64| d.get(((d.len() as f64 * p) as usize).min(d.len().saturating_sub(1))).copied().unwrap_or_default();
    let rate = m.answered as f64 / m.questions.max(1) as f64;
    println!("\nKorQuAD 1.0 dev, {}: {} questions", half.name, m.questions);
    println!(
        "  {:<45} answer in result {:>5.1}%   mean {:>5.0} chars   search p50 {:?} p99 {:?}   indexing {:.1} MB/s",
        "Maru search_attachment",
        rate * 100.0,
        m.mean_chars,
        pct(&m.search, 0.5),
        pct(&m.search, 0.99),
        m.indexed_mb_s
    );
    for (name, r) in baselines {
        println!("  {name:<45} answer in result {:>5.1}%", r * 100.0);
    }
    let best = baselines.iter().filter(|(n, _)| !n.contains("top-5")).map(|(_, r)| *r).fold(0.0, f64::max);
    if best > 0.0 {
        println!("  Maru / best baseline at the same budget: {:.3}", rate / best);
    }
}
