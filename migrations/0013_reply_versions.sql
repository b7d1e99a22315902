-- Reply versions: a chat's messages form a tree. Regenerating a reply or editing and resending a
-- message adds a sibling (a new version) instead of replacing what was there.
--   parent_id  the message this one follows; NULL for the first message of a chat.
--   chosen     the version picked among its siblings (one per parent).
--   on_path    the message is on the chosen branch: what the chat shows and the model reads.
-- Ids only grow along a branch, so the chosen branch is its on_path messages in id order.

ALTER TABLE messages ADD COLUMN parent_id INTEGER;
ALTER TABLE messages ADD COLUMN chosen INTEGER NOT NULL DEFAULT 1;
ALTER TABLE messages ADD COLUMN on_path INTEGER NOT NULL DEFAULT 1;

-- Until now every chat was one line: each message follows the one before it.
UPDATE messages SET parent_id = (
    SELECT max(p.id) FROM messages p WHERE p.session_id = messages.session_id AND p.id < messages.id);

DROP INDEX messages_by_session;
CREATE INDEX messages_on_path ON messages (session_id, on_path, id);
CREATE INDEX messages_by_parent ON messages (session_id, parent_id, id);
