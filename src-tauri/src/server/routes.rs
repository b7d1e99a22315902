//! The `/api` routes: each handler is a thin wrapper over one [`crate::api`] function.

use std::sync::Arc;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::{any, get, patch, post};
use axum::Router;

use super::extract::{Id, Json, Query};
use crate::api::chat::{ContextView, DeletedPreset, NewTurn, PresetView, Stopped};
use crate::api::{self, Deleted};
use crate::app::{App, TurnStream};
use crate::error::Result;
use crate::llm::{FoundServer, ModelInfo};
use crate::store::memories::{Memory, MemoryPatch, NewMemory};
use crate::store::messages::{Message, MessagePage};
use crate::store::presets::{NewPreset, PresetPatch};
use crate::store::projects::{DeletedProject, NewProject, Project, ProjectPatch};
use crate::store::sessions::{NewSession, Session, SessionPage, SessionPatch};
use crate::store::settings::{SettingsPatch, SettingsView};

type AppState = State<Arc<App>>;
type Reply<T> = Result<axum::Json<T>>;

pub fn api() -> Router<Arc<App>> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/projects", get(list_projects).post(create_project))
        .route("/api/projects/{id}", patch(update_project).delete(delete_project))
        .route("/api/sessions", get(list_sessions).post(create_session))
        .route("/api/sessions/{id}", get(get_session).patch(update_session).delete(delete_session))
        .route("/api/messages/{id}", patch(edit_message).delete(delete_message))
        .route("/api/settings", get(get_settings).patch(update_settings))
        .route("/api/memories", get(list_memories).post(create_memory))
        .route("/api/memories/{id}", patch(update_memory).delete(delete_memory))
        .route("/api/sessions/{id}/messages", get(list_messages).post(send_message))
        .route("/api/sessions/{id}/regenerate", post(regenerate))
        .route("/api/sessions/{id}/stop", post(stop))
        .route("/api/sessions/{id}/events", get(turn_events))
        .route("/api/sessions/{id}/context", get(context))
        .route("/api/messages/{id}/resend", post(resend))
        .route("/api/presets", get(list_presets).post(create_preset))
        .route("/api/presets/{id}", patch(update_preset).delete(delete_preset))
        .route("/api/models", get(list_models))
        .route("/api/servers", get(probe_servers))
        // Explicit, so that the web UI's fallback (index.html for its own routes) never answers
        // an API path: a script or a newer UI talking to an older Maru gets JSON, not HTML.
        .route("/api/{*rest}", any(not_found))
        .route("/api", any(not_found))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> impl axum::response::IntoResponse {
    let body = crate::error::ErrorBody { code: "method_not_allowed".into(), message: format!("{} does not accept {method}", uri.path()) };
    (axum::http::StatusCode::METHOD_NOT_ALLOWED, axum::Json(body))
}

async fn not_found(uri: axum::http::Uri) -> impl axum::response::IntoResponse {
    let body = crate::error::ErrorBody { code: "no_such_route".into(), message: format!("there is no API route {}", uri.path()) };
    (axum::http::StatusCode::NOT_FOUND, axum::Json(body))
}

async fn health(State(app): AppState) -> Reply<api::Health> {
    Ok(axum::Json(api::health(&app).await?))
}

async fn openapi() -> impl axum::response::IntoResponse {
    ([("content-type", "application/json")], include_str!("openapi.json"))
}

async fn list_projects(State(app): AppState) -> Reply<Vec<Project>> {
    Ok(axum::Json(api::list_projects(&app).await?))
}

async fn create_project(State(app): AppState, Json(new): Json<NewProject>) -> Reply<Project> {
    Ok(axum::Json(api::create_project(&app, new).await?))
}

async fn update_project(State(app): AppState, Id(id): Id, Json(p): Json<ProjectPatch>) -> Reply<Project> {
    Ok(axum::Json(api::update_project(&app, id, p).await?))
}

async fn delete_project(State(app): AppState, Id(id): Id) -> Reply<DeletedProject> {
    Ok(axum::Json(api::delete_project(&app, id).await?))
}

async fn list_sessions(State(app): AppState, Query(q): Query<api::SessionQuery>) -> Reply<SessionPage> {
    Ok(axum::Json(api::list_sessions(&app, q).await?))
}

