-- A failed, stopped or interrupted reply keeps the machine-readable code of why, beside its
-- English text, so the UI can say it in the user's language after a reload too.

ALTER TABLE messages ADD COLUMN error_code TEXT;

-- Replies marked at start-up before this column existed: their two texts are known.
UPDATE messages SET error_code = 'interrupted'
 WHERE status = 'interrupted' AND error = 'Maru closed before this reply finished; the text so far is kept';
UPDATE messages SET error_code = 'interrupted_before_start'
 WHERE status = 'interrupted' AND error = 'Maru closed before this reply began; retry to get an answer';
