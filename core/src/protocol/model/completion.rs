//! Argument completion (`completion/complete`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// The request as it is on the wire (`ref`, `argument`, and `context` when there are
/// resolved arguments): what a host language's completer is handed.
impl Serialize for CompleteRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        #[derive(Serialize)]
        struct Argument<'a> {
            name: &'a str,
            value: &'a str,
        }
        #[derive(Serialize)]
        struct Context<'a> {
            arguments: &'a Map<String, Value>,
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("ref", &self.reference)?;
        m.serialize_entry("argument", &Argument { name: &self.argument_name, value: &self.argument_value })?;
        if !self.context_arguments.is_empty() {
            m.serialize_entry("context", &Context { arguments: &self.context_arguments })?;
        }
        m.end()
    }
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
    /// The most values a completion may carry.
    pub const MAX_VALUES: usize = 100;

    /// The at-most-100 values, with `total` and `hasMore` filled in.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > Self::MAX_VALUES;
        values.truncate(Self::MAX_VALUES);
        CompleteResult { completion: Completion { values, total: Some(total as u64), has_more: Some(has_more) } }
    }
    /// The candidates that start with `prefix`.
    pub fn prefix_match<S: AsRef<str>>(candidates: &[S], prefix: &str) -> Self {
        Self::from_values(
            candidates.iter().map(AsRef::as_ref).filter(|c| c.starts_with(prefix)).map(str::to_owned).collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_serializes_to_its_wire_shape() {
        let r = CompleteRequest {
            reference: CompletionReference::Prompt { name: "p".into() },
            argument_name: "a".into(),
            argument_value: "x".into(),
            context_arguments: Map::new(),
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "x"}})
        );
        let mut with = r.clone();
        with.context_arguments.insert("b".into(), serde_json::json!("y"));
        assert_eq!(serde_json::to_value(&with).unwrap()["context"], serde_json::json!({"arguments": {"b": "y"}}));
    }

    #[test]
    fn completion_caps_at_100() {
        let r = CompleteResult::from_values((0..150).map(|i| i.to_string()).collect());
        assert_eq!(r.completion.values.len(), 100);
        assert_eq!(r.completion.total, Some(150));
        assert_eq!(r.completion.has_more, Some(true));
    }
}
