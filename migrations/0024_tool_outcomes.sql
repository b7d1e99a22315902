-- What a tool call did, as data (JSON of maru-types' ToolOutcome), beside the text the model reads:
-- the chat shows this, so a rewritten template never changes how a call is shown. Results stored
-- before have none, and the UI reads their text as it did.

ALTER TABLE messages ADD COLUMN tool_outcome TEXT;
