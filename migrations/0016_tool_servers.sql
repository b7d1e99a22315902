-- The user's MCP tool servers. `env` and `headers` are JSON objects whose values may be secrets:
-- like the API key they are never returned, exported, logged or put in a backup (a restored
-- backup has them emptied and its servers disabled). `always_allowed`: tool names the user lets
-- run without asking; `off_in`: project ids where the server is not offered.
CREATE TABLE tool_servers (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT    NOT NULL UNIQUE,
    transport      TEXT    NOT NULL CHECK (transport IN ('stdio', 'http')),
    command        TEXT    NOT NULL DEFAULT '',
    args           TEXT    NOT NULL DEFAULT '[]',
    env            TEXT    NOT NULL DEFAULT '{}',
    url            TEXT    NOT NULL DEFAULT '',
    headers        TEXT    NOT NULL DEFAULT '{}',
    enabled        INTEGER NOT NULL DEFAULT 1,
    always_allowed TEXT    NOT NULL DEFAULT '[]',
    off_in         TEXT    NOT NULL DEFAULT '[]',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
