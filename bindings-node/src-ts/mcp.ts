/**
 * `McpServer`, `ResourceTemplate` and `completable`: the TypeScript SDK's high-level server
 * API (`@modelcontextprotocol/sdk/server/mcp.js`), so a server written for the SDK ports by
 * changing its imports. Each registration becomes a registration on the Ferrite `Server`
 * (`mcpServer.server`); the handles it returns (`enable`, `disable`, `update`, `remove`)
 * change what the core serves and send the list-changed notification through the core's
 * notifiers (handshake-era clients and 2026-07-28 listen streams alike).
 *
 * Callbacks get what the SDK passes: parsed arguments (when a schema is given) and the
 * request context as `extra` (`signal`, `requestId`, `_meta`, `sessionId`, `requestInfo`,
 * `sendNotification`, `sendRequest`, and Ferrite's own `log`, `reportProgress`, `elicit`,
 * `sample`, ...); resource callbacks get a `URL`.
 */

import type { Context } from './context.js';
import type {
  ArgsSchema,
  Icon,
  InferArgs,
  JsonObject,
  PromptReturn,
  RawShape,
  Resource,
  ResourceReturn,
  SchemaLike,
  ToolAnnotations,
  ToolReturn,
} from './model.js';
import { matchUriTemplate } from './native.js';
import { isRawShape } from './schema.js';
import { Server, type ListenOptions, type ServerOptions } from './server.js';
import type { ListenAddress } from './transports.js';

/** The server's identity, as the TypeScript SDK's `new McpServer(serverInfo)` takes it. */
export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/**
 * The options of `new McpServer(info, options)`: the TypeScript SDK's (`instructions`,
 * `capabilities`) and Ferrite's `Server` options (`stateless`, `pageSize`, `validateOutput`, ...).
 * Of `capabilities`, `resources.subscribe` turns on subscriptions and `logging: undefined`
 * changes nothing (logging is on by default); the rest is what the core derives from what
 * is registered.
 */
export interface McpServerOptions extends Omit<ServerOptions, 'name' | 'version' | 'title' | 'description' | 'websiteUrl' | 'icons'> {
  capabilities?: {
    logging?: object;
    resources?: { subscribe?: boolean; listChanged?: boolean };
    tools?: { listChanged?: boolean };
    prompts?: { listChanged?: boolean };
    completions?: object;
    [other: string]: unknown;
  };
}

/** The arguments a callback receives for a schema (none without one). */
type Args<S> = S extends SchemaLike | RawShape ? InferArgs<S> : never;

/** A tool callback: `(args, extra)` with an input schema, `(extra)` without one. */
export type ToolCallback<S extends ArgsSchema | undefined = undefined> = S extends SchemaLike | RawShape
  ? (args: Args<S>, extra: Context) => ToolReturn | Promise<ToolReturn>
  : (extra: Context) => ToolReturn | Promise<ToolReturn>;

/** A prompt callback: `(args, extra)` with an argument schema, `(extra)` without one. */
export type PromptCallback<S extends RawShape | SchemaLike | undefined = undefined> = S extends SchemaLike | RawShape
  ? (args: Args<S>, extra: Context) => PromptReturn | Promise<PromptReturn>
  : (extra: Context) => PromptReturn | Promise<PromptReturn>;

/** Reads a fixed resource. */
export type ReadResourceCallback = (uri: URL, extra: Context) => ResourceReturn | Promise<ResourceReturn>;
/** Reads a resource of a template, with the variables the URI binds. */
export type ReadResourceTemplateCallback = (
  uri: URL,
  variables: { [name: string]: string },
  extra: Context,
) => ResourceReturn | Promise<ResourceReturn>;
/** Lists the resources a template stands for. */
export type ListResourcesCallback = (extra?: Context) => { resources: Resource[] } | Promise<{ resources: Resource[] }>;
/** Completes one variable of a template (or one completable prompt argument). */
export type CompleteCallback = (
  value: string,
  context?: { arguments?: { [name: string]: string } },
) => string[] | Promise<string[]>;

/** A URI template with a listing and completions of its variables, as the TypeScript SDK's. */
export class ResourceTemplate {
  #uriTemplate: string;
  #callbacks: { list: ListResourcesCallback | undefined; complete?: { [variable: string]: CompleteCallback } };

