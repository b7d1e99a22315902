//! The `/api` routes: each handler is a thin wrapper over one [`crate::api`] function, and its
//! `#[utoipa::path]` is its entry in the OpenAPI document. Routes are registered only through
//! [`OpenApiRouter`], so a route cannot be served without being documented.

use std::sync::Arc;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::any;
use axum::Router;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{Id, Json, Multipart, Query};
use crate::api::attachments::{AttachmentScope, UploadForm};
use crate::api::chat::{NewTurn, Stopped};
use crate::api::connections::{ConnectionView, ModelsQuery};
use crate::api::context::{ContextView, InstructionFiles};
use crate::api::presets::{DeletedPreset, PresetView};
use crate::api::skills::SkillView;
use crate::api::tool_servers::{Answered, Approve, CommandLineText, ImportPreview, McpConfigText, McpImport, ToolServerView};
use crate::api::{self, Deleted, Health, MessageEdit, MessageQuery, SessionQuery};
use crate::app::demo::DemoModel;
use crate::app::folders::FolderSync;
use crate::app::{App, TurnEvent, TurnStream};
use crate::chat::compact::Compacted;
use crate::error::{Code, ErrorBody, Result};
use crate::llm::{FoundServer, ModelInfo};
use crate::store::attachments::Attachment;
use crate::store::changes::Change;
use crate::store::connections::{ConnectionPatch, NewConnection};
use crate::store::memories::{Memory, MemoryPatch, NewMemory};
use crate::store::messages::{Message, MessagePage};
use crate::store::presets::{NewPreset, PresetPatch};
use crate::store::projects::{DeletedProject, NewProject, Project, ProjectPatch};
use crate::store::sessions::{NewSession, Session, SessionPage, SessionPatch};
use crate::store::settings::{EmbeddingProgress, SettingsPatch, SettingsView};
use crate::store::shared_calls::SharedCall;
use crate::store::skills::{NewSkill, SkillPatch};
use crate::store::tool_servers::{NewToolServer, ToolServerPatch};
use crate::tools::approvals::Decision;
use crate::tools::command_line::CommandLine;
use crate::tools::servers::ServerTool;

type AppState = State<Arc<App>>;
type Reply<T> = Result<axum::Json<T>>;

/// The documented routes and the document, from the same list. One `routes!` per path, but for
/// the paths that also start a turn: those handlers are apart in [`turns`].
pub(super) fn documented() -> (Router<Arc<App>>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(super::openapi::base())
        .routes(routes!(health))
        .routes(routes!(openapi))
        .routes(routes!(list_projects, create_project))
        .routes(routes!(update_project, delete_project))
        .routes(routes!(folder_sync))
        .routes(routes!(project_instructions))
        .routes(routes!(list_sessions, create_session))
        .routes(routes!(get_session, update_session, delete_session))
        .routes(routes!(keep_session))
        .routes(routes!(regenerate_title))
        .routes(routes!(list_messages))
        .routes(routes!(edit_message, delete_message))
        .routes(routes!(choose_version))
        .routes(routes!(fork_message))
        .routes(routes!(stop))
        .routes(routes!(turn_events))
        .routes(routes!(changes))
        .routes(routes!(context))
        .routes(routes!(compact))
        .routes(routes!(uncompact))
        .routes(routes!(get_settings, update_settings))
        .routes(routes!(embedding_progress))
        .routes(routes!(list_memories, create_memory))
        .routes(routes!(update_memory, delete_memory))
        .routes(routes!(accept_memory))
        .routes(routes!(shared_calls))
        .merge(uploads())
        .routes(routes!(get_attachment, delete_attachment))
        .routes(routes!(attachment_content))
        .routes(routes!(attachment_thumbnail))
        .routes(routes!(search))
        .routes(routes!(search_files))
        .routes(routes!(list_presets, create_preset))
        .routes(routes!(update_preset, delete_preset))
        .routes(routes!(list_skills, create_skill))
        .routes(routes!(update_skill, delete_skill))
        .routes(routes!(list_tool_servers, create_tool_server))
        .routes(routes!(update_tool_server, delete_tool_server))
        .routes(routes!(tool_server_tools))
        .routes(routes!(split_command_line))
        .routes(routes!(preview_tool_server_import))
        .routes(routes!(import_tool_servers))
        .routes(routes!(approve_tool_call))
        .routes(routes!(deny_tool_call))
        .routes(routes!(list_connections, create_connection))
        .routes(routes!(update_connection, delete_connection))
        .routes(routes!(list_models))
        .routes(routes!(probe_servers))
        .routes(routes!(demo_model, start_demo_model))
        .routes(routes!(export_chat))
        .routes(routes!(export_project))
        .routes(routes!(backup))
        .routes(routes!(import_job))
        // Each request on its own task, but for a turn's, which starts one of its own.
        .layer(axum::middleware::from_fn(super::detach))
        .merge(turns())
        .split_for_parts()
}

/// The routes that start a turn. The turn runs on a task of its own from its first check
/// (`chat::start`), so a client that hangs up cannot cut it; a second task for the request
/// would only add a hand-off between threads before the model server is asked.
fn turns() -> OpenApiRouter<Arc<App>> {
    OpenApiRouter::new().routes(routes!(send_message)).routes(routes!(resend)).routes(routes!(regenerate))
}

/// Uploads may be as large as the largest file setting allows; every other body stays small.
fn uploads() -> OpenApiRouter<Arc<App>> {
    OpenApiRouter::new()
        .routes(routes!(list_attachments, upload_attachment))
        .routes(routes!(import_chat))
        .routes(routes!(import_project))
        .routes(routes!(import_skills))
        .routes(routes!(restore_backup))
        .layer(axum::extract::DefaultBodyLimit::max(crate::api::attachments::UPLOAD_MAX_BYTES))
}

pub fn api() -> Router<Arc<App>> {
    documented()
        .0
        // Explicit, so that the web UI's fallback (index.html for its own routes) never answers
        // an API path: a script or a newer UI talking to an older Maru gets JSON, not HTML.
        .route("/api/{*rest}", any(not_found))
        .route("/api", any(not_found))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> impl axum::response::IntoResponse {
    let body = ErrorBody::new(Code::MethodNotAllowed, format!("{} does not accept {method}", uri.path()));
    (axum::http::StatusCode::METHOD_NOT_ALLOWED, axum::Json(body))
}

async fn not_found(uri: axum::http::Uri) -> impl axum::response::IntoResponse {
    let body = ErrorBody::new(Code::NoSuchRoute, format!("there is no API route {}", uri.path()));
    (axum::http::StatusCode::NOT_FOUND, axum::Json(body))
}

/// Liveness and versions
#[utoipa::path(get, path = "/api/health", tag = "meta", responses((status = 200, description = "Maru is up", body = Health)))]
async fn health(State(app): AppState) -> Reply<Health> {
    Ok(axum::Json(api::health(&app).await?))
}

/// This document
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "OpenAPI 3.1", content_type = "application/json", body = Object)))]
async fn openapi() -> axum::Json<&'static serde_json::Value> {
    axum::Json(document())
}

/// The whole document, built once.
pub(super) fn document() -> &'static serde_json::Value {
    static DOC: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| super::openapi::complete(documented().1));
    &DOC
}

// ---- projects

/// All projects, Default first
#[utoipa::path(get, path = "/api/projects", tag = "projects", responses((status = 200, description = "Every project", body = Vec<Project>)))]
async fn list_projects(State(app): AppState) -> Reply<Vec<Project>> {
    Ok(axum::Json(api::list_projects(&app).await?))
}

/// Create a project
#[utoipa::path(post, path = "/api/projects", tag = "projects", request_body = NewProject, responses(
    (status = 200, description = "The new project", body = Project),
    (status = 400, description = "`invalid_json`, `invalid_name`, `instructions_too_long`", body = ErrorBody),
    (status = 409, description = "`name_taken` (names are compared ignoring case)", body = ErrorBody),
))]
async fn create_project(State(app): AppState, Json(new): Json<NewProject>) -> Reply<Project> {
    Ok(axum::Json(api::create_project(&app, new).await?))
}

