//! Retrieval benchmark: how often what `search_attachment` gives the model holds the answer, on
//! question sets nobody here wrote, beside plain BM25 baselines given the same number of
//! characters. Prints, for each half of each set:
//! - answer-in-result: the share of questions whose tool result (what the model reads) contains
//!   one of the question's answers;
//! - the mean characters of a result, and p50/p99 of the search itself;
//! - indexing speed (MB/s, from upload until every file is searchable);
//! - the baselines (`retrieval_baselines.py`: BM25 from `bm25s` over whitespace tokens, over Kiwi
//!   morphemes from `kiwipiepy` and over MeCab-ko morphemes from `python-mecab-ko` (Korean) or over Snowball stems from `PyStemmer` (English), the
//!   same paragraphs (for documentation, sections with their page's title and heading) taken
//!   best first up to each question's character budget, which is Maru's own result length for
//!   that question), and Maru / the best of them.
//!
//! The sets:
//! - Korean: KorQuAD 1.0 dev (`../shared/data/korquad/`, read as it is, CC BY-ND 2.0 KR, LG CNS),
//!   questions written by people over Wikipedia articles. Articles 0–69 are the half to tune on;
//!   70–139 are held out and only reported.
//! - English: npm's own documentation as the `npm` package ships it (10.9.2, from the npm
//!   registry, Artistic-2.0): each section heading of a page asked with the page's name
//!   ("npm install: Algorithm"), its answer the first sentence of the section's text. Pages in
//!   even places (by path) are the half to tune on; the others are held out.
//!
//! Every question goes through a real turn over HTTP: Maru serving (this process, built with the
//! bench profile, the shipped build's optimisation), each document uploaded as a project file, a
//! scripted model calling `search_attachment` with the question as its query and `limit` 5.
//!
//! Then a real repository linked as a project folder (uv's source as PyPI ships it, 0.13.10:
//! about 1,050 files, 40 MB; MARU_BENCH_FOLDER names another folder): the time until every file
//! is mirrored and searchable, and what a plain question finds in it.
//!
//! Run with `make bench` or `cargo bench -p maru-tests --bench retrieval`. MARU_BENCH_QUESTIONS
//! caps the questions of each half (all of them by default), MARU_BENCH_HALF=tuning measures
//! only the tuning halves, MARU_BENCH_SET=korean|english|folder one set; MARU_BENCH_MISSES=<file>
//! appends each question whose result lacks its answer (with the result) to a file; MARU_KORQUAD names another
//! copy of KorQuAD; MARU_BENCH_PYTHON a Python with `bm25s`, `kiwipiepy` and `PyStemmer` (else
//! the baselines get a virtual environment of their own under ~/.cache/maru/bench-venv).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use maru_tests::fake_openai::Reply;
use maru_tests::server::with_fake_model;
use serde_json::{json, Value};

/// A question of a set, with what counts as its answer.
struct Question {
    text: String,
    answers: Vec<String>,
}

