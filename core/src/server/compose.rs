//! Composition: one server's tools, resources, templates, prompts and completions served by
//! another under a prefix, in-process.
//!
//! A mount copies the child's entries into the parent's registry under rewritten names
//! (tools and prompts `{prefix}_{name}`, URIs `scheme://{prefix}/rest`), so dispatch,
//! validation, tasks and param headers work on them unchanged. The copy stays live: every
//! registration change on the child re-syncs its parents, and the child's notifications
//! (list changes, resource updates, any `notify`) reach the parents' clients, URIs rewritten.
//! Handlers receive the child's own names and URIs, and resource contents go back out under
//! the parent's. The parent's own registrations win over mounted ones of the same name.

use std::sync::{Arc, Weak};

use serde_json::Value;

use super::fanout::FanoutEvent;
use super::handler::{
    BoxFuture, CompletionHandler, HandlerResult, MethodHandler, PromptHandler, ResourceHandler, ToolHandler,
};
use super::registry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use super::{lock, read, uri_template, write, ConfigError, RequestContext, Server, ServerInner, TemplateVariables};
use crate::protocol::model::{
    CallToolResult, CompleteRequest, CompleteResult, CompletionReference, Content, GetPromptResult, ReadResourceResult,
    Reply, ResourceContents,
};

/// How a mount renames: `{prefix}_{name}` for tools and prompts, the prefix as the first
/// path segment of URIs (`scheme://prefix/rest`, `scheme:prefix/rest` without an
/// authority). An empty prefix keeps every name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Namespace {
    prefix: String,
}

impl Namespace {
    fn new(prefix: &str) -> Result<Self, ConfigError> {
        let valid = prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
        if !valid {
            return Err(ConfigError::InvalidMountPrefix(prefix.to_owned()));
        }
        Ok(Namespace { prefix: prefix.to_owned() })
    }

    /// A tool or prompt name as the parent serves it.
    pub(crate) fn name(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}_{name}", self.prefix)
        }
    }

    /// A tool or prompt name of the parent's back to the child's, when it is in this namespace.
    pub(crate) fn unname<'a>(&self, name: &'a str) -> Option<&'a str> {
        if self.prefix.is_empty() {
            return Some(name);
        }
        name.strip_prefix(self.prefix.as_str())?.strip_prefix('_')
    }

    /// Where the prefix goes in `uri`: after `scheme://`, else after `scheme:`, else in front.
    /// The scheme is the URI's own (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`,
    /// up to the first `:`), so a `://` later in the URI (in a query, or a template's
    /// expansion) is never taken for it.
    fn split(uri: &str) -> (&str, &str) {
        // (A template may spell the scheme with an expression: `{scheme}://...`.)
        let scheme = uri.find(':').filter(|&i| {
            let name = &uri.as_bytes()[..i];
            name.first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'{')
                && name.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.' | b'{' | b'}'))
        });
        match scheme {
            Some(i) if uri[i + 1..].starts_with("//") => uri.split_at(i + 3),
            Some(i) => uri.split_at(i + 1),
            None => ("", uri),
        }
    }

    /// A URI (or URI template) as the parent serves it.
    pub(crate) fn uri(&self, uri: &str) -> String {
        if self.prefix.is_empty() {
            return uri.to_owned();
        }
        let (head, rest) = Self::split(uri);
        format!("{head}{}/{rest}", self.prefix)
    }

    /// A URI of the parent's back to the child's, when it is in this namespace.
    pub(crate) fn unuri(&self, uri: &str) -> Option<String> {
        if self.prefix.is_empty() {
            return Some(uri.to_owned());
        }
        let (head, rest) = Self::split(uri);
        let rest = rest.strip_prefix(self.prefix.as_str())?.strip_prefix('/')?;
        Some(format!("{head}{rest}"))
    }

    /// A completion reference of the parent's back to the child's.
    fn unreference(&self, reference: &CompletionReference) -> Option<CompletionReference> {
        Some(match reference {
            CompletionReference::Prompt { name } => CompletionReference::Prompt { name: self.unname(name)?.to_owned() },
            CompletionReference::Resource { uri } => CompletionReference::Resource { uri: self.unuri(uri)? },
        })
    }

    fn reference(&self, reference: &CompletionReference) -> CompletionReference {
        match reference {
            CompletionReference::Prompt { name } => CompletionReference::Prompt { name: self.name(name) },
            CompletionReference::Resource { uri } => CompletionReference::Resource { uri: self.uri(uri) },
        }
    }
}

