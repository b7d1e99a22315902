//! Text as the search index reads it, and queries in the same form.
//!
//! Korean attaches particles to words (회의록을, 일정은) and many words are two syllables. SQLite's
//! `unicode61` tokenizer keeps 회의록을 as one token, so 회의록 does not find it; `trigram` cannot
//! match a two-syllable word at all. So every run of Hangul syllables is written as its syllable
//! bigrams (회의록을 → 회의 의록 록을) and a Hangul query word becomes the phrase of its bigrams
//! ("회의 의록"), which matches inside any longer run: particles, compounds, two syllables. Other
//! text passes through to `porter unicode61`, which stems English (meetings → meet).
//!
//! Measured by `tests::recall_on_the_corpus` (20 queries on a small Korean and English corpus;
//! a query counts when its passage is ranked first):
//!
//! | index                       | Korean particle | Korean 2-syllable | English inflection |
//! |-----------------------------|-----------------|-------------------|--------------------|
//! | unicode61, exact words      | 0 / 6           | 2 / 5             | 1 / 8              |
//! | unicode61 + prefix queries  | 6 / 6           | 5 / 5             | 6 / 8              |
//! | trigram                     | 2 / 6           | 0 / 5             | 6 / 8              |
//! | Hangul bigrams + porter     | 6 / 6           | 5 / 5             | 8 / 8              |
//!
//! Prefix queries find particles but not a word inside a compound, and every prefix query scans
//! a range of the index. Morphological analysers were measured by the retrieval benchmark
//! (KorQuAD tuning half, 1,000 questions, BM25 at Maru's result length): MeCab-ko 99.0%, Kiwi
//! 98.3%, these bigrams 99.0%; the analysers ship a dictionary or model of over 100 MB and analyse
//! at 0.05–0.4 MB/s. A particle-stripped word indexed beside the bigrams lost answers (97.1%).

/// Hangul syllables (가–힣).
fn is_syllable(c: char) -> bool {
    ('\u{ac00}'..='\u{d7a3}').contains(&c)
}

/// `text` with each run of Hangul syllables replaced by its bigrams (a lone syllable stays).
pub fn index_terms(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut run: Vec<char> = vec![];
    for c in text.chars() {
        if is_syllable(c) {
            run.push(c);
            continue;
        }
        flush(&mut run, &mut out);
        out.push(c);
    }
    flush(&mut run, &mut out);
    out
}

fn flush(run: &mut Vec<char>, out: &mut String) {
    if run.is_empty() {
        return;
    }
    out.push(' ');
    out.push_str(&bigrams(run).join(" "));
    out.push(' ');
    run.clear();
}

fn bigrams(run: &[char]) -> Vec<String> {
    if run.len() == 1 {
        return vec![run[0].to_string()];
    }
    run.windows(2).map(|w| w.iter().collect()).collect()
}

/// What the index reads for a passage: the headings it sits under, then its text. A question in
/// the words of a section's title finds the section's paragraphs, not only its first one.
pub fn passage_terms(heading: Option<&str>, text: &str) -> String {
    match heading {
        Some(h) => format!("{h}\n{text}"),
        None => text.to_string(),
    }
}

/// English words that ask rather than say what is asked about ("how do I pin a Python version").
/// A query leaves them out unless nothing else is left: required, they keep a passage that has
/// the words that matter from matching; in any order, they match most of the index.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "could", "did", "do", "does", "for", "from", "get", "how", "i", "if",
    "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "should", "so", "that", "the", "there", "this", "to", "use", "was", "we",
    "what", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
];

fn telling(word: &str) -> bool {
    !STOP_WORDS.contains(&word.to_ascii_lowercase().as_str())
}

/// A query uses at most this many distinct words; the rest are ignored. Each word is one more
/// phrase for FTS5 to match and rank and one more needle in the excerpt, so without a bound a
/// pasted paragraph of a query costs seconds; past a dozen words ranking gains nothing.
pub const QUERY_MAX_WORDS: usize = 16;
/// Longer words are cut to this many characters (no real word is longer; a run of 10,000 letters
/// would otherwise be one huge phrase of bigrams).
pub const WORD_MAX_CHARS: usize = 64;

/// The words of a query: runs of letters and digits.
pub fn words(input: &str) -> Vec<&str> {
    input.split(|c: char| !(c.is_alphanumeric() || is_syllable(c))).filter(|w| !w.is_empty()).collect()
}

/// The words a search looks for: [`words`] without repeats (ignoring case), each at most
/// [`WORD_MAX_CHARS`], at most [`QUERY_MAX_WORDS`] of them, in the order typed. The work of a
/// query is bounded by these, whatever was typed.
pub fn query_words(input: &str) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    let mut out = vec![];
    for word in words(input) {
        let word = match word.char_indices().nth(WORD_MAX_CHARS) {
            Some((cut, _)) => &word[..cut],
            None => word,
        };
        if seen.insert(word.to_lowercase()) {
            out.push(word);
            if out.len() == QUERY_MAX_WORDS {
                break;
            }
        }
    }
    out
}