/// One half of a set: the files a user would attach, the same text as paragraphs for the
/// baselines, and the questions.
struct Half {
    name: String,
    /// The baselines' analysis besides whitespace tokens: "kiwi" or "stem".
    analysis: &'static str,
    files: Vec<(String, String)>,
    paragraphs: Vec<String>,
    questions: Vec<Question>,
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let cap: usize = std::env::var("MARU_BENCH_QUESTIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
    // MARU_BENCH_HALF=tuning measures only the halves tuned on (while tuning).
    let only = std::env::var("MARU_BENCH_HALF").ok();
    let set = std::env::var("MARU_BENCH_SET").ok();
    let mut halves = vec![];
    if set.as_deref().is_none_or(|s| s == "korean") {
        halves.extend(korquad());
    }
    if set.as_deref().is_none_or(|s| s == "english") {
        halves.extend(npm_docs());
    }
    if set.as_deref().is_none_or(|s| s == "folder") {
        runtime.block_on(linked_folder());
    }
    let embeddings = runtime.block_on(Embeddings::from_env());
    for mut half in halves.into_iter().filter(|h| only.as_deref().is_none_or(|o| h.name.contains(o))) {
        half.questions.truncate(cap);
        for measured in runtime.block_on(measure(&half, embeddings.as_ref())) {
            let baselines = baselines(&half, &measured.budgets);
            report(&half, &measured, &baselines);
        }
    }
}

/// An embeddings model for the hybrid pass (MARU_BENCH_EMBEDDINGS): `<base URL> <model>` of a
/// running server, or `llama` for llama.cpp's server in embedding mode on the test model
/// (LLAMA_SERVER, SMOLLM_GGUF: `eval "$(tests/real-server/setup.sh)"`), whose vectors exercise the
/// path but are not meant to be good.
struct Embeddings {
    base_url: String,
    model: String,
    _server: Option<maru_tests::llama::LlamaServer>,
}

impl Embeddings {
    async fn from_env() -> Option<Embeddings> {
        let wanted = std::env::var("MARU_BENCH_EMBEDDINGS").ok()?;
        if wanted == "llama" {
            let server =
                maru_tests::llama::LlamaServer::start_with(8192, &["--embeddings", "--pooling", "mean", "-ub", "2048", "-b", "2048"])
                    .await
                    .expect("MARU_BENCH_EMBEDDINGS=llama needs LLAMA_SERVER and SMOLLM_GGUF");
            let models: Value = reqwest::get(format!("{}/models", server.base_url)).await.unwrap().json().await.unwrap();
            let model = models["data"][0]["id"].as_str().unwrap().to_string();
            return Some(Embeddings { base_url: server.base_url.clone(), model, _server: Some(server) });
        }
        let (base_url, model) = wanted.split_once(' ').expect("MARU_BENCH_EMBEDDINGS is `<base URL> <model>` or `llama`");
        Some(Embeddings { base_url: base_url.into(), model: model.trim().into(), _server: None })
    }
}

fn korquad() -> Vec<Half> {
    let path = std::env::var_os("MARU_KORQUAD")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/korquad/KorQuAD_v1.0_dev.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the retrieval benchmark reads KorQuAD 1.0 dev at {} ({e}); set MARU_KORQUAD", path.display()));
    let set: Value = serde_json::from_str(&text).expect("KorQuAD is JSON");
    let articles = set["data"].as_array().unwrap();
    [("KorQuAD 1.0 dev, tuning (articles 0-69)", 0..70), ("KorQuAD 1.0 dev, held out (articles 70-139)", 70..140)]
        .into_iter()
        .map(|(name, range)| {
            let articles = &articles[range];
            Half {
                name: name.into(),
                analysis: "kiwi",
                files: articles.iter().map(article_file).collect(),
                paragraphs: articles
                    .iter()
                    .flat_map(|a| a["paragraphs"].as_array().unwrap())
                    .map(|p| p["context"].as_str().unwrap().into())
                    .collect(),
                questions: articles.iter().flat_map(article_questions).collect(),
            }
        })
        .collect()
}

/// An article as the user would have it: one Markdown file, its title a heading, a paragraph
/// each.
fn article_file(article: &Value) -> (String, String) {
    let title = article["title"].as_str().unwrap_or("untitled");
    let paragraphs: Vec<&str> = article["paragraphs"].as_array().unwrap().iter().map(|p| p["context"].as_str().unwrap()).collect();
    let name = format!("{}.md", title.replace(['/', '\\'], "-"));
    (name, format!("# {title}\n\n{}\n", paragraphs.join("\n\n")))
}

fn article_questions(article: &Value) -> Vec<Question> {
    let mut out = vec![];
    for p in article["paragraphs"].as_array().unwrap() {
        for qa in p["qas"].as_array().unwrap() {
            let answers = qa["answers"].as_array().unwrap().iter().filter_map(|a| a["text"].as_str().map(str::to_string)).collect();
            out.push(Question { text: qa["question"].as_str().unwrap().to_string(), answers });
        }
    }
    out
}

/// The npm package whose documentation is the English set.
const NPM: &str = "npm@10.9.2";

/// npm's documentation pages (docs/content/**/*.md), fetched once from the npm registry.
fn npm_pages() -> Vec<(String, String)> {
    let home = std::env::var("HOME").unwrap();
    let dir = Path::new(&home).join(".cache/maru/bench-data").join(NPM);
    let docs = dir.join("package/docs/content");
    if !docs.is_dir() {
        std::fs::create_dir_all(&dir).unwrap();
        eprintln!("== {NPM}'s documentation from the npm registry into {}", dir.display());
        let packed = std::process::Command::new("npm").args(["pack", NPM, "--silent"]).current_dir(&dir).output().expect("npm pack");
        assert!(packed.status.success(), "npm pack {NPM}: {}", String::from_utf8_lossy(&packed.stderr));
        let tarball = String::from_utf8_lossy(&packed.stdout).trim().to_string();
        let untar = std::process::Command::new("tar").args(["xzf", &tarball]).current_dir(&dir).status().unwrap();
        assert!(untar.success(), "unpacking {tarball}");
    }
    let mut pages = vec![];
    for area in std::fs::read_dir(&docs).unwrap() {
        let area = area.unwrap().path();
        for page in std::fs::read_dir(&area).unwrap() {
            let page = page.unwrap().path();
            if page.extension().is_some_and(|e| e == "md") {
                let name = page.strip_prefix(&docs).unwrap().to_string_lossy().into_owned();
                pages.push((name, std::fs::read_to_string(&page).unwrap()));
            }
        }
    }
    pages.sort();
    pages
}

fn npm_docs() -> Vec<Half> {
    let pages = npm_pages();
    [("npm 10.9.2 docs, tuning (pages in even places)", 0), ("npm 10.9.2 docs, held out (pages in odd places)", 1)]
        .into_iter()
        .map(|(name, parity)| {
            let files: Vec<(String, String)> = pages.iter().enumerate().filter(|(i, _)| i % 2 == parity).map(|(_, p)| p.clone()).collect();
            // The baselines get sections, each with its page's title and its heading: the usual
            // way to cut documentation, and what a question asked by its heading needs.
            let paragraphs = files.iter().flat_map(|(_, text)| sections(text)).collect();
            let questions = files.iter().flat_map(|(_, text)| section_questions(text)).collect();
            Half { name: name.into(), analysis: "stem", files, paragraphs, questions }
        })
        .collect()
}

/// A documentation page's sections: the page's title, then from one heading to the next.
fn sections(page: &str) -> Vec<String> {
    let title = page.lines().find_map(|l| l.strip_prefix("title: ")).unwrap_or("");
    let mut out = vec![];
    let mut current = String::new();
    let mut in_fence = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && line.starts_with('#') && !current.trim().is_empty() {
            out.push(format!("{title}\n{}", std::mem::take(&mut current).trim()));
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        out.push(format!("{title}\n{}", current.trim()));
    }
    out
}

/// A question per section of a documentation page: its heading with the page's title
/// ("npm install: Algorithm"), answered by the first sentence of the section's own prose.
fn section_questions(page: &str) -> Vec<Question> {
    let title = page.lines().find_map(|l| l.strip_prefix("title: ")).unwrap_or("").replace('-', " ");
    let mut out = vec![];
    let mut lines = page.lines().peekable();
    let mut in_fence = false;
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = match line.strip_prefix('#') {
            Some(rest) if !in_fence && rest.trim_start_matches('#').starts_with(' ') => {
                rest.trim_start_matches('#').trim().replace('`', "")
            }
            _ => continue,
        };
        // The section's first paragraph of prose (not code, not a list, not a link list).
        let mut answer = None;
        while let Some(next) = lines.peek() {
            if next.starts_with('#') {
                break;
            }
            let next = lines.next().unwrap().trim();
            if next.starts_with("```") {
                in_fence = !in_fence;
                continue;
            }
            if !in_fence && answer.is_none() && next.len() >= 40 && next.chars().next().is_some_and(char::is_alphabetic) {
                answer = Some(next.chars().take(60).collect::<String>());
            }
        }
        if let Some(answer) = answer {
            out.push(Question { text: format!("{title}: {heading}"), answers: vec![answer] });
        }
    }
    out
}

