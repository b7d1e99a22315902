//! Retrieval: how Maru reads text to find it again. Pure functions, no I/O: the store writes
//! and queries the index with them, and attachments, linked folders, chat search and memory all
//! use the same analysis, so a word found in one place is found in every other.
//!
//! - `analysis`: text → index terms, and what was typed → a full-text query
//! - `chunks`: a file's text → passages that follow its headings and paragraphs
//! - `vectors`: embeddings quantized to a byte per dimension, their cosine, the best k of a scan
//! - `fusion`: reciprocal rank fusion of the lexical and the vector rankings

pub mod analysis;
pub mod chunks;
pub mod fusion;
pub mod vectors;
