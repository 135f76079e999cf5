//! Content blocks (tool results, prompt messages, sampling), resource contents and
//! annotations.

use serde::{Deserialize, Serialize};

use super::{Meta, Resource};

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
