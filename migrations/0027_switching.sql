-- Switching to Maru: chats brought in from another app's data export, and temporary chats.
--   import_source  where an imported chat came from ("chatgpt:<conversation id>",
--                  "claude:<uuid>"); importing the same export again skips the chats already
--                  here. Deleting the chat forgets it, so a later import brings it back.
--   temporary      a chat that is never kept: left out of lists, search, titles, memory and
--                  summaries, and deleted when it is closed or at the next start.
ALTER TABLE sessions ADD COLUMN import_source TEXT;
CREATE UNIQUE INDEX sessions_by_import_source ON sessions (import_source) WHERE import_source IS NOT NULL;
ALTER TABLE sessions ADD COLUMN temporary INTEGER NOT NULL DEFAULT 0;
-- A chat continued in a new chat copies its large tool results; a copy answers to the id the
-- model was given for the original (it is in the copied tool message, which is never rewritten).
ALTER TABLE tool_outputs ADD COLUMN named_as INTEGER;
