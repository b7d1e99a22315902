-- When a chat was added by importing an exported one: the UI marks it as a copy.
ALTER TABLE sessions ADD COLUMN imported_at INTEGER;
