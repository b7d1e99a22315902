//! A tool result's form, decided once when it comes back and never changed afterwards: a result
//! within the threshold (`tool_output_inline_tokens`) is sent whole for good; a larger one is
//! kept whole in the store and the model gets a reference, its first lines and how to read on
//! with `read_tool_output`. So a later turn still has what the model read, and every request
//! begins with the previous request's bytes: the server's prefix cache holds across turns.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::{KeptOutput, Offer, Tool, ToolContext, ToolDid, ToolFailure, ToolReply};
use crate::error::Result;
use crate::llm::ToolSpec;
use crate::prompt::render::estimate_tokens;
use crate::prompt::Templates;
use crate::store::{settings, tool_outputs};

pub const NAME: &str = "read_tool_output";
/// Lines longer than this are read in pieces of it, so a result of one huge line (minified
/// JSON, say) still reads page by page.
const LINE_MAX_CHARS: usize = 1_000;
/// The preview takes at most this share of the threshold: enough to see what the result is.
const PREVIEW_SHARE: usize = 4;
/// A page `read_tool_output` returns: four fifths of the threshold, so it is always sent whole.
const PAGE_SHARE: (usize, usize) = (4, 5);
/// A single result is kept up to this size; the rest is cut, saying so.
const KEPT_MAX_CHARS: usize = 20_000_000;
const REF_PREFIX: &str = "out-";

/// What the tool message holds, as the model will always get it.
pub struct Decided {
    pub sent: String,
    /// The stored whole, to tie to the tool message.
    pub kept: Option<i64>,
    /// The same, as the tool message's outcome tells it.
    pub kept_output: Option<KeptOutput>,
}

/// Decides the form of `tool`'s result, in the transaction that stores its tool message.
pub fn decide(
    tx: &rusqlite::Connection,
    templates: &Templates,
    session_id: i64,
    tool: &str,
    result: String,
    inline_tokens: u32,
) -> Result<Decided> {
    let tokens = estimate_tokens(&result);
    // A page of a kept result is under the threshold by construction: never put aside again.
    // A skill's procedure is followed, not read as data page by page: it is sent whole (a
    // SKILL.md has a bounded size).
    if tool == NAME || tool == super::skills::LOAD || tokens <= inline_tokens as usize {
        return Ok(Decided { sent: result, kept: None, kept_output: None });
    }
    let whole = match result.char_indices().nth(KEPT_MAX_CHARS) {
        Some((cut, _)) => format!("{}\n{}", &result[..cut], super::say(templates, "output_cut", json!({ "max": KEPT_MAX_CHARS }))),
        None => result,
    };
    let id = tool_outputs::insert(tx, session_id, tool, &whole)?;
    let lines = lines(&whole);
    let shown = fitting(&lines, 0, usize::MAX, inline_tokens as usize / PREVIEW_SHARE);
    let sent = templates.render(
        "tool_output_kept",
        &json!({
            "ref": reference(id),
            "lines": lines.len(),
            "tokens": tokens,
            "shown": shown,
            "next": shown + 1,
            "preview": lines[..shown].join("\n"),
        }),
    )?;
    let kept_output =
        KeptOutput { reference: reference(id), lines: lines.len() as u32, chars: whole.chars().count() as u64, shown: shown as u32 };
    Ok(Decided { sent: sent.trim_end().to_string(), kept: Some(id), kept_output: Some(kept_output) })
}

fn reference(id: i64) -> String {
    format!("{REF_PREFIX}{id}")
}

