//! Messages of a session. An assistant reply is stored as `streaming` while it arrives and ends
//! `complete`, `stopped`, `interrupted` or `error`.
//!
//! A session's messages form a tree (migration 0013): each follows its `parent_id`, and a
//! regenerate or an edit-and-resend adds a sibling, a new version, instead of replacing what was
//! there. One version per parent is `chosen`; the messages whose every ancestor is chosen are
//! `on_path`, the chosen branch, which is what the chat shows and the model reads. Ids only grow
//! along a branch, so the branch in id order is the conversation in order.

use rusqlite::{params, Connection, Row};

use super::{char_len, found, now_ms, sessions};
use crate::error::{Code, Error, Result};
use maru_types::tool_calls::ToolCall;
use maru_types::tool_outcomes::ToolOutcome;

pub use maru_types::messages::*;

pub const CONTENT_MAX_CHARS: usize = 1_000_000;
pub const PAGE_DEFAULT: usize = 50;
pub const PAGE_MAX: usize = 500;

/// `Message::error_code` of replies that ended without a model-server failure (those are
/// `model_server.<code>`). The UI has a sentence for each (ui/src/lib/errors.ts; its test reads
/// these constants).
pub const ERROR_CODE_REPLY_TOO_LONG: &str = Code::ReplyTooLong.as_str();
pub const ERROR_CODE_TOO_MANY_TOOL_ROUNDS: &str = Code::TooManyToolRounds.as_str();
pub const ERROR_CODE_INTERRUPTED: &str = Code::Interrupted.as_str();
pub const ERROR_CODE_INTERRUPTED_BEFORE_START: &str = Code::InterruptedBeforeStart.as_str();

#[derive(Debug, Clone, Default)]
pub struct NewMessage<'a> {
    pub session_id: i64,
    pub role: Role,
    pub content: &'a str,
    pub status: Status,
    pub model: Option<&'a str>,
    /// The model server's name, for a reply.
    pub server: Option<&'a str>,
    pub runtime_note: Option<&'a str>,
    pub tool_calls: &'a [ToolCall],
    pub tool_call_id: Option<&'a str>,
    pub tool_name: Option<&'a str>,
    /// A tool result's outcome as data.
    pub tool_outcome: Option<&'a ToolOutcome>,
    pub images: &'a [i64],
}

/// What a finished reply records besides its text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplyStats {
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub cached_tokens: Option<i64>,
    pub ttft_ms: Option<i64>,
    pub tokens_per_second: Option<f64>,
}

/// The columns of a `Message`, with `$versions` the sub-query for its versions.
macro_rules! select {
    ($versions:literal) => {
        concat!(
            "SELECT id, session_id, role, content, status, error, model, prompt_tokens,
    completion_tokens, cached_tokens, ttft_ms, tokens_per_second, created_at, updated_at,
    runtime_note, reasoning, tool_calls, tool_call_id, tool_name,
    (SELECT group_concat(attachment_id) FROM (SELECT attachment_id FROM message_images WHERE message_id = messages.id ORDER BY position)),
    error_code, parent_id, server, tool_outcome, ",
            $versions,
            " FROM messages"
        )
    };
}
const SELECT: &str = select!(
    "(SELECT CASE WHEN count(*) > 1 THEN group_concat(v.id, ',' ORDER BY v.id) END FROM messages v
     WHERE v.session_id = messages.session_id AND v.parent_id IS messages.parent_id)"
);
/// For the model's history: its versions are left out (empty), as nothing there reads them and a
/// turn reads every message of the branch.
const SELECT_BRANCH: &str = select!("NULL");

fn from_row(r: &Row) -> rusqlite::Result<Message> {
    Ok(Message {
        id: r.get(0)?,
        session_id: r.get(1)?,
        role: r.get(2)?,
        content: r.get(3)?,
        status: r.get(4)?,
        error: r.get(5)?,
        error_code: r.get(20)?,
        model: r.get(6)?,
        prompt_tokens: r.get(7)?,
        completion_tokens: r.get(8)?,
        cached_tokens: r.get(9)?,
        ttft_ms: r.get(10)?,
        tokens_per_second: r.get(11)?,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
        runtime_note: r.get(14)?,
        reasoning: r.get(15)?,
        tool_calls: r.get::<_, Option<String>>(16)?.and_then(|j| serde_json::from_str(&j).ok()).unwrap_or_default(),
        tool_call_id: r.get(17)?,
        tool_name: r.get(18)?,
        images: ids(r.get(19)?),
        parent_id: r.get(21)?,
        server: r.get(22)?,
        tool_outcome: r.get::<_, Option<String>>(23)?.and_then(|j| serde_json::from_str(&j).ok()),
        versions: ids(r.get(24)?),
    })
}