async fn create_session(State(app): AppState, Json(new): Json<NewSession>) -> Reply<Session> {
    Ok(axum::Json(api::create_session(&app, new).await?))
}

async fn get_session(State(app): AppState, Id(id): Id) -> Reply<Session> {
    Ok(axum::Json(api::get_session(&app, id).await?))
}

async fn update_session(State(app): AppState, Id(id): Id, Json(p): Json<SessionPatch>) -> Reply<Session> {
    Ok(axum::Json(api::update_session(&app, id, p).await?))
}

async fn delete_session(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::delete_session(&app, id).await?))
}

async fn list_messages(State(app): AppState, Id(id): Id, Query(q): Query<api::MessageQuery>) -> Reply<MessagePage> {
    Ok(axum::Json(api::list_messages(&app, id, q).await?))
}

async fn edit_message(State(app): AppState, Id(id): Id, Json(e): Json<api::MessageEdit>) -> Reply<Message> {
    Ok(axum::Json(api::edit_message(&app, id, e).await?))
}

async fn delete_message(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::delete_message(&app, id).await?))
}

async fn get_settings(State(app): AppState) -> Reply<SettingsView> {
    Ok(axum::Json(api::get_settings(&app).await?))
}

async fn update_settings(State(app): AppState, Json(p): Json<SettingsPatch>) -> Reply<SettingsView> {
    Ok(axum::Json(api::update_settings(&app, p).await?))
}

async fn list_memories(State(app): AppState) -> Reply<Vec<Memory>> {
    Ok(axum::Json(api::list_memories(&app).await?))
}

async fn create_memory(State(app): AppState, Json(new): Json<NewMemory>) -> Reply<Memory> {
    Ok(axum::Json(api::create_memory(&app, new).await?))
}

async fn update_memory(State(app): AppState, Id(id): Id, Json(p): Json<MemoryPatch>) -> Reply<Memory> {
    Ok(axum::Json(api::update_memory(&app, id, p).await?))
}

async fn delete_memory(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    Ok(axum::Json(api::delete_memory(&app, id).await?))
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

async fn send_message(State(app): AppState, Id(id): Id, Json(turn): Json<NewTurn>) -> Result<EventStream> {
    Ok(sse(api::chat::send_message(app, id, turn).await?))
}

async fn regenerate(State(app): AppState, Id(id): Id) -> Result<EventStream> {
    Ok(sse(api::chat::regenerate(app, id).await?))
}

async fn resend(State(app): AppState, Id(id): Id, Json(turn): Json<NewTurn>) -> Result<EventStream> {
    Ok(sse(api::chat::resend(app, id, turn).await?))
}

async fn turn_events(State(app): AppState, Id(id): Id) -> Result<EventStream> {
    Ok(sse(api::chat::turn_events(&app, id).await?))
}

async fn stop(State(app): AppState, Id(id): Id) -> Reply<Stopped> {
    Ok(axum::Json(api::chat::stop(&app, id).await?))
}

async fn context(State(app): AppState, Id(id): Id) -> Reply<ContextView> {
    Ok(axum::Json(api::chat::context(&app, id).await?))
}

async fn list_presets(State(app): AppState) -> Reply<Vec<PresetView>> {
    Ok(axum::Json(api::chat::list_presets(&app).await?))
}

async fn create_preset(State(app): AppState, Json(new): Json<NewPreset>) -> Reply<PresetView> {
    Ok(axum::Json(api::chat::create_preset(&app, new).await?))
}

async fn update_preset(State(app): AppState, Id(id): Id, Json(p): Json<PresetPatch>) -> Reply<PresetView> {
    Ok(axum::Json(api::chat::update_preset(&app, id, p).await?))
}

async fn delete_preset(State(app): AppState, Id(id): Id) -> Reply<DeletedPreset> {
    Ok(axum::Json(api::chat::delete_preset(&app, id).await?))
}

async fn list_models(State(app): AppState) -> Reply<Vec<ModelInfo>> {
    Ok(axum::Json(api::chat::list_models(&app).await?))
}

async fn probe_servers() -> Reply<Vec<FoundServer>> {
    Ok(axum::Json(api::chat::probe_servers().await?))
}