/// The child's URIs in what its tools and prompts answer (resource links, embedded
/// resources), as the parent serves them. Only a URI the child serves (one of its resources,
/// or one its templates match) is rewritten: any other (a web page, another server's) is left
/// as the handler wrote it.
#[derive(Clone)]
struct Outward {
    ns: Namespace,
    child: Weak<ServerInner>,
}

impl Outward {
    fn serves(&self, uri: &str) -> bool {
        let Some(child) = self.child.upgrade() else { return false };
        let reg = read(&child.registry);
        reg.resources.contains_key(uri) || reg.templates.iter().any(|t| t.parsed.match_uri(uri).is_some())
    }

    fn rewrite<'a>(&self, blocks: impl Iterator<Item = &'a mut Content>) {
        if self.ns.prefix.is_empty() {
            return;
        }
        for block in blocks {
            let uri = match block {
                Content::ResourceLink(resource) => &mut resource.uri,
                Content::Resource {
                    resource: ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. },
                    ..
                } => uri,
                _ => continue,
            };
            if self.serves(uri) {
                *uri = self.ns.uri(uri);
            }
        }
    }
}

/// A child's tool behind a parent: its result's resource links and embedded resources point
/// at the parent's URIs.
struct MountedTool {
    outward: Outward,
    inner: Arc<dyn ToolHandler>,
}

