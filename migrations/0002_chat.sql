-- Chat turns: what a turn stores besides text, user presets, and the system-prompt snapshot.

-- The runtime note (the exact time of sending) travels with the user message to the model,
-- byte for byte on every later request, but the UI does not show it.
ALTER TABLE messages ADD COLUMN runtime_note TEXT;
-- Assistant: the model's reasoning, kept apart from its answer.
ALTER TABLE messages ADD COLUMN reasoning TEXT;
-- Assistant: the tool calls it made (JSON array of {id, name, arguments}).
ALTER TABLE messages ADD COLUMN tool_calls TEXT;
-- Tool: which call this message answers, and the tool's name.
ALTER TABLE messages ADD COLUMN tool_call_id TEXT;
ALTER TABLE messages ADD COLUMN tool_name TEXT;

-- A user's own presets; built-in ones live in prompts/presets/. A session names its preset by key:
-- the built-in file stem ("code-reviewer") or "user:<id>".
CREATE TABLE presets (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    name_key    TEXT    NOT NULL UNIQUE,
    description TEXT    NOT NULL DEFAULT '',
    prompt      TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- The last system prompt sent for a session: reused while its inputs are unchanged so the
-- server's prefix cache stays warm, and shown by the inspector with why it last changed.
CREATE TABLE prompt_snapshots (
    session_id    INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    inputs_sha256 TEXT    NOT NULL,
    prompt_sha256 TEXT    NOT NULL,
    prompt        TEXT    NOT NULL,
    report        TEXT    NOT NULL, -- JSON: the sections, sizes and cuts
    changed_at    INTEGER NOT NULL,
    change_reason TEXT    NOT NULL,
    used_at       INTEGER NOT NULL
);
