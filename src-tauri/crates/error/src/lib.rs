//! The one error type that crosses every boundary (HTTP, desktop IPC, CLI) as `{code, message,
//! params}`.
//!
//! `code` is stable and machine-readable (the UI branches on it); `message` is for the user and
//! says what to do, in English; `params` are the names and numbers the message holds (a file, a
//! model, a limit), so the UI can say the same in its own language. Internal errors are logged in
//! full and reported without their details.

use std::borrow::Cow;

use serde::Serialize;

/// An enum of codes, each with its text on the wire: `as_str`, serde as that text, the OpenAPI
/// schema and (feature `ts`) a TypeScript union of the texts, so the UI's tables of words are
/// checked against it by the TypeScript compiler.
#[macro_export]
macro_rules! codes {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant,)*
        }

        // Written out, not derived: the derive does not read a `rename` that comes from a macro
        // argument, and documented the variants' Rust names instead of the codes on the wire.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::Type::String)
                    .enum_values(Some([$($text),*]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

codes! {
    /// Every code of Maru's own errors (the model server's are [`UpstreamCode`]). Adding one here
    /// makes the UI's build fail until it has words for it in English and Korean.
    Code {
        BackupDamaged = "backup_damaged",
        BadHost = "bad_host",
        BadOrigin = "bad_origin",
        BadMethod = "bad_method",
        BadRequest = "bad_request",
        BadTemplate = "bad_template",
        BinaryFile = "binary_file",
        BindFailed = "bind_failed",
        BodyTooLarge = "body_too_large",
        ConnectionOff = "connection_off",
        DataDirInUse = "data_dir_in_use",
        DataDirNotEmpty = "data_dir_not_empty",
        DataDirUnusable = "data_dir_unusable",
        DefaultConnection = "default_connection",
        DefaultProject = "default_project",
        DemoUnavailable = "demo_unavailable",
        EmptyFile = "empty_file",
        EmptyMessage = "empty_message",
        FileMissing = "file_missing",
        FileTooLarge = "file_too_large",
        HeadersTooLong = "headers_too_long",
        ImageNotHere = "image_not_here",
        ImagesUnsupported = "images_unsupported",
        InstructionsTooLong = "instructions_too_long",
        Internal = "internal",
        Interrupted = "interrupted",
        InterruptedBeforeStart = "interrupted_before_start",
        InvalidAttachmentLimit = "invalid_attachment_limit",
        InvalidBudget = "invalid_budget",
        InvalidContextLength = "invalid_context_length",
        InvalidCursor = "invalid_cursor",
        InvalidDescription = "invalid_description",
        InvalidEndpoint = "invalid_endpoint",
        InvalidFileName = "invalid_file_name",
        InvalidFolder = "invalid_folder",
        SystemFolder = "system_folder",
        InvalidHost = "invalid_host",
        InvalidId = "invalid_id",
        InvalidImport = "invalid_import",
        InvalidJson = "invalid_json",
        InvalidMaxTokens = "invalid_max_tokens",
        InvalidMemory = "invalid_memory",
        InvalidModel = "invalid_model",
        InvalidName = "invalid_name",
        InvalidPrompt = "invalid_prompt",
        InvalidQuery = "invalid_query",
        InvalidRequest = "invalid_request",
        InvalidScope = "invalid_scope",
        InvalidSharing = "invalid_sharing",
        InvalidTemperature = "invalid_temperature",
        InvalidTextLimit = "invalid_text_limit",
        InvalidToolOutputLimit = "invalid_tool_output_limit",
        InvalidToolSchemaBudget = "invalid_tool_schema_budget",
        InvalidToolServer = "invalid_tool_server",
        InvalidCommandLine = "invalid_command_line",
        InvalidExclude = "invalid_exclude",
        McpConfigNotJson = "mcp_config_not_json",
        McpConfigNoServers = "mcp_config_no_servers",
        McpConfigTooLarge = "mcp_config_too_large",
        McpConfigTooMany = "mcp_config_too_many",
        McpConfigNothingChosen = "mcp_config_nothing_chosen",
        McpServerNotInFile = "mcp_server_not_in_file",
        McpServerUnusable = "mcp_server_unusable",
        NotPending = "not_pending",
        ToolServerFailed = "tool_server_failed",
        ToolServerOff = "tool_server_off",
        InvalidSkill = "invalid_skill",
        UnknownSkill = "unknown_skill",
        InvalidTimeout = "invalid_timeout",
        InvalidTitle = "invalid_title",
        NothingToTitle = "nothing_to_title",
        TitleUnusable = "title_unusable",
        InvalidTopP = "invalid_top_p",
        InvalidUpload = "invalid_upload",
        MemoryOff = "memory_off",
        MessageStreaming = "message_streaming",
        MessageTooLong = "message_too_long",
        MethodNotAllowed = "method_not_allowed",
        NameTaken = "name_taken",
        NoServer = "no_server",
        NewerSchema = "newer_schema",
        NoSuchRoute = "no_such_route",
        NoTurnRunning = "no_turn_running",
        NotABackup = "not_a_backup",
        NotAUserMessage = "not_a_user_message",
        NotAnImage = "not_an_image",
        NotFound = "not_found",
        NothingToRegenerate = "nothing_to_regenerate",
        RemoteRefused = "remote_refused",
        ReplyDeleted = "reply_deleted",
        ReplyTooLong = "reply_too_long",
        ScopeFull = "scope_full",
        SecretRefused = "secret_refused",
        TooManyToolRounds = "too_many_tool_rounds",
        TurnRunning = "turn_running",
        TypeMismatch = "type_mismatch",
        Unauthorized = "unauthorized",
        UnknownPreset = "unknown_preset",
        UnsafeBackupEntry = "unsafe_backup_entry",
        TemporaryChat = "temporary_chat",
        UnsupportedImport = "unsupported_import",
        UnsupportedImportVersion = "unsupported_import_version",
        UrlTooLong = "url_too_long",
        CredentialsInUrl = "credentials_in_url",
        BackupTooLarge = "backup_too_large",
        NotEnoughSpace = "not_enough_space",
        RestoreRunning = "restore_running",
    }
}

codes! {
    /// The model server's failures, as the API reports them: `model_server.<code>`.
    UpstreamCode {
        InvalidUrl = "invalid_url",
        Unreachable = "unreachable",
        Dns = "dns",
        Network = "network",
        TimeoutConnect = "timeout_connect",
        TimeoutFirstByte = "timeout_first_byte",
        TimeoutIdle = "timeout_idle",
        Unauthorized = "unauthorized",
        UnknownModel = "unknown_model",
        NotFound = "not_found",
        ContextTooLong = "context_too_long",
        Rejected = "rejected",
        ServerError = "server_error",
        BadResponse = "bad_response",
        StreamError = "stream_error",
        Disconnected = "disconnected",
        Cancelled = "cancelled",
        NoModel = "no_model",
        DemoFailed = "demo_failed",
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request itself is wrong (empty name, too long, bad value). Nothing was changed.
    #[error("{message}")]
    Invalid { code: Code, message: String, params: Params },
    #[error("{what} {id} does not exist")]
    NotFound { what: &'static str, id: i64 },
    /// The request is well-formed but conflicts with the data (duplicate name, Default project).
    #[error("{message}")]
    Conflict { code: Code, message: String, params: Params },
    #[error("{message}")]
    Unauthorized { message: String },
    /// The model server failed; the message says how to fix it. Its code is reported as
    /// `model_server.<code>`, apart from Maru's own (`model_server.unauthorized` is the model
    /// server refusing Maru's key, `unauthorized` is Maru refusing the caller's token).
    #[error("{message}")]
    Upstream { code: UpstreamCode, message: String },
    /// Maru cannot start: the data folder is in use or unusable, a port is taken, a template
    /// folder cannot be read.
    #[error("{message}")]
    Startup { code: Code, message: String },
    #[error(
        "the database was written by a newer version of Maru (schema {found}, this build knows up to {known}); update Maru to open it"
    )]
    NewerSchema { found: i64, known: i64 },
    #[error("internal error: {0:#}")]
    Internal(#[from] anyhow::Error),
}

/// Named values for the UI's sentence of a code: `{"file": "notes.txt"}`. (Spelled out in the
/// types the API documents: the document would name an alias's schema after `BTreeMap`.)
pub type Params = std::collections::BTreeMap<String, String>;

codes! {
    /// Every [`Reason`]'s code: the UI has a sentence for each in each language, and the generated
    /// type makes a code without one fail its build. (A newer version's code, unknown to an older
    /// UI, shows the server's English.)
    ReasonCode {
        AttachmentsChanged = "attachments_changed",
        BaseChanged = "base_changed",
        BaseTemplateChanged = "base_template_changed",
        CustomInstructionsAdded = "custom_instructions_added",
        CustomInstructionsEdited = "custom_instructions_edited",
        CustomInstructionsRemoved = "custom_instructions_removed",
        DateAndMemoryChanged = "date_and_memory_changed",
        DateChanged = "date_changed",
        DefaultProject = "default_project",
        FirstRequest = "first_request",
        HtmlUnreadable = "html_unreadable",
        ImageNoText = "image_no_text",
        ImageUnreadable = "image_unreadable",
        MemoryChanged = "memory_changed",
        MovedToProject = "moved_to_project",
        NoAttachments = "no_attachments",
        NoCustomInstructions = "no_custom_instructions",
        NoProjectInstructions = "no_project_instructions",
        NoText = "no_text",
        NoTextInPages = "no_text_in_pages",
        NoVisibleChange = "no_visible_change",
        NotUtf8 = "not_utf8",
        PdfNoPages = "pdf_no_pages",
        PdfReaderFailed = "pdf_reader_failed",
        PdfTimeout = "pdf_timeout",
        PdfUnreadable = "pdf_unreadable",
        ProjectInstructionsEdited = "project_instructions_edited",
        SectionBudget = "section_budget",
        StoredFileUnreadable = "stored_file_unreadable",
        TextCut = "text_cut",
        TotalBudget = "total_budget",
        ContextWindow = "context_window",
        TemporaryChat = "temporary_chat",
        PromptFillsWindow = "prompt_fills_window",
        LastMessageFillsWindow = "last_message_fills_window",
        NothingToCompact = "nothing_to_compact",
        McpServerBadField = "mcp_server_bad_field",
        McpServerInvalid = "mcp_server_invalid",
        McpServerIncomplete = "mcp_server_incomplete",
        SseTransport = "sse_transport",
        CommandSplit = "command_split",
        IgnoredFields = "ignored_fields",
        UnreadPages = "unread_pages",
        ToolServerCannotRun = "tool_server_cannot_run",
        ToolServerNoHandshake = "tool_server_no_handshake",
        ToolServerNoAnswer = "tool_server_no_answer",
        ToolServerBadHeader = "tool_server_bad_header",
        ToolServerNoToolList = "tool_server_no_tool_list",
        ToolServerTimedOut = "tool_server_timed_out",
    }
}

/// Why something is as it is (a section left out, a cut, a changed prompt, a file that could not
/// be read), for the UI to say in its language: a stable `code` and the values its sentence needs.
/// The English sentence travels beside it in the field it explains.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct Reason {
    pub code: ReasonCode,
    #[serde(default)]
    pub params: std::collections::BTreeMap<String, String>,
}

impl Reason {
    pub fn new(code: ReasonCode) -> Reason {
        Reason { code, params: Default::default() }
    }

    pub fn with(mut self, name: &str, value: impl ToString) -> Reason {
        self.params.insert(name.into(), value.to_string());
        self
    }
}

/// What an error's `code` holds, as the API documents it: one of Maru's own codes, or a model
/// server's as sent (`model_server.` and an [`UpstreamCode`]). Only a schema: the body keeps the
/// code as text.
pub struct AnyCode;

impl utoipa::PartialSchema for AnyCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{ObjectBuilder, OneOfBuilder, Ref, Type};
        let upstream: Vec<String> = UpstreamCode::ALL.iter().map(|c| upstream_code(c.as_str())).collect();
        OneOfBuilder::new()
            .item(Ref::from_schema_name("Code"))
            .item(ObjectBuilder::new().schema_type(Type::String).enum_values(Some(upstream)))
            .into()
    }
}

