//! Maru: a local chatbot for the user's own OpenAI-compatible model server.
//!
//! The library holds everything; the binary (`main.rs`) only parses the command line.
//! `store` owns the SQLite file, `llm` talks to the model server, `prompt` assembles the
//! five-section system prompt, `chat` runs a turn, `api` is the one surface that both the
//! HTTP server (`server`) and the desktop shell (`desktop`) wrap.

pub mod llm;
pub mod error;
pub mod store;
pub mod api;
pub mod logging;
pub mod server;
pub mod prompt;
pub mod chat;
#[cfg(feature = "desktop")] pub mod desktop;
