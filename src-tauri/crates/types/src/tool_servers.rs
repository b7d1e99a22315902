//! What creates or changes one of the user's MCP tool servers. What the API shows of one is
//! `ToolServerView`, in the core (without its secrets).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// A command Maru starts, speaking MCP on its stdin and stdout.
    #[default]
    Stdio,
    /// A server already running, reached over Streamable HTTP.
    Http,
}

sql_text_enum!(Transport { Stdio => "stdio", Http => "http" });

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewToolServer {
    /// Letters, digits, `-` and `_`: it names the server's tools for the model (`name__tool`).
    pub name: String,
    pub transport: Transport,
    /// stdio: the program to run, found on PATH or as a path.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// stdio: variables to set (secrets welcome: they are never shown again).
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
    /// http: the server's Streamable HTTP address.
    #[serde(default)]
    pub url: Option<String>,
    /// http: headers to send (an `Authorization` token, say); never shown again.
    #[serde(default)]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// A partial update. `env` and `headers` are merged: a name set to a string sets it, to `null`
/// removes it, and names left out keep their (unseen) values.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolServerPatch {
    pub name: Option<String>,
    pub command: Option<String>,
    pub args: Option<Vec<String>>,
    pub env: Option<BTreeMap<String, Option<String>>>,
    pub url: Option<String>,
    pub headers: Option<BTreeMap<String, Option<String>>>,
    pub enabled: Option<bool>,
    /// The tools that run without asking, by the server's own names.
    pub always_allowed: Option<Vec<String>>,
    /// The projects the server is off in.
    pub off_in: Option<Vec<i64>>,
}

/// What a server says one of its tools does: its MCP annotations. Hints the server gives and
/// nothing checks; `None` where it says nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolHints {
    /// It changes nothing, only reads (`readOnlyHint`).
    pub read_only: Option<bool>,
    /// It may delete or overwrite what is there (`destructiveHint`, which says nothing of a tool
    /// that only reads).
    pub destructive: Option<bool>,
    /// It reaches beyond this computer: the web, other services (`openWorldHint`).
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// Its server says it only reads.
    pub fn only_reads(&self) -> bool {
        self.read_only == Some(true)
    }
}
