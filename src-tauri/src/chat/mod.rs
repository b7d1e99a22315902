//! A chat turn: persist the user message → assemble the prompt → stream the reply → run tools →
//! persist the reply. The turn runs in its own task, so a closed window or dropped HTTP client
//! never loses the reply: it keeps streaming into the database.

pub mod events;
pub mod history;
pub mod runs;
pub mod title;
pub mod tools;
pub mod turn;

pub use events::TurnEvent;
pub use runs::Runs;
pub use tools::{Tool, ToolContext, ToolRegistry};
pub use turn::{start, TurnKind};
