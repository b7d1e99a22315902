//! A chat as Maru exports it to JSON, and importing one back as a new chat. The format is
//! versioned: a later Maru reads version 1 still, and this one refuses what it does not know.

use rusqlite::{params, Connection};

use super::messages::{self, Status};
use super::sessions::{self, NewSession};
use super::{char_len, now_ms, projects};
use crate::error::{Code, Error, Result};

pub use maru_types::exports::*;

pub const CHAT_FORMAT: &str = "maru-chat";
pub const CHAT_VERSION: u32 = 1;

/// The chat `session_id` as exported now.
pub fn chat(conn: &Connection, session_id: i64) -> Result<ChatExport> {
    let s = sessions::get(conn, session_id)?;
    let p = projects::get(conn, s.project_id)?;
    let messages = messages::history(conn, session_id)?
        .into_iter()
        .map(|m| ExportedMessage {
            role: m.role,
            content: m.content,
            status: m.status,
            error: m.error,
            error_code: m.error_code,
            model: m.model,
            server: m.server,
            reasoning: m.reasoning,
            tool_calls: m.tool_calls,
            tool_call_id: m.tool_call_id,
            tool_name: m.tool_name,
            tool_outcome: m.tool_outcome,
            prompt_tokens: m.prompt_tokens,
            completion_tokens: m.completion_tokens,
            cached_tokens: m.cached_tokens,
            ttft_ms: m.ttft_ms,
            tokens_per_second: m.tokens_per_second,
            created_at: m.created_at,
        })
        .collect();
    Ok(ChatExport {
        format: CHAT_FORMAT.into(),
        version: CHAT_VERSION,
        exported_at: now_ms(),
        session: ExportedSession { title: s.title, preset: s.preset, created_at: s.created_at, updated_at: s.updated_at },
        project: ExportedProject { name: p.name, instructions: p.instructions, is_default: p.is_default },
        messages,
    })
}

/// Reads an export's JSON, refusing any other format or version with a code saying which.
pub fn parse(value: serde_json::Value) -> Result<ChatExport> {
    let format = value.get("format").and_then(|f| f.as_str()).unwrap_or_default();
    if format != CHAT_FORMAT {
        return Err(Error::invalid(
            Code::UnsupportedImport,
            "this is not a chat exported by Maru as JSON (its \"format\" is not \"maru-chat\")",
        ));
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    if version != Some(CHAT_VERSION as u64) {
        return Err(Error::invalid(
            Code::UnsupportedImportVersion,
            format!("this chat was exported in version {version:?} of the format; this Maru imports version {CHAT_VERSION}"),
        ));
    }
    serde_json::from_value(value).map_err(|e| Error::invalid(Code::InvalidImport, format!("the exported chat is incomplete: {e}")))
}

/// Adds the chat as a new session: in the project of the same name when there is one, else in
/// Default. A reply that was streaming when exported comes back as interrupted. Returns the id.
pub fn import(conn: &Connection, chat: &ChatExport) -> Result<i64> {
    let project_id = match projects::find_by_name(conn, &chat.project.name)? {
        Some(p) => p.id,
        None => projects::default_id(conn)?,
    };
    import_into(conn, chat, project_id)
}

/// Adds the chat as a new session of `project_id` (a project imported with its chats).
pub fn import_into(conn: &Connection, chat: &ChatExport, project_id: i64) -> Result<i64> {
    let session =
        sessions::create(conn, &NewSession { title: chat.session.title.clone(), project_id: Some(project_id), ..Default::default() })?;
    conn.execute("UPDATE sessions SET imported_at = ?2 WHERE id = ?1", params![session.id, super::now_ms()])?;
    // The export holds the chosen versions only: they come back as one branch.
    let mut parent: Option<i64> = None;
    for m in &chat.messages {
        let len = char_len(&m.content);
        if len > messages::CONTENT_MAX_CHARS {
            return Err(Error::invalid(
                Code::MessageTooLong,
                format!("a message in this chat has {len} characters; Maru keeps at most {}", messages::CONTENT_MAX_CHARS),
            )
            .with("max", messages::CONTENT_MAX_CHARS)
            .with("length", len));
        }
        let status = if m.status == Status::Streaming { Status::Interrupted } else { m.status };
        let tool_calls =
            (!m.tool_calls.is_empty()).then(|| serde_json::to_string(&m.tool_calls)).transpose().map_err(anyhow::Error::from)?;
        conn.prepare_cached(
            "INSERT INTO messages (session_id, role, content, status, error, model, reasoning, tool_calls, tool_call_id, tool_name,
                 prompt_tokens, completion_tokens, cached_tokens, ttft_ms, tokens_per_second, created_at, updated_at, error_code, parent_id, server, tool_outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?16, ?17, ?18, ?19, ?20)",
        )?
        .execute(params![
            session.id,
            m.role,
            m.content,
            status,
            m.error,
            m.model,
            m.reasoning,
            tool_calls,
            m.tool_call_id,
            m.tool_name,
            m.prompt_tokens,
            m.completion_tokens,
            m.cached_tokens,
            m.ttft_ms,
            m.tokens_per_second,
            m.created_at,
            m.error_code,
            parent,
            m.server,
            m.tool_outcome.as_ref().map(|o| serde_json::to_string(o).unwrap_or_default()),
        ])?;
        parent = Some(conn.last_insert_rowid());
    }
    Ok(session.id)
}
