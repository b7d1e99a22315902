//! What Maru sends: `ChatRequest` and its messages, content parts, tools and tool calls,
//! serialised exactly as the OpenAI chat-completions body (so the context inspector can show it).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub use maru_types::tool_calls::ToolCall;

/// One chat-completions request. Serialising it gives the exact body sent, including
/// `"stream": true` and `"stream_options": {"include_usage": true}`; empty tools and unset
/// sampling options are left out so the server's defaults apply.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub temperature: Option<f32>,
    #[serde(default)]
    pub top_p: Option<f32>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// "none": the tools stay in the request (the prompt names them, and the server's cached
    /// prefix holds them) but the model may not call one.
    #[serde(default)]
    pub tool_choice: Option<String>,
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        ChatRequest {
            model: model.into(),
            messages,
            tools: Vec::new(),
            temperature: None,
            top_p: None,
            max_tokens: None,
            tool_choice: None,
        }
    }

    /// The request as it is sent: its JSON.
    pub fn body(&self) -> Vec<u8> {
        // Plain structs and `serde_json::Value`s only: serialisation cannot fail.
        serde_json::to_vec(self).expect("a ChatRequest always serialises")
    }
}

impl Serialize for ChatRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct StreamOptions {
            include_usage: bool,
        }
        #[derive(Serialize)]
        struct Wire<'a> {
            model: &'a str,
            messages: &'a [ChatMessage],
            stream: bool,
            stream_options: StreamOptions,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            tools: &'a [ToolSpec],
            #[serde(skip_serializing_if = "Option::is_none")]
            tool_choice: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            temperature: Option<f32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            top_p: Option<f32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            max_tokens: Option<u32>,
        }
        Wire {
            model: &self.model,
            messages: &self.messages,
            stream: true,
            stream_options: StreamOptions { include_usage: true },
            tools: &self.tools,
            tool_choice: self.tool_choice.as_deref().filter(|_| !self.tools.is_empty()),
            temperature: self.temperature,
            top_p: self.top_p,
            max_tokens: self.max_tokens,
        }
        .serialize(s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    #[serde(default, deserialize_with = "null_as_empty_text")]
    pub content: Content,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    fn new(role: Role, content: Content) -> Self {
        ChatMessage { role, content, tool_calls: Vec::new(), tool_call_id: None }
    }

    pub fn system(text: impl Into<String>) -> Self {
        Self::new(Role::System, Content::Text(text.into()))
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::Text(text.into()))
    }

    /// A user message with images (or several text parts).
    pub fn user_parts(parts: Vec<ContentPart>) -> Self {
        Self::new(Role::User, Content::Parts(parts))
    }

    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, Content::Text(text.into()))
    }

    /// An assistant turn that called tools; `text` is whatever it said before calling them.
    pub fn assistant_tool_calls(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        ChatMessage { tool_calls, ..Self::assistant(text) }
    }

    /// The result of the tool call `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, result: impl Into<String>) -> Self {
        ChatMessage { tool_call_id: Some(tool_call_id.into()), ..Self::new(Role::Tool, Content::Text(result.into())) }
    }
}

/// Message content: plain text, or parts (text and images) for vision models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Content::Text(s)
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Content::Text(s.to_string())
    }
}

/// Stored or received messages may carry `"content": null` (an assistant turn with only tool calls).
fn null_as_empty_text<'de, D: Deserializer<'de>>(d: D) -> Result<Content, D::Error> {
    Ok(Option::<Content>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

impl ContentPart {
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text { text: text.into() }
    }

    /// `url` is an http(s) URL or a `data:image/png;base64,…` URL.
    pub fn image_url(url: impl Into<String>) -> Self {
        ContentPart::ImageUrl { image_url: ImageUrl { url: url.into(), detail: None } }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A tool the model may call. Serialises as `{"type":"function","function":{...}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

#[derive(Serialize, Deserialize)]
struct FunctionSpecWire {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    parameters: Value,
}

#[derive(Serialize, Deserialize)]
struct ToolSpecWire {
    #[serde(rename = "type")]
    kind: String,
    function: FunctionSpecWire,
}

impl Serialize for ToolSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ToolSpecWire {
            kind: "function".into(),
            function: FunctionSpecWire {
                name: self.name.clone(),
                description: self.description.clone(),
                parameters: self.parameters.clone(),
            },
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = ToolSpecWire::deserialize(d)?;
        Ok(ToolSpec { name: w.function.name, description: w.function.description, parameters: w.function.parameters })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_serialises_to_the_openai_streaming_body() {
        let req = ChatRequest::new("m", vec![ChatMessage::system("s"), ChatMessage::user("hi")]);
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({
                "model": "m",
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}],
                "stream": true,
                "stream_options": {"include_usage": true}
            }),
            "unset options must be omitted so the server's defaults apply"
        );
    }

    #[test]
    fn tools_options_and_tool_messages_serialise_in_openai_shape() {
        let call = ToolCall { id: "c1".into(), name: "search".into(), arguments: r#"{"q":"x"}"#.into() };
        let mut req =
            ChatRequest::new("m", vec![ChatMessage::assistant_tool_calls("", vec![call.clone()]), ChatMessage::tool("c1", "found")]);
        req.tools.push(ToolSpec { name: "search".into(), description: "d".into(), parameters: json!({"type": "object"}) });
        req.temperature = Some(0.5);
        req.max_tokens = Some(100);
        let v = serde_json::to_value(&req).unwrap();
        assert_eq!(
            v["tools"],
            json!([{"type": "function", "function": {"name": "search", "description": "d", "parameters": {"type": "object"}}}])
        );
        assert_eq!(v["temperature"], json!(0.5));
        assert_eq!(v["max_tokens"], json!(100));
        assert!(v.get("top_p").is_none());
        assert_eq!(
            v["messages"][0]["tool_calls"],
            json!([{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}}])
        );
        assert_eq!(v["messages"][1], json!({"role": "tool", "content": "found", "tool_call_id": "c1"}));
        let back: ChatRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, req, "a stored request must read back unchanged");
    }

    #[test]
    fn image_parts_serialise_as_image_url() {
        let m = ChatMessage::user_parts(vec![ContentPart::text("what is this?"), ContentPart::image_url("data:image/png;base64,AA")]);
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}
            ]})
        );
    }

    #[test]
    fn null_content_reads_as_empty_text() {
        let m: ChatMessage = serde_json::from_value(json!({"role": "assistant", "content": null})).unwrap();
        assert_eq!(m.content, Content::Text(String::new()));
    }
}
