-- Who wrote a chat's title: the user (typed, or an imported chat's), Maru from the first message
-- (until the model's comes), or the model after the first exchange. Only Maru's first-message
-- title is ever replaced, so a title the user typed always wins.
ALTER TABLE sessions ADD COLUMN title_by TEXT NOT NULL DEFAULT 'user' CHECK (title_by IN ('user', 'first_message', 'model'));
