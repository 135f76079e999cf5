//! What a server asks of its client: sampling (`sampling/createMessage`), elicitation
//! (`elicitation/create`) and roots (`roots/list`), with their results.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Role, Tool};

/// A root the client exposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The result of `roots/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

/// A message in a sampling request or result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// A block, or (2025-11-25) a list of blocks.
    pub content: Value,
}

/// The params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Maximum tokens to generate.
    pub max_tokens: u32,
    /// A system prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Model preferences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// `"none"`, `"thisServer"` or `"allServers"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Stop sequences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may call (2025-11-25; needs `sampling.tools`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Tool choice (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
}

impl CreateMessageParams {
    /// The `maxTokens` every surface uses when the caller names none.
    pub const DEFAULT_MAX_TOKENS: u32 = 1000;

    /// One user text message.
    pub fn user_text(text: impl Into<String>, max_tokens: u32) -> Self {
        CreateMessageParams {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: serde_json::json!({"type": "text", "text": text.into()}),
            }],
            max_tokens,
            ..Default::default()
        }
    }
}

/// The result of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (the assistant).
    pub role: Role,
    /// A block, or a list of blocks.
    pub content: Value,
    /// The model used.
    pub model: String,
    /// Why sampling stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The text of the first text block, if any.
    pub fn text(&self) -> Option<&str> {
        let block = match &self.content {
            Value::Array(a) => a.iter().find(|b| b.get("type").and_then(Value::as_str) == Some("text"))?,
            v => v,
        };
        block.get("text").and_then(Value::as_str)
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form.
    Accept,
    /// Declined.
    Decline,
    /// Dismissed.
    Cancel,
}

/// The result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// The action.
    pub action: ElicitAction,
    /// The submitted values (accept, form mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// What the user did with a typed form: the values decoded into `T`, or why there are none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicited<T> {
    /// Submitted; the values as `T`.
    Accepted(T),
    /// Declined.
    Declined,
    /// Dismissed.
    Cancelled,
}

impl ElicitResult {
    /// The answer decoded into `T` (the form was made from `T`'s schema); an error names what
    /// did not fit.
    pub fn decode<T: serde::de::DeserializeOwned>(self) -> Result<Elicited<T>, String> {
        match self.action {
            ElicitAction::Accept => serde_json::from_value(Value::Object(self.content.unwrap_or_default()))
                .map(Elicited::Accepted)
                .map_err(|e| format!("the form's answer does not fit {}: {e}", std::any::type_name::<T>())),
            ElicitAction::Decline => Ok(Elicited::Declined),
            ElicitAction::Cancel => Ok(Elicited::Cancelled),
        }
    }
}
