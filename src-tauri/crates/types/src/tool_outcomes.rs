//! What a tool call did, as data: stored with its tool message beside the text the model reads.
//!
//! The model's text comes from `prompts/` templates the user may rewrite, so nothing that shows a
//! call to the user reads it back; the chat shows this instead (the fact proposed, the passages
//! found, the call the user denied…), and the model's words stay free to change.

use serde::{Deserialize, Serialize};

use crate::error::ErrorBody;

/// Why a tool call failed, for the chat to say in the user's language. The model reads the
/// sentence of the same key (its text on the wire) in `prompts/tools/messages.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolFailure {
    NoSuchTool,
    BadArguments,
    QueryRequired,
    NoSearchWords,
    MemoryOff,
    FactRequired,
    IdRequired,
    NotAReference,
    NoStoredOutput,
    OffsetPastEnd,
    ServerUnavailable,
    CallTimedOut,
    ServerFailed,
    NoSuchSkill,
    NoSuchSkillFile,
    /// A tool server's own error, whose words are the message.
    ToolError,
}

/// What a tool call did, and whether its result was kept aside for being long.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct ToolOutcome {
    pub did: ToolDid,
    /// The result was long: the model got its first lines, and reads on with `read_tool_output`.
    pub kept: Option<KeptOutput>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolDid {
    /// `remember`: a new fact waits for the user's review.
    Proposed { id: i64, fact: String },
    /// `remember`: the fact is kept (auto mode).
    Saved { id: i64, fact: String },
    /// `remember`: a fact already said this and now reads `fact`; `pending`: it waits for review.
    Merged { id: i64, fact: String, pending: bool },
    /// `remember` (review mode): a change to the accepted fact `id`, which reads `was` until the
    /// user accepts the change to `fact`.
    ChangeProposed { id: i64, was: String, fact: String },
    /// `update_memory` (auto mode).
    Updated { id: i64, fact: String },
    /// `forget` (auto mode).
    Forgotten { id: i64 },
    /// `update_memory` or `forget` in review mode: the model tells the user, who edits the fact.
    NeedsReview { id: i64 },
    /// `search_memory`: the facts found (at least one).
    Facts { facts: Vec<FoundFact> },
    /// `search_attachment`: the passages found (at least one), and how they were ranked when
    /// the user has chosen an embeddings model.
    Passages {
        passages: Vec<FoundPassage>,
        /// Null for a search by the words alone, and for the other tools' searches (and absent
        /// from outcomes stored before hybrid search).
        #[serde(default)]
        ranking: Option<SearchRanking>,
    },
    /// A search (`search_memory`, `search_attachment`, `search_skills`) found nothing.
    NothingFound {
        query: String,
        /// Null for a search by the words alone, and for the other tools' searches (and absent
        /// from outcomes stored before hybrid search).
        #[serde(default)]
        ranking: Option<SearchRanking>,
    },
    /// `search_skills`: the names of the skills found.
    Skills { names: Vec<String> },
    /// `search_tools`: the tool servers' tools found, offered from the next request on.
    ToolsFound { names: Vec<String> },
    /// `load_skill`: the skill's procedure, with its reference files.
    SkillLoaded { name: String, files: Vec<String> },
    /// `read_skill_file`.
    SkillFileRead { name: String, path: String },
    /// `read_tool_output`: lines `from`–`to` of the kept result `reference`, of `lines`.
    PageRead { reference: String, tool: String, from: u32, to: u32, lines: u32 },
    /// A tool server's call the user did not allow.
    Denied,
    /// A tool server's call no one approved in time (or its reply stopped while it waited).
    NotApproved,
    /// The tool server was removed while the call waited or ran.
    ServerRemoved,
    /// The tool server was turned off while the call waited or ran.
    ServerTurnedOff,
    /// The call failed: `code` says why; `message` is what the model read.
    Error { code: ToolFailure, message: String },
    /// Maru refused what the call asked (a secret as a fact, a fact that is no longer there), as
    /// the API would have refused it.
    Refused { error: ErrorBody },
    /// A result in no form Maru knows (a tool server's): the tool message's text is all there is.
    Text,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FoundFact {
    pub id: i64,
    pub content: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct FoundPassage {
    /// The file's name.
    pub file: String,
    pub page: Option<i64>,
    pub line_start: i64,
    pub line_end: i64,
    pub text: String,
}

/// How a hybrid `search_attachment` ranked: by meaning (the embeddings model) beside the words,
/// and then by the reranker, each as it went. Lexical search always answers alone when the
/// others cannot.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct SearchRanking {
    pub meaning: RankingStep,
    /// `None`: no reranker is chosen.
    pub rerank: Option<RankingStep>,
}

/// One step of a hybrid ranking.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RankingStep {
    Used,
    /// The server did not answer within the search's budget: left out.
    TimedOut,
    /// The server failed: left out; `message` says how (the model read it too).
    Failed {
        message: String,
    },
    /// The files in scope are not embedded yet, or their vectors no longer fit (another model
    /// answers by the chosen name): they are being embedded in the background.
    Pending,
}

/// A long result kept whole in the store.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct KeptOutput {
    /// What `read_tool_output` takes (`out-12`).
    pub reference: String,
    /// The whole result's lines, and its size in characters.
    pub lines: u32,
    pub chars: u64,
    /// The lines the model got at first.
    pub shown: u32,
}

impl ToolDid {
    /// Whether the call did not do what it was asked (the turn marks its result as an error).
    pub fn failed(&self) -> bool {
        matches!(
            self,
            ToolDid::Denied
                | ToolDid::NotApproved
                | ToolDid::ServerRemoved
                | ToolDid::ServerTurnedOff
                | ToolDid::Error { .. }
                | ToolDid::Refused { .. }
        )
    }
}
