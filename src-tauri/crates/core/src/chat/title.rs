//! A chat's automatic title: at once from its first message, then, after the first exchange,
//! the model's (`prompts/title.md`). That request is the chat's own conversation with the task as
//! one more message, like memory extraction, so it is answered from the chat's cached prompt and
//! leaves it in place for the next turn. A title the user typed is never replaced.

use futures_util::StreamExt;

use crate::app::App;
use crate::error::Result;
use crate::llm::{ChatMessage, ChatRequest, Delta};
use crate::store::sessions;

const MAX_CHARS: usize = 60;

/// Asks the model for a title when the chat still has the first message's; `chat` is the turn's
/// last request with its answer. Asked once: an unusable answer leaves the first message's title
/// for good (a server that could not be reached is asked again after the next turn).
pub async fn by_model(app: &App, session_id: i64, mut chat: ChatRequest) -> Result<()> {
    if !app.store.read(move |c| sessions::wants_model_title(c, session_id)).await? {
        return Ok(());
    }
    let settings = app.store.read(move |c| crate::store::settings::for_session(c, session_id)).await?;
    let client = app.llm_client(&settings);
    chat.messages.push(ChatMessage::user(app.templates.render("title", &serde_json::json!({}))?.trim_end()));
    chat.max_tokens = Some(24);
    chat.temperature = Some(0.2);
    chat.tool_choice = None;
    let mut answer = String::new();
    let mut stream = client.stream_chat(&chat, Default::default()).await?;
    while let Some(delta) = stream.next().await {
        if let Delta::Content(t) = delta? {
            answer.push_str(&t);
        }
    }
    let Some(title) = clean(&answer) else {
        tracing::info!(session_id, "the model's title was unusable; the first message's stays");
        return app.store.write(move |tx| sessions::settle_title(tx, session_id)).await;
    };
    app.store.write(move |tx| sessions::set_model_title(tx, session_id, &title)).await?;
    Ok(())
}

/// The model's answer as a title: its first line without quotes, marks or a final stop; `None`
/// when nothing usable is left (empty, or too long to be a title).
fn clean(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.trim_start_matches(|c: char| c == '#' || c == '*' || c.is_whitespace());
    let line = line.strip_prefix("Title:").unwrap_or(line).trim();
    let line = line.trim_matches(|c: char| matches!(c, '"' | '\'' | '“' | '”' | '「' | '」' | '*' | '`')).trim();
    let line = line.trim_end_matches(['.', '。']).trim();
    let words = line.split_whitespace().collect::<Vec<_>>().join(" ");
    (!words.is_empty() && words.chars().count() <= MAX_CHARS).then_some(words)
}

/// The first non-empty line, whitespace collapsed, cut at a word boundary.
pub fn from_first_message(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_CHARS {
        return line;
    }
    let head: String = line.chars().take(MAX_CHARS).collect();
    let cut = head.rfind(' ').filter(|&p| p > head.len() / 2).map_or(head.as_str(), |p| &head[..p]);
    format!("{}…", cut.trim_end_matches([',', '.', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::{clean, from_first_message};

    #[test]
    fn a_models_title_is_cleaned_or_left_out() {
        assert_eq!(clean("\"Setting up vLLM on a DGX.\"\n").as_deref(), Some("Setting up vLLM on a DGX"));
        assert_eq!(clean("Title: **부산 가족 여행 계획**").as_deref(), Some("부산 가족 여행 계획"));
        assert_eq!(clean("  \n"), None, "an empty answer keeps the first message's title");
        assert_eq!(clean(&"word ".repeat(40)), None, "a paragraph is not a title");
    }

    #[test]
    fn titles_are_short_single_lines() {
        assert_eq!(from_first_message("\n  How do I   set up vLLM?\nmore"), "How do I set up vLLM?");
        let long = "Please review this long function that parses configuration files and tell me what breaks";
        let t = from_first_message(long);
        assert!(t.ends_with('…') && t.chars().count() <= 61, "{t}");
        assert!(long.starts_with(t.trim_end_matches('…')), "cut at a word boundary: {t}");
        assert_eq!(from_first_message("가".repeat(100).as_str()).chars().count(), 61);
    }
}