impl ToolHandler for MountedTool {
    fn call(&self, arguments: Value, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> {
        let (outward, fut) = (self.outward.clone(), self.inner.call(arguments, ctx));
        Box::pin(async move {
            Ok(fut.await?.map(|mut result| {
                outward.rewrite(result.content.iter_mut());
                result
            }))
        })
    }
}

/// A child's prompt behind a parent: its messages' resource links and embedded resources
/// point at the parent's URIs.
struct MountedPrompt {
    outward: Outward,
    inner: Arc<dyn PromptHandler>,
}

impl PromptHandler for MountedPrompt {
    fn get(
        &self,
        arguments: serde_json::Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<GetPromptResult>>> {
        let (outward, fut) = (self.outward.clone(), self.inner.get(arguments, ctx));
        Box::pin(async move {
            Ok(fut.await?.map(|mut result| {
                outward.rewrite(result.messages.iter_mut().map(|m| &mut m.content));
                result
            }))
        })
    }
}

/// A child's reader behind a parent: reads under the child's URI, answers under the parent's.
struct MountedReader {
    ns: Namespace,
    inner: Arc<dyn ResourceHandler>,
}

impl ResourceHandler for MountedReader {
    fn read(
        &self,
        uri: String,
        variables: TemplateVariables,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<ReadResourceResult>>> {
        let own = self.ns.unuri(&uri).unwrap_or_else(|| uri.clone());
        let (ns, fut) = (self.ns.clone(), self.inner.read(own, variables, ctx));
        Box::pin(async move {
            Ok(fut.await?.map(|mut result| {
                for c in &mut result.contents {
                    let (ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. }) = c;
                    *uri = ns.uri(uri);
                }
                result
            }))
        })
    }
}

/// A child's completer behind a parent: asked with the child's reference; a reference
/// outside the namespace gets no values.
struct MountedCompleter {
    ns: Namespace,
    inner: Arc<dyn CompletionHandler>,
}

impl CompletionHandler for MountedCompleter {
    fn complete(
        &self,
        mut request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        match self.ns.unreference(&request.reference) {
            Some(own) => {
                request.reference = own;
                self.inner.complete(request, ctx)
            }
            None => Box::pin(async { Ok(CompleteResult::default()) }),
        }
    }
}

/// A child's own completion handler (the one for every reference) behind a parent: asked only
/// about a prompt or resource the child serves, so it never answers for the parent's own.
struct MountedGlobalCompleter {
    ns: Namespace,
    child: Weak<ServerInner>,
    inner: Arc<dyn CompletionHandler>,
}

impl CompletionHandler for MountedGlobalCompleter {
    fn complete(
        &self,
        mut request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        let serves = |reference: &CompletionReference| {
            let Some(child) = self.child.upgrade() else { return false };
            let reg = read(&child.registry);
            match reference {
                CompletionReference::Prompt { name } => reg.prompts.contains_key(name),
                CompletionReference::Resource { uri } => {
                    reg.resources.contains_key(uri) || reg.templates.iter().any(|t| &t.template.uri_template == uri)
                }
            }
        };
        match self.ns.unreference(&request.reference).filter(|own| serves(own)) {
            Some(own) => {
                request.reference = own;
                self.inner.complete(request, ctx)
            }
            None => Box::pin(async { Ok(CompleteResult::default()) }),
        }
    }
}

/// A parent a server is mounted in (kept by the child).
pub(crate) struct ParentLink {
    parent: Weak<ServerInner>,
    ns: Namespace,
}

/// What one mount put in the parent's registry (kept by the parent), so a re-sync can take
/// it out again.
#[derive(Default)]
pub(crate) struct MountRecord {
    child: Weak<ServerInner>,
    ns: Option<Namespace>,
    tools: Vec<Arc<ToolEntry>>,
    resources: Vec<Arc<ResourceEntry>>,
    templates: Vec<Arc<TemplateEntry>>,
    prompts: Vec<Arc<PromptEntry>>,
    completers: Vec<((CompletionReference, String), Arc<dyn CompletionHandler>)>,
    methods: Vec<(String, Arc<dyn MethodHandler>)>,
    extensions: Vec<(String, Value)>,
    /// The child's global completion handler, behind its namespace.
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    /// The child's skills under their rewritten roots, in the parent's skill set.
    skills: Vec<Arc<crate::skills::Skill>>,
}

impl MountRecord {
    fn is_of(&self, child: &Arc<ServerInner>, ns: &Namespace) -> bool {
        Weak::ptr_eq(&self.child, &Arc::downgrade(child)) && self.ns.as_ref() == Some(ns)
    }
}

impl Server {
    /// Serve `child`'s tools, prompts, resources, resource templates and completions from
    /// this server under `prefix` (tools and prompts as `{prefix}_{name}`, URIs as
    /// `scheme://{prefix}/rest`; an empty prefix keeps the names), and its custom methods
    /// and extensions as they are. The mount is live: what the child registers or removes
    /// later shows here, and its list-changed, resource-updated and other notifications
    /// reach this server's clients. The child's declared capabilities (resource
    /// subscriptions, list changes) are added to this server's. This server's own
    /// registrations win over mounted ones of the same name. The child's middleware does
    /// not run for mounted calls; this server's does.
    ///
    /// Fails when `prefix` has characters other than ASCII letters, digits, `-`, `_`, `.`,
    /// or when the mount would make a cycle.
    pub fn mount(&self, prefix: &str, child: &Server) -> Result<(), ConfigError> {
        let ns = Namespace::new(prefix)?;
        if child.is_ancestor_of(self) {
            return Err(ConfigError::MountCycle);
        }
        {
            let mut parents = lock(&child.inner.parents);
            parents.retain(|p| p.parent.strong_count() > 0);
            if !parents.iter().any(|p| Weak::ptr_eq(&p.parent, &Arc::downgrade(&self.inner)) && p.ns == ns) {
                parents.push(ParentLink { parent: Arc::downgrade(&self.inner), ns: ns.clone() });
            }
        }
        self.sync_mount(child, &ns);
        self.registry_changed();
        Ok(())
    }

