//! Which linked folders changed: the platform's file watcher (inotify, FSEvents,
//! ReadDirectoryChanges, through `notify`) marks a folder's project as changed, and the sync
//! loop syncs only those. A folder the watcher cannot follow (no watches left, a network file
//! system) is looked at every `EVERY` instead. Changes under hidden paths (`.git` above all,
//! which changes on every `git status`) and reads (Maru's own among them) mark nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// The projects whose folders changed since they were last synced, and the signal that says so.
#[derive(Default)]
pub struct Changed {
    projects: Mutex<HashSet<i64>>,
    pub wake: tokio::sync::Notify,
}

impl Changed {
    pub fn mark(&self, project_id: i64) {
        self.projects.lock().unwrap_or_else(|e| e.into_inner()).insert(project_id);
        self.wake.notify_one();
    }

    pub fn take(&self) -> HashSet<i64> {
        std::mem::take(&mut *self.projects.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The linked folders followed, by project: `true` when the watcher follows it, `false` when it
/// is looked at every `EVERY`.
type Followed = HashMap<i64, (PathBuf, bool)>;

/// One watcher (one inotify instance) for every linked folder of the data folder.
#[derive(Default)]
pub struct Watches {
    watcher: Mutex<Option<RecommendedWatcher>>,
    followed: Arc<Mutex<Followed>>,
    pub changed: Arc<Changed>,
}

impl Watches {
    /// Follows exactly the folders `linked` names: a new or moved link is watched (off the
    /// runtime: watching a large tree walks it), an unlinked one is no longer. Returns the
    /// projects whose folders the watcher cannot follow, to be looked at every `EVERY`.
    pub async fn follow(&self, linked: &[(i64, String)]) -> Vec<i64> {
        let (gone, new): (Vec<PathBuf>, Vec<(i64, PathBuf)>) = {
            let mut followed = self.followed.lock().unwrap_or_else(|e| e.into_inner());
            let wanted: HashMap<i64, PathBuf> = linked.iter().map(|(id, f)| (*id, PathBuf::from(f))).collect();
            let mut gone = vec![];
            followed.retain(|id, (root, watched)| {
                let keep = wanted.get(id) == Some(root);
                if !keep && *watched {
                    gone.push(root.clone());
                }
                keep
            });
            let new = wanted.into_iter().filter(|(id, _)| !followed.contains_key(id)).collect();
            (gone, new)
        };
        for root in gone {
            // Another project may follow the same folder: it keeps its watch.
            if !self.followed.lock().unwrap_or_else(|e| e.into_inner()).values().any(|(r, w)| *w && *r == root) {
                self.with_watcher(move |w| w.unwatch(&root).is_ok()).await;
            }
        }
        for (id, root) in new {
            let shared = self.followed.lock().unwrap_or_else(|e| e.into_inner()).values().any(|(r, w)| *w && *r == root);
            let path = root.clone();
            let watched = shared || self.with_watcher(move |w| w.watch(&path, RecursiveMode::Recursive).is_ok()).await;
            if !watched {
                tracing::info!(project_id = id, "a linked folder cannot be watched; it is looked at every {:?}", super::EVERY);
            }
            self.followed.lock().unwrap_or_else(|e| e.into_inner()).insert(id, (root, watched));
        }
        let followed = self.followed.lock().unwrap_or_else(|e| e.into_inner());
        followed.iter().filter(|(_, (_, watched))| !watched).map(|(id, _)| *id).collect()
    }

    /// Runs `change` on the watcher (made on first use) on a thread of its own, within the walk's
    /// deadline; `false` when there is no watcher or it did not finish.
    async fn with_watcher(&self, change: impl FnOnce(&mut RecommendedWatcher) -> bool + Send + 'static) -> bool {
        let Some(mut watcher) = self.watcher.lock().unwrap_or_else(|e| e.into_inner()).take().or_else(|| self.make()) else {
            return false;
        };
        let done = super::scan::off_thread(super::scan::WALK_DEADLINE, move || {
            let ok = change(&mut watcher);
            (watcher, ok)
        })
        .await;
        match done {
            Some((watcher, ok)) => {
                *self.watcher.lock().unwrap_or_else(|e| e.into_inner()) = Some(watcher);
                ok
            }
            // Stuck in a walk: a new watcher is made next time, and every folder watched again.
            None => {
                self.followed.lock().unwrap_or_else(|e| e.into_inner()).clear();
                false
            }
        }
    }

    fn make(&self) -> Option<RecommendedWatcher> {
        let (followed, changed) = (self.followed.clone(), self.changed.clone());
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let followed = followed.lock().unwrap_or_else(|e| e.into_inner());
            for (id, (root, _)) in followed.iter() {
                match &event {
                    Ok(event) if event.paths.iter().any(|p| p.starts_with(root)) && matters(root, event) => changed.mark(*id),
                    Ok(_) => {}
                    // Events were lost (the queue overflowed): look again to be sure.
                    Err(_) => changed.mark(*id),
                }
            }
        })
        .ok()
    }
}

/// Whether an event can change what is mirrored: a write, a new, moved or removed file outside
/// hidden paths. Reads and opens cannot.
fn matters(root: &Path, event: &notify::Event) -> bool {
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    event.paths.is_empty() || event.paths.iter().any(|p| !hidden(root, p))
}

fn hidden(root: &Path, path: &Path) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().any(|c| matches!(c, Component::Normal(n) if n.to_string_lossy().starts_with('.')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_hidden_paths_change_nothing() {
        let root = Path::new("/home/me/repo");
        let event = |kind, path: &str| notify::Event { kind, paths: vec![PathBuf::from(path)], attrs: Default::default() };
        let write = EventKind::Modify(notify::event::ModifyKind::Data(notify::event::DataChange::Any));
        assert!(matters(root, &event(write, "/home/me/repo/docs/a.md")), "a written document is synced");
        assert!(!matters(root, &event(write, "/home/me/repo/.git/index")), "git's own bookkeeping is not");
        let read = EventKind::Access(notify::event::AccessKind::Close(notify::event::AccessMode::Read));
        assert!(!matters(root, &event(read, "/home/me/repo/docs/a.md")), "Maru reading a file must not make it sync again");
    }
}
