//! The UI's copy of the API's JSON types: `ui/src/backend/generated/`, one file per type plus an
//! `index.ts`, generated from the Rust types with ts-rs (derived in tests only, so release builds
//! carry none of it). The test below fails when the committed files differ from what the Rust
//! types say; `MARU_WRITE_TS=1 cargo test -p maru-core -p maru-server typescript` rewrites them.
//!
//! To add a type: `#[cfg_attr(test, derive(ts_rs::TS))]` on it, then name it in `export_types`
//! (a type the OpenAPI document names but this list misses fails `every_type_the_api_names_has_a_typescript_twin`).
//! Types it uses are exported with it. Integers come out as `number` (the IDs, counts and
//! Unix-millisecond times all fit in a double).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ts_rs::{Config, TS};

/// Every type that crosses the API as JSON, each written to `dir` with the types it depends on.
fn export_types(dir: &Path) {
    use crate::api::attachments::{AttachmentScope, UploadForm};
    use crate::api::chat::{
        ContextView, DeletedPreset, InstructionFileSent, InstructionFileSkipped, InstructionFiles, LastSent, NewTurn, PresetView,
        ReplyFigures, SkillOffered, Stopped, ToolOffered,
    };
    use crate::api::connections::{ConnectionView, ModelsQuery};
    use crate::api::export::{BackupZip, ExportFormat, ExportQuery, ImportUpload, ImportedProject, ProjectZip, RestoredBackup, Skipped};
    use crate::api::skills::{ImportedSkills, SkillFileLeftOut, SkillView, SkillZip};
    use crate::api::tool_servers::{Answered, Approve, ToolServerView};
    use crate::api::Deleted;
    use crate::api::{Health, MemoryStatusQuery, MessageEdit, MessageQuery, SearchQuery, SessionQuery};
    use crate::app::demo::DemoModel;
    use crate::app::TurnEvent;
    use crate::chat::compact::Compacted;
    use crate::chat::plan::TokenPlan;
    use crate::error::{Code, ErrorBody, UpstreamCode};
    use crate::imports::jobs::{ImportJob, JobState};
    use crate::imports::ExportSource;
    use crate::llm::{FoundServer, ModelInfo, ToolCall, Usage};
    use crate::prompt::budget::Cut;
    use crate::prompt::render::SectionReport;
    use crate::prompt::templates::{TemplateInfo, TemplateSource};
    use crate::prompt::tokens::Tally;
    use crate::prompt::SectionId;
    use crate::store::attachments::{Attachment, IndexStatus, Kind};
    use crate::store::changes::Change;
    use crate::store::connections::{ConnectionPatch, NewConnection};
    use crate::store::exports::ChatExport;
    use crate::store::memories::{Memory, MemoryFilter, MemoryPatch, MemoryStatus, NewMemory};
    use crate::store::messages::{Message, MessagePage, Role, Status};
    use crate::store::presets::{NewPreset, PresetPatch};
    use crate::store::projects::{DeletedProject, NewProject, Project, ProjectPatch};
    use crate::store::search::{ChatHit, FileHit};
    use crate::store::sessions::{NewSession, Session, SessionPage, SessionPatch};
    use crate::store::settings::{SettingBounds, SettingsPatch, SettingsView};
    use crate::store::skills::{NewSkill, SkillFile, SkillPatch};
    use crate::store::summaries::Summary;
    use crate::store::tool_servers::{NewToolServer, ToolServerPatch, Transport};
    use crate::tools::approvals::Decision;
    use crate::tools::servers::{ServerStatus, ServerTool};

    let cfg = Config::new().with_large_int("number").with_out_dir(dir);
    macro_rules! export {
        ($($t:ty),* $(,)?) => {$(
            <$t as TS>::export_all(&cfg)
                .unwrap_or_else(|e| panic!("exporting {}: {e}", stringify!($t)));
        )*};
    }
    export!(
        // store
        Project,
        NewProject,
        ProjectPatch,
        DeletedProject,
        Session,
        NewSession,
        SessionPatch,
        SessionPage,
        Message,
        Role,
        Status,
        MessagePage,
        SettingsView,
        SettingsPatch,
        SettingBounds,
        Memory,
        NewMemory,
        MemoryPatch,
        MemoryStatus,
        MemoryFilter,
        MemoryStatusQuery,
        NewPreset,
        PresetPatch,
        Attachment,
        Kind,
        IndexStatus,
        AttachmentScope,
        UploadForm,
        ChatExport,
        ExportQuery,
        ExportFormat,
        ImportedProject,
        ProjectZip,
        ImportUpload,
        ImportJob,
        JobState,
        ExportSource,
        BackupZip,
        RestoredBackup,
        Skipped,
        ChatHit,
        FileHit,
        SearchQuery,
        Summary,
        TokenPlan,
        Tally,
        Compacted,
        Change,
        // api
        Health,
        SessionQuery,
        MessageQuery,
        MessageEdit,
        Deleted,
        ErrorBody,
        Code,
        UpstreamCode,
        NewTurn,
        Stopped,
        ContextView,
        ToolOffered,
        InstructionFiles,
        InstructionFileSent,
        InstructionFileSkipped,
        LastSent,
        ReplyFigures,
        PresetView,
        DeletedPreset,
        TurnEvent,
        SkillOffered,
        // skills
        SkillView,
        SkillZip,
        ImportedSkills,
        SkillFileLeftOut,
        NewSkill,
        SkillPatch,
        SkillFile,
        // tool servers
        ToolServerView,
        NewToolServer,
        ToolServerPatch,
        Transport,
        ServerStatus,
        ServerTool,
        Decision,
        Approve,
        Answered,
        // prompt
        SectionId,
        SectionReport,
        Cut,
        TemplateInfo,
        TemplateSource,
        // model server
        ConnectionView,
        NewConnection,
        ConnectionPatch,
        ModelsQuery,
        Usage,
        ToolCall,
        ModelInfo,
        FoundServer,
        DemoModel,
    );
}

