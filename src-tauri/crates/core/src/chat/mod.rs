//! A chat turn: persist the user message → assemble the prompt → stream the reply → run tools →
//! persist the reply. The turn runs in its own task, so a closed window or dropped HTTP client
//! never loses the reply: it keeps streaming into the database. Its decisions (how a reply ends,
//! whether to compact and retry, when tool rounds stop) are a pure state machine (`machine`);
//! `turn` drives it: `begin` (the checks and the first transaction), `rounds` (each request
//! and what the machine decides after it), `round` (what a round reads), `reply` (one reply
//! streamed and stored).

pub(crate) mod ahead;
mod begin;
pub mod compact;
pub mod extract;
pub mod history;
pub mod machine;
pub mod plan;
mod reply;
mod round;
mod rounds;
mod server_tools;
pub mod title;
mod tool_results;
mod tool_search;
pub mod turn;
pub mod window;

pub use turn::{start, TurnKind};
