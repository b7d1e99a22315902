//! `load_skill(name)` and `read_skill_file(name, path)`: a skill's procedure, and its reference
//! files, for the turn's chat only (the skills its project offers; a disabled one is not there).
//! The prompt lists just each skill's name and description; the body comes in, once, as the
//! result of loading it.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::{say, Offer, Tool, ToolContext};
use crate::llm::ToolSpec;
use crate::prompt::Templates;
use crate::store::skills;

pub const LOAD: &str = "load_skill";
pub const READ_FILE: &str = "read_skill_file";

pub struct SkillTool {
    templates: Arc<Templates>,
    spec: ToolSpec,
    read_file: bool,
}

impl SkillTool {
    pub fn load(templates: Arc<Templates>) -> SkillTool {
        let parameters = json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] });
        SkillTool { spec: super::spec(&templates, LOAD, &json!({}), parameters), templates, read_file: false }
    }

    pub fn read_file(templates: Arc<Templates>) -> SkillTool {
        let parameters = json!({
            "type": "object",
            "properties": { "name": { "type": "string" }, "path": { "type": "string" } },
            "required": ["name", "path"]
        });
        SkillTool { spec: super::spec(&templates, READ_FILE, &json!({}), parameters), templates, read_file: true }
    }
}

impl Tool for SkillTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn offered(&self, turn: &Offer) -> bool {
        turn.skills
    }

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<String, String>> {
        let (templates, read_file) = (self.templates.clone(), self.read_file);
        Box::pin(async move {
            let name = args["name"].as_str().map(str::trim).unwrap_or_default().to_string();
            let path = args["path"].as_str().map(str::trim).unwrap_or_default().trim_start_matches("./").to_string();
            let project_id = ctx.project_id;
            let asked = name.clone();
            let found = ctx
                .store
                .read(move |c| {
                    let Some(skill) = skills::offered(c, project_id)?.into_iter().find(|s| s.name.eq_ignore_ascii_case(&asked)) else {
                        return Ok(None);
                    };
                    let files = skills::files(c, skill.id)?;
                    Ok(Some((skill, files)))
                })
                .await
                .map_err(|e| e.body().message)?;
            let Some((skill, files)) = found else {
                return Err(say(&templates, "no_such_skill", json!({ "name": name })));
            };
            let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
            let rendered = if read_file {
                let Some(file) = files.iter().find(|f| f.path == path) else {
                    return Err(say(
                        &templates,
                        "no_such_skill_file",
                        json!({ "name": skill.name, "path": path, "files": paths.join(", ") }),
                    ));
                };
                templates.render("tools/read_skill_file_result", &json!({ "name": skill.name, "path": file.path, "content": file.content }))
            } else {
                templates.render("tools/load_skill_result", &json!({ "name": skill.name, "body": skill.body(), "files": paths }))
            };
            rendered.map(|t| t.trim_end().to_string()).map_err(|e| e.body().message)
        })
    }
}
