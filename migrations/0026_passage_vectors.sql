-- Passages as the embeddings model the user chose sees them, for search by meaning beside search
-- by words (hybrid search). One row per passage: the vector made unit length and quantized to one
-- signed byte per dimension, with its scale (maru_retrieval::vectors). A passage takes 4 + dim
-- bytes of vector (580 for a 576-wide model, 1,028 for a 1,024-wide one) plus its row's keys.
--
-- Embedding runs in the background; what is left to do is read from the tables (passages with
-- no row for the chosen model), so a restart resumes where the last run stopped. Choosing
-- another model drops the other model's rows and embeds again. A passage that goes (its file
-- deleted, or indexed again) takes its vector with it.
CREATE TABLE passage_vectors (
    passage_id    INTEGER PRIMARY KEY REFERENCES passages (id) ON DELETE CASCADE,
    -- the model it came from: a server of `connections` and the model's name there
    connection_id INTEGER NOT NULL,
    model         TEXT    NOT NULL,
    -- 0 (with an empty vector) for a passage the server would not embed, so it is not asked again
    dim           INTEGER NOT NULL,
    scale         REAL    NOT NULL,
    vector        BLOB    NOT NULL
);
