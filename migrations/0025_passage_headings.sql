-- Passages follow the document's structure: each keeps the headings it sits under ("Python
-- versions › Pinning a version"), which the index reads with its text. Files indexed before are
-- indexed again, in the background at the next start, to gain their headings.
ALTER TABLE passages ADD COLUMN heading TEXT;

UPDATE attachments SET status = 'indexing' WHERE status = 'ready' AND kind IN ('markdown', 'html');
