//! Maru's core: everything a chat needs, with no HTTP and no window. `store` owns the SQLite
//! file, `llm` talks to the model server, `prompt` assembles the five-section system prompt,
//! `app` is the context every request works in, `chat` runs a turn, and `api` is the one surface
//! that both the HTTP server (`maru-server`) and the desktop shell (`maru`) wrap.
//!
//! The crates below are re-exported as `store`, `llm` and `error`. Within this crate, modules
//! depend only on those below them (checked by `layers`' test):
//! `api` → `chat` → `app` → `attachments`/`memory`/`backup`/`imports`/`sharing` → `prompt`/`tools` →
//! `store`/`llm`/`paths`/`logging`/`error`.

pub use maru_error as error;
pub use maru_llm as llm;
pub use maru_store as store;

pub mod api;
pub mod app;
pub mod attachments;
pub mod backup;
pub mod chat;
pub mod imports;
#[cfg(test)]
mod layers;
pub mod logging;
pub mod memory;
pub mod paths;
pub mod prompt;
pub mod secrets;
pub mod sharing;
pub mod tools;
