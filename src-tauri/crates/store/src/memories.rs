//! Long-term memory: global facts about the user, shared by every session and project (section ⑤).
//! A fact the model proposes waits as `pending` until the user accepts it (unless memory is
//! automatic); only accepted facts reach the prompt. Each keeps the session and message it came
//! from. No path stores a secret (see `secrets`).

use std::collections::HashSet;

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::settings::MemoryMode;
use super::{char_len, found, now_ms, sessions};
use crate::error::{Code, Error, Result};

pub use maru_types::memories::*;

pub const CONTENT_MAX_CHARS: usize = 2_000;
/// Facts sharing at least this share of their words are one fact said twice.
const DUPLICATE_OVERLAP: f64 = 0.6;

/// What became of a proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum Proposed {
    Added(Memory),
    /// A near-duplicate existed: it now says this instead (or said it already).
    Updated(Memory),
    /// A near-duplicate was accepted, and memory is reviewed: this pending change waits beside
    /// it, which stays as it was until the user accepts the change.
    Change {
        change: Memory,
        fact: Memory,
    },
}

const SELECT: &str =
    "SELECT id, content, pinned, status, source_session_id, source_message_id, confirmed_at, replaces, created_at, updated_at FROM memories";

fn from_row(r: &Row) -> rusqlite::Result<Memory> {
    Ok(Memory {
        id: r.get(0)?,
        content: r.get(1)?,
        pinned: r.get(2)?,
        status: r.get(3)?,
        source_session_id: r.get(4)?,
        source_message_id: r.get(5)?,
        confirmed_at: r.get(6)?,
        replaces: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

/// Pinned first, then the most recently confirmed: the order ⑤ uses. It changes only when the
/// user accepts or edits a fact, so the system prompt stays byte-identical turn to turn.
pub fn list(conn: &Connection, filter: MemoryFilter) -> Result<Vec<Memory>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE ?1 = 'all' OR status = ?1 ORDER BY status = 'pending' DESC, pinned DESC, confirmed_at DESC, id DESC"
    ))?;
    let filter = match filter {
        MemoryFilter::Accepted => "accepted",
        MemoryFilter::Pending => "pending",
        MemoryFilter::All => "all",
    };
    let rows = stmt.query_map([filter], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The facts ⑤ carries, in its order.
pub fn accepted(conn: &Connection) -> Result<Vec<Memory>> {
    list(conn, MemoryFilter::Accepted)
}

/// The model proposes a fact. A near-duplicate of an existing fact updates that fact instead of
/// adding one; a new fact is pending, or accepted at once in `MemoryMode::Auto`. In review mode an
/// accepted fact is never rewritten by the model: the new wording waits as a change beside it.
pub fn propose(conn: &Connection, fact: &str, mode: MemoryMode, session_id: Option<i64>, message_id: Option<i64>) -> Result<Proposed> {
    if mode == MemoryMode::Off {
        return Err(Error::invalid(Code::MemoryOff, "saving facts is turned off in settings"));
    }
    let content = clean_content(fact)?;
    if let Some(existing) = duplicate_of(conn, &content)? {
        if word_set(&existing.content) == word_set(&content) {
            return Ok(Proposed::Updated(existing)); // said again: nothing changes
        }
        if mode == MemoryMode::Auto || existing.status == MemoryStatus::Pending {
            // Automatic memory keeps the new wording at once; a proposal not yet reviewed (a new
            // fact or a change) is simply reworded, and keeps what it changes.
            let (status, confirmed) = match mode {
                MemoryMode::Auto => (MemoryStatus::Accepted, Some(now_ms())),
                _ => (MemoryStatus::Pending, existing.confirmed_at),
            };
            if mode == MemoryMode::Auto && existing.replaces.is_some() {
                // A change left pending from review mode: accepting it rewrites its fact.
                conn.execute("UPDATE memories SET content = ?2 WHERE id = ?1", params![existing.id, content])?;
                return Ok(Proposed::Updated(accept(conn, existing.id)?));
            }
            conn.execute(
                "UPDATE memories SET content = ?2, status = ?3, confirmed_at = ?4, updated_at = ?5,
                     source_session_id = coalesce(?6, source_session_id), source_message_id = coalesce(?7, source_message_id)
                 WHERE id = ?1",
                params![existing.id, content, status, confirmed, now_ms(), session_id, message_id],
            )?;
            return Ok(Proposed::Updated(get(conn, existing.id)?));
        }
        return propose_change(conn, &existing, &content, session_id, message_id);
    }
    let (status, confirmed) = match mode {
        MemoryMode::Auto => (MemoryStatus::Accepted, Some(now_ms())),
        _ => (MemoryStatus::Pending, None),
    };
    let now = now_ms();
    conn.execute(
        "INSERT INTO memories (content, status, source_session_id, source_message_id, confirmed_at, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
        params![content, status, session_id, message_id, confirmed, now],
    )?;
    Ok(Proposed::Added(get(conn, conn.last_insert_rowid())?))
}

/// New wording for an accepted fact, in review mode: one pending change per fact (a later one
/// rewords it), the fact itself untouched.
fn propose_change(conn: &Connection, fact: &Memory, content: &str, session_id: Option<i64>, message_id: Option<i64>) -> Result<Proposed> {
    let now = now_ms();
    let waiting: Option<i64> = conn
        .query_row("SELECT id FROM memories WHERE replaces = ?1 AND status = 'pending' ORDER BY id LIMIT 1", [fact.id], |r| r.get(0))
        .optional()?;
    let id = match waiting {
        Some(id) => {
            conn.execute(
                "UPDATE memories SET content = ?2, updated_at = ?3,
                     source_session_id = coalesce(?4, source_session_id), source_message_id = coalesce(?5, source_message_id)
                 WHERE id = ?1",
                params![id, content, now, session_id, message_id],
            )?;
            id
        }
        None => {
            conn.execute(
                "INSERT INTO memories (content, status, replaces, source_session_id, source_message_id, created_at, updated_at)
                 VALUES (?1, 'pending', ?2, ?3, ?4, ?5, ?5)",
                params![content, fact.id, session_id, message_id, now],
            )?;
            conn.last_insert_rowid()
        }
    };
    Ok(Proposed::Change { change: get(conn, id)?, fact: fact.clone() })
}

/// The user accepts a proposal: it joins ⑤ from the next turn. A change to a fact rewrites that
/// fact (its id, pin and place stay) and is gone; the fact is returned.
pub fn accept(conn: &Connection, id: i64) -> Result<Memory> {
    let proposal = get(conn, id)?;
    if let Some(fact) = proposal.replaces {
        conn.execute(
            "UPDATE memories SET content = ?2, status = 'accepted', confirmed_at = ?3, updated_at = ?3,
                 source_session_id = coalesce(?4, source_session_id), source_message_id = coalesce(?5, source_message_id)
             WHERE id = ?1",
            params![fact, proposal.content, now_ms(), proposal.source_session_id, proposal.source_message_id],
        )?;
        conn.execute("DELETE FROM memories WHERE id = ?1", [id])?;
        return get(conn, fact);
    }
    conn.execute("UPDATE memories SET status = 'accepted', confirmed_at = ?2 WHERE id = ?1", params![id, now_ms()])?;
    get(conn, id)
}

/// The fact `content` restates, if any: the one sharing the largest share of words, above
/// DUPLICATE_OVERLAP.
fn duplicate_of(conn: &Connection, content: &str) -> Result<Option<Memory>> {
    let words = word_set(content);
    if words.is_empty() {
        return Ok(None);
    }
    let best = list(conn, MemoryFilter::All)?
        .into_iter()
        .map(|m| {
            let theirs = word_set(&m.content);
            let shared = words.intersection(&theirs).count() as f64;
            (shared / words.len().max(theirs.len()) as f64, m)
        })
        .filter(|(overlap, _)| *overlap >= DUPLICATE_OVERLAP)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    Ok(best.map(|(_, m)| m))
}

/// A fact's terms as attachment search reads text (`terms`): Hangul as syllable bigrams, so a
/// particle does not hide a word (서울에 and 서울에서 share 서울), other words in lower case.
fn word_set(text: &str) -> HashSet<String> {
    maru_retrieval::analysis::words(&maru_retrieval::analysis::index_terms(text)).into_iter().map(str::to_lowercase).collect()
}

/// Accepted facts matching `query`, best first: for the ones ⑤ had no room for.
pub fn search(conn: &Connection, query: &str, limit: usize) -> Result<Vec<Memory>> {
    let words = word_set(query);
    let mut scored: Vec<(usize, Memory)> = accepted(conn)?
        .into_iter()
        .map(|m| {
            let theirs = word_set(&m.content);
            (words.iter().filter(|w| theirs.contains(*w)).count(), m)
        })
        .filter(|(n, _)| *n > 0)
        .collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    Ok(scored.into_iter().take(limit).map(|(_, m)| m).collect())
}

pub fn get(conn: &Connection, id: i64) -> Result<Memory> {
    found(conn.query_row(&format!("{SELECT} WHERE id = ?1"), [id], from_row), "memory", id)
}

pub fn create(conn: &Connection, new: &NewMemory) -> Result<Memory> {
    let content = clean_content(&new.content)?;
    if let Some(sid) = new.source_session_id {
        sessions::get(conn, sid)?;
    }
    let now = now_ms();
    conn.execute(
        "INSERT INTO memories (content, pinned, source_session_id, confirmed_at, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4, ?4)",
        params![content, new.pinned, new.source_session_id, now],
    )?;
    get(conn, conn.last_insert_rowid())
}

pub fn update(conn: &Connection, id: i64, patch: &MemoryPatch) -> Result<Memory> {
    let current = get(conn, id)?;
    let content = match &patch.content {
        Some(c) => clean_content(c)?,
        None => current.content,
    };
    let pinned = patch.pinned.unwrap_or(current.pinned);
    // The user editing an accepted fact confirms it again; a pending one stays pending.
    let confirmed = match current.status {
        MemoryStatus::Accepted if patch.content.is_some() => Some(now_ms()),
        _ => current.confirmed_at,
    };
    conn.execute(
        "UPDATE memories SET content = ?2, pinned = ?3, updated_at = ?4, confirmed_at = ?5 WHERE id = ?1",
        params![id, content, pinned, now_ms(), confirmed],
    )?;
    get(conn, id)
}

pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    get(conn, id)?;
    conn.execute("DELETE FROM memories WHERE id = ?1", [id])?;
    Ok(())
}

/// The fact as stored: its visible text, trimmed, within the column's bound. (What may not be a
/// fact at all, a secret, is the core's to refuse: `memory::refuse_secret`.)
fn clean_content(raw: &str) -> Result<String> {
    let content = super::text::visible_text(raw);
    let content = content.trim();
    if content.is_empty() {
        return Err(Error::invalid(Code::InvalidMemory, "a memory needs some text"));
    }
    let len = char_len(content);
    if len > CONTENT_MAX_CHARS {
        return Err(Error::invalid(
            Code::InvalidMemory,
            format!("a memory can have at most {CONTENT_MAX_CHARS} characters (this one has {len}); keep facts short"),
        ));
    }
    Ok(content.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn facts(store: &Store) -> Vec<(String, MemoryStatus, Option<i64>)> {
        let all = store.with(|c| list(c, MemoryFilter::All)).unwrap();
        all.into_iter().map(|m| (m.content, m.status, m.replaces)).collect()
    }

    #[test]
    fn korean_particles_do_not_hide_a_duplicate_nor_a_search_match() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("maru.db")).unwrap();
        let kept = store.with(|c| create(c, &NewMemory { content: "서울에 산다".into(), ..Default::default() })).unwrap();
        let proposed = store.with(|c| propose(c, "서울에서 산다", MemoryMode::Auto, None, None)).unwrap();
        assert!(
            matches!(&proposed, Proposed::Updated(m) if m.id == kept.id),
            "서울에 산다 and 서울에서 산다 say one thing: the fact is updated, not repeated ({proposed:?})"
        );
        let found = store.with(|c| search(c, "서울에서", 5)).unwrap();
        assert_eq!(found.len(), 1, "search_memory finds a fact whatever particle the question uses");
        let unrelated = store.with(|c| search(c, "부산", 5)).unwrap();
        assert!(unrelated.is_empty(), "and not a fact that does not say it: {unrelated:?}");
    }

    #[test]
    fn in_review_mode_the_model_never_rewrites_an_accepted_fact() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("maru.db")).unwrap();
        let fact =
            store.with(|c| create(c, &NewMemory { content: "Has two cats named Nabi and Kong.".into(), ..Default::default() })).unwrap();
        match store.with(|c| propose(c, "Has three cats named Nabi and Kong.", MemoryMode::Review, None, None)).unwrap() {
            Proposed::Change { fact: was, .. } => assert_eq!(was.id, fact.id, "the change names the fact it would change"),
            other => panic!("a change to an accepted fact waits beside it, got {other:?}"),
        }
        assert_eq!(
            facts(&store),
            [
                ("Has three cats named Nabi and Kong.".to_string(), MemoryStatus::Pending, Some(fact.id)),
                ("Has two cats named Nabi and Kong.".to_string(), MemoryStatus::Accepted, None)
            ],
            "the fact stays accepted, as it reads, beside the change"
        );
        // A second wording while the first waits rewords the one change.
        store.with(|c| propose(c, "Has three cats named Nabi, Kong and Bori.", MemoryMode::Review, None, None)).unwrap();
        assert_eq!(facts(&store).len(), 2, "one change per fact: {:?}", facts(&store));
        // Auto mode, later: the waiting change is accepted into its fact, not left as a copy.
        store.with(|c| propose(c, "Has four cats named Nabi, Kong and Bori.", MemoryMode::Auto, None, None)).unwrap();
        assert_eq!(
            facts(&store),
            [("Has four cats named Nabi, Kong and Bori.".to_string(), MemoryStatus::Accepted, None)],
            "automatic memory takes the waiting change into its fact"
        );
    }
}
