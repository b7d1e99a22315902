-- Files attached to a session or a project, stored once by content, and their text split into
-- passages indexed for search_attachment.

-- One row per distinct file content; the file itself is blobs/<first 2 hex>/<sha256>.
CREATE TABLE blobs (
    sha256     TEXT    PRIMARY KEY,
    size       INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);

-- A file as the user attached it: its name (for display only, never a path) and scope.
CREATE TABLE attachments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    blob_sha256 TEXT    NOT NULL REFERENCES blobs (sha256),
    session_id  INTEGER REFERENCES sessions (id) ON DELETE CASCADE,
    project_id  INTEGER REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('text', 'markdown', 'code', 'csv', 'json', 'html', 'pdf', 'image')),
    mime        TEXT    NOT NULL,
    size        INTEGER NOT NULL,
    pages       INTEGER,
    status      TEXT    NOT NULL DEFAULT 'indexing' CHECK (status IN ('indexing', 'ready', 'failed')),
    -- what went wrong, or what could not be read ("no text could be read from page 12")
    note        TEXT,
    created_at  INTEGER NOT NULL,
    CHECK ((session_id IS NULL) <> (project_id IS NULL))
);
CREATE INDEX attachments_by_session ON attachments (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX attachments_by_project ON attachments (project_id) WHERE project_id IS NOT NULL;
CREATE INDEX attachments_by_blob ON attachments (blob_sha256);

-- The last link to a content goes, and the content with it, in the same transaction; the file
-- on disk is removed after the commit (a crash in between leaves an orphan the next start sweeps).
CREATE TRIGGER attachments_release_blob AFTER DELETE ON attachments
WHEN NOT EXISTS (SELECT 1 FROM attachments WHERE blob_sha256 = OLD.blob_sha256)
BEGIN
    DELETE FROM blobs WHERE sha256 = OLD.blob_sha256;
END;

-- Passages of a content's text: by page, then paragraphs, with a little overlap.
CREATE TABLE passages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    blob_sha256 TEXT    NOT NULL REFERENCES blobs (sha256) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    page        INTEGER,
    line_start  INTEGER NOT NULL,
    line_end    INTEGER NOT NULL,
    text        TEXT    NOT NULL
);
CREATE INDEX passages_by_blob ON passages (blob_sha256, seq);

-- The search index over passages: `terms` is the text with Hangul runs written as syllable
-- bigrams (see attachments::terms), so particles and two-syllable words are found; porter
-- stems English. Contentless: the text lives in `passages`.
CREATE VIRTUAL TABLE passages_fts USING fts5 (terms, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');

CREATE TRIGGER passages_unindex AFTER DELETE ON passages
BEGIN
    DELETE FROM passages_fts WHERE rowid = OLD.id;
END;

-- Files are prompt inputs (section ④).
CREATE TRIGGER attachments_insert_revision AFTER INSERT ON attachments
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER attachments_update_revision AFTER UPDATE ON attachments
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
CREATE TRIGGER attachments_delete_revision AFTER DELETE ON attachments
BEGIN UPDATE prompt_inputs_revision SET n = n + 1; END;
