/**
 * The handles `McpServer`'s registrations return (`RegisteredTool`, `RegisteredResource`,
 * `RegisteredResourceTemplate`, `RegisteredPrompt`): each registers its item on the Ferrite
 * `Server` and, on `enable`, `disable`, `update` or `remove`, changes what the core serves
 * and sends the list-changed notification of its kind. Apart from `mcp.ts` so the class there
 * holds the TypeScript SDK's entry points and these the life of one registration.
 */

import type { ArgsSchema, PromptReturn, RawShape, SchemaLike, ToolReturn } from './model.js';
import { isRawShape } from './schema.js';
import type { Server } from './server.js';
import { completerOf, ResourceTemplate } from './resource-template.js';
import type {
  PromptCallback,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ResourceMetadata,
  ToolCallback,
} from './mcp-types.js';

const EMPTY_INPUT = { type: 'object', properties: {} };

/** What a handle needs from its `McpServer`. */
export interface HandleHost<H> {
  /** The Ferrite server the item is registered on. */
  readonly server: Server;
  /** The `McpServer`'s registrations of this kind, by name (tools, templates, prompts) or URI (resources). */
  readonly registry: Map<string, H>;
  /** Send the list-changed notification of this kind. */
  readonly changed: () => void;
}

/** How a template's `list` callback is served (by `McpServer`, which owns the listed URIs). */
export interface TemplateListing {
  /** Serve what the template's `list` callback returns, as resources. */
  list(name: string, t: RegisteredResourceTemplate): void;
  /** Stop serving what `list` served for the template `name`. */
  unlist(name: string): void;
}

/** The TypeScript SDK's error for a name or URI registered twice. */
export function duplicate(kind: string, key: string): Error {
  return new Error(`${kind} ${key} is already registered`);
}

/** `f`, checked to be a function (a `TypeError` naming `what` otherwise). */
export function callbackOf<F>(f: unknown, what: string): F {
  if (typeof f !== 'function') throw new TypeError(`${what}: the callback must be a function`);
  return f as F;
}

/** The handle of a tool (`registerTool`, `tool`), registered on the server unless disabled. */
export function toolHandle(
  host: HandleHost<RegisteredTool>,
  name: string,
  config: Omit<RegisteredTool, 'name' | 'callback' | 'handler' | 'enabled' | 'enable' | 'disable' | 'update' | 'remove'>,
  cb: ToolCallback<ArgsSchema | undefined>,
): RegisteredTool {
  callbackOf(cb, `tool ${name}`);
  const server = host.server;
  const tools = host.registry;
  let current = name;
  const apply = (t: RegisteredTool) => {
    if (!t.enabled) return;
    const hasArgs = t.inputSchema !== undefined;
    const callback = t.callback as (...a: unknown[]) => ToolReturn | Promise<ToolReturn>;
    server.tool(
      current,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema ?? EMPTY_INPUT,
        outputSchema: t.outputSchema,
        annotations: t.annotations,
        execution: t.execution,
        _meta: t._meta,
      },
      (args, ctx) => (hasArgs ? callback(args, ctx) : callback(ctx)),
    );
  };
  const handle: RegisteredTool = {
    get name() {
      return current;
    },
    ...config,
    callback: cb,
    get handler() {
      return handle.callback;
    },
    enabled: true,
    enable: () => handle.update({ enabled: true }),
    disable: () => handle.update({ enabled: false }),
    remove: () => handle.update({ name: null }),
    update: (u) => {
      if (u.name !== undefined && u.name !== current && u.name !== null && tools.has(u.name)) throw duplicate('Tool', u.name);
      server.removeTool(current);
      tools.delete(current);
      if (u.name === null) {
        host.changed();
        return;
      }
      if (u.name !== undefined) current = u.name;
      if (u.title !== undefined) handle.title = u.title;
      if (u.description !== undefined) handle.description = u.description;
      if (u.paramsSchema !== undefined) handle.inputSchema = u.paramsSchema;
      if (u.outputSchema !== undefined) handle.outputSchema = u.outputSchema;
      if (u.annotations !== undefined) handle.annotations = u.annotations;
      if (u._meta !== undefined) handle._meta = u._meta;
      if (u.callback !== undefined) handle.callback = callbackOf(u.callback, `tool ${current}`);
      if (u.enabled !== undefined) handle.enabled = u.enabled;
      tools.set(current, handle);
      apply(handle);
      host.changed();
    },
  };
  apply(handle);
  tools.set(name, handle);
  host.changed();
  return handle;
}

