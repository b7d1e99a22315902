-- Ids are never reused. Without AUTOINCREMENT, SQLite hands a deleted row's id to the next insert
-- when it was the highest: a turn still writing to a deleted reply (or session) by id would then
-- write into someone else's message. SQLite cannot add AUTOINCREMENT to a table, so each table is
-- rebuilt. Children are rebuilt against `sessions_new` and the old tables dropped children first,
-- so that no cascade runs on data being kept; renaming `sessions_new` rewrites their references.

CREATE TABLE sessions_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER NOT NULL REFERENCES projects (id),
    title       TEXT    NOT NULL DEFAULT '',
    preset      TEXT,
    created_at  INTEGER NOT NULL,
    -- newest activity: creation, rename, move or the latest message
    updated_at  INTEGER NOT NULL
);
INSERT INTO sessions_new (id, project_id, title, preset, created_at, updated_at)
SELECT id, project_id, title, preset, created_at, updated_at FROM sessions;

CREATE TABLE messages_new (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id        INTEGER NOT NULL REFERENCES sessions_new (id) ON DELETE CASCADE,
    role              TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content           TEXT    NOT NULL DEFAULT '',
    status            TEXT    NOT NULL DEFAULT 'complete'
                      CHECK (status IN ('complete', 'streaming', 'stopped', 'interrupted', 'error')),
    error             TEXT,
    model             TEXT,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    cached_tokens     INTEGER,
    ttft_ms           INTEGER,
    tokens_per_second REAL,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    runtime_note      TEXT,
    reasoning         TEXT,
    tool_calls        TEXT,
    tool_call_id      TEXT,
    tool_name         TEXT
);
INSERT INTO messages_new SELECT id, session_id, role, content, status, error, model, prompt_tokens,
    completion_tokens, cached_tokens, ttft_ms, tokens_per_second, created_at, updated_at,
    runtime_note, reasoning, tool_calls, tool_call_id, tool_name FROM messages;

CREATE TABLE memories_new (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    content           TEXT    NOT NULL,
    pinned            INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    source_session_id INTEGER REFERENCES sessions_new (id) ON DELETE SET NULL,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
INSERT INTO memories_new SELECT id, content, pinned, source_session_id, created_at, updated_at FROM memories;

CREATE TABLE prompt_snapshots_new (
    session_id    INTEGER PRIMARY KEY REFERENCES sessions_new (id) ON DELETE CASCADE,
    inputs_sha256 TEXT    NOT NULL,
    prompt_sha256 TEXT    NOT NULL,
    prompt        TEXT    NOT NULL,
    report        TEXT    NOT NULL, -- JSON: the sections, sizes and cuts
    changed_at    INTEGER NOT NULL,
    change_reason TEXT    NOT NULL,
    used_at       INTEGER NOT NULL
);
INSERT INTO prompt_snapshots_new SELECT * FROM prompt_snapshots;

DROP TABLE prompt_snapshots;
DROP TABLE memories;
DROP TABLE messages;
DROP TABLE sessions;

ALTER TABLE sessions_new RENAME TO sessions;
ALTER TABLE messages_new RENAME TO messages;
ALTER TABLE memories_new RENAME TO memories;
ALTER TABLE prompt_snapshots_new RENAME TO prompt_snapshots;

CREATE INDEX sessions_by_project_activity ON sessions (project_id, updated_at DESC, id DESC);
CREATE INDEX messages_by_session ON messages (session_id, id);
