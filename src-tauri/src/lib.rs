//! Maru: a local chatbot for the user's own OpenAI-compatible model server.
//!
//! The library holds everything; the binary (`main.rs`) only parses the command line. Modules
//! depend only on those below them (checked by `layers`' test):
//! `desktop`/`server` → `api` → `chat` → `app` → `attachments`/`memory` → `prompt`/`tools` → `store`/`llm` →
//! `paths`/`error`.
//! `store` owns the SQLite file, `llm` talks to the model server, `prompt` assembles the
//! five-section system prompt, `app` is the context every request works in, `chat` runs a turn,
//! `api` is the one surface that both the HTTP server (`server`) and the desktop shell
//! (`desktop`) wrap.

pub mod api;
pub mod app;
pub mod attachments;
pub mod backup;
pub mod chat;
#[cfg(feature = "desktop")]
pub mod desktop;
pub mod error;
#[cfg(test)]
mod layers;
pub mod llm;
pub mod logging;
pub mod memory;
pub mod paths;
pub mod prompt;
pub mod server;
pub mod store;
pub mod tools;