/** The handle of a resource at a fixed URI (`registerResource`, `resource`). */
export function resourceHandle(
  host: HandleHost<RegisteredResource>,
  name: string,
  title: string | undefined,
  uri: string,
  metadata: ResourceMetadata,
  cb: ReadResourceCallback,
): RegisteredResource {
  if (typeof uri !== 'string') throw new TypeError(`resource ${name}: the URI must be a string`);
  if (host.registry.has(uri)) throw duplicate('Resource', uri);
  callbackOf(cb, `resource ${uri}`);
  const server = host.server;
  const resources = host.registry;
  let current = uri;
  const apply = (r: RegisteredResource) => {
    if (!r.enabled) return;
    const { title: _t, ...meta } = r.metadata ?? {};
    server.resource(r.name, current, { ...meta, title: r.title }, (u, ctx) => r.readCallback(new URL(u), ctx));
  };
  let currentName = name;
  const handle: RegisteredResource = {
    get name() {
      return currentName;
    },
    title,
    metadata,
    readCallback: cb,
    enabled: true,
    enable: () => handle.update({ enabled: true }),
    disable: () => handle.update({ enabled: false }),
    remove: () => handle.update({ uri: null }),
    update: (u) => {
      if (u.uri !== undefined && u.uri !== null && u.uri !== current && resources.has(u.uri)) throw duplicate('Resource', u.uri);
      server.removeResource(current);
      resources.delete(current);
      if (u.uri === null) {
        host.changed();
        return;
      }
      if (u.uri !== undefined) current = u.uri;
      if (u.name !== undefined) currentName = u.name;
      if (u.title !== undefined) handle.title = u.title;
      if (u.metadata !== undefined) handle.metadata = u.metadata;
      if (u.callback !== undefined) handle.readCallback = callbackOf(u.callback, `resource ${current}`);
      if (u.enabled !== undefined) handle.enabled = u.enabled;
      resources.set(current, handle);
      apply(handle);
      host.changed();
    },
  };
  apply(handle);
  resources.set(uri, handle);
  host.changed();
  return handle;
}

/**
 * The handle of a resource template (`registerResource`, `resource` with a `ResourceTemplate`):
 * the template, its variables' completions, and what its `list` callback returns (`listing`).
 */
