-- One number that changes whenever anything a system prompt is made of changes: settings
-- (custom instructions), projects (name, instructions), a session's project or preset, user
-- presets, long-term memories. A turn whose revision and date match its last prompt reuses that
-- prompt without reading its inputs. Triggers keep it, so no write path can forget to.

CREATE TABLE prompt_inputs_revision (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO prompt_inputs_revision (id, n) VALUES (1, 0);

CREATE TRIGGER settings_insert_revision AFTER INSERT ON settings
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER settings_update_revision AFTER UPDATE ON settings
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER settings_delete_revision AFTER DELETE ON settings
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;

CREATE TRIGGER projects_update_revision AFTER UPDATE OF name, instructions ON projects
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER projects_delete_revision AFTER DELETE ON projects
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;

CREATE TRIGGER sessions_update_revision AFTER UPDATE OF project_id, preset ON sessions
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;

CREATE TRIGGER presets_update_revision AFTER UPDATE ON presets
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER presets_delete_revision AFTER DELETE ON presets
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;

CREATE TRIGGER memories_insert_revision AFTER INSERT ON memories
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER memories_update_revision AFTER UPDATE ON memories
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER memories_delete_revision AFTER DELETE ON memories
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
