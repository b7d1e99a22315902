-- How a project's chats ask about tool servers' calls: `ask` every call (unless the tool is
-- always allowed), or `read_only_runs`: a tool its server marks read-only runs without asking.

ALTER TABLE projects ADD COLUMN tool_approval TEXT NOT NULL DEFAULT 'ask' CHECK (tool_approval IN ('ask', 'read_only_runs'));
