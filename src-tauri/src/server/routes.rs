//! The `/api` routes: each handler is a thin wrapper over one [`crate::api`] function.

use std::sync::Arc;

use axum::extract::State;
use axum::routing::{get, patch};
use axum::Router;
use serde::Serialize;

use super::extract::{Id, Json, Query};
use crate::api::{self, App};
use crate::error::Result;
use crate::store::memories::{Memory, MemoryPatch, NewMemory};
use crate::store::messages::{Message, MessagePage};
use crate::store::projects::{DeletedProject, NewProject, Project, ProjectPatch};
use crate::store::sessions::{NewSession, Session, SessionPage, SessionPatch};
use crate::store::settings::{SettingsPatch, SettingsView};

type AppState = State<Arc<App>>;
type Reply<T> = Result<axum::Json<T>>;

/// What a DELETE answers when there is nothing more to say.
#[derive(Serialize)]
struct Deleted {
    id: i64,
    deleted: bool,
}

fn deleted(id: i64) -> axum::Json<Deleted> {
    axum::Json(Deleted { id, deleted: true })
}

pub fn api() -> Router<Arc<App>> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/projects", get(list_projects).post(create_project))
        .route("/api/projects/{id}", patch(update_project).delete(delete_project))
        .route("/api/sessions", get(list_sessions).post(create_session))
        .route("/api/sessions/{id}", get(get_session).patch(update_session).delete(delete_session))
        .route("/api/sessions/{id}/messages", get(list_messages))
        .route("/api/messages/{id}", patch(edit_message).delete(delete_message))
        .route("/api/settings", get(get_settings).patch(update_settings))
        .route("/api/memories", get(list_memories).post(create_memory))
        .route("/api/memories/{id}", patch(update_memory).delete(delete_memory))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> impl axum::response::IntoResponse {
    let body = crate::error::ErrorBody {
        code: "method_not_allowed".into(),
        message: format!("{} does not accept {method}", uri.path()),
    };
    (axum::http::StatusCode::METHOD_NOT_ALLOWED, axum::Json(body))
}

async fn not_found(uri: axum::http::Uri) -> crate::error::Error {
    crate::error::Error::invalid("no_such_route", format!("there is no API route {}", uri.path()))
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
    api::delete_session(&app, id).await?;
    Ok(deleted(id))
}

async fn list_messages(State(app): AppState, Id(id): Id, Query(q): Query<api::MessageQuery>) -> Reply<MessagePage> {
    Ok(axum::Json(api::list_messages(&app, id, q).await?))
}

async fn edit_message(State(app): AppState, Id(id): Id, Json(e): Json<api::MessageEdit>) -> Reply<Message> {
    Ok(axum::Json(api::edit_message(&app, id, e).await?))
}

async fn delete_message(State(app): AppState, Id(id): Id) -> Reply<Deleted> {
    api::delete_message(&app, id).await?;
    Ok(deleted(id))
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
    api::delete_memory(&app, id).await?;
    Ok(deleted(id))
}
