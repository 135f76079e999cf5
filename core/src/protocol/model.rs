//! Serde types for the MCP messages a server sends and receives, across every revision.
//!
//! One set of types covers all revisions: fields that only exist from some revision on are
//! optional, and [`ForVersion`] strips what the negotiated revision does not know before
//! anything goes on the wire (what the design calls `Implementation.forVersion`).
//! The types are hand-written rather than taken from a schema crate so that one type per
//! concept serves every revision (schema crates generate one module per revision, which would
//! push a conversion onto every request).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::version::ProtocolVersion;
use ProtocolVersion as V;

/// `_meta`: a free-form object of metadata.
pub type Meta = Map<String, Value>;

/// Strip fields that did not exist in a revision.
pub trait ForVersion: Sized {
    /// Remove fields newer than `v`, in place.
    fn strip_for(&mut self, v: ProtocolVersion);
    /// A copy with fields newer than `v` removed.
    fn for_version(&self, v: ProtocolVersion) -> Self
    where
        Self: Clone,
    {
        let mut c = self.clone();
        c.strip_for(v);
        c
    }
}

/// An icon for an implementation, tool, prompt or resource (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The icon's MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// Name and version of a client or server implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display title (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// Description (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Website (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

impl Implementation {
    /// An implementation with a name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation { name: name.into(), version: version.into(), ..Default::default() }
    }
}

impl ForVersion for Implementation {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_06_18 {
            self.title = None;
        }
        if v < V::V2025_11_25 {
            self.description = None;
            self.website_url = None;
            self.icons = None;
        }
    }
}

/// Audience and priority hints on content and resources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the content is for: `"user"`, `"assistant"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// 0 (least) to 1 (most important).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// A message role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// The contents of a resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource URI.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Metadata.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// Binary contents.
    Blob {
        /// The resource URI.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 data.
        blob: String,
        /// Metadata.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
}

impl ResourceContents {
    /// Text contents.
    pub fn text(uri: impl Into<String>, mime_type: Option<&str>, text: impl Into<String>) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            text: text.into(),
            meta: None,
        }
    }
    /// Blob contents from already-encoded base64.
    pub fn blob(uri: impl Into<String>, mime_type: Option<&str>, base64: impl Into<String>) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            blob: base64.into(),
            meta: None,
        }
    }
    /// The URI.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
        }
    }
}

/// A content block, in tool results, prompt messages and sampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// An image, base64.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// Audio, base64 (2025-03-26).
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// A link to a resource (2025-06-18).
    ResourceLink(Resource),
    /// An embedded resource.
    Resource {
        /// The contents.
        resource: ResourceContents,
        /// Annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into(), annotations: None, meta: None }
    }
    /// An image block from base64 data.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image { data: base64.into(), mime_type: mime_type.into(), annotations: None, meta: None }
    }
    /// An audio block from base64 data.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio { data: base64.into(), mime_type: mime_type.into(), annotations: None, meta: None }
    }
    /// An embedded resource block.
    pub fn resource(contents: ResourceContents) -> Self {
        Content::Resource { resource: contents, annotations: None, meta: None }
    }
    /// A resource link block.
    pub fn resource_link(resource: Resource) -> Self {
        Content::ResourceLink(resource)
    }
    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }
}

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
}

impl ForVersion for CallToolResult {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_06_18 {
            self.structured_content = None;
        }
    }
}

/// A resource descriptor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display title (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Annotations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource { uri: uri.into(), name: name.into(), ..Default::default() }
    }
    /// Set the description.
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// Set the MIME type.
    pub fn with_mime_type(mut self, m: impl Into<String>) -> Self {
        self.mime_type = Some(m.into());
        self
    }
}

impl ForVersion for Resource {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_06_18 {
            self.title = None;
        }
        if v < V::V2025_11_25 {
            self.icons = None;
        }
    }
}

/// A resource template (RFC 6570 URI template).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display title (2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type shared by every match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Annotations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceTemplate {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate { uri_template: uri_template.into(), name: name.into(), ..Default::default() }
    }
    /// Set the description.
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = Some(d.into());
        self
    }
    /// Set the MIME type.
    pub fn with_mime_type(mut self, m: impl Into<String>) -> Self {
        self.mime_type = Some(m.into());
        self
    }
}

impl ForVersion for ResourceTemplate {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_06_18 {
            self.title = None;
        }
        if v < V::V2025_11_25 {
            self.icons = None;
        }
    }
}

/// The result of `resources/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ReadResourceResult {
    /// One or more contents.
    pub contents: Vec<ResourceContents>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

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

/// What a completion request completes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// A prompt's argument.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt name.
        name: String,
    },
    /// A resource template's variable.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template URI.
        uri: String,
    },
}

/// The parameters of `completion/complete`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompleteRequest {
    /// What is being completed.
    pub reference: CompletionReference,
    /// The argument name.
    pub argument_name: String,
    /// The partial value typed so far.
    pub argument_value: String,
    /// Already-resolved arguments (2025-06-18 `context.arguments`).
    pub context_arguments: Map<String, Value>,
}

/// The completion values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// Total number of candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more candidates exist than returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CompleteResult {
    /// The completion.
    pub completion: Completion,
}