/// Rename, change instructions or link a folder (refused for Default)
///
/// A linked folder's instructions files join the project's instructions, and its readable
/// files are mirrored as the project's files (kept in sync); `"folder": null` unlinks it.
#[utoipa::path(patch, path = "/api/projects/{id}", tag = "projects", params(Id), request_body = ProjectPatch, responses(
    (status = 200, description = "The project as changed", body = Project),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_name`, `instructions_too_long`, `invalid_folder`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`name_taken`, `default_project`", body = ErrorBody),
))]
async fn update_project(State(app): AppState, Id(id): Id, Json(p): Json<ProjectPatch>) -> Reply<Project> {
    Ok(axum::Json(api::update_project(&app, id, p).await?))
}

/// Delete; its sessions move to Default in the same transaction
#[utoipa::path(delete, path = "/api/projects/{id}", tag = "projects", params(Id), responses(
    (status = 200, description = "What was deleted and where its sessions went", body = DeletedProject),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`default_project`", body = ErrorBody),
))]
async fn delete_project(State(app): AppState, Id(id): Id) -> Reply<DeletedProject> {
    Ok(axum::Json(api::delete_project(&app, id).await?))
}

/// How far the project's folder sync got: files found, read, skipped (with why), failed, done
#[utoipa::path(get, path = "/api/projects/{id}/folder", tag = "projects", params(Id), responses(
    (status = 200, description = "The running sync's progress, else the last one's result", body = FolderSync),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn folder_sync(State(app): AppState, Id(id): Id) -> Reply<FolderSync> {
    Ok(axum::Json(api::folder_sync(&app, id).await?))
}

/// The instructions files of the project's folder: those sent (most general first) and those found and not sent, with why
#[utoipa::path(get, path = "/api/projects/{id}/instructions", tag = "projects", params(Id), responses(
    (status = 200, description = "Sent and left out, with why (both empty without a folder)", body = InstructionFiles),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn project_instructions(State(app): AppState, Id(id): Id) -> Reply<InstructionFiles> {
    Ok(axum::Json(api::project_instructions(&app, id).await?))
}

// ---- sessions

/// One project's sessions, newest activity first
#[utoipa::path(get, path = "/api/sessions", tag = "sessions", params(SessionQuery), responses(
    (status = 200, description = "A page of sessions", body = SessionPage),
    (status = 400, description = "`invalid_query`, `invalid_cursor`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such project", body = ErrorBody),
))]
async fn list_sessions(State(app): AppState, Query(q): Query<SessionQuery>) -> Reply<SessionPage> {
    Ok(axum::Json(api::list_sessions(&app, q).await?))
}

/// Create a session (in Default when project_id is absent)
///
/// `temporary`: a chat that is never stored for good: not listed or searched, no title asked of
/// the model, no memory and no summaries, deleted when closed (delete it) or when Maru closes or
/// starts, unless kept (`POST /api/sessions/{id}/keep`).
#[utoipa::path(post, path = "/api/sessions", tag = "sessions", request_body = NewSession, responses(
    (status = 200, description = "The new session", body = Session),
    (status = 400, description = "`invalid_json`, `invalid_title`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such project", body = ErrorBody),
))]
async fn create_session(State(app): AppState, Json(new): Json<NewSession>) -> Reply<Session> {
    Ok(axum::Json(api::create_session(&app, new).await?))
}

/// One session
#[utoipa::path(get, path = "/api/sessions/{id}", tag = "sessions", params(Id), responses(
    (status = 200, description = "The session", body = Session),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn get_session(State(app): AppState, Id(id): Id) -> Reply<Session> {
    Ok(axum::Json(api::get_session(&app, id).await?))
}

/// Rename, move with project_id, or set the preset or the (server, model) pair
#[utoipa::path(patch, path = "/api/sessions/{id}", tag = "sessions", params(Id), request_body = SessionPatch, responses(
    (status = 200, description = "The session as changed", body = Session),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_title`, `unknown_preset`, `invalid_model`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such session, project or server", body = ErrorBody),
    (status = 409, description = "`connection_off`: that server is turned off", body = ErrorBody),
))]
async fn update_session(State(app): AppState, Id(id): Id, Json(p): Json<SessionPatch>) -> Reply<Session> {
    Ok(axum::Json(api::update_session(&app, id, p).await?))
}

/// Keep a temporary chat: from now on it is listed, searched, titled and remembered like any
#[utoipa::path(post, path = "/api/sessions/{id}/keep", tag = "sessions", params(Id), responses(
    (status = 200, description = "The chat, kept (`temporary` false); a chat kept already stays as it is", body = Session),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn keep_session(State(app): AppState, Id(id): Id) -> Reply<Session> {
    Ok(axum::Json(api::keep_session(&app, id).await?))
}

/// A new title by the model: the chat's first and newest messages with the title task (the
/// chat's menu offers it when a title did not come out well). It replaces any title.
#[utoipa::path(post, path = "/api/sessions/{id}/title", tag = "sessions", params(Id), responses(
    (status = 200, description = "The chat with the model's new title", body = Session),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`nothing_to_title`: the chat has no message yet; `title_unusable`: the model's answer was no title (`answer`)", body = ErrorBody),
    (status = 502, description = "The model server failed (`model_server.*`)", body = ErrorBody),
))]
async fn regenerate_title(State(app): AppState, Id(id): Id) -> Reply<Session> {
    Ok(axum::Json(api::regenerate_title(&app, id).await?))
}

/// Delete with its messages (a reply being written is stopped first)
#[utoipa::path(delete, path = "/api/sessions/{id}", tag = "sessions", params(Id), responses(
    (status = 200, description = "Deleted", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`: the reply being written did not stop in time", body = ErrorBody),
))]
async fn delete_session(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::delete_session(&app, id).await?))
}

// ---- messages

/// Messages, newest first
#[utoipa::path(get, path = "/api/sessions/{id}/messages", tag = "messages", params(Id, MessageQuery), responses(
    (status = 200, description = "A page of messages", body = MessagePage),
    (status = 400, description = "`invalid_id`, `invalid_query`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn list_messages(State(app): AppState, Id(id): Id, Query(q): Query<MessageQuery>) -> Reply<MessagePage> {
    Ok(axum::Json(api::list_messages(&app, id, q).await?))
}

/// Edit a message's text
#[utoipa::path(patch, path = "/api/messages/{id}", tag = "messages", params(Id), request_body = MessageEdit, responses(
    (status = 200, description = "The message as changed", body = Message),
    (status = 400, description = "`invalid_id`, `invalid_json`, `empty_message`, `message_too_long`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`message_streaming`, `turn_running` (a reply is being written in the chat: stop it first)", body = ErrorBody),
))]
async fn edit_message(State(app): AppState, Id(id): Id, Json(e): Json<MessageEdit>) -> Reply<Message> {
    Ok(axum::Json(api::edit_message(&app, id, e).await?))
}

/// Delete a message (a reply being written in its chat is stopped first)
#[utoipa::path(delete, path = "/api/messages/{id}", tag = "messages", params(Id), responses(
    (status = 200, description = "Deleted", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`: the reply being written did not stop in time", body = ErrorBody),
))]
async fn delete_message(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::delete_message(&app, id).await?))
}

