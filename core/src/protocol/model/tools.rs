//! Tools: the descriptor and the `tools/call` result.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Content, ForVersion, Icon, Meta};
use crate::protocol::version::ProtocolVersion;
use ProtocolVersion as V;

/// Hints about a tool's behaviour (2025-03-26). Untrusted by clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling repeatedly with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// A tool descriptor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique name.
    pub name: String,
    /// Display title (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root is `type: "object"`.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent` (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints (2025-03-26).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Execution properties such as `taskSupport` (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    /// Metadata (2025-06-18).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Tool {
    /// A tool with a name and an input schema.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
        }
    }
    /// Set the description.
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// Set the title.
    pub fn with_title(mut self, t: impl Into<String>) -> Self {
        self.title = Some(t.into());
        self
    }
    /// Set the output schema.
    pub fn with_output_schema(mut self, s: Value) -> Self {
        self.output_schema = Some(s);
        self
    }
    /// Set the annotations.
    pub fn with_annotations(mut self, a: ToolAnnotations) -> Self {
        self.annotations = Some(a);
        self
    }
    /// The schema for a tool without arguments.
    pub fn no_arguments_schema() -> Value {
        serde_json::json!({"type": "object", "additionalProperties": false})
    }
}

impl ForVersion for Tool {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_03_26 {
            self.annotations = None;
        }
        if v < V::V2025_06_18 {
            self.title = None;
            self.output_schema = None;
            self.meta = None;
        }
        if v < V::V2025_11_25 {
            self.icons = None;
        }
        if v != V::V2025_11_25 {
            self.execution = None;
        }
    }
}

/// The result of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured content.
    pub content: Vec<Content>,
    /// Structured content conforming to the tool's output schema (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with the given content.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult { content, ..Default::default() }
    }
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![Content::text(text)])
    }
    /// A failed result (`isError: true`) with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult { content: vec![Content::text(text)], is_error: Some(true), ..Default::default() }
    }
    /// A successful result with structured content, also serialized as a text block.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        CallToolResult { content: vec![Content::text(text)], structured_content: Some(value), ..Default::default() }
    }
    /// Whether this result reports a failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
    /// Whether `structuredContent` is absent or a JSON object, the only shapes the schema
    /// allows (the core answers any other as an invalid result, -32603).
    pub fn structured_is_object(&self) -> bool {
        self.structured_content.as_ref().is_none_or(Value::is_object)
    }
}

impl ForVersion for CallToolResult {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_06_18 {
            self.structured_content = None;
        }
    }
}
