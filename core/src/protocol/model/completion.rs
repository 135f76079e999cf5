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
    fn completion_caps_at_100() {
        let r = CompleteResult::from_values((0..150).map(|i| i.to_string()).collect());
        assert_eq!(r.completion.values.len(), 100);
        assert_eq!(r.completion.total, Some(150));
        assert_eq!(r.completion.has_more, Some(true));
    }
}
