//! A chat continued in a new chat from one of its messages: the new chat holds that message and
//! those it follows (the versions on its way only, so the branch it was on, whichever was
//! shown), with the chat's project, preset, server and model, its own files, the large tool
//! results of the messages copied, and the summaries that cover only messages it holds. The
//! original is not touched.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use super::messages::{self, Status};
use super::sessions::{self, NewSession};
use crate::error::{Code, Error, Result};

/// Copies the way to `message_id` into a new chat; returns its id.
pub fn fork(conn: &Connection, message_id: i64) -> Result<i64> {
    let message = messages::get(conn, message_id)?;
    if message.status == Status::Streaming {
        return Err(Error::conflict(
            Code::MessageStreaming,
            "this reply is still being written; stop it, or wait, before continuing from it",
        ));
    }
    let from = sessions::get(conn, message.session_id)?;
    let new =
        sessions::create(conn, &NewSession { title: from.title.clone(), project_id: Some(from.project_id), ..Default::default() })?.id;
    conn.execute(
        "UPDATE sessions SET preset = o.preset, model = o.model, connection_id = o.connection_id, title_by = o.title_by,
             temporary = o.temporary
         FROM (SELECT preset, model, connection_id, title_by, temporary FROM sessions WHERE id = ?2) AS o WHERE sessions.id = ?1",
        params![new, from.id],
    )?;

    // The chat's own files, as new links to the same stored contents.
    let mut files: HashMap<i64, i64> = HashMap::new();
    let old_files: Vec<i64> = conn
        .prepare("SELECT id FROM attachments WHERE session_id = ?1 ORDER BY id")?
        .query_map([from.id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for old in old_files {
        conn.execute(
            "INSERT INTO attachments (blob_sha256, session_id, name, kind, mime, size, pages, status, note, created_at, note_reason, folder_path)
             SELECT blob_sha256, ?2, name, kind, mime, size, pages, status, note, created_at, note_reason, folder_path FROM attachments WHERE id = ?1",
            params![old, new],
        )?;
        files.insert(old, conn.last_insert_rowid());
    }

    // The way from the first message to this one, oldest first (ids grow along a branch).
    let way: Vec<i64> = conn
        .prepare(
            "WITH RECURSIVE up(id, parent_id) AS (
                 SELECT id, parent_id FROM messages WHERE id = ?1
                 UNION ALL SELECT m.id, m.parent_id FROM messages m JOIN up ON m.id = up.parent_id)
             SELECT id FROM up ORDER BY id",
        )?
        .query_map([message_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut copies: HashMap<i64, i64> = HashMap::new();
    let mut parent: Option<i64> = None;
    for old in &way {
        conn.execute(
            "INSERT INTO messages (session_id, role, content, status, error, model, prompt_tokens, completion_tokens, cached_tokens,
                 ttft_ms, tokens_per_second, created_at, updated_at, runtime_note, reasoning, tool_calls, tool_call_id, tool_name,
                 error_code, parent_id, chosen, on_path, server, tool_outcome)
             SELECT ?2, role, content, status, error, model, prompt_tokens, completion_tokens, cached_tokens,
                 ttft_ms, tokens_per_second, created_at, updated_at, runtime_note, reasoning, tool_calls, tool_call_id, tool_name,
                 error_code, ?3, 1, 1, server, tool_outcome
             FROM messages WHERE id = ?1",
            params![old, new, parent],
        )?;
        let id = conn.last_insert_rowid();
        copies.insert(*old, id);
        parent = Some(id);
        // Its large tool results, under the ids the copied message names them by.
        conn.execute(
            "INSERT INTO tool_outputs (session_id, message_id, tool, content, created_at, named_as)
             SELECT ?2, ?3, tool, content, created_at, coalesce(named_as, id) FROM tool_outputs WHERE message_id = ?1",
            params![old, new, id],
        )?;
        let images: Vec<(i64, i64)> = conn
            .prepare_cached("SELECT attachment_id, position FROM message_images WHERE message_id = ?1 ORDER BY position")?
            .query_map([old], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (image, position) in images {
            // An image of the project (not the chat) is in the new chat's scope as it is.
            let image = files.get(&image).copied().unwrap_or(image);
            conn.execute(
                "INSERT INTO message_images (message_id, attachment_id, position) VALUES (?1, ?2, ?3)",
                params![id, image, position],
            )?;
        }
    }

    // A summary covers every message of the branch up to its last one: it still applies when
    // that message is on the way copied.
    let summaries: Vec<(i64, i64, String, i64)> = conn
        .prepare("SELECT through_id, turns, content, created_at FROM session_summaries WHERE session_id = ?1 ORDER BY id")?
        .query_map([from.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (through, turns, content, created_at) in summaries {
        if let Some(&through) = copies.get(&through) {
            conn.execute(
                "INSERT INTO session_summaries (session_id, through_id, turns, content, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![new, through, turns, content, created_at],
            )?;
        }
    }
    sessions::touch(conn, new)?;
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::super::messages::{NewMessage, Role};
    use super::super::{summaries, Store};
    use super::*;

    #[test]
    fn a_summary_goes_with_the_new_chat_only_when_it_covers_messages_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("maru.db")).unwrap();
        let (session, ids) = store
            .with(|c| {
                let s = sessions::create(c, &NewSession { title: "long".into(), project_id: None, ..Default::default() })?.id;
                let ids = ["q1", "a1", "q2", "a2"]
                    .iter()
                    .map(|text| {
                        messages::insert_id(c, &NewMessage { session_id: s, role: Role::User, content: text, ..Default::default() })
                    })
                    .collect::<Result<Vec<_>>>()?;
                summaries::add(c, s, ids[1], 1, "They talked about q1.")?;
                Ok((s, ids))
            })
            .unwrap();
        let (late, early) = store.with(|c| Ok((fork(c, ids[3])?, fork(c, ids[0])?))).unwrap();
        let late_summaries = store.read_now(|c| summaries::list(c, late)).unwrap();
        assert_eq!(late_summaries.len(), 1, "a summary of messages the new chat holds still applies");
        let copied = store.read_now(|c| messages::history(c, late)).unwrap();
        assert_eq!(late_summaries[0].through_id, copied[1].id, "and covers the copies, not the original's messages");
        assert!(store.read_now(|c| summaries::list(c, early)).unwrap().is_empty(), "one covering messages after the fork point does not");
        assert_eq!(store.read_now(|c| summaries::list(c, session)).unwrap().len(), 1, "the original keeps its own");
    }
}