  constructor(
    uriTemplate: string,
    callbacks: { list: ListResourcesCallback | undefined; complete?: { [variable: string]: CompleteCallback } },
  ) {
    if (typeof uriTemplate !== 'string') throw new TypeError('new ResourceTemplate(uriTemplate, callbacks): uriTemplate must be a string');
    if (callbacks === null || typeof callbacks !== 'object') {
      throw new TypeError('new ResourceTemplate(uriTemplate, callbacks): callbacks must be { list, complete? }');
    }
    if (callbacks.list !== undefined && typeof callbacks.list !== 'function') {
      throw new TypeError(`ResourceTemplate ${uriTemplate}: list must be a function or undefined`);
    }
    for (const [variable, f] of Object.entries(callbacks.complete ?? {})) {
      if (typeof f !== 'function') throw new TypeError(`ResourceTemplate ${uriTemplate}: complete.${variable} must be a function`);
    }
    // The core parses the template (and refuses a bad one) now, not at registration.
    matchUriTemplate(uriTemplate, '');
    this.#uriTemplate = uriTemplate;
    this.#callbacks = callbacks;
  }

  /** The URI template (RFC 6570). */
  get uriTemplate(): string {
    return this.#uriTemplate;
  }
  /** The listing callback, if any. */
  get listCallback(): ListResourcesCallback | undefined {
    return this.#callbacks.list;
  }
  /** The completion callback of one variable, if any. */
  completeCallback(variable: string): CompleteCallback | undefined {
    return this.#callbacks.complete?.[variable];
  }
  /** @internal The variables with a completion callback. */
  get _completions(): [string, CompleteCallback][] {
    return Object.entries(this.#callbacks.complete ?? {});
  }
}

const COMPLETERS = new WeakMap<object, CompleteCallback>();

/**
 * A prompt argument schema whose values the client can complete (`completion/complete`), as
 * the TypeScript SDK's `completable`: returns `schema`, with `complete` attached.
 */
export function completable<S extends SchemaLike>(schema: S, complete: CompleteCallback): S {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) {
    throw new TypeError('completable(schema, complete): schema must be a schema');
  }
  if (typeof complete !== 'function') throw new TypeError('completable(schema, complete): complete must be a function');
  COMPLETERS.set(schema, complete);
  return schema;
}

/** A registered tool: its configuration, and what changes it. */
export interface RegisteredTool {
  readonly name: string;
  title?: string;
  description?: string;
  inputSchema?: ArgsSchema;
  outputSchema?: ArgsSchema;
  annotations?: ToolAnnotations;
  _meta?: JsonObject;
  callback: ToolCallback<ArgsSchema | undefined>;
  /** The callback, under the TypeScript SDK 1.2x name. */
  readonly handler: ToolCallback<ArgsSchema | undefined>;
  enabled: boolean;
  /** List and serve it again. */
  enable(): void;
  /** Stop listing and serving it (calls get "Unknown tool"). */
  disable(): void;
  /** Change any of these; `name: null` removes the tool. */
  update(updates: {
    name?: string | null;
    title?: string;
    description?: string;
    paramsSchema?: ArgsSchema;
    outputSchema?: ArgsSchema;
    annotations?: ToolAnnotations;
    _meta?: JsonObject;
    callback?: ToolCallback<ArgsSchema | undefined>;
    enabled?: boolean;
  }): void;
  /** Unregister it. */
  remove(): void;
}

/** The metadata of a resource or resource template. */
export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  icons?: Icon[];
  _meta?: JsonObject;
}

/** A registered fixed resource. */
export interface RegisteredResource {
  readonly name: string;
  title?: string;
  metadata?: ResourceMetadata;
  readCallback: ReadResourceCallback;
  enabled: boolean;
  enable(): void;
  disable(): void;
  /** Change any of these; `uri: null` removes the resource. */
  update(updates: {
    name?: string;
    title?: string;
    uri?: string | null;
    metadata?: ResourceMetadata;
    callback?: ReadResourceCallback;
    enabled?: boolean;
  }): void;
  remove(): void;
}

