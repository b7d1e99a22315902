//! `load_skill(name)` and `read_skill_file(name, path)`: a skill's procedure, and its reference
//! files, for the turn's chat only (the skills its project offers; a disabled one is not there).
//! The prompt lists just each skill's name and description; the body comes in, once, as the
//! result of loading it. Where more skills are offered than the prompt's list holds,
//! `search_skills(query)` finds the others by name and description; every one stays loadable.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::{refuse, Offer, Tool, ToolContext, ToolDid, ToolFailure, ToolReply};
use crate::llm::ToolSpec;
use crate::prompt::Templates;
use crate::store::skills;

pub const LOAD: &str = "load_skill";
pub const READ_FILE: &str = "read_skill_file";
pub const SEARCH: &str = "search_skills";
/// Skills a search returns at most.
const SEARCH_MAX: usize = 10;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Load,
    ReadFile,
    Search,
}

pub struct SkillTool {
    templates: Arc<Templates>,
    spec: ToolSpec,
    kind: Kind,
}

impl SkillTool {
    pub fn load(templates: Arc<Templates>) -> SkillTool {
        let parameters = json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] });
        SkillTool { spec: super::spec(&templates, LOAD, &json!({}), parameters), templates, kind: Kind::Load }
    }

    pub fn read_file(templates: Arc<Templates>) -> SkillTool {
        let parameters = json!({
            "type": "object",
            "properties": { "name": { "type": "string" }, "path": { "type": "string" } },
            "required": ["name", "path"]
        });
        SkillTool { spec: super::spec(&templates, READ_FILE, &json!({}), parameters), templates, kind: Kind::ReadFile }
    }

    pub fn search(templates: Arc<Templates>) -> SkillTool {
        let parameters = json!({ "type": "object", "properties": { "query": { "type": "string" } }, "required": ["query"] });
        SkillTool { spec: super::spec(&templates, SEARCH, &json!({ "max": SEARCH_MAX }), parameters), templates, kind: Kind::Search }
    }
}

/// The skills that match `query` best, by how many of its words their name and description
/// hold (a word in the name counts double); ties by name.
pub fn search<'a>(skills: &'a [skills::Skill], query: &str) -> Vec<&'a skills::Skill> {
    let words: Vec<String> = query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let mut scored: Vec<(usize, &skills::Skill)> = skills
        .iter()
        .map(|s| {
            let (name, description) = (s.name.to_lowercase(), s.description.to_lowercase());
            let score =
                words.iter().map(|w| 2 * usize::from(name.contains(w.as_str())) + usize::from(description.contains(w.as_str()))).sum();
            (score, s)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.to_lowercase().cmp(&b.1.name.to_lowercase())));
    scored.into_iter().take(SEARCH_MAX).map(|(_, s)| s).collect()
}

