//! Chunk JSON → `Delta`s: content, reasoning, usage, and tool calls accumulated across chunks.
//!
//! A pure state machine over the `data` of each SSE event; `chat_stream` feeds it from the wire.
//! Tolerant of the ways real servers differ: `reasoning_content` (vLLM, llama.cpp) or `reasoning`
//! (Ollama, newer vLLM), tool-call ids and names repeated or split, usage in its own final chunk
//! with empty `choices`, llama.cpp's `timings.cache_n`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{error_message, mentions_context_overflow, trim_for_display, LlmError};
use super::request::ToolCall;

/// One piece of a streamed reply.
///
/// `Finished` comes exactly once, when the server gives a `finish_reason` (or at `[DONE]` if it
/// never does); a `Usage` may still follow it, so read until the stream ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    Content(String),
    Reasoning(String),
    Usage(Usage),
    Finished { finish_reason: Option<String>, tool_calls: Vec<ToolCall> },
}

/// Token counts as the server reports them. `None` means the server did not say (never 0 by
/// default: "0 tokens reused" and "unknown" mean different things in the context inspector).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Usage {
    pub prompt_tokens: Option<u32>,
    pub completion_tokens: Option<u32>,
    /// Prompt tokens the server reused from its cache: `prompt_tokens_details.cached_tokens`,
    /// else llama.cpp's `timings.cache_n`.
    pub cached_tokens: Option<u32>,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// `[DONE]` seen: stop reading.
    Done,
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    calls: BTreeMap<u64, PartialCall>,
    last_index: Option<u64>,
    finished: bool,
}

impl ChunkDecoder {
    /// Decodes the data of one event, appending deltas to `out`.
    pub fn on_event(&mut self, data: &str, out: &mut Vec<Delta>) -> Result<Flow, LlmError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.finish(None, out);
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::Continue); // an empty data line used as a keep-alive
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|_| LlmError::bad_response(format!("an event's data is not JSON: \"{}\"", trim_for_display(data))))?;
        if !chunk.is_object() {
            return Err(LlmError::bad_response(format!("an event's data is not a JSON object: {}", trim_for_display(data))));
        }
        if chunk.get("error").is_some_and(|e| !e.is_null()) || chunk.get("object").and_then(Value::as_str) == Some("error") {
            let message = trim_for_display(&error_message(&chunk).unwrap_or_else(|| data.to_string()));
            return Err(if mentions_context_overflow(&message.to_lowercase()) {
                LlmError::ContextTooLong { message }
            } else {
                LlmError::StreamError { message }
            });
        }

        let mut finish_reason = None;
        let choices = chunk.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // Only the first choice: Maru never asks for n > 1.
        for choice in choices.iter().filter(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0) {
            if let Some(delta) = choice.get("delta") {
                self.on_delta(delta, out);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                finish_reason = Some(reason.to_string());
            }
        }
        if let Some(usage) = usage_of(&chunk) {
            out.push(Delta::Usage(usage));
        }
        if let Some(reason) = finish_reason {
            self.finish(Some(reason), out);
        }
        Ok(Flow::Continue)
    }

    /// The body ended. Fine once the reply finished; otherwise the server died mid-reply.
    pub fn on_end_of_body(&self) -> Result<(), LlmError> {
        if self.finished {
            Ok(())
        } else {
            Err(LlmError::disconnected("the stream ended without [DONE] or a finish reason"))
        }
    }

    /// A finish reason (or `[DONE]`) was seen: the reply is complete.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    fn on_delta(&mut self, delta: &Value, out: &mut Vec<Delta>) {
        let text = |key: &str| delta.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
        // Some servers send both names with the same text; take one.
        if let Some(r) = text("reasoning_content").or_else(|| text("reasoning")) {
            out.push(Delta::Reasoning(r.to_string()));
        }
        if let Some(c) = text("content") {
            out.push(Delta::Content(c.to_string()));
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            self.on_tool_call_delta(call);
        }
    }

    fn on_tool_call_delta(&mut self, call: &Value) {
        if self.finished {
            return; // the calls were already handed out with `Finished`
        }
        let id = call.get("id").and_then(Value::as_str).filter(|s| !s.is_empty());
        let index = match call.get("index").and_then(Value::as_u64) {
            Some(i) => i,
            // No index (some servers): a new id starts a new call, anything else continues the last.
            None => match (id, self.last_index) {
                (Some(id), _) if !self.calls.values().any(|c| c.id == id) => self.calls.keys().last().map_or(0, |k| k + 1),
                (_, Some(last)) => last,
                (_, None) => 0,
            },
        };
        self.last_index = Some(index);
        let entry = self.calls.entry(index).or_default();
        if let Some(id) = id {
            if entry.id.is_empty() {
                entry.id = id.to_string();
            }
        }
        let function = call.get("function");
        if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
            // Most servers send the name once; some repeat it in every delta, a few split it.
            if entry.name.is_empty() {
                entry.name = name.to_string();
            } else if name != entry.name {
                entry.name.push_str(name);
            }
        }
        match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(piece)) => entry.arguments.push_str(piece),
            Some(Value::Null) | None => {}
            // A server that sends the arguments as an object instead of JSON text.
            Some(other) => entry.arguments.push_str(&other.to_string()),
        }
    }

    fn finish(&mut self, finish_reason: Option<String>, out: &mut Vec<Delta>) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let tool_calls = std::mem::take(&mut self.calls)
            .into_iter()
            .map(|(index, c)| ToolCall {
                id: if c.id.is_empty() { format!("call_{index}") } else { c.id },
                name: c.name,
                // A call without arguments means "no arguments", which is `{}` to a JSON parser.
                arguments: if c.arguments.trim().is_empty() { "{}".into() } else { c.arguments },
            })
            .collect();
        out.push(Delta::Finished { finish_reason, tool_calls });
    }
}

