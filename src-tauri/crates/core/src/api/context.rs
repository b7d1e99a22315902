//! The context inspector: what the next request of a chat sends, section by section, with
//! budgets, counts and the tools and skills it offers (`maru prompt --session ID` prints it).

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::app::App;
use crate::chat;
use crate::error::Result;
use crate::llm;
use crate::prompt::templates::TemplateInfo;
use crate::prompt::{self, SectionReport};
use crate::store::{messages, settings, snapshots};

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ContextView {
    pub session_id: i64,
    /// The model the next request asks for: the chat's own, else its server's default (empty:
    /// the first one the server lists).
    pub model: String,
    /// The server the next request goes to: the chat's own, else the default one.
    pub server: super::connections::ConnectionView,
    /// ① to ⑤, present or not and why, with sizes and cuts.
    pub sections: Vec<SectionReport>,
    /// The system prompt the next request will carry, exactly.
    pub system_prompt: String,
    pub sha256: String,
    pub chars: usize,
    pub tokens: usize,
    /// "server" when the model server counted them; "calibrated_estimate" when estimated and scaled
    /// by how the last reply's prompt_tokens compared with the estimate; else "estimate".
    pub tokens_source: String,
    /// The prompt last sent for this session, and why it last changed.
    pub last_sent: Option<LastSent>,
    /// Why the next request's prompt will differ from the last one sent, if it will.
    pub pending_change: Option<String>,
    /// The same as codes, one per change (empty when nothing changes).
    pub pending_changes: Vec<crate::error::Reason>,
    pub last_reply: Option<ReplyFigures>,
    /// Templates that are overridden from the data folder, and whether they lag the bundled ones.
    pub overrides: Vec<TemplateInfo>,
    /// Summaries standing in for older turns, oldest first, each with how many turns it replaces.
    pub summaries: Vec<crate::store::summaries::Summary>,
    /// How the next request spends the model's window (absent when the window is unknown).
    pub token_plan: Option<crate::chat::plan::TokenPlan>,
    /// How the plan's tokens were counted: by the server's tokenizer, by the estimate fitted to
    /// its counts so far, or by the plain estimate (a server without a tokenizer).
    pub plan_counts: prompt::tokens::Tally,
    /// The next turn will first summarise older turns to fit the window.
    pub compacts_next: bool,
    /// Whether Compact now can make room for the next request, and why not.
    pub compact: chat::plan::CompactOffer,
    /// The tools the next request offers, each with its size as sent (name, description, schema).
    pub tools: Vec<ToolOffered>,
    /// The skills the prompt lists, and which this chat has loaded.
    pub skills: Vec<SkillOffered>,
    /// The instructions files of the project's folder: those sent (in section ③, most general
    /// first) and those found but not sent, with why.
    pub instruction_files: InstructionFiles,
    /// Accepted facts this chat taught, which its section ⑤ leaves out: its conversation holds
    /// them, and repeating them would change the prompt the server has cached.
    pub facts_taught_here: Vec<String>,
}

/// The instructions files found from a project's folder upwards.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InstructionFiles {
    /// The linked folder, if any.
    pub folder: Option<String>,
    /// Sent, most general first: (path, characters).
    pub sent: Vec<InstructionFileSent>,
    /// Found and not sent.
    pub skipped: Vec<InstructionFileSkipped>,
}

