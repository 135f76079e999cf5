//! `subscriptions/listen` (2026-07-28): the filter a client opens a listen stream with, which
//! replaces the GET stream and `resources/subscribe` of the handshake revisions.

use serde::{Deserialize, Serialize};

/// Which notifications a listen stream carries. The server acknowledges the subset it
/// honours and sends nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (the tasks extension; only a request declaring
    /// it may ask).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

impl SubscriptionFilter {
    /// Whether the filter asks for `notifications/tools/list_changed`.
    pub fn tools(&self) -> bool {
        self.tools_list_changed == Some(true)
    }
    /// Whether the filter asks for `notifications/prompts/list_changed`.
    pub fn prompts(&self) -> bool {
        self.prompts_list_changed == Some(true)
    }
    /// Whether the filter asks for `notifications/resources/list_changed`.
    pub fn resources(&self) -> bool {
        self.resources_list_changed == Some(true)
    }
    /// Whether the filter asks for the status of task `id`.
    pub fn watches_task(&self, id: &str) -> bool {
        self.task_ids.as_ref().is_some_and(|t| t.iter().any(|s| s == id))
    }
    /// Whether the filter asks for updates of `uri`.
    pub fn watches(&self, uri: &str) -> bool {
        self.resource_subscriptions.as_ref().is_some_and(|u| u.iter().any(|s| s == uri))
    }
}
