-- Skills: a procedure the model loads when a task needs it (`load_skill`), written as a SKILL.md
-- (front matter with name and description, then the body), with reference files beside it.
-- Global (project_id NULL) or a project's; `off_in`: project ids where a global one is off. The
-- prompt lists each one offered by name and description, so they count as prompt inputs.
CREATE TABLE skills (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    description TEXT    NOT NULL,
    text        TEXT    NOT NULL,
    enabled     INTEGER NOT NULL DEFAULT 1,
    off_in      TEXT    NOT NULL DEFAULT '[]',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX skills_by_name ON skills (coalesce(project_id, 0), lower(name));

CREATE TABLE skill_files (
    skill_id INTEGER NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    path     TEXT    NOT NULL,
    content  TEXT    NOT NULL,
    PRIMARY KEY (skill_id, path)
);

CREATE TRIGGER skills_insert_revision AFTER INSERT ON skills
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER skills_update_revision AFTER UPDATE ON skills
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER skills_delete_revision AFTER DELETE ON skills
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