/// Show another version of a message
///
/// The chat continues along the version chosen: it is what the chat shows, what the model reads
/// next, and what an export holds.
#[utoipa::path(post, path = "/api/messages/{id}/choose", tag = "messages", params(Id), responses(
    (status = 200, description = "The newest page of the chat as it now reads", body = MessagePage),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`; `connection_off`: the chat's server is turned off", body = ErrorBody),
))]
async fn choose_version(State(app): AppState, Id(id): Id) -> Reply<MessagePage> {
    Ok(axum::Json(api::choose_version(&app, id).await?))
}

/// Continue in a new chat from this message
///
/// A new chat in the same project, with the chat's preset, server and model, holding this
/// message and the ones it follows (the versions on its way only), the chat's own files and the
/// summaries that still apply. The original chat is unchanged.
#[utoipa::path(post, path = "/api/messages/{id}/fork", tag = "messages", params(Id), responses(
    (status = 200, description = "The new chat", body = Session),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`message_streaming`: the reply is still being written", body = ErrorBody),
))]
async fn fork_message(State(app): AppState, Id(id): Id) -> Reply<Session> {
    Ok(axum::Json(api::fork_message(&app, id).await?))
}

// ---- chat

type EventStream =
    Sse<axum::response::sse::KeepAliveStream<futures_util::stream::BoxStream<'static, Result<Event, std::convert::Infallible>>>>;

/// A turn's events as Server-Sent Events, one event per `TurnEvent`, named by its type.
fn sse(events: TurnStream) -> EventStream {
    use futures_util::StreamExt;
    let stream = events
        .into_stream()
        .map(|ev| Ok(Event::default().event(ev.name()).json_data(&ev).unwrap_or_else(|_| Event::default().event("error"))));
    Sse::new(stream.boxed()).keep_alive(KeepAlive::default())
}

/// Send a message and stream the reply
///
/// The stream's events are named by their `type` (token, reasoning, tool_call, tool_result,
/// usage, done, error); each event's data is one `TurnEvent`. Failures after the stream has begun
/// (the model server down, a timeout) arrive as an `error` event. A message sent right after an
/// answer may show the new answer's first words before it is stored: if storing then fails, the
/// `error` that follows them has `nothing_stored` set, and the message is not in the chat.
#[utoipa::path(post, path = "/api/sessions/{id}/messages", tag = "chat", params(Id), request_body = NewTurn, responses(
    (status = 200, description = "Server-Sent Events, one `TurnEvent` each", content_type = "text/event-stream", body = TurnEvent),
    (status = 400, description = "`invalid_id`, `invalid_json`, `empty_message`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`; `connection_off`: the chat's server is turned off", body = ErrorBody),
))]
async fn send_message(State(app): AppState, Id(id): Id, Json(turn): Json<NewTurn>) -> Result<EventStream> {
    Ok(sse(api::chat::send_message(app, id, turn).await?))
}

/// Answer the last message again (the reply so far stays as an earlier version)
///
/// Streams like sending a message (an `error` with `nothing_stored` after the first words: no new
/// version was stored).
#[utoipa::path(post, path = "/api/sessions/{id}/regenerate", tag = "chat", params(Id), responses(
    (status = 200, description = "Server-Sent Events, one `TurnEvent` each", content_type = "text/event-stream", body = TurnEvent),
    (status = 400, description = "`invalid_id`, `nothing_to_regenerate`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`; `connection_off`: the chat's server is turned off", body = ErrorBody),
))]
async fn regenerate(State(app): AppState, Id(id): Id) -> Result<EventStream> {
    Ok(sse(api::chat::regenerate(app, id).await?))
}

/// Answer an edited copy of a user message (the original and its replies stay as an earlier version)
///
/// Streams like sending a message.
#[utoipa::path(post, path = "/api/messages/{id}/resend", tag = "chat", params(Id), request_body = NewTurn, responses(
    (status = 200, description = "Server-Sent Events, one `TurnEvent` each", content_type = "text/event-stream", body = TurnEvent),
    (status = 400, description = "`invalid_id`, `invalid_json`, `empty_message`, `not_a_user_message`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`; `connection_off`: the chat's server is turned off", body = ErrorBody),
))]
async fn resend(State(app): AppState, Id(id): Id, Json(turn): Json<NewTurn>) -> Result<EventStream> {
    Ok(sse(api::chat::resend(app, id, turn).await?))
}

/// The reply being written, from its first event, then live
///
/// For a second tab or a reloaded window.
#[utoipa::path(get, path = "/api/sessions/{id}/events", tag = "chat", params(Id), responses(
    (status = 200, description = "Server-Sent Events, one `TurnEvent` each", content_type = "text/event-stream", body = TurnEvent),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`no_turn_running`", body = ErrorBody),
))]
async fn turn_events(State(app): AppState, Id(id): Id) -> Result<EventStream> {
    Ok(sse(api::chat::turn_events(&app, id).await?))
}

/// What changes, live: chats, projects, turns
///
/// For every open window and tab, to stay current with what the others, the API and the turns
/// do: one event per `Change`, named by its `type` (`session_changed`, `session_deleted`,
/// `projects_changed`, `turn_started`, `turn_ended`, and `resync` when this listener fell
/// behind and should read everything again). Only what changed, never the data.
#[utoipa::path(get, path = "/api/events", tag = "chat", responses(
    (status = 200, description = "Server-Sent Events, one `Change` each", content_type = "text/event-stream", body = Change),
))]
async fn changes(State(app): AppState) -> EventStream {
    use futures_util::StreamExt;
    let stream = api::changes(&app).map(|change| {
        let name = serde_json::to_value(&change).ok().and_then(|v| v["type"].as_str().map(str::to_owned)).unwrap_or_default();
        Ok(Event::default().event(name).json_data(&change).unwrap_or_else(|_| Event::default().event("resync")))
    });
    Sse::new(stream.boxed()).keep_alive(KeepAlive::default())
}

/// Stop the reply being written (its text so far stays, as stopped)
#[utoipa::path(post, path = "/api/sessions/{id}/stop", tag = "chat", params(Id), responses(
    (status = 200, description = "Whether a reply was being written", body = Stopped),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn stop(State(app): AppState, Id(id): Id) -> Reply<Stopped> {
    Ok(axum::Json(api::chat::stop(&app, id).await?))
}

/// The context inspector: the exact system prompt, section by section
#[utoipa::path(get, path = "/api/sessions/{id}/context", tag = "chat", params(Id), responses(
    (status = 200, description = "What the next request will carry", body = ContextView),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn context(State(app): AppState, Id(id): Id) -> Reply<ContextView> {
    Ok(axum::Json(api::context::context(&app, id).await?))
}

