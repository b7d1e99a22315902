-- Tool results too large to send whole, kept whole here. The model got a reference and the
-- first lines (the tool message's content, decided once when the result came back) and reads the
-- rest with `read_tool_output`. They go with their tool message, and with their chat.
CREATE TABLE tool_outputs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    message_id INTEGER REFERENCES messages (id) ON DELETE CASCADE,
    tool       TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX tool_outputs_by_message ON tool_outputs (message_id);
CREATE INDEX tool_outputs_by_session ON tool_outputs (session_id);