/** A registered resource template. */
export interface RegisteredResourceTemplate {
  resourceTemplate: ResourceTemplate;
  title?: string;
  metadata?: ResourceMetadata;
  readCallback: ReadResourceTemplateCallback;
  enabled: boolean;
  enable(): void;
  disable(): void;
  /** Change any of these; `name: null` removes the template. */
  update(updates: {
    name?: string | null;
    title?: string;
    template?: ResourceTemplate;
    metadata?: ResourceMetadata;
    callback?: ReadResourceTemplateCallback;
    enabled?: boolean;
  }): void;
  remove(): void;
}

/** A registered prompt. */
export interface RegisteredPrompt {
  readonly name: string;
  title?: string;
  description?: string;
  argsSchema?: RawShape | SchemaLike;
  callback: PromptCallback<RawShape | SchemaLike | undefined>;
  enabled: boolean;
  enable(): void;
  disable(): void;
  /** Change any of these; `name: null` removes the prompt. */
  update(updates: {
    name?: string | null;
    title?: string;
    description?: string;
    argsSchema?: RawShape | SchemaLike;
    callback?: PromptCallback<RawShape | SchemaLike | undefined>;
    enabled?: boolean;
  }): void;
  remove(): void;
}

/** The tool configuration of `registerTool`. */
export interface ToolConfig<S extends ArgsSchema | undefined, O extends ArgsSchema | undefined> {
  title?: string;
  description?: string;
  inputSchema?: S;
  outputSchema?: O;
  annotations?: ToolAnnotations;
  _meta?: JsonObject;
}

/** The prompt configuration of `registerPrompt`. */
export interface PromptConfig<S extends RawShape | SchemaLike | undefined> {
  title?: string;
  description?: string;
  argsSchema?: S;
}

/** What `connect()` takes: a `StdioServerTransport`. */
export interface ServerTransport {
  /** @internal */
  _serve(server: McpServer): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

const EMPTY_INPUT = { type: 'object', properties: {} };

function duplicate(kind: string, key: string): Error {
  return new Error(`${kind} ${key} is already registered`);
}

function callbackOf<F>(f: unknown, what: string): F {
  if (typeof f !== 'function') throw new TypeError(`${what}: the callback must be a function`);
  return f as F;
}

/**
 * The TypeScript SDK's `McpServer` over Ferrite's core: `registerTool`, `registerResource`
 * (a URI or a `ResourceTemplate`), `registerPrompt` (and the older `tool`, `resource`,
 * `prompt`), handles that change what is served, and `connect(new StdioServerTransport())`.
 */
export class McpServer {
  /** The Ferrite server underneath (in the TypeScript SDK, the low-level `Server`). */
  readonly server: Server;
  #tools = new Map<string, RegisteredTool>();
  #resources = new Map<string, RegisteredResource>();
  #templates = new Map<string, RegisteredResourceTemplate>();
  /** URIs registered from template listings, by template name. */
  #listed = new Map<string, Set<string>>();
  #prompts = new Map<string, RegisteredPrompt>();
  #transport: ServerTransport | undefined;

  constructor(serverInfo: ServerInfo, options?: McpServerOptions) {
    if (serverInfo === null || typeof serverInfo !== 'object') {
      throw new TypeError('new McpServer(serverInfo, options?): serverInfo must be { name, version }');
    }
    const { capabilities, ...rest } = options ?? {};
    const subscribe = capabilities?.resources?.subscribe === true;
    this.server = new Server({
      ...rest,
      name: serverInfo.name,
      version: serverInfo.version,
      title: serverInfo.title,
      description: serverInfo.description,
      websiteUrl: serverInfo.websiteUrl,
      icons: serverInfo.icons,
      // As the TypeScript SDK: list changes are announced for every kind.
      listChanged: rest.listChanged ?? true,
      subscriptions: rest.subscriptions ?? subscribe,
    });
  }

  // ----- tools -----