impl Tool for SkillTool {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn offered(&self, turn: &Offer) -> bool {
        match self.kind {
            Kind::Search => turn.skills_search,
            _ => turn.skills,
        }
    }

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<ToolReply, ToolReply>> {
        let (templates, kind) = (self.templates.clone(), self.kind);
        Box::pin(async move {
            if kind == Kind::Search {
                let query = args["query"].as_str().map(str::trim).unwrap_or_default().to_string();
                if query.is_empty() {
                    return Err(refuse(&templates, ToolFailure::QueryRequired, json!({})));
                }
                let project_id = ctx.project_id;
                let offered = ctx.store.read(move |c| super::folder_skills::offered(c, project_id)).await?;
                let offered: Vec<skills::Skill> = offered.into_iter().map(|o| o.skill).collect();
                let found = search(&offered, &query);
                let names: Vec<String> = found.iter().map(|s| s.name.clone()).collect();
                let found: Vec<Value> = found.into_iter().map(|s| json!({ "name": s.name, "description": s.description })).collect();
                let text = templates.render("tools/search_skills_result", &json!({ "query": query, "skills": found }))?;
                let did = if names.is_empty() { ToolDid::NothingFound { query, ranking: None } } else { ToolDid::Skills { names } };
                return Ok(ToolReply::new(text.trim_end().to_string(), did));
            }
            let name = args["name"].as_str().map(str::trim).unwrap_or_default().to_string();
            let path = args["path"].as_str().map(str::trim).unwrap_or_default().trim_start_matches("./").to_string();
            let project_id = ctx.project_id;
            let asked = name.clone();
            let found = ctx
                .store
                .read(move |c| {
                    let offered = super::folder_skills::offered(c, project_id)?;
                    let Some(skill) = offered.into_iter().find(|s| s.name.eq_ignore_ascii_case(&asked)) else {
                        return Ok(None);
                    };
                    let files = super::folder_skills::files(c, &skill)?;
                    Ok(Some((skill, files)))
                })
                .await?;
            let Some((skill, files)) = found else {
                return Err(refuse(&templates, ToolFailure::NoSuchSkill, json!({ "name": name })));
            };
            let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
            let (rendered, did) = if kind == Kind::ReadFile {
                let Some(file) = files.iter().find(|f| f.path == path) else {
                    return Err(refuse(
                        &templates,
                        ToolFailure::NoSuchSkillFile,
                        json!({ "name": skill.name, "path": path, "files": paths.join(", ") }),
                    ));
                };
                let vars = json!({ "name": skill.name, "path": file.path, "content": file.content });
                (
                    templates.render("tools/read_skill_file_result", &vars)?,
                    ToolDid::SkillFileRead { name: skill.name.clone(), path: file.path.clone() },
                )
            } else {
                loaded(&templates, &skill, &files)?
            };
            Ok(ToolReply::new(rendered.trim_end().to_string(), did))
        })
    }
}

/// What `load_skill` answers for `skill`: its procedure and the names of its files.
fn loaded(
    templates: &Templates,
    skill: &super::folder_skills::OfferedSkill,
    files: &[skills::SkillFile],
) -> crate::error::Result<(String, ToolDid)> {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let vars = json!({ "name": skill.name, "body": skill.body(), "files": paths });
    let did = ToolDid::SkillLoaded { name: skill.name.clone(), files: paths.iter().map(|p| p.to_string()).collect() };
    Ok((templates.render("tools/load_skill_result", &vars)?, did))
}

/// A skill the user loads now (with `/` in the composer), read in `conn` as `load_skill` reads
/// it for the model: its result as the tool gives it, and what it did. `None`: no skill of that
/// name is offered in the project.
pub fn load_now(
    conn: &rusqlite::Connection,
    templates: &Templates,
    project_id: i64,
    name: &str,
) -> crate::error::Result<Option<(String, ToolDid)>> {
    let offered = super::folder_skills::offered(conn, project_id)?;
    let Some(skill) = offered.into_iter().find(|s| s.name.eq_ignore_ascii_case(name.trim())) else {
        return Ok(None);
    };
    let files = super::folder_skills::files(conn, &skill)?;
    let (text, did) = loaded(templates, &skill, &files)?;
    Ok(Some((text.trim_end().to_string(), did)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(name: &str, description: &str) -> skills::Skill {
        skills::Skill {
            id: 0,
            project_id: None,
            name: name.into(),
            description: description.into(),
            text: String::new(),
            enabled: true,
            off_in: vec![],
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn a_search_ranks_name_matches_first_and_finds_words_of_descriptions() {
        let all = [
            skill("slides", "Make a pptx deck from an outline."),
            skill("pptx", "Create, edit and analyse PowerPoint decks."),
            skill("pdf", "Fill in PDF forms."),
        ];
        let names = |q: &str| search(&all, q).into_iter().map(|s| s.name.as_str()).collect::<Vec<_>>();
        assert_eq!(names("pptx deck"), ["pptx", "slides"], "a word in the name weighs more than one in the description");
        assert_eq!(names("PDF"), ["pdf"], "case does not matter");
        assert!(names("spreadsheet").is_empty(), "nothing unrelated comes back");
    }
}
