-- A change the model proposes to an accepted fact waits beside it (review mode): the fact stays
-- accepted and in section ⑤ until the user accepts the change, which then rewrites the fact and
-- goes; dismissing the change leaves the fact as it was. Deleting the fact drops its changes.

ALTER TABLE memories ADD COLUMN replaces INTEGER REFERENCES memories (id) ON DELETE CASCADE;
CREATE INDEX memories_by_replaces ON memories (replaces) WHERE replaces IS NOT NULL;
