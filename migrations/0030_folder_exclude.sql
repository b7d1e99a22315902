-- Paths the user leaves out of a project's linked folder, from the project's settings: one
-- pattern per line in `.gitignore`'s syntax, beside the folder's own `.maruignore`.

ALTER TABLE projects ADD COLUMN folder_exclude TEXT NOT NULL DEFAULT '';