/// An FTS5 query for what a user or a model typed: words joined by OR (BM25 ranks passages with
/// more of them first), each Hangul word as its bigrams, any of which may match. `None` when
/// nothing searchable is left. Quotes keep FTS5 syntax in the input from being read as operators.
///
/// Measured by the retrieval benchmark (KorQuAD 1.0 dev, tuning half, 400 questions, answer in
/// the result): a Hangul word as the phrase of all its bigrams 91.8%, as any of them 97.2%
/// (BM25 over Kiwi morphemes at the same budget: 99.0%).
pub fn query(input: &str) -> Option<String> {
    let mut terms = vec![];
    for phrase in phrases(input)? {
        // A Hangul word's ending differs from question to answer (설립되었는가 / 설립된): any of
        // its bigrams may match, and BM25 ranks passages sharing more of them first.
        let inner = phrase.trim_matches('"');
        if inner.chars().any(is_syllable) {
            terms.extend(inner.split(' ').map(|t| format!("\"{t}\"")));
        } else {
            terms.push(phrase);
        }
    }
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    Some(terms.join(" OR "))
}

/// The same words, all required: fewer and better matches, and far cheaper to rank when a word
/// is common. Searches try it first and fall back to [`query`].
pub fn query_all(input: &str) -> Option<String> {
    phrases(input).map(|p| p.join(" AND "))
}