export function templateHandle(
  host: HandleHost<RegisteredResourceTemplate>,
  listing: TemplateListing,
  name: string,
  title: string | undefined,
  template: ResourceTemplate,
  metadata: ResourceMetadata,
  cb: ReadResourceTemplateCallback,
): RegisteredResourceTemplate {
  if (!(template instanceof ResourceTemplate)) {
    throw new TypeError(`resource ${name}: the second argument must be a URI string or a ResourceTemplate`);
  }
  if (host.registry.has(name)) throw duplicate('Resource template', name);
  callbackOf(cb, `resource template ${name}`);
  const server = host.server;
  const templates = host.registry;
  let current = name;
  let registered: string | undefined;
  const apply = (t: RegisteredResourceTemplate) => {
    if (!t.enabled) return;
    const uriTemplate = t.resourceTemplate.uriTemplate;
    const { title: _t, ...meta } = t.metadata ?? {};
    server.resourceTemplate(current, uriTemplate, { ...meta, title: t.title }, (u, variables, ctx) =>
      t.readCallback(new URL(u), variables, ctx),
    );
    registered = uriTemplate;
    for (const [variable, complete] of t.resourceTemplate._completions) {
      server.completion({ type: 'ref/resource', uri: uriTemplate }, variable, (value, context) => complete(value, context as never));
    }
    listing.list(current, t);
  };
  const unapply = () => {
    if (registered !== undefined) server.removeResourceTemplate(registered);
    registered = undefined;
    listing.unlist(current);
  };
  const handle: RegisteredResourceTemplate = {
    resourceTemplate: template,
    title,
    metadata,
    readCallback: cb,
    enabled: true,
    enable: () => handle.update({ enabled: true }),
    disable: () => handle.update({ enabled: false }),
    remove: () => handle.update({ name: null }),
    update: (u) => {
      if (u.name !== undefined && u.name !== null && u.name !== current && templates.has(u.name)) {
        throw duplicate('Resource template', u.name);
      }
      unapply();
      templates.delete(current);
      if (u.name === null) {
        host.changed();
        return;
      }
      if (u.name !== undefined) current = u.name;
      if (u.title !== undefined) handle.title = u.title;
      if (u.template !== undefined) handle.resourceTemplate = u.template;
      if (u.metadata !== undefined) handle.metadata = u.metadata;
      if (u.callback !== undefined) handle.readCallback = callbackOf(u.callback, `resource template ${current}`);
      if (u.enabled !== undefined) handle.enabled = u.enabled;
      templates.set(current, handle);
      apply(handle);
      host.changed();
    },
  };
  // Registered before `apply`, so a synchronous `list` callback finds it current.
  templates.set(name, handle);
  apply(handle);
  host.changed();
  return handle;
}

/** The handle of a prompt (`registerPrompt`, `prompt`), with its arguments' completions. */
export function promptHandle(
  host: HandleHost<RegisteredPrompt>,
  name: string,
  config: Pick<RegisteredPrompt, 'title' | 'description' | 'argsSchema'>,
  cb: PromptCallback<RawShape | SchemaLike | undefined>,
): RegisteredPrompt {
  callbackOf(cb, `prompt ${name}`);
  const server = host.server;
  const prompts = host.registry;
  let current = name;
  const apply = (p: RegisteredPrompt) => {
    if (!p.enabled) return;
    const hasArgs = p.argsSchema !== undefined;
    const callback = p.callback as (...a: unknown[]) => PromptReturn | Promise<PromptReturn>;
    server.prompt(current, { title: p.title, description: p.description, argsSchema: p.argsSchema }, (args, ctx) =>
      hasArgs ? callback(args, ctx) : callback(ctx),
    );
    if (isRawShape(p.argsSchema)) {
      for (const [argument, field] of Object.entries(p.argsSchema)) {
        const complete = completerOf(field);
        if (complete !== undefined) {
          server.completion({ type: 'ref/prompt', name: current }, argument, (value, context) => complete(value, context as never));
        }
      }
    }
  };
  const handle: RegisteredPrompt = {
    get name() {
      return current;
    },
    ...config,
    callback: cb,
    enabled: true,
    enable: () => handle.update({ enabled: true }),
    disable: () => handle.update({ enabled: false }),
    remove: () => handle.update({ name: null }),
    update: (u) => {
      if (u.name !== undefined && u.name !== null && u.name !== current && prompts.has(u.name)) throw duplicate('Prompt', u.name);
      server.removePrompt(current);
      prompts.delete(current);
      if (u.name === null) {
        host.changed();
        return;
      }
      if (u.name !== undefined) current = u.name;
      if (u.title !== undefined) handle.title = u.title;
      if (u.description !== undefined) handle.description = u.description;
      if (u.argsSchema !== undefined) handle.argsSchema = u.argsSchema;
      if (u.callback !== undefined) handle.callback = callbackOf(u.callback, `prompt ${current}`);
      if (u.enabled !== undefined) handle.enabled = u.enabled;
      prompts.set(current, handle);
      apply(handle);
      host.changed();
    },
  };
  apply(handle);
  prompts.set(name, handle);
  host.changed();
  return handle;
}
