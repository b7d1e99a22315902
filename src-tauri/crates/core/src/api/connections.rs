//! The user's model servers as the API shows them (never a key, only whether one is set), and
//! the models each one lists.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::error::{Error, Result};
use crate::llm;
use crate::store::connections::{self, ConnectionPatch, NewConnection, ServerConnection};
use crate::store::settings;

/// A model server, its key left out.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ConnectionView {
    pub id: i64,
    pub name: String,
    pub base_url: String,
    pub api_key_set: bool,
    /// What its chats ask when they name no model; empty: the first one it lists.
    pub default_model: String,
    pub enabled: bool,
    /// Chats without a server of their own ask this one.
    pub is_default: bool,
    /// The demo model Maru starts itself (started again when a chat needs it).
    pub demo: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl From<ServerConnection> for ConnectionView {
    fn from(c: ServerConnection) -> Self {
        // An address saved with `user:secret@` before those were refused (its name was made of
        // it) is shown without them.
        let name = match connections::credentials(&c.base_url) {
            Some(secret) => c.name.replace(secret, ""),
            None => c.name,
        };
        ConnectionView {
            id: c.id,
            api_key_set: c.api_key.as_deref().is_some_and(|k| !k.is_empty()),
            name,
            base_url: connections::shown_url(&c.base_url),
            default_model: c.default_model,
            enabled: c.enabled,
            is_default: c.is_default,
            demo: c.demo,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

/// Which server `/api/models` asks.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ModelsQuery {
    /// A server's id; the default server when absent.
    pub connection_id: Option<i64>,
}

pub async fn list_connections(app: &App) -> Result<Vec<ConnectionView>> {
    Ok(app.store.read(connections::list).await?.into_iter().map(ConnectionView::from).collect())
}

#[instrument(skip(app, new), fields(name = %new.name), err(level = Level::WARN))]
pub async fn create_connection(app: &App, new: NewConnection) -> Result<ConnectionView> {
    Ok(app.store.write(move |tx| connections::create(tx, &new)).await?.into())
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn update_connection(app: &App, id: i64, patch: ConnectionPatch) -> Result<ConnectionView> {
    Ok(app.store.write(move |tx| connections::update(tx, id, &patch)).await?.into())
}

/// Removes a server; its chats go back to the default server with its default model.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_connection(app: &App, id: i64) -> Result<()> {
    app.store.write(move |tx| connections::delete(tx, id)).await
}

/// The models a server lists (the default server when `connection_id` is absent). One request
/// per server, so that a slow or absent one never holds up the others' lists in the UI.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn list_models(app: &App, q: ModelsQuery) -> Result<Vec<llm::ModelInfo>> {
    let mut s = app
        .store
        .read(move |c| {
            let mut s = settings::load(c)?;
            s.server = connections::for_chat(c, q.connection_id)?;
            Ok(s)
        })
        .await?;
    let name = s.server.name.clone();
    s.server = app.wake(s.server).await?;
    app.llm_client(&s).list_models().await.map_err(|e| named(&name, e.into()))
}

/// The server's error with the server's name in front: with several, which one is half the news.
fn named(server: &str, e: Error) -> Error {
    match e {
        Error::Upstream { code, message } => Error::Upstream { code, message: format!("{server}: {message}") },
        other => other,
    }
}