    /// Stop serving what `child` was mounted with under `prefix`; whether it was mounted.
    pub fn unmount(&self, prefix: &str, child: &Server) -> bool {
        let Ok(ns) = Namespace::new(prefix) else { return false };
        let was = {
            let mut parents = lock(&child.inner.parents);
            let before = parents.len();
            parents.retain(|p| !(Weak::ptr_eq(&p.parent, &Arc::downgrade(&self.inner)) && p.ns == ns));
            before != parents.len()
        };
        let removed = {
            let mut reg = write(&self.inner.registry);
            let i = reg.mounted.iter().position(|m| m.is_of(&child.inner, &ns));
            i.map(|i| {
                let record = reg.mounted.remove(i);
                take_out_listed(&mut reg, &record);
                take_out_keyed(&mut reg, &record);
                record
            })
        };
        if let (Some(record), Some(set)) = (&removed, self.skills()) {
            set.replace(&record.skills, &[]);
        }
        let found = was || removed.is_some();
        drop(removed);
        if found {
            self.registry_changed();
        }
        found
    }

    /// Take this server out of every server it is mounted in (a binding does this before
    /// the runtime its handlers need goes away); how many mounts there were.
    pub fn unmount_everywhere(&self) -> usize {
        let parents = self.parents();
        parents.iter().filter(|(parent, ns)| parent.unmount(&ns.prefix, self)).count()
    }

    /// Whether this server is `other` or is mounted, directly or not, in `other`.
    fn is_ancestor_of(&self, other: &Server) -> bool {
        if Arc::ptr_eq(&self.inner, &other.inner) {
            return true;
        }
        let parents: Vec<Server> = lock(&other.inner.parents)
            .iter()
            .filter_map(|p| p.parent.upgrade())
            .map(|inner| Server { inner })
            .collect();
        parents.iter().any(|p| self.is_ancestor_of(p))
    }

    /// Advertise what `child` declares (resource subscriptions, list changes) too, and tell
    /// this server's own parents.
    fn take_capabilities_of(&self, child: &Server) {
        use std::sync::atomic::Ordering::Relaxed;
        let (from, to) = (&child.inner.flags, &self.inner.flags);
        for (f, t) in [
            (&from.subscriptions, &to.subscriptions),
            (&from.tools_list_changed, &to.tools_list_changed),
            (&from.resources_list_changed, &to.resources_list_changed),
            (&from.prompts_list_changed, &to.prompts_list_changed),
        ] {
            if f.load(Relaxed) {
                t.store(true, Relaxed);
            }
        }
    }

    /// After this server declared a capability: the servers it is mounted in declare it too
    /// (and theirs, up the chain).
    pub(crate) fn capabilities_changed(&self) {
        for (parent, _) in self.parents() {
            parent.take_capabilities_of(self);
            parent.capabilities_changed();
        }
    }

