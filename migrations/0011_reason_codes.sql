-- Why a prompt last changed and why a file could not be read, as codes (JSON `{code, params}`)
-- beside the English text, so the UI can say them in the user's language.

ALTER TABLE prompt_snapshots ADD COLUMN change_codes TEXT;
ALTER TABLE attachments ADD COLUMN note_reason TEXT;
