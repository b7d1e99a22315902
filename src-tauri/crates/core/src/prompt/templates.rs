//! Prompt templates: every piece of prompt text lives in `prompts/*.md`, embedded in the binary
//! and rendered with handlebars (strict, no HTML escaping: user text reaches the model byte for
//! byte). A user may override any template from the data folder's `prompts/`.
//!
//! Bundled templates carry a version in their first line. An override written by Maru carries a
//! managed header (template, version, sha256 of its body): at start, an override still matching
//! its sha256 (unedited) and older than the bundled template is replaced in place; an edited one
//! is kept and reported as based on an older version. Nothing polls in the background.

use std::path::{Path, PathBuf};

use handlebars::Handlebars;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Code, Error, Result};

/// (name, file contents) of every bundled template; the name is the path under `prompts/`.
const BUNDLED: &[(&str, &str)] = &[
    ("base", include_str!("../../../../../prompts/base.md")),
    ("sections/custom_instructions", include_str!("../../../../../prompts/sections/custom_instructions.md")),
    ("sections/project_instructions", include_str!("../../../../../prompts/sections/project_instructions.md")),
    ("sections/attachments", include_str!("../../../../../prompts/sections/attachments.md")),
    ("sections/memory", include_str!("../../../../../prompts/sections/memory.md")),
    ("runtime_note", include_str!("../../../../../prompts/runtime_note.md")),
    ("tool_result", include_str!("../../../../../prompts/tool_result.md")),
    ("tool_output_kept", include_str!("../../../../../prompts/tool_output_kept.md")),
    ("summarize", include_str!("../../../../../prompts/summarize.md")),
    ("summaries", include_str!("../../../../../prompts/summaries.md")),
    ("extract_memory", include_str!("../../../../../prompts/extract_memory.md")),
    ("title", include_str!("../../../../../prompts/title.md")),
    ("tools/search_attachment", include_str!("../../../../../prompts/tools/search_attachment.md")),
    ("tools/search_attachment_result", include_str!("../../../../../prompts/tools/search_attachment_result.md")),
    ("tools/remember", include_str!("../../../../../prompts/tools/remember.md")),
    ("tools/update_memory", include_str!("../../../../../prompts/tools/update_memory.md")),
    ("tools/forget", include_str!("../../../../../prompts/tools/forget.md")),
    ("tools/search_memory", include_str!("../../../../../prompts/tools/search_memory.md")),
    ("tools/memory_result", include_str!("../../../../../prompts/tools/memory_result.md")),
    ("tools/read_tool_output", include_str!("../../../../../prompts/tools/read_tool_output.md")),
    ("tools/read_tool_output_result", include_str!("../../../../../prompts/tools/read_tool_output_result.md")),
    ("tools/messages", include_str!("../../../../../prompts/tools/messages.md")),
    ("tools/load_skill", include_str!("../../../../../prompts/tools/load_skill.md")),
    ("tools/load_skill_result", include_str!("../../../../../prompts/tools/load_skill_result.md")),
    ("tools/read_skill_file", include_str!("../../../../../prompts/tools/read_skill_file.md")),
    ("tools/read_skill_file_result", include_str!("../../../../../prompts/tools/read_skill_file_result.md")),
    ("tools/search_skills", include_str!("../../../../../prompts/tools/search_skills.md")),
    ("tools/search_skills_result", include_str!("../../../../../prompts/tools/search_skills_result.md")),
    ("tools/search_tools", include_str!("../../../../../prompts/tools/search_tools.md")),
    ("tools/search_tools_result", include_str!("../../../../../prompts/tools/search_tools_result.md")),
    ("sharing_instructions", include_str!("../../../../../prompts/sharing_instructions.md")),
    ("tools/search_chats", include_str!("../../../../../prompts/tools/search_chats.md")),
    ("tools/search_chats_result", include_str!("../../../../../prompts/tools/search_chats_result.md")),
    ("tools/search_project_files", include_str!("../../../../../prompts/tools/search_project_files.md")),
    ("summary_transcript", include_str!("../../../../../prompts/summary_transcript.md")),
    ("summary_missing", include_str!("../../../../../prompts/summary_missing.md")),
    ("presets/code-reviewer", include_str!("../../../../../prompts/presets/code-reviewer.md")),
    ("presets/writing-helper", include_str!("../../../../../prompts/presets/writing-helper.md")),
];

const MANAGED_PREFIX: &str = "{{!-- maru-managed:";