  /** Register a tool (the TypeScript SDK's `registerTool`); returns its handle. */
  registerTool<S extends ArgsSchema | undefined = undefined, O extends ArgsSchema | undefined = undefined>(
    name: string,
    config: ToolConfig<S, O>,
    cb: ToolCallback<S>,
  ): RegisteredTool {
    if (this.#tools.has(name)) throw duplicate('Tool', name);
    const { title, description, inputSchema, outputSchema, annotations, _meta } = config ?? {};
    return this.#tool(name, { title, description, inputSchema, outputSchema, annotations, _meta }, cb as never);
  }

  /**
   * The TypeScript SDK's older `tool(name, description?, paramsSchemaOrAnnotations?,
   * annotations?, cb)`.
   */
  tool(name: string, cb: ToolCallback): RegisteredTool;
  tool(name: string, description: string, cb: ToolCallback): RegisteredTool;
  tool<S extends RawShape>(name: string, paramsSchema: S, cb: ToolCallback<S>): RegisteredTool;
  tool<S extends RawShape>(name: string, description: string, paramsSchema: S, cb: ToolCallback<S>): RegisteredTool;
  tool(name: string, annotations: ToolAnnotations, cb: ToolCallback): RegisteredTool;
  tool<S extends RawShape>(name: string, paramsSchema: S, annotations: ToolAnnotations, cb: ToolCallback<S>): RegisteredTool;
  tool<S extends RawShape>(
    name: string,
    description: string,
    paramsSchema: S,
    annotations: ToolAnnotations,
    cb: ToolCallback<S>,
  ): RegisteredTool;
  tool(name: string, ...rest: unknown[]): RegisteredTool {
    if (this.#tools.has(name)) throw duplicate('Tool', name);
    let description: string | undefined;
    let inputSchema: ArgsSchema | undefined;
    let annotations: ToolAnnotations | undefined;
    if (typeof rest[0] === 'string') description = rest.shift() as string;
    if (rest.length > 1) {
      const first = rest[0];
      if (isRawShape(first)) {
        inputSchema = rest.shift() as RawShape;
        if (rest.length > 1 && typeof rest[0] === 'object' && rest[0] !== null && !isRawShape(rest[0])) {
          annotations = rest.shift() as ToolAnnotations;
        }
      } else if (typeof first === 'object' && first !== null) {
        if (Object.values(first).some((v) => typeof v === 'object' && v !== null)) {
          throw new TypeError(`Tool ${name} expected a schema or ToolAnnotations, but received an unrecognized object`);
        }
        annotations = rest.shift() as ToolAnnotations;
      }
    }
    return this.#tool(name, { description, inputSchema, annotations }, rest[0] as never);
  }

  #tool(
    name: string,
    config: Omit<RegisteredTool, 'name' | 'callback' | 'handler' | 'enabled' | 'enable' | 'disable' | 'update' | 'remove'>,
    cb: ToolCallback<ArgsSchema | undefined>,
  ): RegisteredTool {
    callbackOf(cb, `tool ${name}`);
    const server = this.server;
    const tools = this.#tools;
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
          this.sendToolListChanged();
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
        this.sendToolListChanged();
      },
    };
    apply(handle);
    tools.set(name, handle);
    this.sendToolListChanged();
    return handle;
  }

  // ----- resources -----

  /** Register a resource at a fixed URI, or a `ResourceTemplate` (the TypeScript SDK's `registerResource`). */
  registerResource(name: string, uri: string, config: ResourceMetadata, readCallback: ReadResourceCallback): RegisteredResource;
  registerResource(
    name: string,
    template: ResourceTemplate,
    config: ResourceMetadata,
    readCallback: ReadResourceTemplateCallback,
  ): RegisteredResourceTemplate;
  registerResource(
    name: string,
    uriOrTemplate: string | ResourceTemplate,
    config: ResourceMetadata,
    readCallback: ReadResourceCallback | ReadResourceTemplateCallback,
  ): RegisteredResource | RegisteredResourceTemplate {
    const { title, ...metadata } = config ?? {};
    if (typeof uriOrTemplate === 'string') {
      return this.#resource(name, title, uriOrTemplate, config ?? {}, readCallback as ReadResourceCallback);
    }
    return this.#template(name, title, uriOrTemplate, metadata, readCallback as ReadResourceTemplateCallback);
  }

