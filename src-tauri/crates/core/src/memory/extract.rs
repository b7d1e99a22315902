//! Reading the model's answer to the extraction template: a JSON array of short facts. Models
//! wrap JSON in prose and code fences, or answer something else entirely; anything that is not
//! a clean list of short sentences is dropped (and logged by the caller), never saved.

/// At most this many facts from one exchange.
pub const MAX_FACTS: usize = 5;
/// A fact longer than this is not a short fact.
const MAX_CHARS: usize = 300;

/// The facts in `answer`, or `None` when it is not the JSON array asked for.
pub fn parse_facts(answer: &str) -> Option<Vec<String>> {
    let start = answer.find('[')?;
    let end = answer.rfind(']')?;
    let items: Vec<serde_json::Value> = serde_json::from_str(answer.get(start..=end)?).ok()?;
    let mut facts = vec![];
    for item in items {
        let text = match &item {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Object(o) => o.get("fact").and_then(|f| f.as_str())?.to_string(),
            _ => return None,
        };
        let text = text.trim().to_string();
        if text.is_empty() || text.chars().count() > MAX_CHARS {
            return None;
        }
        facts.push(text);
    }
    facts.truncate(MAX_FACTS);
    Some(facts)
}

#[cfg(test)]
mod tests {
    use super::parse_facts;

    #[test]
    fn clean_lists_are_read_and_anything_else_is_dropped() {
        assert_eq!(parse_facts(r#"["Prefers answers in Korean."]"#), Some(vec!["Prefers answers in Korean.".into()]));
        assert_eq!(parse_facts("Sure! ```json\n[{\"fact\": \"Runs vLLM.\"}]\n```"), Some(vec!["Runs vLLM.".into()]));
        assert_eq!(parse_facts("[]"), Some(vec![]));
        for bad in ["Hello from the fake server.", "[1, 2]", "[\"unclosed", "{\"fact\": \"x\"}", &format!("[\"{}\"]", "x".repeat(400))] {
            assert_eq!(parse_facts(bad), None, "{bad:?} is not a list of short facts");
        }
    }
}
