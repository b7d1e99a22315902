-- The demo model is one server of its own, whatever port it runs on this time: marked, so that
-- each start updates its address instead of adding another server.
ALTER TABLE connections ADD COLUMN demo INTEGER NOT NULL DEFAULT 0;

-- A store nobody has chatted in keeps no server nobody set up: 0021 made the usual local address
-- the default server even when nothing answered there. Untouched (never renamed, given a key or
-- a model, or moved), it goes; the first server the user adds or the demo model becomes the
-- default. A server that does answer there is found again by the probe of the usual ports.
DELETE FROM connections
WHERE is_default = 1 AND name = '127.0.0.1:8080' AND base_url = 'http://127.0.0.1:8080/v1'
  AND api_key IS NULL AND default_model = '' AND created_at = updated_at
  AND NOT EXISTS (SELECT 1 FROM sessions);
