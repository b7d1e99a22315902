//! File contents on disk, one file per sha256 under the data folder's `blobs/`, named by the hash
//! alone: the user's file name never becomes a path. Written to a temporary file, synced and
//! renamed, so a crash leaves either the whole file or none (and a row is added only after).

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Code, Error, Result};
use crate::paths;

#[derive(Clone)]
pub struct Blobs {
    dir: PathBuf,
}

impl Blobs {
    pub fn new(data_dir: &Path) -> Blobs {
        Blobs { dir: data_dir.join("blobs") }
    }

    pub fn path(&self, sha256: &str) -> PathBuf {
        self.dir.join(&sha256[..2]).join(sha256)
    }

    /// Stores `bytes` and returns their sha256; an existing identical file is kept as it is.
    pub fn write(&self, bytes: &[u8]) -> Result<String> {
        let sha = sha256_hex(bytes);
        self.ensure(&sha, bytes)?;
        Ok(sha)
    }

    /// Makes sure the file of `sha` (the hash of `bytes`) is there. Called again inside the
    /// transaction that links it: a delete that released the same content in between removed
    /// the file written before that transaction.
    pub fn ensure(&self, sha: &str, bytes: &[u8]) -> Result<()> {
        let path = self.path(sha);
        if path.is_file() {
            return Ok(());
        }
        let dir = path.parent().expect("blob paths have a folder");
        paths::create_private_dir(dir)?;
        let tmp = dir.join(format!(".{sha}.{}.tmp", std::process::id()));
        let written = std::fs::File::create(&tmp).and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        });
        if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, &path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(anyhow::anyhow!("cannot store a file in {}: {e}", dir.display()).into());
        }
        Ok(())
    }

    /// The stored content of the attached file `name`. A content gone from the data folder (a
    /// folder copied without its `blobs`, a file removed by hand) is a plain error naming it.
    pub fn read(&self, sha256: &str, name: &str) -> Result<Vec<u8>> {
        std::fs::read(self.path(sha256)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                Error::conflict(Code::FileMissing, format!("the file {name} is missing from Maru's data folder (blobs); attach it again"))
                    .with("file", name)
            }
            _ => anyhow::anyhow!("cannot read stored file {sha256}: {e}").into(),
        })
    }

    /// Removes contents whose last link is gone: called under the writer, right after the commit
    /// that released them ([`crate::store::Store::write_then`]), so no new link can race it.
    pub fn remove(&self, shas: &[String]) {
        for sha in shas {
            if let Err(e) = std::fs::remove_file(self.path(sha)) {
                tracing::warn!(sha, "cannot remove a released file: {e}");
            }
        }
    }

    /// Removes files that no row records: left by a crash between a delete's commit and the file
    /// removal, or between writing a file and recording it. Returns how many went.
    pub fn sweep(&self, recorded: &std::collections::HashSet<String>) -> usize {
        let mut removed = 0;
        let Ok(shards) = std::fs::read_dir(&self.dir) else { return 0 };
        for shard in shards.flatten() {
            let Ok(files) = std::fs::read_dir(shard.path()) else { continue };
            for file in files.flatten() {
                let name = file.file_name().to_string_lossy().into_owned();
                if !recorded.contains(&name) && std::fs::remove_file(file.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }
}

/// The name a content is stored under.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
