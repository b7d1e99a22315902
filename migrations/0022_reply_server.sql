-- Which model server wrote a reply, by the name it had then: a chat can move between servers, and
-- a server can be renamed or removed later without changing what its replies say.
ALTER TABLE messages ADD COLUMN server TEXT;
