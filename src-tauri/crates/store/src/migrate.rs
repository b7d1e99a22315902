//! Schema migrations: the files in `migrations/`, embedded in the binary, applied in order in one
//! transaction at open and recorded in `schema_migrations`. Append-only: never edit a shipped file.
//! `migrations/checksums.txt` (as `sha256sum *.sql` writes it) holds each landed file's hash; a
//! test fails when a landed file changes, or when a new one is not added to it.

use rusqlite::{Connection, OptionalExtension};

use crate::error::{Error, Result};

pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

macro_rules! migration {
    ($version:expr, $name:literal) => {
        Migration { version: $version, name: $name, sql: include_str!(concat!("../../../../migrations/", $name, ".sql")) }
    };
}

pub static MIGRATIONS: &[Migration] = &[
    migration!(1, "0001_foundation"),
    migration!(2, "0002_chat"),
    migration!(3, "0003_ids_never_reused"),
    migration!(4, "0004_prompt_inputs_revision"),
    migration!(5, "0005_attachments"),
    migration!(6, "0006_chat_search"),
    migration!(7, "0007_images"),
    migration!(8, "0008_memory_proposals"),
    migration!(9, "0009_session_summaries"),
    migration!(10, "0010_message_error_codes"),
    migration!(11, "0011_reason_codes"),
    migration!(12, "0012_session_model"),
    migration!(13, "0013_reply_versions"),
    migration!(14, "0014_turns_in_flight_and_indexing_runs"),
    migration!(15, "0015_tool_outputs"),
    migration!(16, "0016_tool_servers"),
    migration!(17, "0017_skills"),
    migration!(18, "0018_title_by"),
    migration!(19, "0019_imported_copies"),
    migration!(20, "0020_project_folders"),
    migration!(21, "0021_connections"),
    migration!(22, "0022_reply_server"),
    migration!(23, "0023_memory_changes"),
    migration!(24, "0024_tool_outcomes"),
    migration!(25, "0025_passage_headings"),
    migration!(26, "0026_passage_vectors"),
    migration!(27, "0027_switching"),
    migration!(28, "0028_demo_connection"),
    migration!(29, "0029_shared_calls"),
    migration!(30, "0030_folder_exclude"),
    migration!(31, "0031_tool_approval"),
];

pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

pub(super) fn apply(conn: &mut Connection, migrations: &[Migration]) -> Result<()> {
    let tx = conn.transaction()?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             name       TEXT    NOT NULL,
             applied_at INTEGER NOT NULL
         );",
    )?;
    let current: i64 =
        tx.query_row("SELECT max(version) FROM schema_migrations", [], |r| r.get::<_, Option<i64>>(0)).optional()?.flatten().unwrap_or(0);
    let known = migrations.last().map_or(0, |m| m.version);
    if current > known {
        // Dropping `tx` rolls back: the newer database is left exactly as it was.
        return Err(Error::NewerSchema { found: current, known });
    }
    for m in migrations.iter().filter(|m| m.version > current) {
        tracing::info!(version = m.version, name = m.name, "applying migration");
        tx.execute_batch(m.sql).map_err(|e| anyhow::anyhow!("migration {} failed: {e}", m.name))?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            rusqlite::params![m.version, m.name, super::now_ms()],
        )?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use sha2::{Digest, Sha256};

    use super::MIGRATIONS;

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../migrations")
    }

    /// `migrations/checksums.txt`: file name → hash.
    fn landed() -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(dir().join("checksums.txt")).expect("migrations/checksums.txt lists the landed migrations");
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let (hash, file) = l.split_once("  ").unwrap_or_else(|| panic!("not a `sha256sum` line: {l:?}"));
                (file.to_string(), hash.to_string())
            })
            .collect()
    }

    /// Every `.sql` file beside it, with the hash of its bytes.
    fn present() -> BTreeMap<String, String> {
        std::fs::read_dir(dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sql"))
            .map(|n| {
                let bytes = std::fs::read(dir().join(&n)).unwrap();
                let hash = hex::encode(Sha256::digest(&bytes));
                (n, hash)
            })
            .collect()
    }

    #[test]
    fn a_landed_migration_is_never_edited_and_each_new_one_is_listed() {
        let (landed, present) = (landed(), present());
        for (file, hash) in &landed {
            match present.get(file) {
                None => panic!("{file} was removed; a landed migration was applied to users' data, it stays"),
                Some(now) => assert_eq!(
                    now, hash,
                    "{file}: a landed migration was edited; add a new one instead (users who ran it never run it again, so an edit splits their schema from a new user's)"
                ),
            }
        }
        let unlisted: Vec<String> = present.iter().filter(|(f, _)| !landed.contains_key(*f)).map(|(f, h)| format!("{h}  {f}")).collect();
        assert!(
            unlisted.is_empty(),
            "each new migration is added to migrations/checksums.txt once it is final (run `sha256sum NNNN_name.sql >> checksums.txt` in migrations/); missing:\n{}",
            unlisted.join("\n")
        );
        let embedded: Vec<String> = MIGRATIONS.iter().map(|m| format!("{}.sql", m.name)).collect();
        let files: Vec<&String> = present.keys().collect();
        assert_eq!(embedded.iter().collect::<Vec<_>>(), files, "every file in migrations/ is applied, in order (MIGRATIONS in migrate.rs)");
    }

    #[test]
    fn the_embedded_migrations_are_the_files_listed() {
        let landed = landed();
        for m in MIGRATIONS {
            let file = format!("{}.sql", m.name);
            let hash = hex::encode(Sha256::digest(m.sql.as_bytes()));
            assert_eq!(
                landed.get(&file),
                Some(&hash),
                "{file}: what the binary applies is what landed; a landed migration was edited; add a new one instead"
            );
        }
    }
}