/// Where a template's text came from, for the inspector.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TemplateSource {
    Bundled,
    /// A managed override that still matches the bundled version.
    Override {
        #[schema(value_type = String)]
        path: PathBuf,
    },
    /// A managed override that was unedited and older: Maru replaced it at start.
    UpdatedOverride {
        #[schema(value_type = String)]
        path: PathBuf,
        from_version: u32,
    },
    /// A managed override the user edited; it stays, even if the bundled one is newer.
    EditedOverride {
        #[schema(value_type = String)]
        path: PathBuf,
        based_on_version: u32,
    },
    /// A file the user wrote without Maru's header.
    CustomOverride {
        #[schema(value_type = String)]
        path: PathBuf,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TemplateInfo {
    pub name: String,
    pub version: u32,
    /// Metadata lines of the header, such as a preset's `name` and `description`.
    pub meta: Vec<(String, String)>,
    pub source: TemplateSource,
    /// sha256 of the body in use: part of the prompt snapshot's inputs.
    pub sha256: String,
}

impl TemplateInfo {
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// True when the inspector should warn that the override lags the bundled template.
    pub fn is_outdated(&self) -> bool {
        matches!(self.source, TemplateSource::EditedOverride { based_on_version, .. } if based_on_version < self.version)
    }
}

pub struct Templates {
    hb: Handlebars<'static>,
    info: Vec<TemplateInfo>,
}

impl Templates {
    /// The bundled templates only.
    pub fn bundled() -> Templates {
        Self::load(None).expect("bundled templates are valid")
    }

    /// Bundled templates with the overrides in `<data_dir>/prompts/`, syncing managed ones.
    pub fn load(data_dir: Option<&Path>) -> Result<Templates> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        let mut info = Vec::new();
        for (name, file) in BUNDLED {
            let bundled = Parsed::new(file);
            let (body, source) = match data_dir.map(|d| d.join("prompts").join(format!("{name}.md"))) {
                Some(path) if path.is_file() => resolve_override(name, &bundled, path)?,
                _ => (bundled.body.to_string(), TemplateSource::Bundled),
            };
            hb.register_template_string(name, &body)
                .map_err(|e| Error::startup(Code::BadTemplate, format!("the prompt template {name} does not parse: {e}")))?;
            info.push(TemplateInfo {
                name: name.to_string(),
                version: bundled.version,
                meta: bundled.meta.clone(),
                source,
                sha256: sha256_hex(&body),
            });
        }
        Ok(Templates { hb, info })
    }

    pub fn render(&self, name: &str, data: &impl Serialize) -> Result<String> {
        self.hb.render(name, data).map_err(|e| Error::Internal(anyhow::anyhow!("rendering prompt template {name}: {e}")))
    }

    pub fn info(&self, name: &str) -> Option<&TemplateInfo> {
        self.info.iter().find(|t| t.name == name)
    }

    pub fn all(&self) -> &[TemplateInfo] {
        &self.info
    }

    /// Built-in presets: templates under `presets/`, keyed by file stem.
    pub fn presets(&self) -> impl Iterator<Item = &TemplateInfo> {
        self.info.iter().filter(|t| t.name.starts_with("presets/"))
    }

    /// Writes a managed copy of every bundled template not yet overridden, for the user to edit.
    pub fn export(data_dir: &Path) -> Result<Vec<PathBuf>> {
        let mut written = vec![];
        for (name, file) in BUNDLED {
            let path = data_dir.join("prompts").join(format!("{name}.md"));
            if path.exists() {
                continue;
            }
            let parsed = Parsed::new(file);
            write_managed(&path, name, parsed.version, parsed.body)?;
            written.push(path);
        }
        Ok(written)
    }
}

/// A template file split into its header (version and metadata lines) and its body.
struct Parsed<'a> {
    version: u32,
    meta: Vec<(String, String)>,
    body: &'a str,
}

impl<'a> Parsed<'a> {
    fn new(file: &'a str) -> Parsed<'a> {
        let mut version = 0;
        let mut meta = vec![];
        let mut rest = file;
        while let Some(line) = rest.lines().next() {
            let Some(inner) = line.strip_prefix("{{!-- ").and_then(|l| l.strip_suffix(" --}}")) else { break };
            let Some((key, value)) = inner.split_once(": ") else { break };
            if key == "version" {
                version = value.trim().parse().unwrap_or(0);
            } else {
                meta.push((key.to_string(), value.trim().to_string()));
            }
            rest = &rest[line.len()..];
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        }
        // Files end with a newline; the rendered section should not.
        Parsed { version, meta, body: rest.strip_suffix('\n').unwrap_or(rest) }
    }
}

struct ManagedHeader {
    version: u32,
    sha256: String,
}

fn parse_managed(file: &str) -> Option<(ManagedHeader, &str)> {
    let (first, body) = file.split_once('\n')?;
    let fields = first.strip_prefix(MANAGED_PREFIX)?.strip_suffix("--}}")?;
    let field = |k: &str| fields.split_whitespace().find_map(|f| f.strip_prefix(k)?.strip_prefix('=').map(str::to_string));
    Some((ManagedHeader { version: field("version")?.parse().ok()?, sha256: field("sha256")? }, body))
}

fn resolve_override(name: &str, bundled: &Parsed, path: PathBuf) -> Result<(String, TemplateSource)> {
    let file = std::fs::read_to_string(&path)
        .map_err(|e| Error::startup(Code::BadTemplate, format!("cannot read the prompt override {}: {e}", path.display())))?;
    let Some((header, body)) = parse_managed(&file) else {
        return Ok((file.strip_suffix('\n').unwrap_or(&file).to_string(), TemplateSource::CustomOverride { path }));
    };
    let edited = sha256_hex(body) != header.sha256;
    if edited {
        return Ok((body.to_string(), TemplateSource::EditedOverride { path, based_on_version: header.version }));
    }
    if header.version < bundled.version {
        tracing::info!(template = name, from = header.version, to = bundled.version, "updating an unedited prompt override");
        write_managed(&path, name, bundled.version, bundled.body)?;
        return Ok((bundled.body.to_string(), TemplateSource::UpdatedOverride { path, from_version: header.version }));
    }
    Ok((body.to_string(), TemplateSource::Override { path }))
}

fn write_managed(path: &Path, name: &str, version: u32, body: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(anyhow::Error::from)?;
    }
    let text = format!("{MANAGED_PREFIX} template={name} version={version} sha256={} --}}}}\n{body}", sha256_hex(body));
    // Write then rename, so a crash never leaves half a template.
    let tmp = path.with_extension("md.tmp");
    std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path)).map_err(anyhow::Error::from)?;
    Ok(())
}

pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_dir_with(name: &str, text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prompts").join(format!("{name}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        dir
    }

    #[test]
    fn bundled_templates_have_versions_and_no_header_in_the_body() {
        let t = Templates::bundled();
        for info in t.all() {
            assert!(info.version >= 1, "{} needs a version so overrides can be synced", info.name);
        }
        let base = t.render("base", &serde_json::json!({})).unwrap();
        assert!(!base.contains("{{!--") && !base.contains("version:"), "the header must not reach the model: {base}");
        assert!(base.starts_with("You are Maru"));
    }

    #[test]
    fn an_unedited_older_override_is_replaced_in_place() {
        let body = "Old base prompt.";
        let file = format!("{MANAGED_PREFIX} template=base version=0 sha256={} --}}}}\n{body}", sha256_hex(body));
        let dir = data_dir_with("base", &file);
        let t = Templates::load(Some(dir.path())).unwrap();
        assert!(matches!(t.info("base").unwrap().source, TemplateSource::UpdatedOverride { from_version: 0, .. }));
        assert!(t.render("base", &()).unwrap().starts_with("You are Maru"), "the new bundled text is used");
        let on_disk = std::fs::read_to_string(dir.path().join("prompts/base.md")).unwrap();
        assert!(on_disk.contains("You are Maru") && on_disk.contains("version=1"), "the file is updated in place: {on_disk}");
        // A second start finds it current and leaves it alone.
        let t = Templates::load(Some(dir.path())).unwrap();
        assert!(matches!(t.info("base").unwrap().source, TemplateSource::Override { .. }));
    }

    #[test]
    fn an_edited_override_is_kept_and_reported_as_outdated() {
        let file = format!("{MANAGED_PREFIX} template=base version=0 sha256={} --}}}}\nMy own base prompt.", sha256_hex("Old"));
        let dir = data_dir_with("base", &file);
        let t = Templates::load(Some(dir.path())).unwrap();
        let info = t.info("base").unwrap();
        assert!(matches!(info.source, TemplateSource::EditedOverride { based_on_version: 0, .. }));
        assert!(info.is_outdated(), "the inspector must say the edit is based on an older version");
        assert_eq!(t.render("base", &()).unwrap(), "My own base prompt.", "the user's edit wins");
        let on_disk = std::fs::read_to_string(dir.path().join("prompts/base.md")).unwrap();
        assert_eq!(on_disk, file, "an edited override is never rewritten");
    }

    #[test]
    fn a_plain_override_file_is_used_as_written() {
        let dir = data_dir_with("sections/memory", "Facts: {{#each facts}}{{this}}; {{/each}}Date {{date}}\n");
        let t = Templates::load(Some(dir.path())).unwrap();
        assert!(matches!(t.info("sections/memory").unwrap().source, TemplateSource::CustomOverride { .. }));
        let out = t.render("sections/memory", &serde_json::json!({"facts": ["a"], "date": "d"})).unwrap();
        assert_eq!(out, "Facts: a; Date d");
    }

    #[test]
    fn a_broken_override_is_a_clear_error() {
        let dir = data_dir_with("base", "{{#if}}");
        let err = Templates::load(Some(dir.path())).err().expect("a template that does not parse must be refused");
        assert!(err.to_string().contains("base"), "the message names the template: {err}");
    }

    #[test]
    fn export_writes_managed_copies_that_load_as_current() {
        let dir = tempfile::tempdir().unwrap();
        let written = Templates::export(dir.path()).unwrap();
        assert_eq!(written.len(), BUNDLED.len());
        let t = Templates::load(Some(dir.path())).unwrap();
        assert!(t.all().iter().all(|i| matches!(i.source, TemplateSource::Override { .. })));
        assert_eq!(t.render("base", &()).unwrap(), Templates::bundled().render("base", &()).unwrap());
    }
}