/// uv's source distribution from PyPI, unpacked once.
fn uv_source() -> PathBuf {
    const URL: &str =
        "https://files.pythonhosted.org/packages/e2/21/32b8c2f5b9198d8b4db5ea395430b8c9b4839bc34403353a2e7cd5dcd58f/uv-0.13.10.tar.gz";
    let home = std::env::var("HOME").unwrap();
    let dir = Path::new(&home).join(".cache/maru/bench-data");
    let source = dir.join("uv-0.13.10");
    if !source.is_dir() {
        std::fs::create_dir_all(&dir).unwrap();
        eprintln!("== uv 0.13.10's source from PyPI into {}", dir.display());
        let got = std::process::Command::new("curl").args(["-sSfL", "-o", "uv.tar.gz", URL]).current_dir(&dir).status().unwrap();
        assert!(got.success(), "downloading {URL}");
        let untar = std::process::Command::new("tar").args(["xzf", "uv.tar.gz"]).current_dir(&dir).status().unwrap();
        assert!(untar.success(), "unpacking uv's source");
    }
    source
}

/// Links a real repository as a project folder: how long until it is mirrored and searchable,
/// and what a natural question with words that only ask finds first.
async fn linked_folder() {
    let folder = std::env::var_os("MARU_BENCH_FOLDER").map(PathBuf::from).unwrap_or_else(uv_source);
    let (s, fake) = with_fake_model().await;
    s.patch("/api/settings", json!({ "memory_mode": "off" })).await;
    let project = s.project("Repository").await;
    let started = Instant::now();
    let (status, body) = s.patch(&format!("/api/projects/{project}"), json!({ "folder": folder.to_str().unwrap() })).await;
    assert!(status.is_success(), "linking {}: {body}", folder.display());
    // Done when no file is waiting to be read and the count has stopped growing.
    let (mut last, mut files, mut bytes) = (usize::MAX, 0, 0u64);
    let mut done = started.elapsed();
    loop {
        let (_, list) = s.get(&format!("/api/attachments?project_id={project}")).await;
        let list = list.as_array().unwrap();
        let waiting = list.iter().any(|f| f["status"] == "indexing");
        if !waiting && list.len() == last && last > 0 {
            break;
        }
        if !waiting && list.len() != last {
            done = started.elapsed();
        }
        (last, files) = (list.len(), list.len());
        bytes = list.iter().map(|f| f["size"].as_u64().unwrap_or(0)).sum();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    println!("\nLinked folder {}:", folder.display());
    println!(
        "  {files} files, {:.1} MB mirrored and searchable in {:.1} s ({:.0} files/s, {:.1} MB/s)",
        bytes as f64 / 1e6,
        done.as_secs_f64(),
        files as f64 / done.as_secs_f64(),
        bytes as f64 / 1e6 / done.as_secs_f64()
    );
    for question in ["how do I pin a Python version", "파이썬 버전을 고정하려면 어떻게 해?"] {
        let session = s.session(Some(project), "q").await;
        fake.push(Reply::tool_call("search_attachment", json!({ "query": question, "limit": 5 }).to_string()));
        fake.push(Reply::text(["ok"]));
        let events = s.say(session, question).await;
        let result = events.iter().find(|e| e.name == "tool_result").expect("the tool ran");
        let text = result.data["content"].as_str().unwrap_or_default();
        let found: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
        match found.is_empty() {
            true => println!("  \"{question}\": {} chars, no passage: {:.120}…", text.chars().count(), text),
            false => println!("  \"{question}\": {} chars, passages:\n    {}", text.chars().count(), found.join("\n    ")),
        }
    }
}

/// What Maru did on one half.
struct Measured {
    /// "by words", or "hybrid (<model>)".
    ranking: String,
    questions: usize,
    answered: usize,
    mean_chars: f64,
    search: Vec<Duration>,
    indexed_mb_s: f64,
    /// Each question's result length, for the baselines: (question index in the half, chars).
    budgets: Vec<usize>,
}

/// Maru on one half: by words, then (with an embeddings model) again once every passage is
/// embedded, searching by words and meaning.
async fn measure(half: &Half, embeddings: Option<&Embeddings>) -> Vec<Measured> {
    let (s, fake) = with_fake_model().await;
    // Only the search is measured: no facts are looked for after each turn.
    s.patch("/api/settings", json!({ "memory_mode": "off" })).await;
    let project = s.project("Documents").await;
    let started = Instant::now();
    let mut bytes = 0usize;
    for (path, text) in &half.files {
        bytes += text.len();
        // A file is uploaded by its own name, as a user drops it in.
        let name = path.rsplit('/').next().unwrap();
        let (status, body) = s.upload("project_id", project, name, text.clone().into_bytes()).await;
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
    let mut out = vec![ask(&s, &fake, project, half, "by words".into(), indexed_mb_s).await];
    if let Some(e) = embeddings {
        let (status, added) = s.post("/api/connections", json!({ "name": "embeddings", "base_url": e.base_url })).await;
        assert!(status.is_success(), "adding the embeddings server: {added}");
        let choice = json!({ "connection_id": added["id"], "model": e.model });
        let (status, set) = s.patch("/api/settings", json!({ "embeddings": choice })).await;
        assert!(status.is_success(), "choosing the embeddings model: {set}");
        let started = Instant::now();
        loop {
            let (_, p) = s.get("/api/embeddings").await;
            assert!(p["failure"].is_null(), "embedding failed: {p}");
            if p["passages"].as_u64().is_some_and(|n| n > 0) && p["embedded"] == p["passages"] {
                eprintln!("  {} passages embedded in {:.1} s", p["passages"], started.elapsed().as_secs_f64());
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        out.push(ask(&s, &fake, project, half, format!("hybrid ({})", e.model), indexed_mb_s).await);
    }
    out
}

/// Each question of the half through a turn in which the model searches with it.
async fn ask(
    s: &maru_tests::server::TestServer,
    fake: &maru_tests::fake_openai::FakeOpenAi,
    project: i64,
    half: &Half,
    ranking: String,
    indexed_mb_s: f64,
) -> Measured {
    let questions = &half.questions;
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
        } else if let Ok(path) = std::env::var("MARU_BENCH_MISSES") {
            // The questions whose result lacks the answer, to study (never the held-out half's).
            let line = json!({ "question": q.text, "answers": q.answers, "result": text });
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
            std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
        }
        let n = text.chars().count();
        chars += n;
        budgets.push(n);
        search.push(search_time(s, &q.text, session, project).await);
        s.delete(&format!("/api/sessions/{session}")).await;
    }
    search.sort();
    Measured {
        ranking,
        questions: questions.len(),
        answered,
        mean_chars: chars as f64 / questions.len().max(1) as f64,
        search,
        indexed_mb_s,
        budgets,
    }
}

/// The search alone, as the tool runs it (the turn around it is not search time): by words, or
/// (with an embeddings model) by words and meaning, the question embedded by the server.
async fn search_time(s: &maru_tests::server::TestServer, query: &str, session: i64, project: i64) -> Duration {
    let ctx = maru::app::ToolContext { session_id: session, project_id: project, message_id: None, store: s.app.store.clone() };
    let args = json!({ "query": query, "limit": 5 }).to_string();
    let t = Instant::now();
    s.app.tools.run(ctx, "search_attachment", &args).await.expect("the search runs");
    t.elapsed()
}

/// The baselines' answer-in-result rates at Maru's budgets: name → rate.
fn baselines(half: &Half, budgets: &[usize]) -> Vec<(String, f64)> {
    let python = std::env::var("MARU_BENCH_PYTHON").unwrap_or_else(|_| venv());
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("half.json");
    let questions: Vec<Value> = half.questions.iter().map(|q| json!({ "question": q.text, "answers": q.answers })).collect();
    let body = json!({ "analysis": half.analysis, "paragraphs": half.paragraphs, "questions": questions, "budgets": budgets });
    std::fs::write(&input, serde_json::to_vec(&body).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/retrieval_baselines.py");
    let out = std::process::Command::new(&python)
        .arg(&script)
        .arg(&input)
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
    let ready =
        std::process::Command::new(&python).args(["-c", "import bm25s, kiwipiepy, mecab, Stemmer"]).status().is_ok_and(|s| s.success());
    if !ready {
        eprintln!("== the baselines' Python packages (bm25s, kiwipiepy, python-mecab-ko, PyStemmer) into {}", venv.display());
        let made = std::process::Command::new("python3").arg("-m").arg("venv").arg(&venv).status().unwrap();
        assert!(made.success(), "python3 -m venv");
        let pip = std::process::Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "bm25s", "kiwipiepy", "python-mecab-ko", "PyStemmer"])
            .status()
            .unwrap();
        assert!(pip.success(), "pip install bm25s kiwipiepy python-mecab-ko PyStemmer");
    }
    python.to_string_lossy().into_owned()
}

fn report(half: &Half, m: &Measured, baselines: &[(String, f64)]) {
    let pct = |d: &[Duration], p: f64| d.get(((d.len() as f64 * p) as usize).min(d.len().saturating_sub(1))).copied().unwrap_or_default();
    let rate = m.answered as f64 / m.questions.max(1) as f64;
    println!("\n{}: {} questions, {}", half.name, m.questions, m.ranking);
    println!(
        "  {:<45} answer in result {:>5.1}%   mean {:>5.0} chars   search p50 {:?} p99 {:?}   indexing {:.1} MB/s",
        "Maru search_attachment",
        rate * 100.0,
        m.mean_chars,
        pct(&m.search, 0.5),
        pct(&m.search, 0.99),
        m.indexed_mb_s
    );
    let rates = baselines.iter().filter(|(n, _)| !n.ends_with("MB/s"));
    for (name, r) in rates.clone() {
        let speed = baselines.iter().find(|(n, _)| *n == format!("{name}, analysis MB/s")).map(|(_, s)| *s);
        let speed = speed.map(|s| format!("   analysis {s:.2} MB/s")).unwrap_or_default();
        println!("  {name:<45} answer in result {:>5.1}%{speed}", r * 100.0);
    }
    let best = rates.clone().filter(|(n, _)| !n.contains("top-5")).map(|(_, r)| *r).fold(0.0, f64::max);
    let best_top5 = rates.filter(|(n, _)| n.contains("top-5")).map(|(_, r)| *r).fold(0.0, f64::max);
    if best > 0.0 {
        println!("  Maru / best baseline at the same budget: {:.3}", rate / best);
        // Maru's result is its top five passages; the baselines' five best paragraphs whole may
        // be longer than Maru's result.
        println!("  Maru / best baseline's top-5 paragraphs whole: {:.3}", rate / best_top5);
    }
}