/// Compact now: summarise everything but the last turn
#[utoipa::path(post, path = "/api/sessions/{id}/compact", tag = "chat", params(Id), responses(
    (status = 200, description = "The chat's summaries now; `compacted` is false when only the last turn was left", body = Compacted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`: a reply is being written in the chat; `temporary_chat`: a temporary chat keeps no summaries", body = ErrorBody),
    (status = 502, description = "`model_server.*`: the model server could not write the summary", body = ErrorBody),
))]
async fn compact(State(app): AppState, Id(id): Id) -> Reply<Compacted> {
    Ok(axum::Json(api::chat::compact(app, id).await?))
}

/// Undo compaction: the chat's summaries are deleted, and its next request sends the whole chat again
#[utoipa::path(delete, path = "/api/sessions/{id}/summaries", tag = "chat", params(Id), responses(
    (status = 200, description = "The summaries are gone; `deleted` is false when the chat had none", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`turn_running`: a reply is being written in the chat", body = ErrorBody),
))]
async fn uncompact(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::chat::uncompact(app, id).await?))
}

// ---- settings

/// Settings (the API key is never returned)
#[utoipa::path(get, path = "/api/settings", tag = "settings", responses((status = 200, description = "The settings", body = SettingsView)))]
async fn get_settings(State(app): AppState) -> Reply<SettingsView> {
    Ok(axum::Json(api::get_settings(&app).await?))
}

/// How far the files' passages are embedded for search by meaning
#[utoipa::path(get, path = "/api/embeddings", tag = "settings", responses((status = 200, description = "The embeddings model chosen, passages embedded of all, and why the last batch failed", body = EmbeddingProgress)))]
async fn embedding_progress(State(app): AppState) -> Reply<EmbeddingProgress> {
    Ok(axum::Json(api::attachments::embedding_progress(&app).await?))
}

/// Change settings; null resets a field, all or nothing
#[utoipa::path(patch, path = "/api/settings", tag = "settings", request_body = SettingsPatch, responses(
    (status = 200, description = "The settings as changed", body = SettingsView),
    (status = 400, description = "`invalid_json`, `invalid_endpoint`, `url_too_long`, `credentials_in_url`, `invalid_temperature`, `invalid_timeout`, …", body = ErrorBody),
))]
async fn update_settings(State(app): AppState, Json(p): Json<SettingsPatch>) -> Reply<SettingsView> {
    Ok(axum::Json(api::update_settings(&app, p).await?))
}

// ---- long-term memory

/// Long-term facts: accepted ones (what the model sees) by default, pinned first
#[utoipa::path(get, path = "/api/memories", tag = "memories", params(api::MemoryStatusQuery), responses(
    (status = 200, description = "Facts, pending ones first, then pinned, then the most recently confirmed", body = Vec<Memory>),
    (status = 400, description = "`invalid_query`", body = ErrorBody),
))]
async fn list_memories(State(app): AppState, Query(q): Query<api::MemoryStatusQuery>) -> Reply<Vec<Memory>> {
    Ok(axum::Json(api::list_memories(&app, q).await?))
}

// ---- sharing with other apps

/// The calls other apps made of the tools the user shared (`maru mcp`, `/mcp`), newest first
#[utoipa::path(get, path = "/api/sharing/calls", tag = "settings", params(api::SharedCallsQuery), responses(
    (status = 200, description = "Calls, newest first: when, which app, which tool, what it asked", body = Vec<SharedCall>),
    (status = 400, description = "`invalid_query`", body = ErrorBody),
))]
async fn shared_calls(State(app): AppState, Query(q): Query<api::SharedCallsQuery>) -> Reply<Vec<SharedCall>> {
    Ok(axum::Json(api::shared_calls(&app, q).await?))
}

/// Accept a fact the model proposed
#[utoipa::path(post, path = "/api/memories/{id}/accept", tag = "memories", params(Id), responses(
    (status = 200, description = "The fact, now accepted: in section ⑤ from the next turn", body = Memory),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn accept_memory(State(app): AppState, Id(id): Id) -> Reply<Memory> {
    Ok(axum::Json(api::accept_memory(&app, id).await?))
}

/// Add a fact
#[utoipa::path(post, path = "/api/memories", tag = "memories", request_body = NewMemory, responses(
    (status = 200, description = "The new fact", body = Memory),
    (status = 400, description = "`invalid_json`, `invalid_memory`, `secret_refused`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such source session", body = ErrorBody),
))]
async fn create_memory(State(app): AppState, Json(new): Json<NewMemory>) -> Reply<Memory> {
    Ok(axum::Json(api::create_memory(&app, new).await?))
}

/// Edit a fact
#[utoipa::path(patch, path = "/api/memories/{id}", tag = "memories", params(Id), request_body = MemoryPatch, responses(
    (status = 200, description = "The fact as changed", body = Memory),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_memory`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn update_memory(State(app): AppState, Id(id): Id, Json(p): Json<MemoryPatch>) -> Reply<Memory> {
    Ok(axum::Json(api::update_memory(&app, id, p).await?))
}

/// Delete a fact
#[utoipa::path(delete, path = "/api/memories/{id}", tag = "memories", params(Id), responses(
    (status = 200, description = "Deleted", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn delete_memory(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::delete_memory(&app, id).await?))
}

// ---- presets

/// Built-in and user presets
#[utoipa::path(get, path = "/api/presets", tag = "presets", responses((status = 200, description = "Built-in presets first, then the user's", body = Vec<PresetView>)))]
async fn list_presets(State(app): AppState) -> Reply<Vec<PresetView>> {
    Ok(axum::Json(api::presets::list_presets(&app).await?))
}