impl CompleteResult {
    /// The at-most-100 values, with `total` and `hasMore` filled in.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > 100;
        values.truncate(100);
        CompleteResult { completion: Completion { values, total: Some(total as u64), has_more: Some(has_more) } }
    }
    /// The candidates that start with `prefix`.
    pub fn prefix_match<S: AsRef<str>>(candidates: &[S], prefix: &str) -> Self {
        Self::from_values(
            candidates.iter().map(AsRef::as_ref).filter(|c| c.starts_with(prefix)).map(str::to_owned).collect(),
        )
    }
}

/// RFC 5424 log levels, in order of severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug.
    Debug,
    /// Info.
    Info,
    /// Notice.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Alert.
    Alert,
    /// Emergency.
    Emergency,
}

impl LoggingLevel {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
    /// Parse a wire string.
    pub fn parse(s: &str) -> Option<Self> {
        serde_json::from_value(Value::String(s.to_owned())).ok()
    }
}

/// Capabilities a server declares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Experimental capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The server emits log messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// The server completes arguments (2025-03-26).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// The server offers prompts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server offers resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// Task-augmented requests (2025-11-25 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Value>,
    /// Extensions (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

impl ForVersion for ServerCapabilities {
    fn strip_for(&mut self, v: ProtocolVersion) {
        if v < V::V2025_03_26 {
            self.completions = None;
        }
        if v != V::V2025_11_25 {
            self.tasks = None;
        }
        if v < V::V2026_07_28 {
            self.extensions = None;
        }
    }
}

/// `{listChanged?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server sends list-changed notifications.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `{subscribe?, listChanged?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server supports `resources/subscribe`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server sends list-changed notifications.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// Capabilities a client declares. Sub-objects are kept as JSON, since their shape grows
/// with every revision (`sampling.tools`, `elicitation.url`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Experimental capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Roots (`{listChanged?}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Map<String, Value>>,
    /// Sampling (`{context?, tools?}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Map<String, Value>>,
    /// Elicitation (`{form?, url?}`; `{}` means form only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Map<String, Value>>,
    /// Tasks (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Value>,
    /// Extensions (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

impl ClientCapabilities {
    /// Whether the client declared the capability named by a dotted path, such as
    /// `"sampling"`, `"elicitation"`, `"elicitation.url"`, `"roots.listChanged"` or
    /// `"sampling.tools"`. For `elicitation.form`, an empty `elicitation` object counts.
    pub fn supports(&self, capability: &str) -> bool {
        let value = match serde_json::to_value(self) {
            Ok(v) => v,
            Err(_) => return false,
        };
        let mut parts = capability.split('.');
        let Some(head) = parts.next() else {
            return false;
        };
        let Some(mut cur) = value.get(head) else {
            return false;
        };
        let rest: Vec<&str> = parts.collect();
        if head == "elicitation" && rest == ["form"] {
            // `{}` means form mode only; an object listing modes must name form.
            return match cur.as_object() {
                Some(m) => m.is_empty() || m.contains_key("form") || !m.contains_key("url"),
                None => false,
            };
        }
        for p in rest {
            match cur.get(p) {
                Some(v) => cur = v,
                None => return false,
            }
        }
        !matches!(cur, Value::Null | Value::Bool(false))
    }

    /// Whether every capability declared in `required` is declared here too.
    pub fn covers(&self, required: &ClientCapabilities) -> bool {
        let Ok(Value::Object(req)) = serde_json::to_value(required) else {
            return true;
        };
        req.keys().all(|k| self.supports(k))
    }
}

/// The result of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The negotiated revision.
    pub protocol_version: ProtocolVersion,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn implementation_strips_newer_fields() {
        let mut i = Implementation::new("s", "1");
        i.title = Some("T".into());
        i.description = Some("D".into());
        let old = serde_json::to_value(i.for_version(V::V2025_03_26)).unwrap();
        assert_eq!(old, json!({"name":"s","version":"1"}));
        let mid = serde_json::to_value(i.for_version(V::V2025_06_18)).unwrap();
        assert_eq!(mid, json!({"name":"s","title":"T","version":"1"}));
    }

    #[test]
    fn content_blocks_use_spec_tags() {
        assert_eq!(serde_json::to_value(Content::text("a")).unwrap(), json!({"type":"text","text":"a"}));
        let link = Content::resource_link(Resource::new("test://x", "x"));
        assert_eq!(serde_json::to_value(link).unwrap(), json!({"type":"resource_link","uri":"test://x","name":"x"}));
        let emb = Content::resource(ResourceContents::text("u", Some("text/plain"), "t"));
        assert_eq!(
            serde_json::to_value(emb).unwrap(),
            json!({"type":"resource","resource":{"uri":"u","mimeType":"text/plain","text":"t"}})
        );
    }

    #[test]
    fn client_capability_paths() {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"sampling":{}, "elicitation":{}, "roots":{"listChanged":true}})).unwrap();
        assert!(caps.supports("sampling"));
        assert!(caps.supports("elicitation"));
        assert!(caps.supports("elicitation.form"));
        assert!(!caps.supports("elicitation.url"));
        assert!(caps.supports("roots.listChanged"));
        assert!(!caps.supports("sampling.tools"));
        assert!(!ClientCapabilities::default().supports("roots"));
    }

    #[test]
    fn completion_caps_at_100() {
        let r = CompleteResult::from_values((0..150).map(|i| i.to_string()).collect());
        assert_eq!(r.completion.values.len(), 100);
        assert_eq!(r.completion.total, Some(150));
        assert_eq!(r.completion.has_more, Some(true));
    }
}
