//! A chat turn: persist the user message → assemble the prompt → stream the reply → run tools →
//! persist the reply. The turn runs in its own task, so a closed window or dropped HTTP client
//! never loses the reply: it keeps streaming into the database.

pub mod compact;
pub mod extract;
pub mod history;
pub mod plan;
pub mod title;
pub mod turn;

pub use turn::{start, TurnKind};
