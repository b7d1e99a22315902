//! Calls of the user's tool servers waiting for the user: *Allow once*, *Always allow this tool*
//! or *Deny*. A call waits in its turn (which shows it through the turn's events, so a reload or
//! a second tab sees it too) until the user answers here, the wait runs out or the turn stops.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::error::{Code, Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// This call runs.
    Once,
    /// This call runs, and the tool runs without asking from now on.
    Always,
    Denied,
    /// No answer in time, or the turn stopped: the call does not run.
    TimedOut,
    /// The tool server was turned off or removed while the call waited: it does not run.
    ServerStopped,
}

struct Waiting {
    session_id: i64,
    answer: oneshot::Sender<Decision>,
}

#[derive(Default)]
pub struct Approvals {
    waiting: Mutex<HashMap<String, Waiting>>,
}

impl Approvals {
    /// A new question for the user: its id, and where the answer comes.
    pub fn ask(&self, session_id: i64) -> (String, oneshot::Receiver<Decision>) {
        let id = format!("{:016x}", rand::random::<u64>());
        let (answer, answered) = oneshot::channel();
        self.waiting.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), Waiting { session_id, answer });
        (id, answered)
    }

    /// The user's answer; refused with `not_pending` when the call no longer waits (answered in
    /// another tab, timed out, its turn stopped). Gives the call's chat.
    pub fn answer(&self, id: &str, decision: Decision) -> Result<i64> {
        let waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
        match waiting.map(|w| (w.session_id, w.answer.send(decision))) {
            Some((session_id, Ok(()))) => Ok(session_id),
            _ => Err(Error::conflict(Code::NotPending, "this tool call is no longer waiting for an answer").with("id", id)),
        }
    }

    /// The question is over without an answer (timed out, stopped).
    pub fn forget(&self, id: &str) {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }
}
