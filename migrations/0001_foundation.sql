-- Maru's first schema: projects, sessions, messages, settings, long-term memories.
-- Never edit a migration that has shipped; add a new file instead.
-- Times are Unix milliseconds (UTC).

CREATE TABLE projects (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    -- lower-cased name: uniqueness ignoring case for every script, not just ASCII
    name_key     TEXT    NOT NULL UNIQUE,
    instructions TEXT    NOT NULL DEFAULT '',
    is_default   INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX projects_one_default ON projects (is_default) WHERE is_default = 1;

-- The Default project exists from the first open and can never be deleted.
INSERT INTO projects (name, name_key, is_default, created_at, updated_at)
VALUES ('Default', 'default', 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));

CREATE TRIGGER projects_keep_default BEFORE DELETE ON projects
WHEN OLD.is_default = 1
BEGIN
    SELECT RAISE(ABORT, 'the Default project cannot be deleted');
END;

CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects (id),
    title       TEXT    NOT NULL DEFAULT '',
    preset      TEXT,
    created_at  INTEGER NOT NULL,
    -- newest activity: creation, rename or the latest message
    updated_at  INTEGER NOT NULL
);
CREATE INDEX sessions_by_project_activity ON sessions (project_id, updated_at DESC, id DESC);

CREATE TABLE messages (
    id                INTEGER PRIMARY KEY,
    session_id        INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
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
    updated_at        INTEGER NOT NULL
);
CREATE INDEX messages_by_session ON messages (session_id, id);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL -- JSON
);

CREATE TABLE memories (
    id                INTEGER PRIMARY KEY,
    content           TEXT    NOT NULL,
    pinned            INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    source_session_id INTEGER REFERENCES sessions (id) ON DELETE SET NULL,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
