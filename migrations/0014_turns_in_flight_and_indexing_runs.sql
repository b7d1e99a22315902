-- Turns that have begun and not yet ended, at most one per chat. A start after a crash or a kill
-- marks exactly these chats' questions as unanswered: a chat whose last reply was simply deleted
-- ends with a question too, and must stay as the user left it.
CREATE TABLE turns_in_flight (
    session_id INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    started_at INTEGER NOT NULL
);

-- The indexing run a content's passages belong to: a random token set when a run begins. A run
-- that finds another token (its content deleted, attached again and indexed anew; a row id can be
-- reused, a token is not) stops without writing.
ALTER TABLE blobs ADD COLUMN indexing_run INTEGER;