fn ids(list: Option<String>) -> Vec<i64> {
    list.map(|ids| ids.split(',').filter_map(|i| i.parse().ok()).collect()).unwrap_or_default()
}

pub fn get(conn: &Connection, id: i64) -> Result<Message> {
    found(conn.prepare_cached(&format!("{SELECT} WHERE id = ?1"))?.query_row([id], from_row), "message", id)
}

/// Adds a message at the end of the chosen branch.
pub fn insert(conn: &Connection, new: &NewMessage) -> Result<Message> {
    let id = insert_id(conn, new)?;
    get(conn, id)
}

/// [`insert`] for a caller that needs only the new message's id: a turn's streaming reply, on
/// the way to the model server's request. It skips reading the row back, whose versions grow
/// with every regenerate.
pub fn insert_id(conn: &Connection, new: &NewMessage) -> Result<i64> {
    sessions::get(conn, new.session_id)?;
    check_content(new.content)?;
    let now = now_ms();
    conn.prepare_cached(
        "INSERT INTO messages (session_id, role, content, status, model, runtime_note, tool_calls, tool_call_id, tool_name, created_at, updated_at,
             parent_id, server, tool_outcome)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10,
             (SELECT max(id) FROM messages WHERE session_id = ?1 AND on_path = 1), ?11, ?12)",
    )?
    .execute(params![
        new.session_id,
        new.role,
        new.content,
        new.status,
        new.model,
        new.runtime_note,
        tool_calls_json(new.tool_calls),
        new.tool_call_id,
        new.tool_name,
        now,
        new.server,
        new.tool_outcome.map(|o| serde_json::to_string(o).unwrap_or_default())
    ])?;
    let id = conn.last_insert_rowid();
    for (position, image) in new.images.iter().enumerate() {
        conn.prepare_cached("INSERT INTO message_images (message_id, attachment_id, position) VALUES (?1, ?2, ?3)")?.execute(params![
            id,
            image,
            position as i64
        ])?;
    }
    sessions::touch(conn, new.session_id)?;
    Ok(id)
}

