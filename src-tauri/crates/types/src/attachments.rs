//! Files attached to a chat or a project, as the API shows them.

use serde::{Deserialize, Serialize};

use crate::error::Reason;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Text,
    Markdown,
    Code,
    Csv,
    Json,
    Html,
    Pdf,
    Image,
}

sql_text_enum!(Kind {
    Text => "text", Markdown => "markdown", Code => "code", Csv => "csv", Json => "json",
    Html => "html", Pdf => "pdf", Image => "image",
});

impl Kind {
    /// How the prompt names it: "Markdown", "PDF".
    pub fn label(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Markdown => "Markdown",
            Kind::Code => "code",
            Kind::Csv => "CSV",
            Kind::Json => "JSON",
            Kind::Html => "HTML",
            Kind::Pdf => "PDF",
            Kind::Image => "image",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum IndexStatus {
    /// Its text is being read and indexed; the chat works meanwhile.
    Indexing,
    Ready,
    /// No text could be read; `note` says why. The file stays attached.
    Failed,
}

sql_text_enum!(IndexStatus { Indexing => "indexing", Ready => "ready", Failed => "failed" });

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Attachment {
    pub id: i64,
    /// Exactly one of `session_id` and `project_id` is set: the file's scope.
    pub session_id: Option<i64>,
    pub project_id: Option<i64>,
    /// As the user named it; shown, never used as a path.
    pub name: String,
    pub kind: Kind,
    pub mime: String,
    pub size: i64,
    pub pages: Option<i64>,
    pub sha256: String,
    pub status: IndexStatus,
    /// Why indexing failed, or what could not be read.
    pub note: Option<String>,
    /// The same as a code for the UI (absent for notes stored before codes were kept).
    pub note_reason: Option<Reason>,
    pub created_at: i64,
    /// A file of the project's folder this one mirrors (relative to the folder); it follows the
    /// file on disk and cannot be removed on its own.
    pub folder_path: Option<String>,
}