/// File name → contents of everything generated, `index.ts` included.
fn generate() -> BTreeMap<String, String> {
    let tmp = tempfile::tempdir().expect("temp dir");
    export_types(tmp.path());
    let mut files = read_ts_files(tmp.path());
    let mut index = String::from(
        "// Generated by src-tauri/crates/core/src/api/typescript.rs from the Rust types. Do not edit: run\n\
         // `MARU_WRITE_TS=1 cargo test -p maru-core -p maru-server typescript`.\n\n",
    );
    for name in files.keys() {
        let stem = name.trim_end_matches(".ts");
        index.push_str(&format!("export type {{ {stem} }} from './{stem}';\n"));
    }
    files.insert("index.ts".into(), index);
    // Values too, not only types: the settings' bounds, which the settings dialog reads.
    let bounds = serde_json::to_string_pretty(&crate::store::settings::BOUNDS).expect("bounds serialise");
    files.insert(
        "setting-bounds.ts".into(),
        format!(
            "// Generated by src-tauri/crates/core/src/api/typescript.rs from `store::settings::BOUNDS`. Do not edit.\n\n\
             import type {{ SettingBounds }} from './SettingBounds';\n\n\
             export const SETTING_BOUNDS: SettingBounds = {bounds};\n"
        ),
    );
    files
}

fn read_ts_files(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeMap::new() };
    let mut files = BTreeMap::new();
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "ts") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            files.insert(name, text);
        }
    }
    files
}

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../ui/src/backend/generated")
}

#[test]
fn typescript_types_match_the_rust_types() {
    let generated = generate();
    let dir = committed_dir();
    if std::env::var_os("MARU_WRITE_TS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).expect("create ui/src/backend/generated");
        for name in read_ts_files(&dir).keys() {
            if !generated.contains_key(name) {
                std::fs::remove_file(dir.join(name)).expect("remove a stale file");
            }
        }
        for (name, text) in &generated {
            std::fs::write(dir.join(name), text).expect("write a generated file");
        }
        return;
    }
    let committed = read_ts_files(&dir);
    let mut stale: Vec<String> = Vec::new();
    for (name, text) in &generated {
        match committed.get(name) {
            None => stale.push(format!("{name} is missing")),
            Some(old) if old != text => stale.push(format!("{name} differs")),
            Some(_) => {}
        }
    }
    stale.extend(committed.keys().filter(|n| !generated.contains_key(*n)).map(|n| format!("{n} is no longer generated")));
    assert!(
        stale.is_empty(),
        "TypeScript types are stale: run `MARU_WRITE_TS=1 cargo test -p maru-core -p maru-server typescript` \
         (ui/src/backend/generated: {})",
        stale.join(", ")
    );
}
