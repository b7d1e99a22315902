-- A project may name a folder on the user's disk (an absolute path): its instructions files
-- (AGENTS.md, CLAUDE.md, …) join the project's instructions, and its readable files are kept as
-- the project's files, each knowing the path it mirrors (relative to the folder).
ALTER TABLE projects ADD COLUMN folder TEXT;
ALTER TABLE attachments ADD COLUMN folder_path TEXT;
CREATE UNIQUE INDEX attachments_by_folder_path ON attachments (project_id, folder_path) WHERE folder_path IS NOT NULL;

-- The folder is a prompt input like the name and the instructions.
DROP TRIGGER projects_update_revision;
CREATE TRIGGER projects_update_revision AFTER UPDATE OF name, instructions, folder ON projects
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
