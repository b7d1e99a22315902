-- Episodic summaries of a long chat's older turns: sent after the system prompt in their place
-- once the chat nears the model's context window. The messages themselves stay. A summary, once
-- written, is never rewritten, so the prompt prefix stays byte-identical until the next one.

CREATE TABLE session_summaries (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id    INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    -- the last message it replaces (every message of the session up to it)
    through_id    INTEGER NOT NULL,
    -- how many user turns it replaces
    turns         INTEGER NOT NULL,
    content       TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX session_summaries_by_session ON session_summaries (session_id, id);
