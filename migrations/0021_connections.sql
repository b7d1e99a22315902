-- The user's model servers. The single `endpoint_url` setting (with its `api_key` and `model`)
-- becomes the first of them, the default one: chats without a server of their own use it, and
-- it can be neither deleted nor turned off. `default_model`: what a chat on the server asks when
-- it names no model ('' = the first one the server lists). `api_key`, like a tool server's
-- secrets, is never returned, exported, logged or kept in a backup.
CREATE TABLE connections (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    base_url      TEXT    NOT NULL,
    api_key       TEXT,
    default_model TEXT    NOT NULL DEFAULT '',
    enabled       INTEGER NOT NULL DEFAULT 1,
    is_default    INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX connections_by_name ON connections (lower(name));
CREATE UNIQUE INDEX connections_one_default ON connections (is_default) WHERE is_default = 1;

-- Named after its address without the scheme and the API prefix ("127.0.0.1:8080"): a name in
-- no language, which the user may change.
INSERT INTO connections (name, base_url, api_key, default_model, is_default, created_at, updated_at)
SELECT
    substr(CASE WHEN host = '' THEN url ELSE host END, 1, 59),
    url,
    nullif((SELECT json_extract(value, '$') FROM settings WHERE key = 'api_key'), ''),
    coalesce((SELECT json_extract(value, '$') FROM settings WHERE key = 'model'), ''),
    1,
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER),
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
FROM (
    SELECT url, rtrim(replace(replace(replace(url, 'https://', ''), 'http://', ''), '/v1', ''), '/') AS host
    FROM (SELECT coalesce((SELECT json_extract(value, '$') FROM settings WHERE key = 'endpoint_url'), 'http://127.0.0.1:8080/v1') AS url)
);
DELETE FROM settings WHERE key IN ('endpoint_url', 'api_key', 'model');

-- A chat's model is a (server, model) pair; NULL: the default server. A deleted server's chats
-- go back to the default server and its default model (their model named the other server's).
ALTER TABLE sessions ADD COLUMN connection_id INTEGER;
CREATE TRIGGER connections_delete_chats BEFORE DELETE ON connections
BEGIN UPDATE sessions SET connection_id = NULL, model = NULL WHERE connection_id = OLD.id; END;
