//! A chat's automatic title: at once from its first message, then, after the first exchange,
//! the model's (`prompts/title.md`). That request is the chat's own conversation with the task as
//! one more message, like memory extraction, so it is answered from the chat's cached prompt and
//! leaves it in place for the next turn. A title the user typed is never replaced by it; the user
//! may ask for a new one from the chat's menu (`regenerate`), which replaces any.

use futures_util::StreamExt;

use crate::app::App;
use crate::error::{Code, Error, Result};
use crate::llm::{ChatMessage, ChatRequest, Delta};
use crate::store::messages::{self, Role};
use crate::store::sessions::{self, Session};

const MAX_CHARS: usize = 60;
/// The conversation a title asked for again is read from: its first message and the newest,
/// up to this many characters (a title names the subject; the middle of a long chat adds cost).
const REGENERATE_CHARS: usize = 8_000;

/// Asks the model for a title when the chat still has the first message's; `chat` is the turn's
/// last request with its answer. Asked once: an unusable answer leaves the first message's title
/// for good (a server that could not be reached is asked again after the next turn).
pub async fn by_model(app: &App, session_id: i64, chat: ChatRequest) -> Result<()> {
    if !app.store.read(move |c| sessions::wants_model_title(c, session_id)).await? {
        return Ok(());
    }
    let answer = ask(app, session_id, chat, 0.2).await?;
    let Some(title) = clean(&answer) else {
        tracing::info!(session_id, "the model's title was unusable; the first message's stays");
        return app.store.write(move |tx| sessions::settle_title(tx, session_id)).await;
    };
    app.store.write(move |tx| sessions::set_model_title(tx, session_id, &title)).await?;
    Ok(())
}

/// Asks the model again for the chat's title, when the user chooses it from the chat's menu (a
/// title the model could not write, or one that no longer fits): it replaces any title, the
/// user's too, since the user asked. The request is the conversation's text, its first message
/// and the newest within `REGENERATE_CHARS`, and the title task, warmer than the first time so
/// that asking again can give another title. An answer that is no title changes nothing and says so.
pub async fn regenerate(app: &App, session_id: i64) -> Result<Session> {
    let (session, history) = app.store.read(move |c| Ok((sessions::get(c, session_id)?, messages::history(c, session_id)?))).await?;
    if session.temporary {
        return Err(Error::conflict(Code::TemporaryChat, "a temporary chat is not titled; keep the chat first"));
    }
    let said: Vec<(Role, &str)> = history
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant) && !m.content.trim().is_empty())
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    if !said.iter().any(|(role, _)| *role == Role::User) {
        return Err(Error::conflict(Code::NothingToTitle, "the chat has no message yet to name it by"));
    }
    let settings = app.store.read(move |c| crate::store::settings::for_session(c, session_id)).await?;
    let chat = ChatRequest::new(settings.model.clone(), conversation(&said, REGENERATE_CHARS));
    let answer = ask(app, session_id, chat, 0.7).await?;
    let Some(title) = clean(&answer) else {
        return Err(Error::conflict(
            Code::TitleUnusable,
            format!("the model answered {:?}, which is no title; try again, or rename the chat", cut(&answer, 80)),
        )
        .with("answer", cut(&answer, 80)));
    };
    tracing::info!(session_id, was = %session.title, "the chat's title was written again by the model");
    app.store.write(move |tx| sessions::set_title_by_model(tx, session_id, &title)).await
}

/// The chat's own request with the title task as one more message, answered in a few tokens.
async fn ask(app: &App, session_id: i64, mut chat: ChatRequest, temperature: f32) -> Result<String> {
    let settings = app.store.read(move |c| crate::store::settings::for_session(c, session_id)).await?;
    let client = app.llm_client(&settings);
    chat.messages.push(ChatMessage::user(app.templates.render("title", &serde_json::json!({}))?.trim_end()));
    chat.max_tokens = Some(24);
    chat.temperature = Some(temperature);
    chat.tool_choice = None;
    let mut answer = String::new();
    let mut stream = client.stream_chat(&chat, Default::default()).await?;
    while let Some(delta) = stream.next().await {
        if let Delta::Content(t) = delta? {
            answer.push_str(&t);
        }
    }
    Ok(answer)
}

/// The messages a title is asked from: the first and then the newest that fit in `chars`, in
/// their order, each cut to what is left.
fn conversation(said: &[(Role, &str)], chars: usize) -> Vec<ChatMessage> {
    let Some(((first_role, first), rest)) = said.split_first() else { return vec![] };
    let mut left = chars.saturating_sub(first.chars().count().min(chars / 2));
    let mut newest = vec![];
    for (role, text) in rest.iter().rev() {
        if left == 0 {
            break;
        }
        let text = cut(text, left);
        left = left.saturating_sub(text.chars().count());
        newest.push((*role, text));
    }
    std::iter::once((*first_role, cut(first, chars / 2)))
        .chain(newest.into_iter().rev())
        .map(|(role, text)| if role == Role::User { ChatMessage::user(text) } else { ChatMessage::assistant(text) })
        .collect()
}

fn cut(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
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
    use super::{clean, conversation, from_first_message, Role};

    #[test]
    fn a_models_title_is_cleaned_or_left_out() {
        assert_eq!(clean("\"Setting up vLLM on a DGX.\"\n").as_deref(), Some("Setting up vLLM on a DGX"));
        assert_eq!(clean("Title: **부산 가족 여행 계획**").as_deref(), Some("부산 가족 여행 계획"));
        assert_eq!(clean("  \n"), None, "an empty answer keeps the first message's title");
        assert_eq!(clean(&"word ".repeat(40)), None, "a paragraph is not a title");
    }

    #[test]
    fn a_long_chat_is_asked_from_its_first_message_and_its_newest() {
        let long = "x".repeat(5_000);
        let said = [
            (Role::User, "Plan the trip to Jeju"),
            (Role::Assistant, long.as_str()),
            (Role::User, "And the ferry?"),
            (Role::Assistant, "Book it early."),
        ];
        let asked = conversation(&said, 300);
        let texts: Vec<String> =
            asked.iter().map(|m| serde_json::to_value(m).unwrap()["content"].as_str().unwrap_or_default().to_string()).collect();
        assert_eq!(texts[0], "Plan the trip to Jeju", "the first message names the subject: it is always asked from");
        assert_eq!(&texts[texts.len() - 2..], ["And the ferry?", "Book it early."], "the newest messages follow, in order");
        assert!(texts.iter().map(|t| t.chars().count()).sum::<usize>() <= 300, "the request stays within its budget: {texts:?}");
        assert!(conversation(&[], 300).is_empty());
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