/// Create a preset
#[utoipa::path(post, path = "/api/presets", tag = "presets", request_body = NewPreset, responses(
    (status = 200, description = "The new preset", body = PresetView),
    (status = 400, description = "`invalid_json`, `invalid_name`, `invalid_prompt`, …", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn create_preset(State(app): AppState, Json(new): Json<NewPreset>) -> Reply<PresetView> {
    Ok(axum::Json(api::presets::create_preset(&app, new).await?))
}

/// Edit a user preset
#[utoipa::path(patch, path = "/api/presets/{id}", tag = "presets", params(Id), request_body = PresetPatch, responses(
    (status = 200, description = "The preset as changed", body = PresetView),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_name`, `invalid_prompt`, …", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn update_preset(State(app): AppState, Id(id): Id, Json(p): Json<PresetPatch>) -> Reply<PresetView> {
    Ok(axum::Json(api::presets::update_preset(&app, id, p).await?))
}

/// Delete a user preset; sessions using it go back to the base prompt
#[utoipa::path(delete, path = "/api/presets/{id}", tag = "presets", params(Id), responses(
    (status = 200, description = "Deleted, and how many sessions went back to the base prompt", body = DeletedPreset),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn delete_preset(State(app): AppState, Id(id): Id) -> Reply<DeletedPreset> {
    Ok(axum::Json(api::presets::delete_preset(&app, id).await?))
}

// ---- skills

/// Every skill, global and per project, with its SKILL.md and reference files
#[utoipa::path(get, path = "/api/skills", tag = "skills", responses((status = 200, description = "By name", body = Vec<SkillView>)))]
async fn list_skills(State(app): AppState) -> Reply<Vec<SkillView>> {
    Ok(axum::Json(api::skills::list_skills(&app).await?))
}

/// Add a skill (or import a skill folder: its SKILL.md and its other text files)
#[utoipa::path(post, path = "/api/skills", tag = "skills", request_body = NewSkill, responses(
    (status = 200, description = "The new skill", body = SkillView),
    (status = 400, description = "`invalid_json`, `invalid_skill` (no front matter, no name or description, too long, a path outside its folder)", body = ErrorBody),
    (status = 404, description = "`not_found`: no such project", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn create_skill(State(app): AppState, Json(new): Json<NewSkill>) -> Reply<SkillView> {
    Ok(axum::Json(api::skills::create_skill(&app, new).await?))
}

/// Import skills from a zip: a skill's folder, or a folder of them (as the official collection is)
///
/// Every folder in the zip holding a SKILL.md becomes a skill, with its other text files as its
/// reference files (at most 10 MB a skill). Binary files (fonts, images) and hidden ones are left
/// out and listed in `left_out`. All the skills are stored, or none.
#[utoipa::path(post, path = "/api/skills/import", tag = "skills", request_body(content = crate::api::skills::SkillZip, content_type = "multipart/form-data"), responses(
    (status = 200, description = "The skills made, and the files left out", body = crate::api::skills::ImportedSkills),
    (status = 400, description = "`invalid_upload`, `invalid_import` (not a zip, a damaged entry), `invalid_skill` (no SKILL.md, no front matter, over 10 MB), `file_too_large`", body = ErrorBody),
    (status = 404, description = "`not_found` (the project)", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn import_skills(State(app): AppState, Multipart(mut form): Multipart) -> Reply<crate::api::skills::ImportedSkills> {
    let bad = |m: String| crate::error::Error::invalid(Code::InvalidUpload, m);
    let (mut zip, mut project_id) = (None, None);
    while let Some(field) = form.next_field().await.map_err(|e| bad(format!("the upload could not be read: {}", e.body_text())))? {
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or("the zip").to_string();
                let bytes = field.bytes().await.map_err(|e| match e.status() {
                    axum::http::StatusCode::PAYLOAD_TOO_LARGE => crate::error::Error::invalid(
                        Code::FileTooLarge,
                        format!("{name} is larger than Maru accepts ({} MB)", crate::api::attachments::UPLOAD_MAX_BYTES >> 20),
                    )
                    .with("file", &name)
                    .with("max_mb", crate::api::attachments::UPLOAD_MAX_BYTES >> 20),
                    _ => bad(format!("the zip could not be read: {}", e.body_text())),
                })?;
                zip = Some(bytes.to_vec());
            }
            Some("project_id") => {
                let text = field.text().await.map_err(|e| bad(format!("project_id could not be read: {}", e.body_text())))?;
                let id = text.trim().parse::<i64>().map_err(|_| bad(format!("project_id is a project's id, not {text:?}")))?;
                project_id = Some(id);
            }
            _ => {}
        }
    }
    let zip = zip.ok_or_else(|| bad("send the zip in a part named `file`".into()))?;
    Ok(axum::Json(api::skills::import_zip(&app, project_id, zip).await?))
}

/// Edit a skill's SKILL.md or files, turn it on or off, or off in projects
#[utoipa::path(patch, path = "/api/skills/{id}", tag = "skills", params(Id), request_body = SkillPatch, responses(
    (status = 200, description = "The skill as changed", body = SkillView),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_skill`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn update_skill(State(app): AppState, Id(id): Id, Json(p): Json<SkillPatch>) -> Reply<SkillView> {
    Ok(axum::Json(api::skills::update_skill(&app, id, p).await?))
}

/// Delete a skill
#[utoipa::path(delete, path = "/api/skills/{id}", tag = "skills", params(Id), responses(
    (status = 200, description = "Deleted", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn delete_skill(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    api::skills::delete_skill(&app, id).await?;
    Ok(axum::Json(Deleted { id, deleted: true }))
}

// ---- tool servers

/// The user's MCP tool servers, with their status and tools (never a secret's value)
#[utoipa::path(get, path = "/api/tool-servers", tag = "tool servers", responses((status = 200, description = "Oldest first", body = Vec<ToolServerView>)))]
async fn list_tool_servers(State(app): AppState) -> Reply<Vec<ToolServerView>> {
    Ok(axum::Json(api::tool_servers::list_tool_servers(&app).await?))
}

/// Add a tool server (it starts when first needed)
#[utoipa::path(post, path = "/api/tool-servers", tag = "tool servers", request_body = NewToolServer, responses(
    (status = 200, description = "The new server", body = ToolServerView),
    (status = 400, description = "`invalid_json`, `invalid_name`, `invalid_tool_server`", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn create_tool_server(State(app): AppState, Json(new): Json<NewToolServer>) -> Reply<ToolServerView> {
    Ok(axum::Json(api::tool_servers::create_tool_server(&app, new).await?))
}

/// Edit, turn on or off, always allow tools, or turn off in projects
#[utoipa::path(patch, path = "/api/tool-servers/{id}", tag = "tool servers", params(Id), request_body = ToolServerPatch, responses(
    (status = 200, description = "The server as changed", body = ToolServerView),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_name`, `invalid_tool_server`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn update_tool_server(State(app): AppState, Id(id): Id, Json(p): Json<ToolServerPatch>) -> Reply<ToolServerView> {
    Ok(axum::Json(api::tool_servers::update_tool_server(&app, id, p).await?))
}

/// Remove a tool server; its calls end at once and it stops
#[utoipa::path(delete, path = "/api/tool-servers/{id}", tag = "tool servers", params(Id), responses(
    (status = 200, description = "Removed", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn delete_tool_server(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    api::tool_servers::delete_tool_server(&app, id).await?;
    Ok(axum::Json(Deleted { id, deleted: true }))
}

/// A server's tools, starting it if it is not running
#[utoipa::path(get, path = "/api/tool-servers/{id}/tools", tag = "tool servers", params(Id), responses(
    (status = 200, description = "Its tools as it lists them", body = Vec<ServerTool>),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`tool_server_off`, `tool_server_failed` (with what it said)", body = ErrorBody),
))]
async fn tool_server_tools(State(app): AppState, Id(id): Id) -> Reply<Vec<ServerTool>> {
    Ok(axum::Json(api::tool_servers::tool_server_tools(&app, id).await?))
}

/// Split a pasted command line into the program and its arguments (shell rules), to show before saving
#[utoipa::path(post, path = "/api/tool-servers/command-line", tag = "tool servers", request_body = CommandLineText, responses(
    (status = 200, description = "The program and each argument", body = CommandLine),
    (status = 400, description = "`invalid_json`, `invalid_command_line` (a quote left open, or nothing to run)", body = ErrorBody),
))]
async fn split_command_line(Json(text): Json<CommandLineText>) -> Reply<CommandLine> {
    Ok(axum::Json(api::tool_servers::split_command_line(text)?))
}

/// Read an mcp.json (Claude Desktop, Cursor, LM Studio, VS Code) and say what adding from it would add; adds nothing
#[utoipa::path(post, path = "/api/tool-servers/import/preview", tag = "tool servers", request_body = McpConfigText, responses(
    (status = 200, description = "Each server of the file: its name here, whether it clashes, which values look like secrets (never the values), what stops it", body = ImportPreview),
    (status = 400, description = "`invalid_json`, `mcp_config_not_json`, `mcp_config_no_servers`, `mcp_config_too_large`, `mcp_config_too_many`", body = ErrorBody),
))]
async fn preview_tool_server_import(State(app): AppState, Json(text): Json<McpConfigText>) -> Reply<ImportPreview> {
    Ok(axum::Json(api::tool_servers::preview_import(&app, text).await?))
}

/// Add the chosen servers of an mcp.json at once, their secrets kept unseen; all or nothing
#[utoipa::path(post, path = "/api/tool-servers/import", tag = "tool servers", request_body = McpImport, responses(
    (status = 200, description = "The servers added, in the order chosen", body = Vec<ToolServerView>),
    (status = 400, description = "`invalid_json`, `mcp_config_not_json`, `mcp_config_no_servers`, `mcp_config_too_large`, `mcp_config_too_many`, `mcp_config_nothing_chosen`, `mcp_server_not_in_file`, `mcp_server_unusable`, `invalid_name`, `invalid_tool_server`", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn import_tool_servers(State(app): AppState, Json(import): Json<McpImport>) -> Reply<Vec<ToolServerView>> {
    Ok(axum::Json(api::tool_servers::import_tool_servers(&app, import).await?))
}

/// Allow a tool call waiting for approval (once, or always for its tool)
#[utoipa::path(post, path = "/api/tool-calls/{approval}/approve", tag = "tool servers",
    params(("approval" = String, Path, description = "The `approval` of the turn's `approval_needed` event")),
    request_body(content = Approve, description = "`{}` for this call, `{\"always\": true}` to let the tool run without asking from now on"), responses(
    (status = 200, description = "The call runs", body = Answered),
    (status = 400, description = "`invalid_json`", body = ErrorBody),
    (status = 409, description = "`not_pending`: answered already, timed out, or its turn stopped", body = ErrorBody),
))]
async fn approve_tool_call(
    State(app): AppState,
    axum::extract::Path(approval): axum::extract::Path<String>,
    Json(body): Json<Approve>,
) -> Reply<Answered> {
    let always = body.always.unwrap_or(false);
    let decision = if always { Decision::Always } else { Decision::Once };
    Ok(axum::Json(api::tool_servers::answer_tool_call(&app, approval, decision).await?))
}

/// Deny a tool call waiting for approval: the model is told, and the turn goes on
#[utoipa::path(post, path = "/api/tool-calls/{approval}/deny", tag = "tool servers",
    params(("approval" = String, Path, description = "The `approval` of the turn's `approval_needed` event")), responses(
    (status = 200, description = "The call does not run", body = Answered),
    (status = 409, description = "`not_pending`: answered already, timed out, or its turn stopped", body = ErrorBody),
))]
async fn deny_tool_call(State(app): AppState, axum::extract::Path(approval): axum::extract::Path<String>) -> Reply<Answered> {
    Ok(axum::Json(api::tool_servers::answer_tool_call(&app, approval, Decision::Denied).await?))
}

// ---- the model server

