//! What a chat's next request will be, while nothing was written since its last turn answered
//! (`chat::ahead` sends it ahead).

use std::sync::Mutex;

use crate::llm::{ChatRequest, Client};
use crate::store::Version;

/// The last turn that answered, while it is the last thing written.
#[derive(Default)]
pub struct Ahead(Mutex<Option<Last>>);

pub(crate) struct Last {
    pub(crate) session_id: i64,
    /// The store as the turn left it.
    pub(crate) version: Version,
    pub(crate) client: Client,
    /// The turn's first request: what a regenerate sends.
    pub(crate) first: Vec<u8>,
    /// Its last request with the answer after it: a new message goes after that.
    pub(crate) chat: ChatRequest,
    /// The tokens a new message may have and be sent after `chat` without summarising first.
    pub(crate) room: usize,
    /// The day its prompts were written for (`None`: two days, the turn ran over midnight).
    pub(crate) day: Option<chrono::NaiveDate>,
    /// Whether the turn offered tools of the user's tool servers (which may change any time).
    pub(crate) tool_servers: bool,
}

impl Ahead {
    /// Notes `last`, a turn that answered, valid while the store stays at its version.
    pub(crate) fn answered(&self, last: Last) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(last);
    }

    /// `session_id`'s last turn, if it is the last one that answered; taken: the turn asking
    /// for it will be the last one.
    pub(crate) fn take(&self, session_id: i64) -> Option<Last> {
        let mut last = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if last.as_ref().is_some_and(|l| l.session_id == session_id) {
            last.take()
        } else {
            None
        }
    }
}