/// A page of the chosen branch, newest first, older than `before` when given.
pub fn list(conn: &Connection, session_id: i64, before: Option<i64>, limit: Option<usize>) -> Result<MessagePage> {
    sessions::get(conn, session_id)?;
    let limit = limit.unwrap_or(PAGE_DEFAULT).clamp(1, PAGE_MAX);
    let mut stmt = conn.prepare_cached(&format!("{SELECT} WHERE session_id = ?1 AND on_path = 1 AND id < ?2 ORDER BY id DESC LIMIT ?3"))?;
    let mut messages = stmt
        .query_map(params![session_id, before.unwrap_or(i64::MAX), limit as i64 + 1], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let next_before = if messages.len() > limit {
        messages.truncate(limit);
        messages.last().map(|m| m.id)
    } else {
        None
    };
    Ok(MessagePage { messages, next_before })
}

/// The whole conversation on the chosen branch, oldest first: what the model reads (without
/// `versions`).
pub fn history(conn: &Connection, session_id: i64) -> Result<Vec<Message>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT_BRANCH} WHERE session_id = ?1 AND on_path = 1 ORDER BY id"))?;
    let rows = stmt.query_map([session_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The conversation after message `after_id` (the part no summary covers), oldest first.
pub fn history_after(conn: &Connection, session_id: i64, after_id: i64) -> Result<Vec<Message>> {
    let mut stmt = conn.prepare_cached(&format!("{SELECT_BRANCH} WHERE session_id = ?1 AND on_path = 1 AND id > ?2 ORDER BY id"))?;
    let rows = stmt.query_map(params![session_id, after_id], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The id of the last message from the user on the chosen branch, if any.
pub fn last_user_id(conn: &Connection, session_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT max(id) FROM messages WHERE session_id = ?1 AND on_path = 1 AND role = 'user'")?
        .query_row([session_id], |r| r.get(0))?)
}

/// The user edits a message's text.
pub fn edit(conn: &Connection, id: i64, content: &str) -> Result<Message> {
    let message = get(conn, id)?;
    if message.status == Status::Streaming {
        return Err(Error::conflict(Code::MessageStreaming, "this reply is still streaming; stop it before editing"));
    }
    if content.trim().is_empty() {
        return Err(Error::invalid(Code::EmptyMessage, "a message cannot be empty; delete it instead"));
    }
    check_content(content)?;
    conn.execute("UPDATE messages SET content = ?2, updated_at = ?3 WHERE id = ?1", params![id, content, now_ms()])?;
    super::summaries::forget_from(conn, message.session_id, id)?;
    get(conn, id)
}

/// Saves the partial text of a reply that is still streaming. False when the reply is no longer
/// there to write to (deleted with its session): the turn must stop, not write elsewhere.
pub fn save_partial(conn: &Connection, session_id: i64, id: i64, content: &str) -> Result<bool> {
    let n = conn
        .prepare_cached("UPDATE messages SET content = ?3, updated_at = ?4 WHERE id = ?1 AND session_id = ?2 AND status = 'streaming'")?
        .execute(params![id, session_id, content, now_ms()])?;
    Ok(n == 1)
}

/// How a reply ended: its final text, status, error (if any), reasoning and tool calls.
#[derive(Debug, Clone, Default)]
pub struct Ending<'a> {
    pub content: &'a str,
    pub status: Status,
    pub error: Option<&'a str>,
    pub error_code: Option<&'a str>,
    pub reasoning: Option<&'a str>,
    pub tool_calls: &'a [ToolCall],
}

/// Ends a streaming reply with its figures. `None` when the reply is no longer there (its
/// session or the reply itself was deleted meanwhile): nothing else is written.
pub fn finish(conn: &Connection, session_id: i64, id: i64, end: &Ending, stats: &ReplyStats) -> Result<Option<Message>> {
    let n = conn
        .prepare_cached(
            "UPDATE messages SET content = ?2, status = ?3, error = ?4, prompt_tokens = ?5, completion_tokens = ?6,
            cached_tokens = ?7, ttft_ms = ?8, tokens_per_second = ?9, updated_at = ?10, reasoning = ?11, tool_calls = ?12,
            error_code = ?14
         WHERE id = ?1 AND session_id = ?13 AND status = 'streaming'",
        )?
        .execute(params![
            id,
            end.content,
            end.status,
            end.error,
            stats.prompt_tokens,
            stats.completion_tokens,
            stats.cached_tokens,
            stats.ttft_ms,
            stats.tokens_per_second,
            now_ms(),
            end.reasoning.filter(|r| !r.is_empty()),
            tool_calls_json(end.tool_calls),
            session_id,
            end.error_code
        ])?;
    if n == 0 {
        return Ok(None);
    }
    get(conn, id).map(Some)
}

fn tool_calls_json(calls: &[ToolCall]) -> Option<String> {
    (!calls.is_empty()).then(|| serde_json::to_string(calls).expect("tool calls serialise"))
}

/// Deletes a message. A version goes with everything that followed it on its branch, and the
/// version before it (or else after it) is shown instead; a message without versions goes alone,
/// and what followed it now follows its parent.
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    let message = get(conn, id)?;
    let at = node(conn, id)?;
    let session_id = message.session_id;
    if message.versions.len() > 1 {
        conn.execute(
            "WITH RECURSIVE branch(id) AS (
                 SELECT ?1 UNION ALL SELECT m.id FROM messages m JOIN branch b ON m.session_id = ?2 AND m.parent_id = b.id)
             DELETE FROM messages WHERE id IN branch",
            params![id, session_id],
        )?;
        if at.chosen {
            let rest = message.versions.iter().filter(|&&v| v != id);
            let instead = rest.clone().rfind(|&&v| v < id).or_else(|| rest.clone().next()).copied();
            if let Some(instead) = instead {
                conn.execute("UPDATE messages SET chosen = 1 WHERE id = ?1", [instead])?;
            }
            if at.on_path {
                refresh_path(conn, session_id, message.parent_id)?;
            }
        }
    } else {
        conn.execute(
            "UPDATE messages SET parent_id = ?3 WHERE session_id = ?1 AND parent_id = ?2",
            params![session_id, id, message.parent_id],
        )?;
        conn.execute("DELETE FROM messages WHERE id = ?1", [id])?;
    }
    if at.on_path {
        super::summaries::forget_from(conn, session_id, id)?;
    }
    Ok(())
}

/// Starts a new version after `parent` (`None`: of the chat's first message): the chosen branch
/// now ends at `parent`, and what followed it stays as an earlier version. The next message
/// inserted is the new version.
pub fn branch_at(conn: &Connection, session_id: i64, parent: Option<i64>) -> Result<()> {
    // Only the chosen sibling changes: rewriting every earlier version's row would cost a
    // regenerate more the more versions a reply has.
    conn.prepare_cached("UPDATE messages SET chosen = 0 WHERE session_id = ?1 AND parent_id IS ?2 AND chosen = 1")?
        .execute(params![session_id, parent])?;
    // No version after `parent` is chosen now, so the branch simply ends there: the walk of
    // `refresh_path` would find nothing to follow, and a regenerate would wait for it.
    leave_path_after(conn, session_id, parent)?;
    super::summaries::forget_from(conn, session_id, parent.map_or(0, |p| p + 1))?;
    Ok(())
}

