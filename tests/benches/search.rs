//! Attachment and chat search benchmark. Prints:
//! 1. indexing ~100 MB of mixed English and Korean text in 100 files: time, MB/s, database growth;
//! 2. `search_attachment` query latency over that index (p50/p99);
//! 3. reading a 300-page PDF;
//! 4. chat search latency over 200,000 messages (p50/p99);
//! 5. hostile queries (a word repeated hundreds of times, hundreds of distinct words, one word of
//!    thousands of letters, up to the URL's 16 KB) over all of it, plus a chat holding one
//!    message of a million characters: p50/p99/max for both searches.
//!
//! Run with `cargo bench -p maru-tests --bench search` (MARU_BENCH_MB to change the 100 MB).

use std::time::{Duration, Instant};

use maru::app::App;
use maru::attachments::Scope;
use maru::store::attachments as table;
use maru::store::{projects, search, sessions};
use rusqlite::params;

const WORDS_EN: &[&str] = &[
    "budget",
    "meeting",
    "schedule",
    "report",
    "quarterly",
    "family",
    "school",
    "holiday",
    "dentist",
    "vacation",
    "invoice",
    "contract",
    "deadline",
    "project",
    "server",
    "model",
    "context",
    "memory",
    "launch",
    "review",
    "travel",
    "insurance",
];
const WORDS_KO: &[&str] = &[
    "회의록을",
    "일정은",
    "예산",
    "보고서가",
    "가족",
    "학교에서",
    "여행",
    "숙소를",
    "계약서",
    "마감",
    "프로젝트",
    "서버",
    "모델이",
    "기억",
    "출시",
    "검토",
    "보험",
    "소풍",
    "달력에",
    "치과",
];

struct Lcg(u64);
impl Lcg {
    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        words[(self.0 >> 33) as usize % words.len()]
    }
}

/// A word of a vocabulary of 20,000 whose frequencies fall off like a natural language's: word
/// `n` is drawn with probability about 1/n (log-uniform), English-like ("w123") or Korean-like
/// (three syllables). The keywords above are mixed in one word in forty.
fn word(rng: &mut Lcg, korean: bool) -> String {
    rng.0 = rng.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let u = (rng.0 >> 11) as f64 / (1u64 << 53) as f64;
    let n = 20_000f64.powf(u) as usize;
    if n % 40 == 1 {
        return (if korean { rng.pick(WORDS_KO) } else { rng.pick(WORDS_EN) }).to_string();
    }
    if korean {
        // Two syllables from 200 spread over the Hangul block (real text uses a few thousand).
        let syllable = |d: usize| char::from_u32(0xac00 + (d % 200) as u32 * 53).unwrap();
        [syllable(n * 7), syllable(n / 200 + n * 3)].iter().collect()
    } else {
        format!("w{n}")
    }
}

/// A paragraph of about 400 bytes, English or Korean.
fn paragraph(rng: &mut Lcg, korean: bool) -> String {
    let mut p = String::new();
    while p.len() < 400 {
        p.push_str(&word(rng, korean));
        p.push(' ');
    }
    p.push('\n');
    p
}

/// A query as a user types it: one or two words of middling frequency, or a keyword.
fn query(rng: &mut Lcg, i: usize) -> String {
    match i % 3 {
        0 => format!("w{} w{}", 50 + i * 7 % 3000, 100 + i * 13 % 2000),
        1 => rng.pick(&["회의록", "일정", "예산", "보고서", "숙소", "budget", "meeting", "report"]).to_string(),
        _ => word(rng, true),
    }
}

