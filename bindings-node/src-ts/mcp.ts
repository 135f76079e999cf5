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
 * `sample`, ...); resource callbacks get a `URL`. The handles themselves are built in
 * `mcp-handles.ts`.
 */

import type { ArgsSchema, LoggingMessage, RawShape, Resource, SchemaLike, ToolAnnotations } from './model.js';
import { matchUriTemplate } from './native.js';
import { isRawShape } from './schema.js';
import type { FetchInit, MountOptions, NodeHandler, NodeHandlerOptions } from './mount.js';
import { Server, type ListenOptions } from './server.js';
import type { ListenAddress } from './transports.js';
import type { ResourceTemplate } from './resource-template.js';
import { duplicate, promptHandle, resourceHandle, templateHandle, toolHandle } from './mcp-handles.js';
import type {
  ExperimentalMcpServerTasks,
  McpServerOptions,
  PromptCallback,
  PromptConfig,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ResourceMetadata,
  ServerInfo,
  ServerTransport,
  ToolCallback,
  ToolConfig,
  ToolTaskConfig,
} from './mcp-types.js';

export * from './mcp-types.js';
export { completable, ResourceTemplate } from './resource-template.js';

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
  /**
   * The TypeScript SDK's experimental features: `experimental.tasks.registerToolTask(name,
   * config, cb)` registers a tool that runs as a task (see `registerToolTask`).
   */
  readonly experimental: { readonly tasks: ExperimentalMcpServerTasks };

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
    this.experimental = Object.freeze({
      tasks: Object.freeze({
        registerToolTask: <S extends ArgsSchema | undefined = undefined, O extends ArgsSchema | undefined = undefined>(
          name: string,
          config: ToolTaskConfig<S, O>,
          cb: ToolCallback<S>,
        ): RegisteredTool => this.#registerToolTask(name, config, cb as never),
      }),
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
    const { title, description, inputSchema, outputSchema, annotations, execution, _meta } = config ?? {};
    return this.#tool(name, { title, description, inputSchema, outputSchema, annotations, execution, _meta }, cb as never);
  }

  #registerToolTask(name: string, config: ToolTaskConfig<ArgsSchema | undefined, ArgsSchema | undefined>, cb: unknown): RegisteredTool {
    if (cb !== null && typeof cb === 'object' && 'createTask' in cb) {
      throw new TypeError(
        `registerToolTask ${name}: pass an ordinary tool callback ((args, extra) => result): Ferrite's core creates, ` +
          'stores, polls and cancels the task and runs the callback as its body (the { createTask, getTask, ' +
          'getTaskResult } handler object of the TypeScript SDK is not used)',
      );
    }
    const execution = { taskSupport: 'required' as const, ...config?.execution };
    if ((execution.taskSupport as string) === 'forbidden') {
      throw new Error(`Cannot register task-based tool '${name}' with taskSupport 'forbidden'. Use registerTool() instead.`);
    }
    return this.registerTool(name, { ...config, execution }, cb as never);
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
    const host = { server: this.server, registry: this.#tools, changed: () => this.sendToolListChanged() };
    return toolHandle(host, name, config, cb);
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
    const host = { server: this.server, registry: this.#resources, changed: () => this.sendResourceListChanged() };
    return resourceHandle(host, name, title, uri, metadata, cb);
  }

  #template(
    name: string,
    title: string | undefined,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    cb: ReadResourceTemplateCallback,
  ): RegisteredResourceTemplate {
    const host = { server: this.server, registry: this.#templates, changed: () => this.sendResourceListChanged() };
    const listing = {
      list: (n: string, t: RegisteredResourceTemplate) => this.#list(n, t),
      unlist: (n: string) => this.#unlist(n),
    };
    return templateHandle(host, listing, name, title, template, metadata, cb);
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
    const host = { server: this.server, registry: this.#prompts, changed: () => this.sendPromptListChanged() };
    return promptHandle(host, name, config, cb);
  }

  // ----- notifications -----

  /**
   * `notifications/message` to the connected clients whose minimum level `params.level`
   * reaches, or with `sessionId` to that session only (the TypeScript SDK's signature).
   */
  async sendLoggingMessage(params: LoggingMessage, sessionId?: string): Promise<void> {
    this.server.sendLoggingMessage(params, sessionId);
  }
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

  /** Serve one request of a web-standard server (Hono, Next.js): see `Server.fetch`. */
  fetch(request: Request, init?: FetchInit): Promise<Response> {
    return this.server.fetch(request, init);
  }

  /** `fetch` with the endpoint's options set: see `Server.fetchHandler`. */
  fetchHandler(options?: MountOptions): (request: Request, init?: FetchInit) => Promise<Response> {
    return this.server.fetchHandler(options);
  }

  /** A `(req, res, parsedBody?)` handler for node:http, express and fastify: see `Server.nodeHandler`. */
  nodeHandler(options?: NodeHandlerOptions): NodeHandler {
    return this.server.nodeHandler(options);
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