    /// Copy `child`'s current entries in under `ns`, replacing what the mount copied before.
    /// An entry copied before keeps its place in the parent's lists (so a client's pagination
    /// cursor still means what it did); new ones go at the end.
    fn sync_mount(&self, child: &Server, ns: &Namespace) {
        self.take_capabilities_of(child);
        let outward = Outward { ns: ns.clone(), child: Arc::downgrade(&child.inner) };
        let snapshot = {
            let reg = read(&child.inner.registry);
            Snapshot {
                tools: reg.tools.values().cloned().collect(),
                resources: reg.resources.values().cloned().collect(),
                templates: reg.templates.clone(),
                prompts: reg.prompts.values().cloned().collect(),
                completers: reg.completers.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                completion: reg.completion_handler.clone(),
                mounted_completions: reg.mounted.iter().filter_map(|m| m.completion.clone()).collect(),
                methods: reg.methods.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                extensions: reg.extensions.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                skills: reg.skills.as_ref().map(|s| s.all()),
            }
        };
        let mut record =
            MountRecord { child: Arc::downgrade(&child.inner), ns: Some(ns.clone()), ..Default::default() };
        let old;
        let skills;
        {
            let mut reg = write(&self.inner.registry);
            let previous = match reg.mounted.iter().position(|m| m.is_of(&child.inner, ns)) {
                Some(i) => reg.mounted.remove(i),
                None => MountRecord::default(),
            };
            // Keyed entries have no order: out first. Listed ones are replaced in place below,
            // and what is left of them taken out after.
            take_out_keyed(&mut reg, &previous);
            // Whether the parent's entry under a key is the one this mount put there (else
            // it is the parent's own, which wins).
            let was_ours =
                |now: Option<&Arc<ToolEntry>>| now.is_some_and(|n| previous.tools.iter().any(|o| same(n, o)));
            for e in snapshot.tools {
                let name = ns.name(&e.tool.name);
                if reg.tools.contains_key(&name) && !was_ours(reg.tools.get(&name)) {
                    continue;
                }
                let mut entry = (*e).clone();
                entry.tool.name = name.clone();
                entry.handler = Arc::new(MountedTool { outward: outward.clone(), inner: e.handler.clone() });
                let entry = Arc::new(entry);
                reg.tools.insert(name, entry.clone());
                record.tools.push(entry);
            }
            for e in snapshot.resources {
                let uri = ns.uri(&e.resource.uri);
                let ours = reg.resources.get(&uri).is_some_and(|n| previous.resources.iter().any(|o| same(n, o)));
                if reg.resources.contains_key(&uri) && !ours {
                    continue;
                }
                let mut resource = e.resource.clone();
                resource.uri = uri.clone();
                let handler = Arc::new(MountedReader { ns: ns.clone(), inner: e.handler.clone() });
                let entry = Arc::new(ResourceEntry { resource, handler, cache: e.cache });
                reg.resources.insert(uri, entry.clone());
                record.resources.push(entry);
            }
            for e in snapshot.templates {
                let rewritten = ns.uri(&e.template.uri_template);
                let at = reg.templates.iter().position(|t| t.template.uri_template == rewritten);
                if at.is_some_and(|i| !previous.templates.iter().any(|o| same(&reg.templates[i], o))) {
                    continue;
                }
                let Ok(parsed) = uri_template::UriTemplate::parse(&rewritten) else { continue };
                let mut template = e.template.clone();
                template.uri_template = rewritten.clone();
                let handler = Arc::new(MountedReader { ns: ns.clone(), inner: e.handler.clone() });
                let entry = Arc::new(TemplateEntry { template, parsed, handler, cache: e.cache });
                match at {
                    Some(i) => reg.templates[i] = entry.clone(),
                    None => reg.templates.push(entry.clone()),
                }
                record.templates.push(entry);
            }
            for e in snapshot.prompts {
                let name = ns.name(&e.prompt.name);
                let ours = reg.prompts.get(&name).is_some_and(|n| previous.prompts.iter().any(|o| same(n, o)));
                if reg.prompts.contains_key(&name) && !ours {
                    continue;
                }
                let mut prompt = e.prompt.clone();
                prompt.name = name.clone();
                let handler = Arc::new(MountedPrompt { outward: outward.clone(), inner: e.handler.clone() });
                let entry = Arc::new(PromptEntry { prompt, handler });
                reg.prompts.insert(name, entry.clone());
                record.prompts.push(entry);
            }
            // What the child no longer has (entries replaced above are not the previous ones).
            take_out_listed(&mut reg, &previous);
            old = previous;
            for ((reference, argument), handler) in snapshot.completers {
                let key = (ns.reference(&reference), argument);
                if reg.completers.contains_key(&key) {
                    continue;
                }
                let wrapped: Arc<dyn CompletionHandler> = Arc::new(MountedCompleter { ns: ns.clone(), inner: handler });
                reg.completers.insert(key.clone(), wrapped.clone());
                record.completers.push((key, wrapped));
            }
            let globals: Vec<Arc<dyn CompletionHandler>> =
                snapshot.completion.into_iter().chain(snapshot.mounted_completions).collect();
            if !globals.is_empty() {
                let inner: Arc<dyn CompletionHandler> = Arc::new(FirstOf(globals));
                let child = Arc::downgrade(&child.inner);
                record.completion = Some(Arc::new(MountedGlobalCompleter { ns: ns.clone(), child, inner }));
            }
            for (method, handler) in snapshot.methods {
                // The skill set's own methods: the parent serves the child's skills from its
                // own set (below).
                let of_skill_set = snapshot.skills.is_some() && crate::skills::METHODS.contains(&method.as_str());
                if reg.methods.contains_key(&method) || of_skill_set {
                    continue;
                }
                reg.methods.insert(method.clone(), handler.clone());
                record.methods.push((method, handler));
            }
            for (id, settings) in snapshot.extensions {
                // (The skills extension is the parent's own skill set's to advertise.)
                let of_skill_set = snapshot.skills.is_some() && id == crate::skills::EXTENSION_ID;
                if reg.extensions.contains_key(&id) || of_skill_set {
                    continue;
                }
                reg.extensions.insert(id.clone(), settings.clone());
                record.extensions.push((id, settings));
            }
            record.skills =
                snapshot.skills.unwrap_or_default().iter().map(|k| Arc::new(k.rerooted(ns.uri(k.root())))).collect();
            skills = record.skills.clone();
            reg.mounted.push(record);
        }
        // The child's skills, rerooted, in the parent's own set (made now if need be: its
        // extension and methods are registered outside the registry's lock).
        if !skills.is_empty() || !old.skills.is_empty() {
            match self.skill_set() {
                Ok(set) => set.replace(&old.skills, &skills),
                Err(e) => tracing::warn!(target: crate::diagnostics::target::HANDLER, "mounting skills: {e}"),
            }
        }
        // Replaced handlers are dropped here, outside the lock (a host finalizer may call back).
        drop(old);
    }

