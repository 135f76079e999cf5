//! Registration: what a server serves (tools, resources, templates, prompts, completers,
//! custom methods, extensions). Everything can change while serving; list-changed
//! notifications tell clients.

use std::sync::Arc;

use serde_json::Value;

use super::handler::{CompletionHandler, HandlerResult, MethodHandler, PromptHandler, ResourceHandler, ToolHandler};
use super::registry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use super::{read, uri_template, write, ConfigError, RequestContext, Server, TemplateVariables, CORE_METHODS};
use crate::protocol::model::{
    ClientCapabilities, CompleteRequest, CompleteResult, CompletionReference, Prompt, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Tool,
};

impl Server {
    /// Register (or replace) a tool with a context-aware async handler. Fails when a schema
    /// is not a valid JSON Schema.
    pub fn add_tool(&self, tool: Tool, handler: impl ToolHandler) -> Result<(), ConfigError> {
        self.add_tool_arc(tool, Arc::new(handler))
    }

    /// As [`Server::add_tool`], with a shared handler.
    pub fn add_tool_arc(&self, tool: Tool, handler: Arc<dyn ToolHandler>) -> Result<(), ConfigError> {
        let entry = ToolEntry::new(tool, handler)?;
        // A replaced handler is dropped after the lock is released (its finalizer may call
        // back into the server).
        let _replaced = write(&self.inner.registry).tools.insert(entry.tool.name.clone(), Arc::new(entry));
        self.registry_changed();
        Ok(())
    }

    /// Register a tool with a plain synchronous handler that ignores the request context.
    pub fn add_tool_fn<F>(&self, tool: Tool, f: F) -> Result<(), ConfigError>
    where
        F: Fn(Value) -> HandlerResult<crate::protocol::model::CallToolResult> + Send + Sync + 'static,
    {
        let f = Arc::new(f);
        self.add_tool(tool, move |args: Value, _ctx: RequestContext| {
            let f = f.clone();
            async move { f(args) }
        })
    }