/// `usage` (OpenAI, vLLM, llama.cpp) and llama.cpp's `timings`, merged; `None` when neither.
fn usage_of(chunk: &Value) -> Option<Usage> {
    let count = |v: Option<&Value>| v.and_then(Value::as_u64).map(|n| n.min(u32::MAX as u64) as u32);
    let usage = chunk.get("usage").filter(|u| u.is_object());
    let timings = chunk.get("timings").filter(|t| t.is_object());
    if usage.is_none() && timings.is_none() {
        return None;
    }
    let cache_n = count(timings.and_then(|t| t.get("cache_n")));
    let from_timings = || {
        // llama.cpp: prompt_n tokens were evaluated, cache_n more were reused.
        let prompt_n = count(timings.and_then(|t| t.get("prompt_n")))?;
        Some(prompt_n.saturating_add(cache_n.unwrap_or(0)))
    };
    Some(Usage {
        prompt_tokens: count(usage.and_then(|u| u.get("prompt_tokens"))).or_else(from_timings),
        completion_tokens: count(usage.and_then(|u| u.get("completion_tokens")))
            .or_else(|| count(timings.and_then(|t| t.get("predicted_n")))),
        cached_tokens: count(usage.and_then(|u| u.pointer("/prompt_tokens_details/cached_tokens"))).or(cache_n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(events: &[Value]) -> (Vec<Delta>, Result<(), LlmError>) {
        let mut d = ChunkDecoder::default();
        let mut out = Vec::new();
        for e in events {
            let data = match e {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            match d.on_event(&data, &mut out) {
                Ok(Flow::Done) => return (out, Ok(())),
                Ok(Flow::Continue) => {}
                Err(e) => return (out, Err(e)),
            }
        }
        let end = d.on_end_of_body();
        (out, end)
    }

    fn delta(d: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": d, "finish_reason": null}]})
    }

    fn finish(reason: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    }

    #[test]
    fn text_then_finish_then_usage_chunk_with_empty_choices() {
        let (out, end) = decode(&[
            delta(json!({"role": "assistant", "content": ""})),
            delta(json!({"content": "Hel"})),
            delta(json!({"content": "lo"})),
            finish("stop"),
            json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 4}}}),
            json!("[DONE]"),
        ]);
        end.unwrap();
        assert_eq!(
            out,
            vec![
                Delta::Content("Hel".into()),
                Delta::Content("lo".into()),
                Delta::Finished { finish_reason: Some("stop".into()), tool_calls: vec![] },
                Delta::Usage(Usage { prompt_tokens: Some(9), completion_tokens: Some(2), cached_tokens: Some(4) }),
            ]
        );
    }

    #[test]
    fn missing_cached_tokens_is_unknown_not_zero() {
        let (out, _) = decode(&[json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}), json!("[DONE]")]);
        assert!(out.contains(&Delta::Usage(Usage { prompt_tokens: Some(9), completion_tokens: Some(2), cached_tokens: None })));
    }

    #[test]
    fn llama_cpp_timings_give_cached_tokens() {
        let (out, _) = decode(&[
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "timings": {"cache_n": 372, "prompt_n": 7, "predicted_n": 5}}),
            json!("[DONE]"),
        ]);
        assert_eq!(out[0], Delta::Usage(Usage { prompt_tokens: Some(379), completion_tokens: Some(5), cached_tokens: Some(372) }));
    }

    #[test]
    fn reasoning_is_kept_apart_from_content() {
        let (out, _) = decode(&[
            delta(json!({"reasoning_content": "think"})),
            delta(json!({"reasoning": "more", "content": null})),
            delta(json!({"reasoning_content": "same", "reasoning": "same"})),
            delta(json!({"content": "answer"})),
            json!("[DONE]"),
        ]);
        assert_eq!(
            &out[..4],
            &[
                Delta::Reasoning("think".into()),
                Delta::Reasoning("more".into()),
                Delta::Reasoning("same".into()),
                Delta::Content("answer".into())
            ]
        );
    }

    #[test]
    fn interleaved_tool_calls_accumulate_by_index() {
        let (out, end) = decode(&[
            delta(json!({"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "search", "arguments": ""}}]})),
            delta(json!({"tool_calls": [{"index": 1, "id": "b", "type": "function", "function": {"name": "remember"}}]})),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"q\":"}}]})),
            delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": "{\"fact\""}}]})),
            delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"x\"}"}}]})),
            delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": ":\"y\"}"}}]})),
            finish("tool_calls"),
            json!("[DONE]"),
        ]);
        end.unwrap();
        assert_eq!(
            out,
            vec![Delta::Finished {
                finish_reason: Some("tool_calls".into()),
                tool_calls: vec![
                    ToolCall { id: "a".into(), name: "search".into(), arguments: r#"{"q":"x"}"#.into() },
                    ToolCall { id: "b".into(), name: "remember".into(), arguments: r#"{"fact":"y"}"#.into() },
                ]
            }]
        );
    }

    #[test]
    fn repeated_ids_and_names_and_missing_index_and_empty_arguments() {
        let (out, _) = decode(&[
            delta(json!({"tool_calls": [{"id": "a", "function": {"name": "now"}}]})),
            delta(json!({"tool_calls": [{"id": "a", "function": {"name": "now", "arguments": ""}}]})),
            delta(json!({"tool_calls": [{"id": "b", "function": {"name": "search", "arguments": {"q": 1}}}]})),
            json!("[DONE]"),
        ]);
        let Delta::Finished { finish_reason, tool_calls } = &out[0] else { panic!("{out:?}") };
        assert_eq!(*finish_reason, None, "[DONE] without finish_reason still finishes");
        assert_eq!(
            tool_calls,
            &vec![
                ToolCall { id: "a".into(), name: "now".into(), arguments: "{}".into() },
                ToolCall { id: "b".into(), name: "search".into(), arguments: r#"{"q":1}"#.into() },
            ]
        );
    }

    #[test]
    fn finished_is_emitted_once() {
        let (out, _) = decode(&[finish("stop"), finish("stop"), json!("[DONE]")]);
        assert_eq!(out.iter().filter(|d| matches!(d, Delta::Finished { .. })).count(), 1);
    }

    #[test]
    fn end_of_body_without_finish_is_a_disconnect_but_with_finish_is_fine() {
        let (_, end) = decode(&[delta(json!({"content": "Hel"}))]);
        assert_eq!(end.unwrap_err().code(), "disconnected", "a half reply must not look complete");
        let (_, end) = decode(&[delta(json!({"content": "Hel"})), finish("length")]);
        end.unwrap();
    }

    #[test]
    fn error_objects_mid_stream_become_errors() {
        let (out, end) = decode(&[delta(json!({"content": "a"})), json!({"error": {"message": "CUDA out of memory"}})]);
        assert_eq!(out, vec![Delta::Content("a".into())]);
        let e = end.unwrap_err();
        assert_eq!(e.code(), "stream_error");
        assert!(e.to_string().contains("CUDA out of memory"), "the server's words help the user: {e}");
        let (_, end) = decode(&[json!({"object": "error", "message": "This model's maximum context length is 10 tokens"})]);
        assert_eq!(end.unwrap_err().code(), "context_too_long");
    }

    #[test]
    fn non_json_data_is_a_bad_response() {
        let (_, end) = decode(&[json!("<html>oops</html>")]);
        assert_eq!(end.unwrap_err().code(), "bad_response");
        let (_, end) = decode(&[json!("42")]);
        assert_eq!(end.unwrap_err().code(), "bad_response");
    }

    #[test]
    fn other_choices_are_ignored() {
        let (out, _) = decode(&[
            json!({"choices": [{"index": 1, "delta": {"content": "other"}}, {"index": 0, "delta": {"content": "mine"}}]}),
            json!("[DONE]"),
        ]);
        assert_eq!(out[0], Delta::Content("mine".into()));
    }
}
