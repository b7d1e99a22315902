-- Each call another app made of the tools the user shared (`maru mcp`, `/mcp`): when, which app,
-- which tool and what it asked, shown in Settings. Only the newest are kept (the store prunes).

CREATE TABLE shared_calls (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      INTEGER NOT NULL,
    client  TEXT    NOT NULL,
    tool    TEXT    NOT NULL,
    summary TEXT    NOT NULL,
    ok      INTEGER NOT NULL,
    error   TEXT
);
