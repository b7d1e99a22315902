//! Presets: the built-in base prompts and the user's own, which a chat picks as its section ①.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use crate::app::App;
use crate::error::{Code, Error, Result};
use crate::prompt;
use crate::store::presets::{self, NewPreset, PresetPatch};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct PresetView {
    /// What a session's `preset` field names: a built-in stem or `user:<id>`.
    pub key: String,
    pub name: String,
    pub description: String,
    pub prompt: String,
    pub builtin: bool,
    pub id: Option<i64>,
}

pub async fn list_presets(app: &App) -> Result<Vec<PresetView>> {
    let mut out: Vec<PresetView> = app
        .templates
        .presets()
        .map(|t| {
            let key = t.name.trim_start_matches("presets/").to_string();
            Ok(PresetView {
                name: t.meta("name").unwrap_or(&key).to_string(),
                description: t.meta("description").unwrap_or("").to_string(),
                prompt: app.templates.render(&t.name, &serde_json::json!({}))?,
                builtin: true,
                id: None,
                key,
            })
        })
        .collect::<Result<_>>()?;
    let user = app.store.read(presets::list).await?;
    out.extend(user.into_iter().map(user_view));
    Ok(out)
}

fn user_view(p: presets::UserPreset) -> PresetView {
    PresetView { key: presets::user_key(p.id), name: p.name, description: p.description, prompt: p.prompt, builtin: false, id: Some(p.id) }
}

#[instrument(skip_all, err(level = Level::WARN))]
pub async fn create_preset(app: &App, new: NewPreset) -> Result<PresetView> {
    Ok(user_view(app.store.write(move |tx| presets::create(tx, &new)).await?))
}

#[instrument(skip(app, patch), err(level = Level::WARN))]
pub async fn update_preset(app: &App, id: i64, patch: PresetPatch) -> Result<PresetView> {
    Ok(user_view(app.store.write(move |tx| presets::update(tx, id, &patch)).await?))
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DeletedPreset {
    pub id: i64,
    /// Sessions that used it and went back to the base prompt.
    pub sessions_reset: usize,
}

#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete_preset(app: &App, id: i64) -> Result<DeletedPreset> {
    let sessions_reset = app.store.write(move |tx| presets::delete(tx, id)).await?;
    Ok(DeletedPreset { id, sessions_reset })
}

pub(super) fn check_preset(conn: &rusqlite::Connection, templates: &prompt::Templates, key: &str) -> Result<()> {
    prompt::inputs::resolve_base(conn, templates, Some(key)).map(|_| ()).map_err(|e| match e {
        Error::NotFound { .. } => Error::invalid(Code::UnknownPreset, format!("there is no preset {key:?}")).with("preset", key),
        other => other,
    })
}