impl InstructionFiles {
    pub fn from_found(folder: Option<String>, found: &prompt::instruction_files::Found) -> Self {
        InstructionFiles {
            folder,
            sent: found
                .files
                .iter()
                .map(|f| InstructionFileSent {
                    path: f.path.clone(),
                    chars: f.content.chars().count(),
                    raw_chars: f.raw_chars,
                    imported_by: f.imported_by.clone(),
                })
                .collect(),
            skipped: found
                .skipped
                .iter()
                .map(|s| InstructionFileSkipped { path: s.path.clone(), why: s.why.clone(), imported_by: s.imported_by.clone() })
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InstructionFileSent {
    pub path: String,
    /// As sent (cut by section ③'s budget when `raw_chars` is set).
    pub chars: usize,
    /// Its size before the budget cut it; absent when it is sent whole.
    pub raw_chars: Option<usize>,
    /// The file whose `@path` import brought it in; absent for a folder level's own file.
    pub imported_by: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InstructionFileSkipped {
    pub path: String,
    /// `shadowed` (another file of the same tool at that folder level wins), `duplicate` (the
    /// same text is sent already), `too_large`, `too_many`, `unreadable`, `not_text`,
    /// `deadline`, `outside` (a link out of the repository), `budget` (section ③'s budget had no
    /// room left); for imports `cycle`, `too_deep`, `missing`, `not_importable` (outside the
    /// repository and not Markdown or text); `imports_only` (a file made only of imports, which
    /// are sent).
    pub why: String,
    /// The file whose `@path` import named it, if it was one.
    pub imported_by: Option<String>,
}

/// A skill the prompt lists (by name and description: `listed_chars`); its procedure
/// (`body_chars`) reaches the model only once it is loaded.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SkillOffered {
    pub name: String,
    pub description: String,
    pub listed_chars: usize,
    pub body_chars: usize,
    /// Loaded in this chat (its procedure is in the conversation).
    pub loaded: bool,
    /// In the prompt's list; false when the list's budget left it out (`search_skills` finds it,
    /// and it stays loadable by name).
    pub listed: bool,
}

/// A tool a request offers, and what it costs of the window.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolOffered {
    pub name: String,
    pub chars: usize,
    /// Counted by the server's tokenizer where it has one, else estimated.
    pub tokens: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LastSent {
    pub sha256: String,
    pub changed_at: i64,
    pub change_reason: String,
    /// The same as codes, one per change; absent for a prompt sent before codes were kept.
    pub changes: Option<Vec<crate::error::Reason>>,
    pub used_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReplyFigures {
    pub message_id: i64,
    pub model: Option<String>,
    /// The model server that wrote it, by the name it had then.
    pub server: Option<String>,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    /// Prompt tokens the server reused from its prefix cache (absent when it does not say).
    pub cached_tokens: Option<i64>,
    /// cached / prompt tokens, when both are known.
    pub cache_reuse: Option<f64>,
    pub ttft_ms: Option<i64>,
    pub tokens_per_second: Option<f64>,
}

pub async fn context(app: &Arc<App>, session_id: i64) -> Result<ContextView> {
    let templates = app.templates.clone();
    let today = chrono::Local::now().date_naive();
    let (settings, temporary) = app
        .store
        .read(move |c| {
            let session = crate::store::sessions::get(c, session_id)?;
            Ok((settings::for_chat(c, &session)?, session.temporary))
        })
        .await?;
    // The window first: the prompt's budgets depend on it, as the next turn's do.
    let window = match settings.context_length {
        Some(n) => Some(n),
        None => {
            let client = app.llm_client(&settings);
            let model = settings.model.clone();
            let ask = async { app.clients.context_length(&client, &settings.server.base_url, &model).await };
            tokio::time::timeout(Duration::from_secs(2), ask).await.ok().flatten()
        }
    };
    let shared = app.clone();
    let (current, snapshot, history, settings, summaries, (mut offer, servers, project_id, skills), facts_taught_here) = app
        .store
        .read(move |c| {
            let summaries = crate::store::summaries::list(c, session_id)?;
            let session = crate::store::sessions::get(c, session_id)?;
            let offer = crate::tools::Offer::for_session(c, &session, &settings)?;
            let servers = crate::store::tool_servers::list(c)?;
            let on: Vec<_> = servers.iter().filter(|s| s.on_in(session.project_id)).cloned().collect();
            let budgets = chat::window::budgets(&shared, &settings, offer, &on, session.project_id, window);
            let (_, report) = prompt::render_current(c, &templates, session_id, today, &budgets)?;
            let skills = crate::tools::folder_skills::offered(c, session.project_id)?;
            let tools = (offer, servers, session.project_id, skills);
            let taught = prompt::inputs::facts_taught_here(c, session_id)?;
            Ok((report, snapshots::get(c, session_id)?, messages::history(c, session_id)?, settings, summaries, tools, taught))
        })
        .await?;
    // The running servers' tools as the next request offers them (none is started to say so).
    let from_servers = app.tool_servers.ready(&servers, project_id);
    offer.servers = !from_servers.is_empty();
    offer.skills_search |= !current.unlisted_skills.is_empty();
    let specs: Vec<llm::ToolSpec> = app.tools.specs(&offer).into_iter().chain(from_servers.into_iter().map(|o| o.spec)).collect();
    let tool_texts: Vec<String> = specs.iter().map(chat::compact::tool_json).collect();
    let loaded: Vec<String> = history
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| c.name == crate::tools::skills::LOAD)
        .filter_map(|c| serde_json::from_str::<serde_json::Value>(&c.arguments).ok()?["name"].as_str().map(str::to_lowercase))
        .collect();
    let skills = skills
        .into_iter()
        .map(|s| SkillOffered {
            listed_chars: prompt::budget::skill_chars(&s.name, &s.description),
            listed: !current.unlisted_skills.iter().any(|n| n.eq_ignore_ascii_case(&s.name)),
            body_chars: s.body().chars().count(),
            loaded: loaded.contains(&s.name.to_lowercase()),
            name: s.skill.name,
            description: s.skill.description,
        })
        .collect();
    // What the plan counts, counted by the server's tokenizer first where it has one (the texts
    // it has not counted yet; at most two seconds).
    let model = app.clients.known_model(&settings.server.base_url, &settings.model).unwrap_or_else(|| settings.model.clone());
    let through = summaries.last().map_or(0, |s| s.through_id);
    let uncovered: Vec<messages::Message> = history.iter().filter(|m| m.id > through).cloned().collect();
    let text = current.rendered.text.clone();
    let texts = chat::compact::plan_texts(&text, &tool_texts, &summaries, &uncovered);
    let scope = prompt::tokens::scope(&settings.server.base_url, &model);
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    app.tokens.learn(&app.llm_client(&settings), &scope, &model, &texts, deadline).await;
    let mut counter = prompt::tokens::Counter::new(&app.tokens, &settings.server.base_url, &model);
    let tools: Vec<ToolOffered> = specs
        .iter()
        .zip(&tool_texts)
        .map(|(t, json)| ToolOffered { name: t.name.clone(), chars: json.chars().count(), tokens: counter.tokens(json) })
        .collect();
    let tool_tokens = tools.iter().map(|t| t.tokens).sum();
    let (preview, mut compact) = chat::compact::plan_preview(&settings, window, &mut counter, &text, tool_tokens, &summaries, &uncovered);
    if temporary {
        compact = chat::plan::CompactOffer {
            offered: false,
            why_not: Some(crate::error::Reason::new(crate::error::ReasonCode::TemporaryChat)),
            ..compact
        };
    }
    let plan_counts = counter.tally;
    let last_reply = history.iter().rfind(|m| m.role == messages::Role::Assistant && m.status != messages::Status::Streaming).cloned();
    let (pending_changes, pending_change) = snapshot
        .as_ref()
        .and_then(|s| {
            if s.prompt_sha256 == current.rendered.sha256 {
                return None;
            }
            let old: prompt::SnapshotReport = serde_json::from_str(&s.report).ok()?;
            Some(prompt::changes(&old, &current))
        })
        .map_or((vec![], None), |(codes, text)| (codes, Some(text)));
    let estimate = prompt::render::estimate_tokens(&text);
    let (tokens, tokens_source) = match app.tokens.count(&scope, &text) {
        (n, prompt::tokens::Source::Server) => (n, "server"),
        _ => match calibration(&app.templates, snapshot.as_ref(), &history, last_reply.as_ref()) {
            Some(ratio) => ((estimate as f64 * ratio).round() as usize, "calibrated_estimate"),
            None => (estimate, "estimate"),
        },
    };
    Ok(ContextView {
        facts_taught_here,
        session_id,
        model: settings.model.clone(),
        server: settings.server.clone().into(),
        chars: text.chars().count(),
        sha256: current.rendered.sha256.clone(),
        system_prompt: text,
        sections: current.rendered.sections,
        tokens,
        tokens_source: tokens_source.into(),
        last_sent: snapshot.map(|s| LastSent {
            sha256: s.prompt_sha256,
            changed_at: s.changed_at,
            change_reason: s.change_reason,
            changes: s.change_codes,
            used_at: s.used_at,
        }),
        pending_change,
        pending_changes,
        last_reply: last_reply.map(|m| ReplyFigures {
            message_id: m.id,
            cache_reuse: match (m.cached_tokens, m.prompt_tokens) {
                (Some(c), Some(p)) if p > 0 => Some(c as f64 / p as f64),
                _ => None,
            },
            model: m.model,
            server: m.server,
            prompt_tokens: m.prompt_tokens,
            completion_tokens: m.completion_tokens,
            cached_tokens: m.cached_tokens,
            ttft_ms: m.ttft_ms,
            tokens_per_second: m.tokens_per_second,
        }),
        overrides: app
            .templates
            .all()
            .iter()
            .filter(|t| !matches!(t.source, prompt::templates::TemplateSource::Bundled))
            .cloned()
            .collect(),
        summaries,
        token_plan: preview.as_ref().map(|p| p.0.clone()),
        plan_counts,
        compacts_next: preview.is_some_and(|p| p.1),
        compact,
        tools,
        skills,
        instruction_files: InstructionFiles::from_found(current.folder.clone(), &current.instruction_files),
    })
}

/// Real tokens per estimated token in the last request: its `prompt_tokens` over the estimate of
/// what it carried (the prompt last sent and the history before the reply).
fn calibration(
    templates: &prompt::Templates,
    snapshot: Option<&snapshots::Snapshot>,
    history: &[messages::Message],
    reply: Option<&messages::Message>,
) -> Option<f64> {
    let reply = reply?;
    let real = reply.prompt_tokens? as f64;
    let before: Vec<_> = history.iter().take_while(|m| m.id < reply.id).cloned().collect();
    let sent = chat::history::request_messages(templates, &snapshot?.prompt, &before, &Default::default()).ok()?;
    let estimate: usize = sent
        .iter()
        .map(|m| match &m.content {
            llm::Content::Text(t) => prompt::render::estimate_tokens(t),
            llm::Content::Parts(parts) => parts
                .iter()
                .map(|p| match p {
                    llm::ContentPart::Text { text } => prompt::render::estimate_tokens(text),
                    _ => 0,
                })
                .sum(),
        })
        .sum();
    // Bounded: a wildly different ratio means the estimate and the count describe different text.
    (estimate > 0).then(|| (real / estimate as f64).clamp(0.25, 4.0))
}

impl ContextView {
    /// The inspector as plain text, for `maru prompt --session ID`.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Session {}: system prompt {} chars, {} tokens ({}), sha256 {}",
            self.session_id,
            self.chars,
            self.tokens,
            self.tokens_source,
            &self.sha256[..16]
        );
        match &self.last_sent {
            Some(l) => {
                let when = chrono::DateTime::from_timestamp_millis(l.changed_at)
                    .map(|t| t.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S").to_string())
                    .unwrap_or_default();
                let _ = writeln!(out, "Last sent: sha256 {}, last changed {when}: {}", &l.sha256[..16], l.change_reason);
            }
            None => out.push_str("Last sent: nothing yet\n"),
        }
        let _ = writeln!(
            out,
            "Next request: {}",
            self.pending_change.as_deref().map_or("the same prompt (prefix cache reusable)".to_string(), |r| format!("changes: {r}"))
        );
        if let Some(r) = &self.last_reply {
            let n = |v: Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
            let reuse = r.cache_reuse.map_or(String::new(), |x| format!(" ({:.0}%)", x * 100.0));
            let _ = writeln!(
                out,
                "Last reply: {} prompt tokens, {} cached{reuse}, {} completion tokens, first token after {} ms",
                n(r.prompt_tokens),
                n(r.cached_tokens),
                n(r.completion_tokens),
                n(r.ttft_ms)
            );
        }
        for t in &self.overrides {
            let note = if t.is_outdated() { " (based on an older version of the bundled template)" } else { "" };
            let _ = writeln!(out, "Override: prompts/{}.md{note}", t.name);
        }
        out.push('\n');
        for s in &self.sections {
            let circled = ["①", "②", "③", "④", "⑤"][s.id.number() as usize - 1];
            if s.present {
                let _ = writeln!(
                    out,
                    "{circled} {:?}: {} chars in, {} chars sent, ~{} tokens, from {}",
                    s.id, s.raw_chars, s.injected_chars, s.tokens_estimate, s.source
                );
                for c in &s.cuts {
                    let _ = writeln!(out, "   cut: {} → {} chars: {}", c.raw_chars, c.kept_chars, c.reason);
                }
            } else {
                let _ = writeln!(out, "{circled} {:?}: absent, {}", s.id, s.absent_reason.as_deref().unwrap_or(""));
            }
            if s.id == prompt::SectionId::Memory {
                for fact in &self.facts_taught_here {
                    let _ = writeln!(out, "   left out, as this chat taught it (its conversation holds it): {fact}");
                }
            }
        }
        let _ = write!(out, "\n----- system prompt -----\n{}\n----- end -----\n", self.system_prompt);
        out
    }
}