/// The model servers: the default one first (never a key, only whether one is set)
#[utoipa::path(get, path = "/api/connections", tag = "model server", responses(
    (status = 200, description = "The default server, then the others as they were added", body = Vec<ConnectionView>),
))]
async fn list_connections(State(app): AppState) -> Reply<Vec<ConnectionView>> {
    Ok(axum::Json(api::connections::list_connections(&app).await?))
}

/// Add a model server
#[utoipa::path(post, path = "/api/connections", tag = "model server", request_body = NewConnection, responses(
    (status = 200, description = "The new server", body = ConnectionView),
    (status = 400, description = "`invalid_json`, `invalid_name`, `invalid_endpoint`, `url_too_long`, `credentials_in_url` (the key goes in `api_key`)", body = ErrorBody),
    (status = 409, description = "`name_taken`", body = ErrorBody),
))]
async fn create_connection(State(app): AppState, Json(new): Json<NewConnection>) -> Reply<ConnectionView> {
    Ok(axum::Json(api::connections::create_connection(&app, new).await?))
}

/// Rename, readdress, set or remove the key, turn on or off, or make it the default
#[utoipa::path(patch, path = "/api/connections/{id}", tag = "model server", params(Id), request_body = ConnectionPatch, responses(
    (status = 200, description = "The server as changed", body = ConnectionView),
    (status = 400, description = "`invalid_id`, `invalid_json`, `invalid_name`, `invalid_endpoint`, `url_too_long`, `credentials_in_url` (the key goes in `api_key`)", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`name_taken`; `default_connection`: the default server cannot be turned off", body = ErrorBody),
))]
async fn update_connection(State(app): AppState, Id(id): Id, Json(p): Json<ConnectionPatch>) -> Reply<ConnectionView> {
    Ok(axum::Json(api::connections::update_connection(&app, id, p).await?))
}

/// Remove a model server; its chats go back to the default server
#[utoipa::path(delete, path = "/api/connections/{id}", tag = "model server", params(Id), responses(
    (status = 200, description = "Removed", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`default_connection`: the default server cannot be removed", body = ErrorBody),
))]
async fn delete_connection(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    api::connections::delete_connection(&app, id).await?;
    Ok(axum::Json(Deleted { id, deleted: true }))
}

/// Models of a server (the default one unless `connection_id` says), with context length where it tells
#[utoipa::path(get, path = "/api/models", tag = "model server", params(ModelsQuery), responses(
    (status = 200, description = "The models the server lists", body = Vec<ModelInfo>),
    (status = 400, description = "`invalid_query`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such server", body = ErrorBody),
    (status = 502, description = "`model_server.*`: the server is down, refused the key, … (the message names the server)", body = ErrorBody),
))]
async fn list_models(State(app): AppState, Query(q): Query<ModelsQuery>) -> Reply<Vec<ModelInfo>> {
    Ok(axum::Json(api::connections::list_models(&app, q).await?))
}

/// Model servers answering on the usual local ports (8000, 8080, 11434, 1234)
#[utoipa::path(get, path = "/api/servers", tag = "model server", responses((status = 200, description = "The servers found (none is not an error)", body = Vec<FoundServer>)))]
async fn probe_servers() -> Reply<Vec<FoundServer>> {
    Ok(axum::Json(api::demo::probe_servers().await?))
}

/// The demo model: whether it can run on this machine, and its address while it runs
#[utoipa::path(get, path = "/api/demo", tag = "model server", responses((status = 200, description = "The demo model's state", body = DemoModel)))]
async fn demo_model(State(app): AppState) -> Reply<DemoModel> {
    Ok(axum::Json(api::demo::demo_model(&app).await?))
}

/// Starts the demo model (a tiny SmolLM2 on llama.cpp's server) and answers once it answers
#[utoipa::path(post, path = "/api/demo", tag = "model server", responses(
    (status = 200, description = "Running, and saved as one server (`connection_id`) whose address follows its port", body = DemoModel),
    (status = 400, description = "`demo_unavailable`: the server program or the model file is not on this machine", body = ErrorBody),
    (status = 502, description = "`model_server.demo_failed`: it did not start", body = ErrorBody),
))]
async fn start_demo_model(State(app): AppState) -> Reply<DemoModel> {
    Ok(axum::Json(api::demo::start_demo_model(&app).await?))
}

// ---- attachments

/// Attach a file to a session or a project
#[utoipa::path(post, path = "/api/attachments", tag = "attachments", request_body(content = UploadForm, content_type = "multipart/form-data"), responses(
    (status = 200, description = "Stored; its text is indexed in the background (`status`)", body = Attachment),
    (status = 400, description = "`invalid_upload`, `invalid_scope`, `invalid_file_name`, `empty_file`, `binary_file`, `type_mismatch`, `file_too_large`, `scope_full`, `body_too_large`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such session or project", body = ErrorBody),
))]
async fn upload_attachment(State(app): AppState, Multipart(mut form): Multipart) -> Reply<Attachment> {
    let bad = |m: String| crate::error::Error::invalid(Code::InvalidUpload, m);
    let (mut scope, mut file) = (AttachmentScope::default(), None);
    while let Some(field) = form.next_field().await.map_err(|e| bad(format!("the upload could not be read: {}", e.body_text())))? {
        let id = |v: String| v.trim().parse::<i64>().map_err(|_| bad(format!("{v:?} is not an id")));
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or_default().to_string();
                let bytes = field.bytes().await.map_err(|e| match e.status() {
                    axum::http::StatusCode::PAYLOAD_TOO_LARGE => crate::error::Error::invalid(
                        Code::FileTooLarge,
                        format!(
                            "{name} is larger than the largest file Maru accepts ({} MB)",
                            crate::api::attachments::UPLOAD_MAX_BYTES >> 20
                        ),
                    )
                    .with("file", &name)
                    .with("max_mb", crate::api::attachments::UPLOAD_MAX_BYTES >> 20),
                    _ => bad(format!("the file could not be read: {}", e.body_text())),
                })?;
                file = Some((name, bytes.to_vec()));
            }
            Some("session_id") => scope.session_id = Some(id(field.text().await.unwrap_or_default())?),
            Some("project_id") => scope.project_id = Some(id(field.text().await.unwrap_or_default())?),
            _ => {}
        }
    }
    let (name, bytes) = file.ok_or_else(|| bad("send the file in a part named `file`".into()))?;
    Ok(axum::Json(api::attachments::upload(&app, scope, name, bytes).await?))
}

/// Import a project exported as a zip
///
/// A new project (named as exported, numbered when the name is taken) with its instructions, its
/// chats (marked as imported copies) and their files, and its own files. Entries that cannot be
/// stored (too large, not a kind Maru reads) are left out and listed in `skipped`.
#[utoipa::path(post, path = "/api/import/project", tag = "export", request_body(content = crate::api::export::ProjectZip, content_type = "multipart/form-data"), responses(
    (status = 200, description = "Imported", body = crate::api::export::ImportedProject),
    (status = 400, description = "`invalid_upload`, `invalid_import` (not a zip, a damaged entry), `unsupported_import` (not a Maru project), `unsupported_import_version`, `file_too_large`, `invalid_name`, `invalid_title`, `message_too_long`", body = ErrorBody),
))]
async fn import_project(State(app): AppState, Multipart(mut form): Multipart) -> Reply<crate::api::export::ImportedProject> {
    let bad = |m: String| crate::error::Error::invalid(Code::InvalidUpload, m);
    let mut zip = None;
    while let Some(field) = form.next_field().await.map_err(|e| bad(format!("the upload could not be read: {}", e.body_text())))? {
        if field.name() == Some("file") {
            let name = field.file_name().unwrap_or("the zip").to_string();
            let bytes = field.bytes().await.map_err(|e| match e.status() {
                axum::http::StatusCode::PAYLOAD_TOO_LARGE => crate::error::Error::invalid(
                    Code::FileTooLarge,
                    format!("{name} is larger than Maru accepts ({} MB)", crate::api::attachments::UPLOAD_MAX_BYTES >> 20),
                )
                .with("file", &name)
                .with("max_mb", crate::api::attachments::UPLOAD_MAX_BYTES >> 20),
                _ => bad(format!("the zip could not be read: {}", e.body_text())),
            })?;
            zip = Some(bytes.to_vec());
        }
    }
    let zip = zip.ok_or_else(|| bad("send the zip in a part named `file`".into()))?;
    Ok(axum::Json(api::export::import_project(&app, zip).await?))
}

