-- Long-term memory the model proposes: a fact is `pending` until the user accepts it (or at once
-- when memory is automatic); only accepted facts reach section ⑤. Each keeps the message it came
-- from, and when it was last confirmed (⑤ lists the most recently confirmed first, after pinned).

ALTER TABLE memories ADD COLUMN status TEXT NOT NULL DEFAULT 'accepted' CHECK (status IN ('pending', 'accepted'));
ALTER TABLE memories ADD COLUMN source_message_id INTEGER REFERENCES messages (id) ON DELETE SET NULL;
ALTER TABLE memories ADD COLUMN confirmed_at INTEGER;
UPDATE memories SET confirmed_at = updated_at;
CREATE INDEX memories_by_status ON memories (status, pinned DESC, confirmed_at DESC);
