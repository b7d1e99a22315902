-- A chat may use its own model instead of the global one (NULL: the global setting).
ALTER TABLE sessions ADD COLUMN model TEXT;
