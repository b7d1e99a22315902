//! The data folder's layout and how its folders are made: private to the user, since they hold
//! chats, files and the API key.

use std::path::Path;

use crate::error::{Code, Error, Result};

/// Creates a directory readable by its owner only.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::startup(Code::DataDirUnusable, format!("cannot create {}: {e}", dir.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    Ok(())
}

/// Holds the data folder for this process: one Maru at a time may own a data folder, since two
/// would each take the other's live replies for crashed ones and race on every write. The OS
/// releases the lock when the process ends, however it ends, so a crash never leaves it stale.
pub struct DataDirLock {
    _file: std::fs::File,
}

impl DataDirLock {
    /// Takes the lock, or says which process has it.
    pub fn acquire(data_dir: &Path) -> Result<DataDirLock> {
        use std::io::{Read, Seek, Write};
        let path = data_dir.join("maru.lock");
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::startup(Code::DataDirUnusable, format!("cannot open {}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            // A file system without locks (some network mounts): run, as Maru did before locks.
            Err(std::fs::TryLockError::Error(e)) => {
                tracing::warn!("cannot lock {}: {e}; make sure only one Maru uses this folder", path.display())
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() { "another Maru".to_string() } else { format!("another Maru ({holder})") };
                return Err(Error::startup(
                    Code::DataDirInUse,
                    format!(
                        "the data folder {} is in use by {who}; close it first, or start this one with another --data-dir",
                        data_dir.display()
                    ),
                ));
            }
        }
        // The pid and the program only: the command line may carry a token.
        let program = std::env::current_exe().ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        let me = format!("process {}, {}", std::process::id(), program.as_deref().unwrap_or("maru"));
        let _ = file.set_len(0).and_then(|_| file.rewind()).and_then(|_| file.write_all(me.as_bytes()));
        Ok(DataDirLock { _file: file })
    }
}