    /// After a registration change: re-sync every parent this server is mounted in (and
    /// theirs, up the chain).
    pub(crate) fn registry_changed(&self) {
        for (parent, ns) in self.parents() {
            parent.sync_mount(self, &ns);
            parent.registry_changed();
        }
    }

    /// The live parents and the namespace of each mount.
    fn parents(&self) -> Vec<(Server, Namespace)> {
        let parents = lock(&self.inner.parents);
        if parents.is_empty() {
            return Vec::new();
        }
        parents.iter().filter_map(|p| Some((Server { inner: p.parent.upgrade()? }, p.ns.clone()))).collect()
    }

    /// Hand a notification this server delivered to the parents it is mounted in (URIs
    /// rewritten); how many listeners they reached.
    pub(crate) fn deliver_to_parents(&self, event: &FanoutEvent) -> usize {
        let mut reached = 0;
        for (parent, ns) in self.parents() {
            let mapped = match event {
                FanoutEvent::ResourceUpdated { uri } => FanoutEvent::ResourceUpdated { uri: ns.uri(uri) },
                // A task belongs to the server that runs it, which for a mounted tool is the parent.
                FanoutEvent::Task { .. } => continue,
                other => other.clone(),
            };
            reached += parent.deliver_everywhere(mapped);
        }
        reached
    }
}

/// The child's registry as one mount copies it.
struct Snapshot {
    tools: Vec<Arc<ToolEntry>>,
    resources: Vec<Arc<ResourceEntry>>,
    templates: Vec<Arc<TemplateEntry>>,
    prompts: Vec<Arc<PromptEntry>>,
    completers: Vec<((CompletionReference, String), Arc<dyn CompletionHandler>)>,
    completion: Option<Arc<dyn CompletionHandler>>,
    mounted_completions: Vec<Arc<dyn CompletionHandler>>,
    methods: Vec<(String, Arc<dyn MethodHandler>)>,
    extensions: Vec<(String, Value)>,
    skills: Option<Vec<Arc<crate::skills::Skill>>>,
}

/// Whether two shared values are the same allocation (for trait objects too).
fn same<T: ?Sized>(a: &Arc<T>, b: &Arc<T>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

/// Remove the tools, resources, templates and prompts `record` copied in; an entry the parent
/// has since replaced (with its own, or a re-sync's) stays.
fn take_out_listed(reg: &mut super::registry::Registry, record: &MountRecord) {
    for e in &record.tools {
        if reg.tools.get(&e.tool.name).is_some_and(|now| same(now, e)) {
            reg.tools.shift_remove(&e.tool.name);
        }
    }
    for e in &record.resources {
        if reg.resources.get(&e.resource.uri).is_some_and(|now| same(now, e)) {
            reg.resources.shift_remove(&e.resource.uri);
        }
    }
    reg.templates.retain(|t| !record.templates.iter().any(|e| same(t, e)));
    for e in &record.prompts {
        if reg.prompts.get(&e.prompt.name).is_some_and(|now| same(now, e)) {
            reg.prompts.shift_remove(&e.prompt.name);
        }
    }
}

/// Remove the completers, methods and extensions `record` copied in (unordered), where the
/// parent has not replaced them with its own.
fn take_out_keyed(reg: &mut super::registry::Registry, record: &MountRecord) {
    for (k, h) in &record.completers {
        if reg.completers.get(k).is_some_and(|now| same(now, h)) {
            reg.completers.remove(k);
        }
    }
    for (m, h) in &record.methods {
        if reg.methods.get(m).is_some_and(|now| same(now, h)) {
            reg.methods.remove(m);
        }
    }
    for (id, settings) in &record.extensions {
        if reg.extensions.get(id) == Some(settings) {
            reg.extensions.remove(id);
        }
    }
}

/// Several completion handlers asked in order; the first that offers values answers.
struct FirstOf(Vec<Arc<dyn CompletionHandler>>);

impl CompletionHandler for FirstOf {
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        let handlers = self.0.clone();
        Box::pin(async move {
            let mut result = CompleteResult::default();
            for h in handlers {
                result = h.complete(request.clone(), ctx.clone()).await?;
                if !result.completion.values.is_empty() {
                    break;
                }
            }
            Ok(result)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Namespace;

    #[test]
    fn names_and_uris_round_trip() {
        let ns = Namespace::new("weather").unwrap();
        assert_eq!(ns.name("forecast"), "weather_forecast");
        assert_eq!(ns.unname("weather_forecast"), Some("forecast"));
        assert_eq!(ns.unname("weatherforecast"), None);
        assert_eq!(ns.unname("other_forecast"), None);
        assert_eq!(ns.uri("data://cities/{city}"), "data://weather/cities/{city}");
        assert_eq!(ns.unuri("data://weather/cities/paris").as_deref(), Some("data://cities/paris"));
        assert_eq!(ns.unuri("data://cities/paris"), None);
        assert_eq!(ns.uri("urn:isbn:1"), "urn:weather/isbn:1");
        assert_eq!(ns.unuri("urn:weather/isbn:1").as_deref(), Some("urn:isbn:1"));
        // The scheme is the URI's own: a `://` further on (a query, a template) is not it.
        assert_eq!(ns.uri("api:search{?url}"), "api:weather/search{?url}");
        assert_eq!(ns.unuri("api:weather/search?url=https://x.com").as_deref(), Some("api:search?url=https://x.com"));
        assert_eq!(ns.uri("data://a?next=https://b"), "data://weather/a?next=https://b");
        assert_eq!(ns.uri("{scheme}://x"), "{scheme}://weather/x");
        let none = Namespace::new("").unwrap();
        assert_eq!(none.name("x"), "x");
        assert_eq!(none.uri("test://a"), "test://a");
        assert!(Namespace::new("bad prefix").is_err());
    }
}
