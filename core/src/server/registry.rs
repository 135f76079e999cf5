//! What the author registered, with everything precomputed that dispatch needs per call
//! (compiled JSON Schema validators, parsed URI templates).

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use super::handler::{CompletionHandler, PromptHandler, ResourceHandler, ToolHandler};
use super::uri_template::UriTemplate;
use super::ConfigError;
use crate::protocol::model::{ClientCapabilities, CompletionReference, Prompt, Resource, ResourceTemplate, Tool};

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
        Ok(ToolEntry { tool, handler, input, output, required_caps: None })
    }
}

pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) handler: Arc<dyn ResourceHandler>,
}

pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) handler: Arc<dyn ResourceHandler>,
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
}
