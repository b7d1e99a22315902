-- Images: a small thumbnail per content, for lists and chips, and the images a user message
-- carries to the model.

ALTER TABLE blobs ADD COLUMN thumbnail BLOB;

CREATE TABLE message_images (
    message_id    INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    attachment_id INTEGER NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    PRIMARY KEY (message_id, attachment_id)
);
CREATE INDEX message_images_by_attachment ON message_images (attachment_id);
