//! Many tools: when the user's tool servers offer more tool schemas than a request should carry
//! (`tool_schema_budget_tokens`; a server with 300 tools is over 130 KB of schemas, sent with
//! every request), the request carries Maru's own tools, the servers' tools this chat has used or
//! found, and `search_tools`, by which the model finds the others by name and description. A tool
//! found is listed from the next request of the turn on, so the model calls it as any other (a
//! model server may only let the model call the tools the request lists).

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::llm::ToolSpec;
use crate::prompt::Templates;
use crate::tools::servers::Offered;
use crate::tools::{self, ToolDid, ToolFailure, ToolReply};
use maru_retrieval::analysis;

pub const NAME: &str = "search_tools";
/// At most this many tools come back from one search.
const FOUND_MAX: usize = 8;

/// The tokens a spec takes in a request, as the plan estimates JSON (a few characters a token).
fn tokens(spec: &ToolSpec) -> usize {
    super::compact::tool_json(spec).len() / 3
}

/// The servers' tools a request lists: all of them while they fit in `budget` beside `own`;
/// else those this chat has `used` or `found`, and `search_tools` (`None` when all fit).
pub fn select<'a>(
    own: &[ToolSpec],
    servers: &'a [Offered],
    budget: usize,
    used: &BTreeSet<String>,
    found: &BTreeSet<String>,
    templates: &Templates,
) -> (Vec<&'a Offered>, Option<ToolSpec>) {
    let all: usize = own.iter().chain(servers.iter().map(|o| &o.spec)).map(tokens).sum();
    // Nothing to search without a server's tools, however small the budget.
    if all <= budget || servers.is_empty() {
        return (servers.iter().collect(), None);
    }
    let kept = servers.iter().filter(|o| used.contains(&o.spec.name) || found.contains(&o.spec.name)).collect();
    (kept, Some(spec(templates)))
}

fn spec(templates: &Templates) -> ToolSpec {
    let parameters = json!({
        "type": "object",
        "properties": { "query": { "type": "string" } },
        "required": ["query"]
    });
    tools::spec(templates, NAME, &json!({ "max": FOUND_MAX }), parameters)
}

/// Runs `search_tools(query)` over every tool the servers offer: the best matches by the words of
/// their names (which weigh most) and descriptions.
pub fn call(templates: &Templates, servers: &[Offered], arguments: &str) -> Result<(ToolReply, Vec<String>), ToolReply> {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let query = args["query"].as_str().map(str::trim).filter(|q| !q.is_empty());
    let query = query.ok_or_else(|| tools::refuse(templates, ToolFailure::QueryRequired, json!({})))?;
    let words: Vec<String> = analysis::query_words(query).into_iter().map(str::to_lowercase).collect();
    if words.is_empty() {
        return Err(tools::refuse(templates, ToolFailure::NoSearchWords, json!({ "query": query })));
    }
    let mut scored: Vec<(usize, &Offered)> = servers.iter().map(|o| (score(&words, o), o)).filter(|(s, _)| *s > 0).collect();
    scored.sort_by_key(|(s, _)| std::cmp::Reverse(*s)); // stable: a server's own order breaks ties
    scored.truncate(FOUND_MAX);
    let found: Vec<Value> = scored.iter().map(|(_, o)| json!({ "name": o.spec.name, "description": o.spec.description })).collect();
    let names: Vec<String> = scored.iter().map(|(_, o)| o.spec.name.clone()).collect();
    let text = templates.render("tools/search_tools_result", &json!({ "query": query, "tools": found }))?;
    let did = match names.is_empty() {
        true => ToolDid::NothingFound { query: query.to_string(), ranking: None },
        false => ToolDid::ToolsFound { names: names.clone() },
    };
    Ok((ToolReply::new(text, did), names))
}

/// How well `o` matches the query's words: a word in its name counts 3, in its description 1;
/// a word matches a longer one it begins (`issue` finds `issues`, `create` finds `created`).
fn score(words: &[String], o: &Offered) -> usize {
    let name: Vec<String> = analysis::words(&o.spec.name.replace(['_', '-', '.'], " ")).into_iter().map(str::to_lowercase).collect();
    let description = o.spec.description.to_lowercase();
    let described: Vec<&str> = analysis::words(&description);
    let matches = |w: &str, of: &str| of == w || (w.len() >= 4 && of.starts_with(w)) || (of.len() >= 4 && w.starts_with(of));
    words
        .iter()
        .map(|w| {
            if name.iter().any(|n| matches(w, n)) {
                3
            } else if described.iter().any(|d| matches(w, d)) {
                1
            } else {
                0
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(name: &str, description: &str) -> Offered {
        Offered {
            spec: ToolSpec { name: name.into(), description: description.into(), parameters: json!({ "type": "object" }) },
            server_id: 1,
            server: "tracker".into(),
            tool: name.into(),
            hints: Default::default(),
        }
    }

    #[test]
    fn a_tool_is_found_by_the_words_of_its_name_before_its_description() {
        let servers = vec![
            offered("tracker__list_projects", "Lists every project you can see, with its issues count."),
            offered("tracker__create_issue", "Creates a new issue in a project."),
            offered("tracker__close_issue", "Closes an issue."),
        ];
        let templates = Templates::bundled();
        let (reply, names) = call(&templates, &servers, r#"{"query":"create an issue"}"#).unwrap();
        assert_eq!(names[0], "tracker__create_issue", "the tool named for both words comes first: {names:?}");
        assert!(
            reply.text.contains("tracker__create_issue: Creates a new issue"),
            "the model reads names and descriptions: {}",
            reply.text
        );
        let (_, none) = call(&templates, &servers, r#"{"query":"weather"}"#).unwrap();
        assert!(none.is_empty(), "a search that matches nothing finds nothing");
        assert!(call(&templates, &servers, "{}").is_err(), "a search without words is refused with why");
    }

    #[test]
    fn past_the_budget_a_request_lists_only_what_the_chat_used_or_found() {
        let servers: Vec<Offered> = (0..300).map(|i| offered(&format!("big__tool_{i}"), &"does many things ".repeat(20))).collect();
        let templates = Templates::bundled();
        let (all, none) = select(&[], &servers[..3], 8_000, &BTreeSet::new(), &BTreeSet::new(), &templates);
        assert_eq!((all.len(), none.is_none()), (3, true), "a few tools fit: all are listed, no search tool");
        let own = [offered("remember", &"keeps a fact ".repeat(2_000)).spec];
        let (_, search) = select(&own, &[], 1_000, &BTreeSet::new(), &BTreeSet::new(), &templates);
        assert!(search.is_none(), "without a server's tools there is nothing to search, however large Maru's own are");
        let used = BTreeSet::from(["big__tool_7".to_string()]);
        let found = BTreeSet::from(["big__tool_250".to_string()]);
        let (kept, search) = select(&[], &servers, 8_000, &used, &found, &templates);
        let names: Vec<&str> = kept.iter().map(|o| o.spec.name.as_str()).collect();
        assert_eq!(names, ["big__tool_7", "big__tool_250"], "only the tools used in the chat or found by a search are listed");
        assert_eq!(search.map(|s| s.name), Some(NAME.to_string()), "and the search tool, to find the others");
        let before: usize = servers.iter().map(|o| super::super::compact::tool_json(&o.spec).len()).sum();
        let after: usize = kept.iter().map(|o| super::super::compact::tool_json(&o.spec).len()).sum();
        eprintln!("300 tools: {before} bytes of schemas listed in full, {after} when searched");
        assert!(after < 60_000, "a 300-tool server puts well under 60 KB of schemas into a request: {after}");
    }
}