impl utoipa::ToSchema for AnyCode {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        schemas.push(("Code".into(), <Code as utoipa::PartialSchema>::schema()));
    }
}

/// The JSON shape of every error, on every boundary.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct ErrorBody {
    #[schema(value_type = AnyCode)]
    pub code: String,
    pub message: String,
    /// What the message names, for the UI's sentence of the code (empty when it names nothing).
    #[serde(default)]
    pub params: std::collections::BTreeMap<String, String>,
}

impl ErrorBody {
    pub fn new(code: Code, message: impl Into<String>) -> ErrorBody {
        ErrorBody { code: code.as_str().into(), message: message.into(), params: Params::new() }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn invalid(code: Code, message: impl Into<String>) -> Self {
        Error::Invalid { code, message: message.into(), params: Params::new() }
    }
    pub fn conflict(code: Code, message: impl Into<String>) -> Self {
        Error::Conflict { code, message: message.into(), params: Params::new() }
    }

    /// Names a value the message holds, for the UI's sentence (`{file}` in `"{file}은 비어 있습니다"`).
    pub fn with(mut self, name: &str, value: impl ToString) -> Self {
        if let Error::Invalid { params, .. } | Error::Conflict { params, .. } = &mut self {
            params.insert(name.into(), value.to_string());
        }
        self
    }
    pub fn startup(code: Code, message: impl Into<String>) -> Self {
        Error::Startup { code, message: message.into() }
    }

    pub fn code(&self) -> Cow<'static, str> {
        match self {
            Error::Invalid { code, .. } | Error::Conflict { code, .. } | Error::Startup { code, .. } => Cow::Borrowed(code.as_str()),
            Error::Upstream { code, .. } => Cow::Owned(upstream_code(code.as_str())),
            Error::NotFound { .. } => Code::NotFound.as_str().into(),
            Error::Unauthorized { .. } => Code::Unauthorized.as_str().into(),
            Error::NewerSchema { .. } => Code::NewerSchema.as_str().into(),
            Error::Internal(_) => Code::Internal.as_str().into(),
        }
    }