/// The stored result's lines as they are numbered for reading: long ones in pieces.
fn lines(text: &str) -> Vec<&str> {
    let mut out = vec![];
    for line in text.split('\n') {
        let mut rest = line;
        while let Some((cut, _)) = rest.char_indices().nth(LINE_MAX_CHARS) {
            out.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        out.push(rest);
    }
    out
}

/// How many lines from `start` fit in `tokens` (at most `limit`, and at least one).
fn fitting(lines: &[&str], start: usize, limit: usize, tokens: usize) -> usize {
    let mut spent = 0;
    let mut n = 0;
    for line in lines[start..].iter().take(limit) {
        spent += estimate_tokens(line) + 1;
        if spent > tokens && n > 0 {
            break;
        }
        n += 1;
    }
    n
}

/// `read_tool_output(ref, offset?, limit?)`: a page of a kept result of the turn's own chat.
pub struct ReadToolOutput {
    templates: Arc<Templates>,
    spec: ToolSpec,
}

impl ReadToolOutput {
    pub fn new(templates: Arc<Templates>) -> ReadToolOutput {
        let parameters = json!({
            "type": "object",
            "properties": {
                "ref": { "type": "string" },
                "offset": { "type": "integer", "minimum": 1 },
                "limit": { "type": "integer", "minimum": 1 }
            },
            "required": ["ref"]
        });
        let spec = super::spec(&templates, NAME, &json!({}), parameters);
        ReadToolOutput { templates, spec }
    }
}

impl Tool for ReadToolOutput {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    /// Offered with any other tool: results only come from tools, and the tools a chat is offered
    /// stay the same from turn to turn (they open the prompt the server caches).
    fn offered(&self, turn: &Offer) -> bool {
        turn.has_files || turn.memory_on || turn.servers || turn.skills
    }

    fn call(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<ToolReply, ToolReply>> {
        let templates = self.templates.clone();
        Box::pin(async move {
            let asked = args["ref"].as_str().map(str::trim).unwrap_or_default().to_string();
            let id = asked
                .strip_prefix(REF_PREFIX)
                .unwrap_or(&asked)
                .parse::<i64>()
                .map_err(|_| super::refuse(&templates, ToolFailure::NotAReference, json!({ "asked": asked })))?;
            let offset = args["offset"].as_u64().unwrap_or(1).max(1) as usize;
            let limit = args["limit"].as_u64().map_or(usize::MAX, |l| l.max(1) as usize);
            let session_id = ctx.session_id;
            let (output, inline_tokens) =
                ctx.store.read(move |c| Ok((tool_outputs::get(c, session_id, id)?, settings::load(c)?.tool_output_inline_tokens))).await?;
            let output = output.ok_or_else(|| super::refuse(&templates, ToolFailure::NoStoredOutput, json!({ "asked": asked })))?;
            let lines = lines(&output.content);
            if offset > lines.len() {
                return Err(super::refuse(&templates, ToolFailure::OffsetPastEnd, json!({ "ref": reference(id), "lines": lines.len() })));
            }
            let page = inline_tokens as usize * PAGE_SHARE.0 / PAGE_SHARE.1;
            let n = fitting(&lines, offset - 1, limit, page);
            let to = offset - 1 + n;
            let text = templates.render(
                "tools/read_tool_output_result",
                &json!({
                    "ref": reference(id),
                    "tool": output.tool,
                    "from": offset,
                    "to": to,
                    "lines": lines.len(),
                    "next": (to < lines.len()).then_some(to + 1),
                    "text": lines[offset - 1..to].join("\n"),
                }),
            )?;
            let did = ToolDid::PageRead {
                reference: reference(id),
                tool: output.tool,
                from: offset as u32,
                to: to as u32,
                lines: lines.len() as u32,
            };
            Ok(ToolReply::new(text.trim_end().to_string(), did))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_read_in_pieces_and_nothing_is_lost() {
        let text = format!("short\n{}\nend", "é".repeat(2_500));
        let l = lines(&text);
        assert_eq!(l.len(), 5, "2,500 characters make three pieces: {:?}", l.iter().map(|p| p.chars().count()).collect::<Vec<_>>());
        assert_eq!(l[1..4].concat(), "é".repeat(2_500), "the pieces join back into the line");
    }

    #[test]
    fn a_page_holds_at_least_one_line_and_stops_at_its_budget() {
        let l = ["a".repeat(400), "b".repeat(400), "c".repeat(400)];
        let l: Vec<&str> = l.iter().map(String::as_str).collect();
        assert_eq!(fitting(&l, 0, usize::MAX, 10), 1, "even a line over the budget is shown, or reading would stall");
        assert_eq!(fitting(&l, 0, usize::MAX, 210), 2);
        assert_eq!(fitting(&l, 1, 1, 10_000), 1, "the limit is kept");
    }
}