fn pct(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[(times.len() - 1) * 99 / 100])
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::open(dir.path()).unwrap();
    let db = dir.path().join("maru.db");
    let size = || std::fs::metadata(&db).unwrap().len() + std::fs::metadata(db.with_extension("db-wal")).map_or(0, |m| m.len());
    let project =
        app.store.with(|c| projects::create(c, &projects::NewProject { name: "Docs".into(), instructions: String::new() })).unwrap().id;
    let session = app
        .store
        .with(|c| sessions::create(c, &sessions::NewSession { title: "s".into(), project_id: Some(project), ..Default::default() }))
        .unwrap()
        .id;

    // 1. Index.
    let megabytes: usize = std::env::var("MARU_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let mut rng = Lcg(7);
    let files: Vec<String> = (0..megabytes)
        .map(|f| {
            let mut text = String::with_capacity(1 << 20);
            let mut n = 0;
            while text.len() < 1 << 20 {
                text.push_str(&paragraph(&mut rng, (f + n) % 3 == 0));
                n += 1;
                if n % 4 == 0 {
                    text.push('\n');
                }
            }
            text
        })
        .collect();
    let before = size();
    let started = Instant::now();
    for (i, text) in files.iter().enumerate() {
        let (a, new) = app.files.add(&app.store, Scope::Project(project), &format!("doc{i}.txt"), text.as_bytes(), 1 << 30).unwrap();
        assert!(new);
        app.files.index(&app.store, &a.sha256, a.kind).await.unwrap();
    }
    let took = started.elapsed();
    let bytes: usize = files.iter().map(String::len).sum();
    rusqlite::Connection::open(&db).unwrap().execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    let passages: i64 = app.store.read_now(|c| Ok(c.query_row("SELECT count(*) FROM passages", [], |r| r.get(0))?)).unwrap();
    println!(
        "indexed {:.0} MB in {} files ({passages} passages) in {took:.1?}: {:.1} MB/s; database grew by {:.0} MB",
        bytes as f64 / 1e6,
        files.len(),
        bytes as f64 / 1e6 / took.as_secs_f64(),
        (size() - before) as f64 / 1e6
    );

    // 2. Queries through the same path as the tool.
    let (mut times, mut found) = (vec![], 0);
    for i in 0..500 {
        let q = query(&mut rng, i);
        let t = Instant::now();
        let hits = app.store.read_now(|c| table::search(c, &q, session, project, None, 5)).unwrap();
        times.push(t.elapsed());
        found += usize::from(!hits.hits.is_empty());
    }
    let (p50, p99) = pct(&mut times);
    println!("search_attachment over that index: p50 {p50:.1?}, p99 {p99:.1?} (500 queries, {found} with passages, up to 5 each)");

    // 3. A 300-page PDF.
    let pages: Vec<String> = (0..300).map(|p| format!("Page {p}: the quarterly budget review and the family travel schedule.")).collect();
    let page_refs: Vec<&str> = pages.iter().map(String::as_str).collect();
    let pdf = maru_tests::pdf::with_pages(&page_refs);
    let t = Instant::now();
    let (read, _) = maru::attachments::extract::pdf_pages_bounded(&pdf, usize::MAX).unwrap();
    println!("read a 300-page PDF ({} KB) in {:.1?} ({} pages)", pdf.len() / 1024, t.elapsed(), read.len());

    // 4. Chat search over 200,000 messages.
    let started = Instant::now();
    app.store
        .with(|c| {
            let mut add = c.prepare(
                "INSERT INTO messages (session_id, role, content, created_at, updated_at, parent_id) VALUES (?1, ?2, ?3, 1, 1, ?4)",
            )?;
            let mut rng = Lcg(11);
            for s in 0..2_000 {
                let sid = sessions::create(
                    c,
                    &sessions::NewSession { title: format!("chat {s}"), project_id: Some(project), ..Default::default() },
                )?
                .id;
                // One branch, as Maru writes a chat: each message follows the one before it.
                let mut parent: Option<i64> = None;
                for m in 0..100 {
                    let text = paragraph(&mut rng, (s + m) % 3 == 0);
                    let text: String = text.chars().take(200).collect();
                    add.execute(params![sid, if m % 2 == 0 { "user" } else { "assistant" }, text, parent])?;
                    parent = Some(c.last_insert_rowid());
                }
            }
            Ok(())
        })
        .unwrap();
    println!("stored and indexed 200,000 messages in {:.1?}", started.elapsed());
    let (mut times, mut found) = (vec![], 0);
    for i in 0..300 {
        let q = query(&mut rng, i);
        let t = Instant::now();
        let hits = app.store.read_now(|c| search::chats(c, &q, 20, false)).unwrap();
        times.push(t.elapsed());
        found += usize::from(!hits.is_empty());
    }
    let (p50, p99) = pct(&mut times);
    println!("chat search over 200,000 messages: p50 {p50:.1?}, p99 {p99:.1?} (300 queries, {found} with results, up to 20 chats each)");

    // 5. Hostile queries, as long as a URL may carry, over all of the above and one chat with a
    // message of a million characters (the longest a message can be).
    app.store
        .with(|c| {
            let sid =
                sessions::create(c, &sessions::NewSession { title: "long".into(), project_id: Some(project), ..Default::default() })?.id;
            let mut rng = Lcg(13);
            let mut text = String::with_capacity(1_100_000);
            while text.chars().count() < 990_000 {
                text.push_str(&paragraph(&mut rng, false));
            }
            c.execute(
                "INSERT INTO messages (session_id, role, content, created_at, updated_at) VALUES (?1, 'assistant', ?2, 1, 1)",
                params![sid, text],
            )?;
            Ok(())
        })
        .unwrap();
    let url_max = 16 * 1024 - 100;
    let fit = |q: String| -> String {
        q.chars()
            .scan(0, |n, c| {
                *n += c.len_utf8();
                (*n <= url_max).then_some(c)
            })
            .collect()
    };
    let mut hostile: Vec<String> = vec![];
    for i in 0..20 {
        hostile.push(fit(format!("{} ", rng.pick(WORDS_EN)).repeat(2000)));
        hostile.push(fit((0..3000).map(|n| format!("w{} ", n * 7 + i)).collect()));
        hostile.push(fit((0..3000).map(|n| format!("{} ", word(&mut rng, n % 2 == 0))).collect()));
        hostile.push(fit("a".repeat(url_max)));
        hostile.push(fit("회".repeat(url_max / 3)));
        hostile.push(fit(WORDS_KO.iter().chain(WORDS_EN).map(|w| format!("{w} ")).collect::<String>().repeat(50)));
    }
    for (what, run) in [
        ("chat search", Box::new(|q: &str| drop(app.store.read_now(|c| search::chats(c, q, 20, false)).unwrap())) as Box<dyn Fn(&str)>),
        ("search_attachment", Box::new(|q: &str| drop(app.store.read_now(|c| table::search(c, q, session, project, None, 5)).unwrap()))),
    ] {
        let mut times = vec![];
        for q in &hostile {
            let t = Instant::now();
            run(q);
            times.push(t.elapsed());
        }
        let max = *times.iter().max().unwrap();
        let (p50, p99) = pct(&mut times);
        println!("{what}, {} hostile queries of up to 16 KB: p50 {p50:.1?}, p99 {p99:.1?}, max {max:.1?}", hostile.len());
    }
}