    pub fn http_status(&self) -> u16 {
        match self {
            Error::Invalid { .. } => 400,
            Error::Unauthorized { .. } => 401,
            Error::NotFound { .. } => 404,
            Error::Conflict { .. } => 409,
            Error::Upstream { .. } => 502,
            Error::NewerSchema { .. } | Error::Startup { .. } | Error::Internal(_) => 500,
        }
    }

    pub fn body(&self) -> ErrorBody {
        let message = match self {
            // Details of internal failures go to the log, not to the user.
            Error::Internal(_) => "something went wrong inside Maru; the log file in the data folder has the details".to_string(),
            other => other.to_string(),
        };
        let params = match self {
            Error::Invalid { params, .. } | Error::Conflict { params, .. } => params.clone(),
            _ => Params::new(),
        };
        ErrorBody { code: self.code().to_string(), message, params }
    }
}

/// The code of a model-server failure as it crosses the API: `model_server.<code>`.
pub fn upstream_code(code: &str) -> String {
    format!("model_server.{code}")
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Internal(e.into())
    }
}

/// An error as an HTTP response: its status, the `{code, message, params}` body, and for 401 the
/// `WWW-Authenticate` header. Internal errors are logged here, in full, once.
#[cfg(feature = "http")]
impl axum::response::IntoResponse for Error {
    fn into_response(self) -> axum::response::Response {
        use axum::http::StatusCode;
        if let Error::Internal(e) = &self {
            tracing::error!(error = format!("{e:#}"), "internal error");
        }
        let status = StatusCode::from_u16(self.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut res = (status, axum::Json(self.body())).into_response();
        if status == StatusCode::UNAUTHORIZED {
            res.headers_mut().insert("www-authenticate", axum::http::HeaderValue::from_static("Bearer"));
        }
        res
    }
}
