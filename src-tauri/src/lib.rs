//! Maru: a local chatbot for the user's own OpenAI-compatible model server.
//!
//! This crate is the shell: the `maru` command (`main.rs`) and the desktop window (`desktop`,
//! behind the `desktop` feature). Everything else is in crates the compiler keeps below it:
//! `maru-server` (the HTTP API) → `maru-core` (chats, prompts, files, memory) → `maru-store` →
//! `maru-llm` → `maru-error`. Their modules are re-exported here under their usual names.

pub use maru_core::{api, app, attachments, backup, chat, error, llm, logging, memory, paths, prompt, store, tools};
pub use maru_server as server;

#[cfg(feature = "desktop")]
pub mod desktop;

/// The runtime the command and the window run Maru on: a thread per core for the async work,
/// beside tokio's blocking pool, which does the database and file work. The turn bench serves on
/// it too, as `maru serve` does.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}