fn phrases(input: &str) -> Option<Vec<String>> {
    let mut parts = vec![];
    let mut words = query_words(input);
    if words.iter().any(|w| telling(w)) {
        words.retain(|w| telling(w));
    }
    for word in words {
        let mut pieces: Vec<String> = vec![];
        let mut run: Vec<char> = vec![];
        let mut other = String::new();
        for c in word.chars() {
            if is_syllable(c) {
                if !other.is_empty() {
                    pieces.push(std::mem::take(&mut other));
                }
                run.push(c);
            } else {
                if !run.is_empty() {
                    pieces.extend(bigrams(&run));
                    run.clear();
                }
                other.push(c);
            }
        }
        if !run.is_empty() {
            pieces.extend(bigrams(&run));
        }
        if !other.is_empty() {
            pieces.push(other);
        }
        let phrase = pieces.iter().map(|p| p.replace('"', "")).collect::<Vec<_>>().join(" ");
        if !phrase.trim().is_empty() {
            parts.push(format!("\"{phrase}\""));
        }
    }
    (!parts.is_empty()).then_some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hangul_runs_become_bigrams() {
        assert_eq!(index_terms("회의록을 보자").split_whitespace().collect::<Vec<_>>(), ["회의", "의록", "록을", "보자"]);
        assert_eq!(index_terms("vLLM을 씀").split_whitespace().collect::<Vec<_>>(), ["vLLM", "을", "씀"]);
    }

    #[test]
    fn queries_are_phrases_of_bigrams_and_never_fts_syntax() {
        assert_eq!(query("회의록").as_deref(), Some("\"회의\" OR \"의록\""), "an ending may differ: any bigram counts");
        assert_eq!(query_all("회의록").as_deref(), Some("\"회의 의록\""), "all of a word, where every word is required");
        assert_eq!(query("일정 meeting").as_deref(), Some("\"일정\" OR \"meeting\""));
        assert_eq!(query("NEAR(\"x\" NOT y)*").as_deref(), Some("\"NEAR\" OR \"x\" OR \"NOT\" OR \"y\""), "operators typed are words");
        assert_eq!(query(" !? "), None);
    }

    #[test]
    fn words_that_only_ask_are_left_out_unless_nothing_else_is_left() {
        assert_eq!(
            query_all("how do I pin a Python version").as_deref(),
            Some("\"pin\" AND \"Python\" AND \"version\""),
            "a passage about pinning need not also say 'how', 'do', 'I' and 'a'"
        );
        assert_eq!(query("What is it").as_deref(), Some("\"What\" OR \"is\" OR \"it\""), "a query of only such words is searched as typed");
    }

    #[test]
    fn a_passage_is_found_by_the_words_of_its_headings() {
        let terms = passage_terms(Some("설치 › 버전 고정"), "The `.python-version` file is read.");
        assert!(index_terms(&terms).contains("고정"), "the heading's words are indexed with the passage");
        assert_eq!(passage_terms(None, "text"), "text");
    }

    #[test]
    fn a_query_is_bounded_whatever_is_typed() {
        let repeated = "budget Budget BUDGET ".repeat(300);
        assert_eq!(query(&repeated).as_deref(), Some("\"budget\""), "a word repeated is searched once");
        let many: String = (0..500).map(|n| format!("word{n} ")).collect();
        assert_eq!(query_words(&many).len(), QUERY_MAX_WORDS, "at most {QUERY_MAX_WORDS} words are searched");
        let long = "a".repeat(10_000);
        assert_eq!(query_words(&long)[0].chars().count(), WORD_MAX_CHARS, "a huge word is cut");
        let korean = "회".repeat(10_000);
        assert!(query(&korean).unwrap().len() < 1_000, "a huge Hangul run is cut before it becomes bigrams");
    }

    /// Passages of a small mixed corpus, and queries with the passage that must come first.
    const CORPUS: &[&str] = &[
        "지난주 회의록을 정리했습니다. 다음 회의는 수요일 오후 세 시입니다.",
        "아이들 학교 일정은 달력에 적어 두었어요. 소풍은 다음 달 셋째 주 금요일.",
        "가족 여행 계획: 제주도 숙소는 바닷가 근처로 예약했다.",
        "예산 보고서와 분기별 매출을 비교하면 비용이 줄었다.",
        "The meetings were moved to Thursday; the quarterly report is attached.",
        "Running vLLM on a DGX Spark needs the CUDA drivers installed first.",
        "Our family calendar lists school holidays and the dentist appointments.",
        "Budgeting tips: track every expense and review the spending each month.",
    ];
    const QUERIES: &[(&str, usize, &str)] = &[
        ("회의록", 0, "particle"),
        ("회의", 0, "2-syllable"),
        ("일정", 1, "particle"),
        ("학교", 1, "2-syllable"),
        ("소풍", 1, "2-syllable"),
        ("숙소", 2, "2-syllable"),
        ("여행", 2, "2-syllable"),
        ("보고서", 3, "particle"),
        ("매출", 3, "particle"),
        ("비용", 3, "particle"),
        ("달력", 1, "particle"),
        ("제주도", 2, "plain"),
        ("meeting", 4, "inflection"),
        ("reports", 4, "inflection"),
        ("drivers", 5, "inflection"),
        ("install", 5, "inflection"),
        ("holiday", 6, "inflection"),
        ("appointment", 6, "inflection"),
        ("budget", 7, "inflection"),
        ("expenses", 7, "inflection"),
    ];

    /// Top passage for `query` in an FTS5 table built with `tokenize`, indexing `prepare(text)`.
    fn top(conn: &rusqlite::Connection, table: &str, query: &str) -> Option<usize> {
        let sql = format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY bm25({table}) LIMIT 1");
        conn.query_row(&sql, [query], |r| r.get::<_, i64>(0)).ok().map(|id| id as usize - 1)
    }

    #[test]
    fn recall_on_the_corpus() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        type Variant = (&'static str, &'static str, fn(&str) -> String, fn(&str) -> Option<String>);
        let variants: &[Variant] = &[
            ("unicode61, exact words", "unicode61", |t| t.to_string(), |q| Some(format!("\"{q}\""))),
            ("unicode61 + prefix queries", "unicode61", |t| t.to_string(), |q| Some(format!("\"{q}\"*"))),
            ("trigram", "trigram", |t| t.to_string(), |q| Some(format!("\"{q}\""))),
            ("Hangul bigrams + porter", "porter unicode61 remove_diacritics 2", index_terms, query),
        ];
        let mut table = vec![];
        for (i, (label, tokenize, prepare, make_query)) in variants.iter().enumerate() {
            let name = format!("v{i}");
            conn.execute_batch(&format!("CREATE VIRTUAL TABLE {name} USING fts5(t, tokenize = '{tokenize}')")).unwrap();
            for (n, text) in CORPUS.iter().enumerate() {
                conn.execute(&format!("INSERT INTO {name} (rowid, t) VALUES (?1, ?2)"), rusqlite::params![n as i64 + 1, prepare(text)])
                    .unwrap();
            }
            let mut right: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
            for (q, want, case) in QUERIES {
                let got = make_query(q).and_then(|fts| top(&conn, &name, &fts));
                let e = right.entry(case).or_default();
                e.1 += 1;
                if got == Some(*want) {
                    e.0 += 1;
                }
            }
            table.push((label.to_string(), right));
        }
        for (label, right) in &table {
            let cells: Vec<String> = right.iter().map(|(case, (ok, n))| format!("{case} {ok}/{n}")).collect();
            eprintln!("{label:<28} {}", cells.join("  "));
        }
        let ours = &table.last().unwrap().1;
        for (case, (ok, n)) in ours {
            assert_eq!(ok, n, "the chosen index must rank the right passage first for every {case} query");
        }
    }
}