/// Restore a backup in place of the data: Maru restarts on it, keeping the current data beside it
///
/// The backup is checked whole first: one that is not a Maru backup, or damaged, changes nothing.
/// After the answer Maru closes as on quit (replies being written stop and keep their text) and
/// starts again, on the same address with the same token, on the restored data.
#[utoipa::path(post, path = "/api/restore", tag = "export", request_body(content = crate::api::backup::BackupZip, content_type = "multipart/form-data"), responses(
    (status = 200, description = "Restored; Maru restarts now", body = crate::api::backup::RestoredBackup),
    (status = 400, description = "`invalid_upload`, `not_a_backup`, `backup_damaged`, `unsafe_backup_entry`, `backup_too_large`, `not_enough_space`, `file_too_large`", body = ErrorBody),
    (status = 409, description = "`restore_running`: another restore is under way, or Maru restarts on one", body = ErrorBody),
))]
async fn restore_backup(State(app): AppState, Multipart(mut form): Multipart) -> Reply<crate::api::backup::RestoredBackup> {
    use std::io::Write;
    let bad = |m: String| crate::error::Error::invalid(Code::InvalidUpload, m);
    let mut spool = None;
    while let Some(mut field) = form.next_field().await.map_err(|e| bad(format!("the upload could not be read: {}", e.body_text())))? {
        if field.name() != Some("file") {
            continue;
        }
        // Onto the data folder's disk as it arrives: a backup holds every file.
        let (file_spool, mut file) = maru_core::backup::Spool::create(&app.data_dir, "backup")?;
        while let Some(chunk) = field.chunk().await.map_err(|e| match e.status() {
            axum::http::StatusCode::PAYLOAD_TOO_LARGE => crate::error::Error::invalid(
                Code::FileTooLarge,
                format!(
                    "the backup is larger than Maru takes over the network ({} MB); restore it with `maru restore`",
                    crate::api::attachments::UPLOAD_MAX_BYTES >> 20
                ),
            )
            .with("file", "backup")
            .with("max_mb", crate::api::attachments::UPLOAD_MAX_BYTES >> 20),
            _ => bad(format!("the backup could not be read: {}", e.body_text())),
        })? {
            file.write_all(&chunk).map_err(|e| crate::error::Error::Internal(anyhow::anyhow!("writing the upload: {e}")))?;
        }
        spool = Some(file_spool);
    }
    let spool = spool.ok_or_else(|| bad("send the backup in a part named `file`".into()))?;
    Ok(axum::Json(api::backup::restore_backup(&app, spool).await?))
}

/// A session's own files, or a project's
#[utoipa::path(get, path = "/api/attachments", tag = "attachments", params(AttachmentScope), responses(
    (status = 200, description = "Oldest first", body = Vec<Attachment>),
    (status = 400, description = "`invalid_scope`, `invalid_query`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn list_attachments(State(app): AppState, Query(q): Query<AttachmentScope>) -> Reply<Vec<Attachment>> {
    Ok(axum::Json(api::attachments::list(&app, q).await?))
}

/// One file's details and indexing status
#[utoipa::path(get, path = "/api/attachments/{id}", tag = "attachments", params(Id), responses(
    (status = 200, description = "The file", body = Attachment),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn get_attachment(State(app): AppState, Id(id): Id) -> Reply<Attachment> {
    Ok(axum::Json(api::attachments::get(&app, id).await?))
}

/// Remove a file (its content goes when nothing else links to it)
#[utoipa::path(delete, path = "/api/attachments/{id}", tag = "attachments", params(Id), responses(
    (status = 200, description = "Deleted", body = Deleted),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn delete_attachment(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::attachments::delete(&app, id).await?))
}

/// Download a file as attached
#[utoipa::path(get, path = "/api/attachments/{id}/content", tag = "attachments", params(Id), responses(
    (status = 200, description = "The file's bytes", content_type = "application/octet-stream", body = Vec<u8>),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
    (status = 409, description = "`file_missing`: its content is gone from the data folder", body = ErrorBody),
))]
async fn attachment_content(State(app): AppState, Id(id): Id) -> Result<axum::response::Response> {
    use axum::response::IntoResponse;
    let (a, bytes) = api::attachments::download(&app, id).await?;
    // The name travels percent-encoded (RFC 5987), so no name can break the header.
    let encoded: String = a
        .name
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let disposition = format!("attachment; filename*=UTF-8''{encoded}");
    // Downloaded, never shown in Maru's origin: an attached HTML file must not run as Maru's page.
    let headers = [
        ("content-type", a.mime.clone()),
        ("content-disposition", disposition),
        ("x-content-type-options", "nosniff".into()),
        ("content-security-policy", "sandbox".into()),
    ];
    Ok((headers, bytes).into_response())
}

/// A small PNG of an image file
#[utoipa::path(get, path = "/api/attachments/{id}/thumbnail", tag = "attachments", params(Id), responses(
    (status = 200, description = "PNG, at most 256 pixels a side", content_type = "image/png", body = Vec<u8>),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`, `no_thumbnail` (not an image, or not readable)", body = ErrorBody),
))]
async fn attachment_thumbnail(State(app): AppState, Id(id): Id) -> Result<axum::response::Response> {
    use axum::response::IntoResponse;
    let png = api::attachments::thumbnail(&app, id).await?;
    Ok(([("content-type", "image/png"), ("cache-control", "private, max-age=86400")], png).into_response())
}

// ---- search

/// Search every chat's messages and title
#[utoipa::path(get, path = "/api/search", tag = "sessions", params(api::SearchQuery), responses(
    (status = 200, description = "Chats best first, each with the excerpt of its best message", body = Vec<crate::store::search::ChatHit>),
    (status = 400, description = "`invalid_query`", body = ErrorBody),
))]
async fn search(State(app): AppState, Query(q): Query<api::SearchQuery>) -> Reply<Vec<crate::store::search::ChatHit>> {
    Ok(axum::Json(api::search(&app, q).await?))
}

/// Search inside the files of every chat and project
///
/// Files best first, each with its best passage (page, line) and the words marked. `versions`
/// is ignored here.
#[utoipa::path(get, path = "/api/search/files", tag = "sessions", params(api::SearchQuery), responses(
    (status = 200, description = "Files best first, each with the excerpt of its best passage", body = Vec<crate::store::search::FileHit>),
    (status = 400, description = "`invalid_query`", body = ErrorBody),
))]
async fn search_files(State(app): AppState, Query(q): Query<api::SearchQuery>) -> Reply<Vec<crate::store::search::FileHit>> {
    Ok(axum::Json(api::search_files(&app, q).await?))
}

// ---- export, backup, import

/// A download: the type, a file name that survives any header parser, and no sniffing.
fn download(d: api::export::Download) -> axum::response::Response {
    use axum::response::IntoResponse;
    // The name travels percent-encoded (RFC 5987), with a plain ASCII copy for older clients.
    let encoded: String = d
        .name
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let ascii: String = d.name.chars().map(|c| if c.is_ascii_alphanumeric() || "-._ ()".contains(c) { c } else { '_' }).collect();
    let disposition = format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}");
    let headers =
        [("content-type", d.mime.to_string()), ("content-disposition", disposition), ("x-content-type-options", "nosniff".into())];
    match d.body {
        api::export::DownloadBody::Bytes(bytes) => (headers, bytes).into_response(),
        api::export::DownloadBody::File(file) => {
            let stream = tokio_util::io::ReaderStream::new(tokio::fs::File::from_std(file));
            (headers, axum::body::Body::from_stream(stream)).into_response()
        }
    }
}

/// Download a chat as Markdown or as JSON (which Maru imports again)
#[utoipa::path(get, path = "/api/sessions/{id}/export", tag = "export", params(Id, api::export::ExportQuery), responses(
    (status = 200, description = "The chat as a file (Content-Disposition names it)",
        content((crate::store::exports::ChatExport = "application/json"), (String = "text/markdown"))),
    (status = 400, description = "`invalid_id`, `invalid_query`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn export_chat(State(app): AppState, Id(id): Id, Query(q): Query<api::export::ExportQuery>) -> Result<axum::response::Response> {
    Ok(download(api::export::export_chat(&app, id, q).await?))
}

/// Download a project as a zip: project.json, each chat as JSON and Markdown, its files
#[utoipa::path(get, path = "/api/projects/{id}/export", tag = "export", params(Id), responses(
    (status = 200, description = "A zip (Content-Disposition names it)", content_type = "application/zip", body = Vec<u8>),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`", body = ErrorBody),
))]
async fn export_project(State(app): AppState, Id(id): Id) -> Result<axum::response::Response> {
    Ok(download(api::export::export_project(&app, id).await?))
}