/// Shows version `id`: it and every message it follows become the chosen ones among their
/// siblings, and the chosen branch runs through it (and on along the versions last chosen after
/// it). Returns its session.
pub fn choose(conn: &Connection, id: i64) -> Result<i64> {
    let mut at = node(conn, id)?;
    let session_id = at.session_id;
    if at.on_path {
        return Ok(session_id);
    }
    // Up from the version to the chosen branch: each step becomes its siblings' chosen one.
    let from = loop {
        conn.execute(
            "UPDATE messages SET chosen = (id = ?3) WHERE session_id = ?1 AND parent_id IS ?2 AND chosen <> (id = ?3)",
            params![session_id, at.parent_id, at.id],
        )?;
        match at.parent_id {
            None => break None,
            Some(parent) => {
                at = node(conn, parent)?;
                if at.on_path {
                    break Some(parent);
                }
            }
        }
    };
    refresh_path(conn, session_id, from)?;
    super::summaries::forget_from(conn, session_id, from.map_or(0, |p| p + 1))?;
    Ok(session_id)
}

/// Where a message sits in its chat's tree.
struct Node {
    id: i64,
    session_id: i64,
    parent_id: Option<i64>,
    chosen: bool,
    on_path: bool,
}

fn node(conn: &Connection, id: i64) -> Result<Node> {
    found(
        conn.query_row("SELECT id, session_id, parent_id, chosen, on_path FROM messages WHERE id = ?1", [id], |r| {
            Ok(Node { id: r.get(0)?, session_id: r.get(1)?, parent_id: r.get(2)?, chosen: r.get(3)?, on_path: r.get(4)? })
        }),
        "message",
        id,
    )
}

/// Recomputes the chosen branch after `from` (a message on it, or `None` for the whole chat):
/// down from there, through each parent's chosen version.
fn refresh_path(conn: &Connection, session_id: i64, from: Option<i64>) -> Result<()> {
    leave_path_after(conn, session_id, from)?;
    conn.prepare_cached(
        "WITH RECURSIVE branch(id) AS (
             SELECT id FROM messages WHERE session_id = ?1 AND parent_id IS ?2 AND chosen = 1
             UNION ALL
             SELECT m.id FROM messages m JOIN branch b ON m.session_id = ?1 AND m.parent_id = b.id AND m.chosen = 1)
         UPDATE messages SET on_path = 1 WHERE id IN branch",
    )?
    .execute(params![session_id, from])?;
    Ok(())
}

/// Ends the chosen branch at `from` (`None`: before the chat's first message).
fn leave_path_after(conn: &Connection, session_id: i64, from: Option<i64>) -> Result<()> {
    // Ids only grow along the branch: what followed `from` on it has greater ids.
    conn.prepare_cached("UPDATE messages SET on_path = 0 WHERE session_id = ?1 AND on_path = 1 AND id > ?2")?
        .execute(params![session_id, from.unwrap_or(0)])?;
    Ok(())
}

/// At start-up (by the one process that owns the data folder): replies left `streaming` by a
/// crash or a closed window become `interrupted`, and in the chats whose turn was cut
/// (`turns::take_cut`) a question that never got a reply (killed in between; or a regenerate that
/// had not begun its new version) gets an empty `interrupted` reply saying so, which the UI
/// offers to retry. A chat that merely ends with a question (its reply deleted) is left alone.
/// Returns how many replies were marked.
pub fn mark_interrupted(conn: &Connection) -> Result<usize> {
    let cut = conn.execute(
        "UPDATE messages SET status = 'interrupted', error = 'Maru closed before this reply finished; the text so far is kept',
         error_code = ?1
         WHERE status = 'streaming'",
        [ERROR_CODE_INTERRUPTED],
    )?;
    let now = now_ms();
    let mut unanswered = 0;
    for session_id in super::turns::take_cut(conn)? {
        unanswered += conn.execute(
            "INSERT INTO messages (session_id, role, content, status, error, error_code, created_at, updated_at, parent_id)
             SELECT m.session_id, 'assistant', '', 'interrupted', 'Maru closed before this reply began; retry to get an answer',
             ?2, ?1, ?1, m.id
             FROM messages m
             WHERE m.session_id = ?3 AND m.role IN ('user', 'tool') AND m.on_path = 1
               AND m.id = (SELECT max(id) FROM messages WHERE session_id = ?3 AND on_path = 1)",
            params![now, ERROR_CODE_INTERRUPTED_BEFORE_START, session_id],
        )?;
    }
    Ok(cut + unanswered)
}

fn check_content(content: &str) -> Result<()> {
    let len = char_len(content);
    if len > CONTENT_MAX_CHARS {
        return Err(Error::invalid(
            Code::MessageTooLong,
            format!("a message can have at most {CONTENT_MAX_CHARS} characters (this one has {len}); attach long text as a file instead"),
        )
        .with("max", CONTENT_MAX_CHARS)
        .with("length", len));
    }
    Ok(())
}
