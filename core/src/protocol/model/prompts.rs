//! Prompts: descriptors, arguments, messages and the `prompts/get` result.

use serde::{Deserialize, Serialize};

use super::{Content, ForVersion, Icon, Meta, Role};
use crate::protocol::version::ProtocolVersion;
use ProtocolVersion as V;

/// A prompt argument descriptor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Name.
    pub name: String,
    /// Display title (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument is required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// An argument.
    pub fn new(name: impl Into<String>, description: Option<&str>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: description.map(str::to_owned),
            required: Some(required),
        }
    }
}

/// A prompt descriptor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Unique name.
    pub name: String,
    /// Display title (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Prompt {
    /// A prompt with a name.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt { name: name.into(), ..Default::default() }
    }
    /// Set the description.
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// Set the arguments.
    pub fn with_arguments(mut self, a: Vec<PromptArgument>) -> Self {
        self.arguments = Some(a);
        self
    }
}

impl ForVersion for Prompt {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_06_18 {
            self.title = None;
            if let Some(args) = &mut self.arguments {
                for a in args {
                    a.title = None;
                }
            }
        }
        if v < V::V2025_11_25 {
            self.icons = None;
        }
    }
}

/// A message in a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A user message with text.
    pub fn user_text(text: impl Into<String>) -> Self {
        PromptMessage { role: Role::User, content: Content::text(text) }
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GetPromptResult {
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
