//! Maru: a local chatbot for the user's own OpenAI-compatible model server.
//!
//! The library holds the core, the HTTP server and the desktop shell; the binary (`main.rs`) only
//! parses the command line. Below it are crates of their own, which the compiler keeps below:
//! `maru-store` (the SQLite file) → `maru-llm` (the model-server client) → `maru-error` (the one
//! error shape), re-exported here as `store`, `llm` and `error`. Within this crate, modules
//! depend only on those below them (checked by `layers`' test):
//! `desktop`/`server` → `api` → `chat` → `app` → `attachments`/`memory`/`backup` →
//! `prompt`/`tools` → `store`/`llm`/`paths`/`logging`/`error`.
//! `store` owns the SQLite file, `llm` talks to the model server, `prompt` assembles the
//! five-section system prompt, `app` is the context every request works in, `chat` runs a turn,
//! `api` is the one surface that both the HTTP server (`server`) and the desktop shell
//! (`desktop`) wrap.

pub use maru_error as error;
pub use maru_llm as llm;
pub use maru_store as store;

pub mod api;
pub mod app;
pub mod attachments;
pub mod backup;
pub mod chat;
#[cfg(feature = "desktop")]
pub mod desktop;
#[cfg(test)]
mod layers;
pub mod logging;
pub mod memory;
pub mod paths;
pub mod prompt;
pub mod server;
pub mod tools;
