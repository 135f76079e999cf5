//! Who the peers are and what they offer: `Implementation`, icons, capabilities, and the
//! `initialize` result.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ForVersion;
use crate::protocol::version::ProtocolVersion;
use ProtocolVersion as V;

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
}