    /// Remove a tool; whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        // Dropped after the lock is released: a host finalizer may call back into the server.
        let removed = write(&self.inner.registry).tools.shift_remove(name);
        self.registry_changed();
        removed.is_some()
    }

    /// The registered tools, in registration order.
    pub fn tools(&self) -> Vec<Tool> {
        read(&self.inner.registry).tools.values().map(|e| e.tool.clone()).collect()
    }

    /// Declare the client capabilities a tool needs; calls from clients that did not declare
    /// them are refused with a clear error.
    pub fn set_tool_required_client_capabilities(
        &self,
        name: &str,
        caps: ClientCapabilities,
    ) -> Result<(), ConfigError> {
        {
            let mut reg = write(&self.inner.registry);
            let entry = reg.tools.get_mut(name).ok_or_else(|| ConfigError::UnknownTool(name.to_owned()))?;
            let mut updated = (**entry).clone();
            updated.required_caps = Some(caps);
            *entry = Arc::new(updated);
        }
        self.registry_changed();
        Ok(())
    }

    /// The effective input schema of a tool, if registered.
    pub fn tool_input_schema(&self, name: &str) -> Option<Value> {
        read(&self.inner.registry).tools.get(name).map(|e| e.tool.input_schema.clone())
    }

    /// Register (or replace) a direct resource with its reader.
    pub fn add_resource(&self, resource: Resource, reader: impl ResourceHandler) {
        let uri = resource.uri.clone();
        let entry = Arc::new(ResourceEntry { resource, handler: Arc::new(reader), cache: None });
        let _replaced = write(&self.inner.registry).resources.insert(uri, entry);
        self.registry_changed();
    }

    /// Register a direct resource whose contents are fixed text.
    pub fn add_text_resource(&self, resource: Resource, text: impl Into<String>) {
        let text: String = text.into();
        let mime = resource.mime_type.clone();
        self.add_resource(resource, move |uri: String, _vars: TemplateVariables, _ctx: RequestContext| {
            let contents = ResourceContents::text(uri, mime.as_deref(), text.clone());
            async move { Ok(ReadResourceResult { contents: vec![contents], meta: None }) }
        });
    }

    /// Remove a direct resource; whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = write(&self.inner.registry).resources.shift_remove(uri);
        self.registry_changed();
        removed.is_some()
    }

    /// Register a resource template; its reader receives the captured variables.
    pub fn add_resource_template(
        &self,
        template: ResourceTemplate,
        reader: impl ResourceHandler,
    ) -> Result<(), ConfigError> {
        let parsed = uri_template::UriTemplate::parse(&template.uri_template)?;
        let entry = Arc::new(TemplateEntry { template, parsed, handler: Arc::new(reader), cache: None });
        let _replaced = self.remove_resource_template(&entry.template.uri_template);
        write(&self.inner.registry).templates.push(entry);
        self.registry_changed();
        Ok(())
    }

    /// Remove a resource template by its URI template; whether it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed: Vec<_> = {
            let mut reg = write(&self.inner.registry);
            let (gone, kept) =
                std::mem::take(&mut reg.templates).into_iter().partition(|t| t.template.uri_template == uri_template);
            reg.templates = kept;
            gone
        };
        self.registry_changed();
        !removed.is_empty()
    }

    /// Register (or replace) a prompt with its handler. Required arguments are checked before
    /// the handler runs.
    pub fn add_prompt(&self, prompt: Prompt, handler: impl PromptHandler) {
        let name = prompt.name.clone();
        let _replaced = write(&self.inner.registry)
            .prompts
            .insert(name, Arc::new(PromptEntry { prompt, handler: Arc::new(handler) }));
        self.registry_changed();
    }

    /// Remove a prompt; whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = write(&self.inner.registry).prompts.shift_remove(name);
        self.registry_changed();
        removed.is_some()
    }

    /// Set the global completion handler, tried before per-argument completers.
    pub fn set_completion_handler(&self, handler: impl CompletionHandler) {
        let _replaced = write(&self.inner.registry).completion_handler.replace(Arc::new(handler));
        self.registry_changed();
    }

    /// Register a completer for one (reference, argument) pair.
    pub fn set_argument_completer(
        &self,
        reference: CompletionReference,
        argument: &str,
        handler: impl CompletionHandler,
    ) {
        let _replaced =
            write(&self.inner.registry).completers.insert((reference, argument.to_owned()), Arc::new(handler));
        self.registry_changed();
    }

    /// Register a completer that offers the `candidates` starting with the typed prefix.
    pub fn set_argument_candidates(&self, reference: CompletionReference, argument: &str, candidates: Vec<String>) {
        let candidates = Arc::new(candidates);
        self.set_argument_completer(reference, argument, move |req: CompleteRequest, _ctx: RequestContext| {
            let r = CompleteResult::prefix_match(&candidates, &req.argument_value);
            async move { Ok(r) }
        });
    }

    pub(crate) fn skills(&self) -> Option<Arc<crate::skills::SkillSet>> {
        read(&self.inner.registry).skills.clone()
    }

    pub(crate) fn set_skills(&self, set: Arc<crate::skills::SkillSet>) {
        write(&self.inner.registry).skills = Some(set);
        self.registry_changed();
    }

    /// Advertise extension `id` (a prefixed name such as `io.modelcontextprotocol/skills`)
    /// with `settings` (a JSON object; `{}` means no settings) to 2026-07-28 clients.
    pub fn add_extension(&self, id: &str, settings: Value) -> Result<(), ConfigError> {
        let valid_prefix = id.split_once('/').is_some_and(|(prefix, name)| {
            !prefix.is_empty() && !name.is_empty() && prefix.contains('.') && !prefix.starts_with('.')
        });
        if !valid_prefix {
            return Err(ConfigError::InvalidExtensionId(id.to_owned()));
        }
        let settings = if settings.is_null() { Value::Object(Default::default()) } else { settings };
        write(&self.inner.registry).extensions.insert(id.to_owned(), settings);
        self.registry_changed();
        Ok(())
    }

    /// Stop advertising extension `id`; whether it was advertised.
    pub fn remove_extension(&self, id: &str) -> bool {
        let removed = write(&self.inner.registry).extensions.remove(id).is_some();
        self.registry_changed();
        removed
    }

    /// Serve a request method the core does not (an extension's methods, custom methods),
    /// in both eras. The core's own methods cannot be replaced.
    pub fn add_method(&self, method: &str, handler: impl MethodHandler) -> Result<(), ConfigError> {
        self.add_method_arc(method, Arc::new(handler))
    }

    /// As [`Server::add_method`], with a shared handler.
    pub fn add_method_arc(&self, method: &str, handler: Arc<dyn MethodHandler>) -> Result<(), ConfigError> {
        if CORE_METHODS.contains(&method) {
            return Err(ConfigError::ReservedMethod(method.to_owned()));
        }
        let _replaced = write(&self.inner.registry).methods.insert(method.to_owned(), handler);
        self.registry_changed();
        Ok(())
    }

    /// Whether a custom method `method` is served.
    pub(crate) fn serves_method(&self, method: &str) -> bool {
        read(&self.inner.registry).methods.contains_key(method)
    }

    /// Stop serving a custom method; whether it was served.
    pub fn remove_method(&self, method: &str) -> bool {
        let removed = write(&self.inner.registry).methods.remove(method);
        self.registry_changed();
        removed.is_some()
    }
}