/// Back up the whole data folder (without the API key) to restore with `maru restore`
///
/// A GET: it changes nothing, and a browser or script can fetch it like any file.
#[utoipa::path(get, path = "/api/backup", tag = "export", responses(
    (status = 200, description = "A zip: a consistent snapshot of maru.db, blobs/, prompts/ and backup.json", content_type = "application/zip", body = Vec<u8>),
))]
async fn backup(State(app): AppState) -> Result<axum::response::Response> {
    Ok(download(api::backup::backup(&app).await?))
}

/// Import a chat Maru exported, or ChatGPT's or Claude's data export
///
/// As JSON: a chat Maru exported (`ChatExport`), added at once (200). As `multipart/form-data`
/// (the file in a part named `file`, and `project_id` optionally): the same, or ChatGPT's or
/// Claude's export, as downloaded (the zip) or its `conversations.json` alone. An export is
/// checked whole first: a damaged, cut, unknown or too large one is refused and changes nothing.
/// Its chats are then stored in the background (202): follow them with
/// `GET /api/import/jobs/{id}`. Each conversation becomes a chat with its title and times, the
/// conversation as it was last shown as its main line and its other branches as earlier versions;
/// one imported before (from this export or another) is not added again.
#[utoipa::path(post, path = "/api/import", tag = "export",
    request_body(content(
        (crate::store::exports::ChatExport = "application/json"),
        (crate::api::export::ImportUpload = "multipart/form-data"),
    )),
    responses(
        (status = 200, description = "A chat Maru exported: the new chat, in the project given, else in the project of its name if there is one, else in Default", body = Session),
        (status = 202, description = "Another app's export, checked: its chats are being stored", body = crate::imports::jobs::ImportJob),
        (status = 400, description = "`invalid_json`, `invalid_upload`, `unsupported_import` (neither a Maru chat nor ChatGPT's or Claude's export), `unsupported_import_version`, `invalid_import` (a damaged zip, JSON cut short), `empty_file`, `file_too_large` (past the upload limit, or unpacking past 1 GB), `invalid_title`, `message_too_long`", body = ErrorBody),
        (status = 404, description = "`not_found`: no such project", body = ErrorBody),
))]
async fn import_chat(State(app): AppState, req: axum::extract::Request) -> Result<axum::response::Response> {
    use axum::extract::FromRequest;
    use axum::response::IntoResponse;
    use futures_util::StreamExt;
    let bad = |m: String| crate::error::Error::invalid(Code::InvalidUpload, m);
    let multipart = req.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|t| t.starts_with("multipart/"));
    let (spool, project_id) = if multipart {
        let Multipart(mut form) = Multipart::from_request(req, &app).await?;
        let (mut spool, mut project_id) = (None, None);
        while let Some(mut field) = form.next_field().await.map_err(|e| bad(format!("the upload could not be read: {}", e.body_text())))? {
            match field.name() {
                Some("file") => {
                    let mut to = Spooled::new(&app)?;
                    while let Some(chunk) = field.chunk().await.map_err(|e| match e.status() {
                        axum::http::StatusCode::PAYLOAD_TOO_LARGE => Spooled::too_large(),
                        _ => bad(format!("the file could not be read: {}", e.body_text())),
                    })? {
                        to.write(&chunk)?;
                    }
                    spool = Some(to.spool);
                }
                Some("project_id") => {
                    let text = field.text().await.unwrap_or_default();
                    project_id = Some(text.trim().parse::<i64>().map_err(|_| bad(format!("{text:?} is not an id")))?);
                }
                _ => {}
            }
        }
        (spool.ok_or_else(|| bad("send the file in a part named `file`".into()))?, project_id)
    } else {
        let mut to = Spooled::new(&app)?;
        let mut body = req.into_body().into_data_stream();
        while let Some(chunk) = body.next().await {
            to.write(&chunk.map_err(|e| bad(format!("the request body could not be read: {e}")))?)?;
        }
        (to.spool, None)
    };
    Ok(match api::export::import(&app, spool, project_id, !multipart).await? {
        api::export::Imported::Chat(session) => axum::Json(session).into_response(),
        api::export::Imported::Export(job) => (axum::http::StatusCode::ACCEPTED, axum::Json(job)).into_response(),
    })
}

/// An upload on its way to a file in the data folder (an export may be hundreds of MB), refused
/// past the upload limit.
struct Spooled {
    spool: maru_core::backup::Spool,
    file: std::fs::File,
    size: usize,
}

impl Spooled {
    fn new(app: &App) -> Result<Spooled> {
        let (spool, file) = maru_core::backup::Spool::create(&app.data_dir, "import")?;
        Ok(Spooled { spool, file, size: 0 })
    }

    fn write(&mut self, chunk: &[u8]) -> Result<()> {
        use std::io::Write;
        self.size += chunk.len();
        if self.size > crate::api::attachments::UPLOAD_MAX_BYTES {
            return Err(Spooled::too_large());
        }
        self.file.write_all(chunk).map_err(|e| crate::error::Error::Internal(anyhow::anyhow!("writing the upload: {e}")))
    }

    fn too_large() -> crate::error::Error {
        let max_mb = crate::api::attachments::UPLOAD_MAX_BYTES >> 20;
        crate::error::Error::invalid(Code::FileTooLarge, format!("the file is larger than Maru imports ({max_mb} MB)"))
            .with("file", "upload")
            .with("max_mb", max_mb)
    }
}

/// How far an import of another app's export is
#[utoipa::path(get, path = "/api/import/jobs/{id}", tag = "export", params(Id), responses(
    (status = 200, description = "The import: conversations read and stored so far, and its state", body = crate::imports::jobs::ImportJob),
    (status = 400, description = "`invalid_id`", body = ErrorBody),
    (status = 404, description = "`not_found`: no such import since Maru started", body = ErrorBody),
))]
async fn import_job(State(app): AppState, Id(id): Id) -> Reply<crate::imports::jobs::ImportJob> {
    Ok(axum::Json(api::export::import_job(&app, id).await?))
}

/// The UI's client and every JSON type it reads are generated from this document
/// (`ui/src/backend/generated/openapi.json`, then `npm run generate --prefix ui`, openapi-typescript):
/// it fails here when the committed copy is not what the routes say.
/// `MARU_WRITE_TS=1 cargo test -p maru-server typescript` rewrites it.
#[test]
fn typescript_client_document_matches_the_routes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/backend/generated/openapi.json");
    let text = serde_json::to_string_pretty(document()).expect("the document serialises") + "\n";
    if std::env::var_os("MARU_WRITE_TS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).expect("write the OpenAPI document for the UI");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "ui/src/backend/generated/openapi.json is stale: run `MARU_WRITE_TS=1 cargo test -p maru-server typescript` \
         (then `npm run generate --prefix ui`)"
    );
}
