//! What the author registered, with everything precomputed that dispatch needs per call
//! (compiled JSON Schema validators, parsed URI templates).

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use serde_json::Map;

use super::handler::{CompletionHandler, MethodHandler, PromptHandler, ResourceHandler, ToolHandler};
use super::uri_template::UriTemplate;
use super::ConfigError;
use crate::protocol::headers::{param_headers, ParamHeaders};
use crate::protocol::model::{
    CacheHint, ClientCapabilities, CompletionReference, Prompt, Resource, ResourceTemplate, TaskSupport, Tool,
};

/// A compiled JSON Schema (draft from `$schema`, 2020-12 by default).
#[derive(Clone)]
pub(crate) struct CompiledSchema(Arc<jsonschema::Validator>);

impl CompiledSchema {
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        let mut opts = jsonschema::options();
        if schema.get("$schema").is_none() {
            opts = opts.with_draft(jsonschema::Draft::Draft202012);
        }
        opts.build(schema).map(|v| CompiledSchema(Arc::new(v))).map_err(|e| e.to_string())
    }

    /// `Ok` when `instance` conforms; otherwise the violations, one per line.
    pub(crate) fn check(&self, instance: &Value) -> Result<(), String> {
        if self.0.is_valid(instance) {
            return Ok(());
        }
        let errors: Vec<String> = self
            .0
            .iter_errors(instance)
            .take(8)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                }
            })
            .collect();
        Err(errors.join("; "))
    }
}

#[derive(Clone)]
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) input: CompiledSchema,
    pub(crate) output: Option<CompiledSchema>,
    pub(crate) required_caps: Option<ClientCapabilities>,
    /// The arguments mirrored into `Mcp-Param-*` headers (2026-07-28 HTTP).
    pub(crate) param_headers: Option<Arc<ParamHeaders>>,
    /// Whether calls may or must run as tasks (from `execution.taskSupport`).
    pub(crate) task_support: TaskSupport,
}

impl ToolEntry {
    pub(crate) fn new(tool: Tool, handler: Arc<dyn ToolHandler>) -> Result<Self, ConfigError> {
        if !tool.input_schema.is_object() || tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(ConfigError::InputSchemaNotObject(tool.name.clone()));
        }
        let input = CompiledSchema::compile(&tool.input_schema).map_err(|reason| ConfigError::InvalidSchema {
            tool: tool.name.clone(),
            which: "input",
            reason,
        })?;
        let output = match &tool.output_schema {
            Some(s) => Some(CompiledSchema::compile(s).map_err(|reason| ConfigError::InvalidSchema {
                tool: tool.name.clone(),
                which: "output",
                reason,
            })?),
            None => None,
        };
        let headers = param_headers(&tool.input_schema)
            .map_err(|e| ConfigError::InvalidParamHeader { tool: tool.name.clone(), reason: e.0 })?;
        let param_headers = (!headers.is_empty()).then(|| Arc::new(headers));
        let invalid =
            |value: &Value| ConfigError::InvalidTaskSupport { tool: tool.name.clone(), value: value.to_string() };
        let task_support = match &tool.execution {
            None => TaskSupport::Forbidden,
            Some(Value::Object(m)) => match m.get("taskSupport") {
                None => TaskSupport::Forbidden,
                Some(v) => serde_json::from_value(v.clone()).map_err(|_| invalid(v))?,
            },
            Some(other) => return Err(invalid(other)),
        };
        Ok(ToolEntry { tool, handler, input, output, required_caps: None, param_headers, task_support })
    }
}

pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    /// The cache hint of its `resources/read` results (2026-07-28); `None`: the default.
    pub(crate) cache: Option<CacheHint>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    /// The cache hint of reads of its URIs (2026-07-28); `None`: the default.
    pub(crate) cache: Option<CacheHint>,
}

pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Arc<dyn PromptHandler>,
}

#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) tools: IndexMap<String, Arc<ToolEntry>>,
    pub(crate) resources: IndexMap<String, Arc<ResourceEntry>>,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) prompts: IndexMap<String, Arc<PromptEntry>>,
    pub(crate) completion_handler: Option<Arc<dyn CompletionHandler>>,
    pub(crate) completers: HashMap<(CompletionReference, String), Arc<dyn CompletionHandler>>,
    /// Extensions advertised on the 2026-07-28 path, with their settings.
    pub(crate) extensions: Map<String, serde_json::Value>,
    /// Request methods beyond the core ones (extensions, custom methods).
    pub(crate) methods: HashMap<String, Arc<dyn MethodHandler>>,
    /// Cache hints of `server/discover` and the list methods.
    pub(crate) cache: CacheHints,
    /// The skills served (the skills extension), once one was added.
    pub(crate) skills: Option<Arc<crate::skills::SkillSet>>,
    /// What each mounted server put here (see `compose`).
    pub(crate) mounted: Vec<super::compose::MountRecord>,
}

/// The cache hints (2026-07-28 `ttlMs`/`cacheScope`) of results that carry one. Every hint
/// defaults to `ttlMs: 0, cacheScope: "private"`: a server promises nothing it did not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CacheHints {
    /// `server/discover`.
    pub discover: CacheHint,
    /// `tools/list`.
    pub tools_list: CacheHint,
    /// `prompts/list`.
    pub prompts_list: CacheHint,
    /// `resources/list`.
    pub resources_list: CacheHint,
    /// `resources/templates/list`.
    pub templates_list: CacheHint,
    /// `resources/read` of a resource or template registered without its own hint.
    pub resource_read: CacheHint,
}

impl Registry {
    /// Whether any tool may run as a task (the server then offers tasks).
    pub(crate) fn offers_tasks(&self) -> bool {
        self.tools.values().any(|e| e.task_support != TaskSupport::Forbidden)
    }

    /// The completion handlers asked for a whole server: its own, then each mount's.
    pub(crate) fn global_completers(&self) -> Vec<Arc<dyn CompletionHandler>> {
        self.completion_handler
            .iter()
            .cloned()
            .chain(self.mounted.iter().filter_map(|m| m.completion.clone()))
            .collect()
    }

    /// The param headers of tool `name`, if it mirrors any argument.
    pub(crate) fn tool_param_headers(&self, name: &str) -> Option<Arc<ParamHeaders>> {
        self.tools.get(name).and_then(|e| e.param_headers.clone())
    }
}
