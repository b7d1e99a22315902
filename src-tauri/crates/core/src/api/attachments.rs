//! Files: attach to a session or a project, list, download, remove. Reading and indexing a new
//! file's text happens in the background; the file is listed at once with status `indexing`.

use serde::{Deserialize, Serialize};
use tracing::{instrument, Level};

use super::Deleted;
use crate::app::App;
use crate::attachments::Scope;
use crate::error::{Code, Error, Result};
use crate::store::attachments::{self as table, Attachment};
use crate::store::settings;

/// The largest upload: the largest file the size setting can allow, and the form around it.
pub const UPLOAD_MAX_BYTES: usize = (1024 + 1) << 20;

/// Where to attach: exactly one of the two.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AttachmentScope {
    pub session_id: Option<i64>,
    pub project_id: Option<i64>,
}

impl AttachmentScope {
    fn scope(&self) -> Result<Scope> {
        match (self.session_id, self.project_id) {
            (Some(s), None) => Ok(Scope::Session(s)),
            (None, Some(p)) => Ok(Scope::Project(p)),
            _ => Err(Error::invalid(Code::InvalidScope, "attach a file to either a session (session_id) or a project (project_id)")),
        }
    }
}

/// What `POST /api/attachments` takes, as `multipart/form-data`: the file in a part named
/// `file` (its file name is the display name), and exactly one of the two ids.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UploadForm {
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    pub session_id: Option<i64>,
    pub project_id: Option<i64>,
}

#[instrument(skip(app, bytes), fields(size = bytes.len()), err(level = Level::WARN))]
pub async fn upload(app: &std::sync::Arc<App>, scope: AttachmentScope, name: String, bytes: Vec<u8>) -> Result<Attachment> {
    let scope = scope.scope()?;
    let max_mb = app.store.read(|c| Ok(settings::load(c)?.attachment_max_mb)).await?;
    let shared = app.clone();
    let (attachment, new) =
        tokio::task::spawn_blocking(move || shared.files.add(&shared.store, scope, &name, &bytes, u64::from(max_mb) << 20))
            .await
            .map_err(|e| Error::Internal(anyhow::anyhow!("storing a file failed: {e}")))??;
    if new {
        let (app, sha, kind) = (app.clone(), attachment.sha256.clone(), attachment.kind);
        tokio::spawn(async move { app.index_file(sha, kind).await });
    }
    Ok(attachment)
}

/// A session's own files, or a project's.
pub async fn list(app: &App, scope: AttachmentScope) -> Result<Vec<Attachment>> {
    let scope = scope.scope()?;
    app.store
        .read(move |c| match scope {
            Scope::Session(id) => {
                crate::store::sessions::get(c, id)?;
                table::list_for_session(c, id)
            }
            Scope::Project(id) => {
                crate::store::projects::get(c, id)?;
                table::list_for_project(c, id)
            }
        })
        .await
}

pub async fn get(app: &App, id: i64) -> Result<Attachment> {
    app.store.read(move |c| table::get(c, id)).await
}

/// The file's bytes as attached.
pub async fn download(app: &std::sync::Arc<App>, id: i64) -> Result<(Attachment, Vec<u8>)> {
    let a = get(app, id).await?;
    let shared = app.clone();
    let (sha, name) = (a.sha256.clone(), a.name.clone());
    let bytes = tokio::task::spawn_blocking(move || shared.files.blobs.read(&sha, &name))
        .await
        .map_err(|e| Error::Internal(anyhow::anyhow!("reading a file failed: {e}")))??;
    Ok((a, bytes))
}

/// An image file's thumbnail (PNG).
pub async fn thumbnail(app: &App, id: i64) -> Result<Vec<u8>> {
    app.store.read(move |c| table::thumbnail(c, id)).await?.ok_or_else(|| Error::NotFound { what: "thumbnail of attachment", id })
}

/// Removes a file; its stored content goes when no other file links to it.
#[instrument(skip(app), err(level = Level::WARN))]
pub async fn delete(app: &App, id: i64) -> Result<Deleted> {
    let blobs = app.files.blobs.clone();
    app.store.write_then(move |tx| table::delete(tx, id), move |released| blobs.remove(released.as_slice())).await?;
    Ok(Deleted { id, deleted: true })
}

/// How far the files' passages are embedded by the chosen model, and why the last batch failed.
pub async fn embedding_progress(app: &App) -> Result<settings::EmbeddingProgress> {
    use crate::store::passage_vectors::{self, VectorModel};
    let failure = app.embedding.failure();
    app.store
        .read(move |c| {
            let model = settings::load(c)?.embeddings;
            let (embedded, passages) = match &model {
                Some(m) => passage_vectors::progress(c, &VectorModel { connection_id: m.connection_id, model: m.model.clone() })?,
                None => (0, passage_vectors::progress(c, &VectorModel { connection_id: 0, model: String::new() })?.1),
            };
            Ok(settings::EmbeddingProgress { failure: failure.filter(|_| model.is_some()), model, embedded, passages })
        })
        .await
}
