-- Search across chats: the text of user and assistant messages in the same Korean-aware form as
-- file passages (maru_terms, a function Maru registers on its connection). A reply is indexed
-- when it stops streaming, not at every partial save.

CREATE VIRTUAL TABLE messages_fts USING fts5 (terms, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');

INSERT INTO messages_fts (rowid, terms)
SELECT id, maru_terms(content) FROM messages WHERE role IN ('user', 'assistant') AND status <> 'streaming' AND content <> '';

CREATE TRIGGER messages_index AFTER INSERT ON messages
WHEN NEW.role IN ('user', 'assistant') AND NEW.status <> 'streaming' AND NEW.content <> ''
BEGIN
    INSERT INTO messages_fts (rowid, terms) VALUES (NEW.id, maru_terms(NEW.content));
END;

CREATE TRIGGER messages_reindex AFTER UPDATE OF content, status ON messages
WHEN NEW.role IN ('user', 'assistant') AND NEW.status <> 'streaming'
BEGIN
    DELETE FROM messages_fts WHERE rowid = OLD.id;
    INSERT INTO messages_fts (rowid, terms) SELECT NEW.id, maru_terms(NEW.content) WHERE NEW.content <> '';
END;

CREATE TRIGGER messages_unindex AFTER DELETE ON messages
BEGIN
    DELETE FROM messages_fts WHERE rowid = OLD.id;
END;