  /** The TypeScript SDK's older `resource(name, uriOrTemplate, metadata?, readCallback)`. */
  resource(name: string, uri: string, readCallback: ReadResourceCallback): RegisteredResource;
  resource(name: string, uri: string, metadata: ResourceMetadata, readCallback: ReadResourceCallback): RegisteredResource;
  resource(name: string, template: ResourceTemplate, readCallback: ReadResourceTemplateCallback): RegisteredResourceTemplate;
  resource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    readCallback: ReadResourceTemplateCallback,
  ): RegisteredResourceTemplate;
  resource(name: string, uriOrTemplate: string | ResourceTemplate, ...rest: unknown[]): RegisteredResource | RegisteredResourceTemplate {
    const metadata = (typeof rest[0] === 'object' && rest[0] !== null ? rest.shift() : undefined) as ResourceMetadata | undefined;
    if (typeof uriOrTemplate === 'string') {
      return this.#resource(name, undefined, uriOrTemplate, metadata ?? {}, rest[0] as ReadResourceCallback);
    }
    return this.#template(name, undefined, uriOrTemplate, metadata ?? {}, rest[0] as ReadResourceTemplateCallback);
  }

  #resource(
    name: string,
    title: string | undefined,
    uri: string,
    metadata: ResourceMetadata,
    cb: ReadResourceCallback,
  ): RegisteredResource {
    if (typeof uri !== 'string') throw new TypeError(`resource ${name}: the URI must be a string`);
    if (this.#resources.has(uri)) throw duplicate('Resource', uri);
    callbackOf(cb, `resource ${uri}`);
    const server = this.server;
    const resources = this.#resources;
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
          this.sendResourceListChanged();
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
        this.sendResourceListChanged();
      },
    };
    apply(handle);
    resources.set(uri, handle);
    this.sendResourceListChanged();
    return handle;
  }

  #template(
    name: string,
    title: string | undefined,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    cb: ReadResourceTemplateCallback,
  ): RegisteredResourceTemplate {
    if (!(template instanceof ResourceTemplate)) {
      throw new TypeError(`resource ${name}: the second argument must be a URI string or a ResourceTemplate`);
    }
    if (this.#templates.has(name)) throw duplicate('Resource template', name);
    callbackOf(cb, `resource template ${name}`);
    const server = this.server;
    const templates = this.#templates;
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
      this.#list(current, t);
    };
    const unapply = () => {
      if (registered !== undefined) server.removeResourceTemplate(registered);
      registered = undefined;
      this.#unlist(current);
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
          this.sendResourceListChanged();
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
        this.sendResourceListChanged();
      },
    };
    // Registered before `apply`, so a synchronous `list` callback finds it current.
    templates.set(name, handle);
    apply(handle);
    this.sendResourceListChanged();
    return handle;
  }

  /**
   * Register what a template's `list` callback returns as resources the core lists, each
   * read through the template's callback with the variables its URI binds (matched by the
   * core). Called when the template is registered or changed and on `refreshResourceLists()`.
   */
  #list(name: string, t: RegisteredResourceTemplate): void {
    const list = t.resourceTemplate.listCallback;
    if (list === undefined) return;
    const uriTemplate = t.resourceTemplate.uriTemplate;
    const register = (result: { resources: Resource[] }) => {
      if (this.#templates.get(name) !== t || !t.enabled) return;
      this.#unlist(name);
      const uris = new Set<string>();
      for (const r of result?.resources ?? []) {
        if (typeof r?.uri !== 'string' || this.#resources.has(r.uri)) continue;
        const variables = JSON.parse(matchUriTemplate(uriTemplate, r.uri) ?? '{}') as { [name: string]: string };
        const { title: _t, ...meta } = t.metadata ?? {};
        const { uri, name: resourceName, ...own } = r;
        this.server.resource(resourceName, uri, { ...meta, title: t.title, ...own }, (u, ctx) =>
          t.readCallback(new URL(u), variables, ctx),
        );
        uris.add(uri);
      }
      this.#listed.set(name, uris);
      this.sendResourceListChanged();
    };
    try {
      const out = list(undefined);
      if (out instanceof Promise) out.then(register, (e: unknown) => this.#listFailed(name, e));
      else register(out);
    } catch (e) {
      this.#listFailed(name, e);
    }
  }

  #listFailed(name: string, e: unknown): void {
    process.emitWarning(`ferrite-mcp: the list callback of resource template ${name} failed: ${(e as Error)?.message ?? e}`);
  }

  #unlist(name: string): void {
    for (const uri of this.#listed.get(name) ?? []) {
      if (!this.#resources.has(uri)) this.server.removeResource(uri);
    }
    this.#listed.delete(name);
  }

  /**
   * Call every template's `list` callback again and serve what it returns (Ferrite calls
   * `list` when a template is registered or changed, the TypeScript SDK on every
   * `resources/list`).
   */
  refreshResourceLists(): void {
    for (const [name, t] of this.#templates) this.#list(name, t);
  }

  // ----- prompts -----

  /** Register a prompt (the TypeScript SDK's `registerPrompt`); returns its handle. */
  registerPrompt<S extends RawShape | SchemaLike | undefined = undefined>(
    name: string,
    config: PromptConfig<S>,
    cb: PromptCallback<S>,
  ): RegisteredPrompt {
    if (this.#prompts.has(name)) throw duplicate('Prompt', name);
    const { title, description, argsSchema } = config ?? {};
    return this.#prompt(name, { title, description, argsSchema }, cb as never);
  }

  /** The TypeScript SDK's older `prompt(name, description?, argsSchema?, cb)`. */
  prompt(name: string, cb: PromptCallback): RegisteredPrompt;
  prompt(name: string, description: string, cb: PromptCallback): RegisteredPrompt;
  prompt<S extends RawShape>(name: string, argsSchema: S, cb: PromptCallback<S>): RegisteredPrompt;
  prompt<S extends RawShape>(name: string, description: string, argsSchema: S, cb: PromptCallback<S>): RegisteredPrompt;
  prompt(name: string, ...rest: unknown[]): RegisteredPrompt {
    if (this.#prompts.has(name)) throw duplicate('Prompt', name);
    const description = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    const argsSchema = rest.length > 1 ? (rest.shift() as RawShape) : undefined;
    return this.#prompt(name, { description, argsSchema }, rest[0] as never);
  }

  #prompt(
    name: string,
    config: Pick<RegisteredPrompt, 'title' | 'description' | 'argsSchema'>,
    cb: PromptCallback<RawShape | SchemaLike | undefined>,
  ): RegisteredPrompt {
    callbackOf(cb, `prompt ${name}`);
    const server = this.server;
    const prompts = this.#prompts;
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
          const complete = COMPLETERS.get(field);
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
          this.sendPromptListChanged();
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
        this.sendPromptListChanged();
      },
    };
    apply(handle);
    prompts.set(name, handle);
    this.sendPromptListChanged();
    return handle;
  }

  // ----- notifications -----

  /** `notifications/tools/list_changed` to connected clients and the 2026-07-28 listen streams that asked for it. */
  sendToolListChanged(): void {
    this.server.notifyToolsListChanged();
  }
  /** `notifications/resources/list_changed` to connected clients and the listen streams that asked for it. */
  sendResourceListChanged(): void {
    this.server.notifyResourcesListChanged();
  }
  /** `notifications/prompts/list_changed` to connected clients and the listen streams that asked for it. */
  sendPromptListChanged(): void {
    this.server.notifyPromptsListChanged();
  }

  // ----- serving -----

  /**
   * Serve on `transport`: a `StdioServerTransport` (resolves once serving started; serving
   * goes on until stdin ends or `close()`). For Streamable HTTP use `listen()`.
   */
  async connect(transport: ServerTransport): Promise<void> {
    if (transport === null || typeof transport !== 'object' || typeof transport._serve !== 'function') {
      throw new TypeError(
        'connect(transport): ferrite-mcp serves stdio through a StdioServerTransport; for Streamable HTTP call mcpServer.listen({ port })',
      );
    }
    if (this.#transport !== undefined) throw new Error('Already connected to a transport. Call close() before connecting again.');
    this.#transport = transport;
    const serving = transport._serve(this);
    serving.then(
      () => this.close(),
      (e: unknown) => {
        transport.onerror?.(e instanceof Error ? e : new Error(String(e)));
        return this.close();
      },
    );
  }

  /** Serve Streamable HTTP (the core's transport); resolves once bound to `{ host, port, url }`. */
  listen(options?: ListenOptions): Promise<ListenAddress> {
    return this.server.listen(options);
  }

  /** Whether `connect()` was called and the server is not closed. */
  isConnected(): boolean {
    return this.#transport !== undefined;
  }

  /** Stop serving and release the runtime; in-flight requests finish first. */
  async close(): Promise<void> {
    const transport = this.#transport;
    this.#transport = undefined;
    await this.server.close();
    transport?.onclose?.();
  }
}

