/**
 * The `Server`: options, registration (delegated to `registration.ts`), notifications (the
 * client's observed by `observers.ts`), the 2026-07-28 settings, and serving (delegated to
 * `transports.ts`). Every protocol decision is the Rust core's; this class converts and
 * forwards. The types its methods take are in `server-types.ts` (re-exported here).
 */

import { nativeVerifier, verifierFunction } from './auth.js';
import { Connection, type ConnectionOptions } from './connection.js';
import * as fleet from './fleet.js';
import type { RedisOptions } from './fleet.js';
import type { Context } from './context.js';
import { RequestCancelledError, UpstreamError, clientRequestResult } from './errors.js';
import type {
  ArgsSchema,
  CacheHint,
  CacheHints,
  CompleteRequest,
  CompletionReference,
  CompletionReturn,
  CompletionSource,
  JsonObject,
  JsonSchema,
  LoggingMessage,
  SchemaLike,
  SkillFiles,
} from './model.js';
import { NativeServer, telemetryFlush, telemetryShutdown } from './native.js';
import * as middleware from './middleware.js';
import type { Middleware } from './middleware.js';
import * as mount from './mount.js';
import type { FetchInit, MountOptions, NodeHandler, NodeHandlerOptions } from './mount.js';
import * as register from './registration.js';
import { NotificationObservers, type NotificationHandler } from './observers.js';
import type {
  Limits,
  ListenOptions,
  MethodHandler,
  PromptConfig,
  PromptHandler,
  ResourceHandler,
  ResourceMetadata,
  ResourceTemplateHandler,
  ResourceTemplateMetadata,
  ProxyUpstream,
  ServerOptions,
  ToolConfig,
  ToolHandler,
} from './server-types.js';
import * as transports from './transports.js';
import type { ListenAddress } from './transports.js';

export type { ListenAddress } from './transports.js';
export type { FetchInit, MountOptions, NodeHandler, NodeHandlerOptions } from './mount.js';
export type {
  Limits,
  ListenOptions,
  MethodHandler,
  PromptConfig,
  PromptHandler,
  ResourceHandler,
  ResourceMetadata,
  ResourceTemplateHandler,
  ResourceTemplateMetadata,
  ProxyUpstream,
  ServerOptions,
  ToolConfig,
  ToolHandler,
} from './server-types.js';

/** An MCP server: register tools, resources, prompts and completions, then serve. */
let telemetryAtExit = false;

/** Export the pending spans and metrics now (after `enableTelemetry`); the exporters stay. */
export function flushTelemetry(): void {
  telemetryFlush();
}

/** What `Server.stats()` answers. */
export interface ServerStats {
  sseStreams: number;
  tasksRunning: number;
  tasksCreated: number;
  storeRoundTrips: number;
}

export class Server implements AsyncDisposable {
  #native: NativeServer;
  /** What the registration helpers need: the native server and this. */
  #host: register.Host;
  #watched = new Map<number, AbortController>();
  #observers: NotificationObservers;
  #closed: Promise<void> | undefined;
  /** The servers mounted here (kept: their handlers run through their own native server). */
  #children = new Map<Server, Set<string>>();

  constructor(options: ServerOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('new Server(options): options must be an object');
    if (typeof options.name !== 'string' || typeof options.version !== 'string') {
      throw new TypeError('new Server(options): name and version must be strings');
    }
    const { name, version, title, description, websiteUrl, icons, instructions, stateless, stateful, workerThreads, auth, tasks } =
      options;
    const verify = verifierFunction(options.verifyAccessToken);
    this.#native = new NativeServer(
      JSON.stringify(
        register.definedOnly({
          name,
          version,
          title,
          description,
          websiteUrl,
          icons,
          instructions,
          stateless,
          stateful,
          workerThreads,
          auth,
          tasks,
        }),
      ),
      verify === undefined ? undefined : nativeVerifier(verify),
    );
    this.#host = { native: this.#native, server: this };
    this.#observers = new NotificationObservers(this.#native);
    const n = this.#native;
    if (options.logging === false) n.setLogging(false);
    if (options.subscriptions) n.enableResourceSubscriptions();
    const lc = options.listChanged;
    for (const kind of ['tools', 'resources', 'prompts'] as const) {
      if (lc === true || (typeof lc === 'object' && lc !== null && lc[kind])) n.enableListChanged(kind);
    }
    if (options.pageSize !== undefined) n.setPageSize(options.pageSize);
    if (options.requireInitialized) n.requireInitialized();
    if (options.validateInput === false) n.setInputValidation(false);
    if (options.validateOutput !== false) n.enableOutputValidation();
    if (options.limits !== undefined) this.setLimits(options.limits);
    n.setCancelCallback((slot) => {
      const controller = this.#watched.get(slot);
      if (controller !== undefined) controller.abort(new RequestCancelledError());
    });
  }

  /** @internal */
  _watch(slot: number, controller: AbortController): void {
    this.#watched.set(slot, controller);
  }
  /** @internal */
  _unwatch(slot: number): void {
    this.#watched.delete(slot);
  }

  // ----- registration -----

  /**
   * Register (or replace) a tool. `config.inputSchema`/`outputSchema` take JSON Schema, a
   * Standard Schema (zod, valibot, arktype, ...) or a raw shape; with a schema the handler
   * receives the parsed arguments.
   */
  tool<S extends ArgsSchema = JsonSchema>(name: string, config: ToolConfig<S>, handler: ToolHandler<S>): void;
  tool(name: string, handler: ToolHandler<JsonSchema>): void;
  tool(name: string, config: object, handler?: (args: never, ctx: Context) => unknown): void {
    register.tool(this.#host, name, config as register.ToolSpec, handler);
  }
  /** Remove a tool; whether it existed. */
  removeTool(name: string): boolean {
    return this.#native.removeTool(name);
  }

  /** Register (or replace) a resource at a fixed URI. */
  resource(name: string, uri: string, metadata: ResourceMetadata, handler: ResourceHandler): void;
  resource(name: string, uri: string, handler: ResourceHandler): void;
  resource(name: string, uri: string, metadata: ResourceMetadata | ResourceHandler, handler?: ResourceHandler): void {
    register.resource(this.#host, name, uri, metadata, handler);
  }
  /** Remove a resource; whether it existed. */
  removeResource(uri: string): boolean {
    return this.#native.removeResource(uri);
  }

  /**
   * Register a resource template (RFC 6570). The handler gets the URI and the captured
   * variables; `metadata.complete` maps a variable to its completion values or function.
   */
  resourceTemplate(name: string, uriTemplate: string, metadata: ResourceTemplateMetadata, handler: ResourceTemplateHandler): void;
  resourceTemplate(name: string, uriTemplate: string, handler: ResourceTemplateHandler): void;
  resourceTemplate(
    name: string,
    uriTemplate: string,
    metadata: ResourceTemplateMetadata | ResourceTemplateHandler,
    handler?: ResourceTemplateHandler,
  ): void {
    register.resourceTemplate(this.#host, name, uriTemplate, metadata, handler);
  }
  /** Remove a resource template; whether it existed. */
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.#native.removeResourceTemplate(uriTemplate);
  }

  /**
   * Register (or replace) a prompt. `config.argsSchema` (a schema, raw shape or JSON Schema)
   * or `config.arguments` (MCP PromptArgument list) declares its arguments; `config.complete`
   * maps an argument to its completion values or function.
   */
  prompt<S extends ArgsSchema = JsonSchema>(name: string, config: PromptConfig<S>, handler: PromptHandler<S>): void;
  prompt(name: string, handler: PromptHandler<JsonSchema>): void;
  prompt(name: string, config: object, handler?: (args: never, ctx: Context) => unknown): void {
    register.prompt(this.#host, name, config as register.PromptSpec, handler);
  }
  /** Remove a prompt; whether it existed. */
  removePrompt(name: string): boolean {
    return this.#native.removePrompt(name);
  }

  /**
   * Completion for one argument of a prompt (`{type: "ref/prompt", name}`) or resource
   * template (`{type: "ref/resource", uri}`): a list of candidates (prefix-matched by the
   * core) or a function `(value, { arguments }, ctx) => string[] | { values, total?, hasMore? }`
   * (a list is capped by the core at 100 values, with `total` and `hasMore`).
   */
  completion(ref: CompletionReference, argument: string, values: CompletionSource): void {
    register.completion(this.#host, ref, argument, values);
  }
  /** The global completion handler, tried before per-argument completions. */
  completionHandler(handler: (request: CompleteRequest, ctx: Context) => CompletionReturn | Promise<CompletionReturn>): void {
    register.completionHandler(this.#host, handler as never);
  }

  /**
   * Serve a custom request method (both eras): `handler(params, ctx)` gets the params object
   * without `_meta` and returns an object (or a Promise of one). The core's own methods
   * cannot be replaced (a TypeError).
   */
  addMethod(name: string, handler: MethodHandler): void {
    register.method(this.#host, name, handler);
  }
  /**
   * Add a middleware at the end of the chain (the first added runs first, outermost): a
   * function `(context, next)` or an object of typed hooks (`onCallTool`, `onListTools`, ...).
   * See `middleware.ts`. Returns the server, for chaining.
   */
  use(mw: Middleware): this {
    middleware.use(this.#host, mw);
    return this;
  }
  /**
   * Add one of the core's built-in middleware (no JavaScript in its path) at the end of the
   * chain: `timing`, `logging` (`{level}`), `rateLimit` (`{perSecond, burst?, key?: 'client' |
   * 'session' | 'global', methods?}`), `cache` (`{maxEntries?}`) or `errorMasking`
   * (`{message?}`); the core's snake_case names work too. An unknown name or a bad
   * configuration is a TypeError. Their events are the `ferrite::request` diagnostics.
   */
  useBuiltin(name: string, config: Record<string, unknown> = {}): this {
    const core = String(name).replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
    this.#native.addBuiltinMiddleware(core, JSON.stringify(config ?? {}));
    return this;
  }
  /**
   * Turn OpenTelemetry on: OTLP/HTTP exporters for spans and metrics (once per process,
   * configured by the standard `OTEL_*` environment variables) and a span plus metrics per
   * request following the MCP semantic conventions, recorded in the core. What is pending is
   * exported when the process exits (or call `flushTelemetry()`).
   */
  enableTelemetry(): this {
    this.#native.enableTelemetry();
    if (!telemetryAtExit) {
      telemetryAtExit = true;
      process.once('exit', () => telemetryShutdown());
    }
    return this;
  }
  /**
   * Serve `child`'s tools, prompts, resources, resource templates and completions from this
   * server under `prefix`: tools and prompts become `${prefix}_${name}`, URIs
   * `scheme://${prefix}/rest`; `''` keeps the names. Custom methods and extensions come as they
   * are. The mount is live: what `child` registers or removes later shows here, and its
   * notifications (list changes, resource updates) reach this server's clients. Its handlers
   * run as registered, with their own names and URIs; this server's own registrations win over
   * mounted ones of the same name, and this server's middleware runs, not `child`'s. Closing
   * `child` unmounts it. A prefix with characters other than ASCII letters, digits, `-`, `_`
   * and `.`, or a mount that makes a cycle, is a TypeError. Returns the server, for chaining.
   */
  mount(prefix: string, child: Server): this {
    if (!(child instanceof Server)) throw new TypeError('mount(prefix, child): child must be a Server');
    this.#native.mountServer(String(prefix), child.#native);
    this.#children.set(child, (this.#children.get(child) ?? new Set()).add(String(prefix)));
    return this;
  }
  /**
   * Serve what another MCP server serves: `{command, args?, env?}` starts a child speaking MCP
   * on stdio, `{url, headers?}` reaches a Streamable HTTP endpoint; `era` is `'auto'` (the
   * default: each client's request upstream in the client's era, when the upstream serves
   * both), `'handshake'` or `'modern'`. Connects now; then the upstream's tools, resources,
   * templates and prompts are served here and forwarded (progress, logs, sampling,
   * elicitation and cancellation go between the upstream and the client of the call), its list
   * changes followed, its completions, subscriptions and custom methods forwarded. Rejects
   * with an `UpstreamError` when the upstream cannot be started, reached or initialized, and a
   * TypeError for a description of no upstream. Resolves to the server, for chaining.
   */
  async proxy(upstream: ProxyUpstream): Promise<this> {
    const { timeout, ...rest } = upstream ?? ({} as ProxyUpstream);
    const spec = timeout === undefined ? rest : { ...rest, timeout_ms: timeout };
    const envelope = JSON.parse(await this.#native.proxy(JSON.stringify(spec))) as {
      error?: { kind: string; message: string };
    };
    if (envelope.error?.kind === 'invalid') throw new TypeError(envelope.error.message);
    if (envelope.error !== undefined) throw new UpstreamError(envelope.error.message);
    return this;
  }
  /** Stop serving what `child` was mounted with under `prefix`; whether it was mounted. */
  unmount(prefix: string, child: Server): boolean {
    if (!(child instanceof Server)) throw new TypeError('unmount(prefix, child): child must be a Server');
    const prefixes = this.#children.get(child);
    prefixes?.delete(String(prefix));
    if (prefixes?.size === 0) this.#children.delete(child);
    return this.#native.unmountServer(String(prefix), child.#native);
  }
  /** `use`, by another name. */
  addMiddleware(mw: Middleware): this {
    return this.use(mw);
  }
  /** Stop serving a custom method; whether it was served. */
  removeMethod(name: string): boolean {
    return this.#native.removeMethod(name);
  }

  /**
   * Serve a skill (the `io.modelcontextprotocol/skills` extension) at `root`
   * (`skill://name`) made of `files` (relative path -> text or bytes); the core computes
   * digests and sizes, serves `skills/list`, `skills/get`, `resources/directory/read` and the
   * files as resources, and advertises the extension.
   */
  addSkill(root: string, files: SkillFiles): void {
    register.skill(this.#host, root, files);
  }
  /** Serve a skill at `root` made of every file under directory `dir`. */
  addSkillDir(root: string, dir: string): void {
    if (typeof root !== 'string' || typeof dir !== 'string') throw new TypeError('addSkillDir(root, dir): root and dir must be strings');
    this.#native.addSkillDir(root, dir);
  }

  // ----- 2026-07-28 settings -----

  /**
   * Seal MRTR request state with `current` (64 hex characters, or base64 of 32 bytes; the
   * same on every instance behind one URL) and still accept states sealed with `previous`.
   */
  setRequestStateKeys(current: string, previous: string[] = []): void {
    if (typeof current !== 'string' || !Array.isArray(previous) || previous.some((k) => typeof k !== 'string')) {
      throw new TypeError('setRequestStateKeys(current, previous?): a key string and an array of key strings');
    }
    this.#native.setRequestStateKeys(current, previous);
  }
  /** How long a sealed request state stays valid, in milliseconds (default 15 minutes). */
  setRequestStateTtl(ms: number): void {
    if (typeof ms !== 'number') throw new TypeError('setRequestStateTtl(ms): ms must be a number');
    this.#native.setRequestStateTtl(ms);
  }
  /** The id of the current sealing key (not secret). */
  get requestStateKeyId(): string {
    return this.#native.requestStateKeyId();
  }

  // ----- limits -----

  /**
   * Change the dispatch limits named in `limits` (`maxBatchLen`, `maxInFlightPerConnection`,
   * `maxInFlight`, `maxJsonDepth`; see `Limits`); the others keep their value. They apply at once. Returns the
   * limits now in force. A bad value throws a `TypeError` with the core's message, changing
   * nothing.
   */
  setLimits(limits: Limits): Required<Limits> {
    return JSON.parse(this.#native.setLimits(JSON.stringify(limits ?? null))) as Required<Limits>;
  }
  /** The dispatch limits in force (every field). */
  get limits(): Required<Limits> {
    return JSON.parse(this.#native.limits()) as Required<Limits>;
  }
  /** Requests running now in the whole server (what `maxInFlight` bounds). */
  get inFlight(): number {
    return this.#native.inFlight();
  }

  // ----- a fleet (fleet.ts) -----

  /**
   * Keep the state the instances of a fleet share (tasks, fleet-wide notifications) in Redis
   * at `url` (`redis://host:port/db`), under keys starting with `options.keyPrefix` (default
   * `"ferrite:"`). Call it before serving: once a task exists its store is fixed (an `Error`,
   * code `ERR_INVALID_STATE`). Connects lazily: a Redis that is not up yet is a JSON-RPC error
   * for the requests that need it, and the client reconnects when it is back. A malformed URL
   * throws a `TypeError` with the core's message.
   */
  useRedis(url: string, options?: RedisOptions): void {
    fleet.useRedis(this.#native, url, options);
  }
  /** Round trips to Redis so far (requests that touch no shared state make none); `undefined` without `useRedis`. */
  get redisRoundTrips(): number | undefined {
    return this.#native.redisRoundTrips() ?? undefined;
  }

  /** Advertise extension `id` (`"com.example/name"`) with `settings` to 2026-07-28 clients. */
  addExtension(id: string, settings: JsonObject = {}): void {
    if (typeof id !== 'string') throw new TypeError('addExtension(id, settings?): id must be a string');
    this.#native.addExtension(id, JSON.stringify(settings));
  }
  /** Stop advertising extension `id`; whether it was advertised. */
  removeExtension(id: string): boolean {
    return this.#native.removeExtension(id);
  }

  /** The cache hints (2026-07-28 `ttlMs`/`cacheScope`) of `server/discover`, the lists and resource reads. */
  get cacheHints(): CacheHints {
    return JSON.parse(this.#native.cacheHints()) as CacheHints;
  }
  /**
   * Set the cache hints named in `hints` (`discover`, `toolsList`, `promptsList`,
   * `resourcesList`, `templatesList`, `resourceRead`, each `{ ttlMs, cacheScope }`); the
   * others keep their value. The core checks the shape (a TypeError names what is wrong).
   */
  setCacheHints(hints: Partial<CacheHints>): void {
    if (hints === null || typeof hints !== 'object' || Array.isArray(hints)) {
      throw new TypeError('setCacheHints(hints): hints must be an object');
    }
    this.#native.setCacheHints(JSON.stringify(hints));
  }
  /** The cache hint of reads of one registered resource or resource template (by URI or URI template). */
  setResourceCacheHint(uri: string, hint: CacheHint): void {
    if (typeof uri !== 'string') throw new TypeError('setResourceCacheHint(uri, hint): uri must be a string');
    this.#native.setResourceCacheHint(uri, JSON.stringify(hint ?? null));
  }

  // ----- notifications -----

  /** Observe client notifications (`method`, `params`). Returns a function that unsubscribes. */
  onNotification(listener: (method: string, params: JsonObject | undefined) => void): () => boolean {
    return this.#observers.onNotification(listener);
  }

  /**
   * Call `listener` when a client says its roots changed (`notifications/roots/list_changed`,
   * observed by the core); read the new ones with `ctx.listRoots()` in a request of that
   * client. Returns a function that unsubscribes.
   */
  onRootsListChanged(listener: () => void): () => boolean {
    return this.#observers.onRootsListChanged(listener);
  }

  /**
   * The TypeScript SDK's `server.setNotificationHandler(schema, handler)` for client
   * notifications: `schema` is a notification schema with a literal `method` (the SDK's
   * `RootsListChangedNotificationSchema`, or any zod object `{ method: z.literal(...) }`);
   * `handler` receives the notification (`{ method, params? }`, checked with the schema). One
   * handler per method: a second call replaces the first. `notifications/roots/list_changed`
   * goes through `onRootsListChanged`.
   */
  setNotificationHandler(schema: SchemaLike, handler: NotificationHandler): void {
    this.#observers.setNotificationHandler(schema, handler);
  }

  /** Remove the `setNotificationHandler` handler of `method`. */
  removeNotificationHandler(method: string): void {
    this.#observers.removeNotificationHandler(method);
  }

  /**
   * Send a notification to every handshake-era connected client; how many were reached.
   * (2026-07-28 listen streams receive only the kinds they asked for: use the methods below.)
   */
  notify(method: string, params?: JsonObject): number {
    return this.#native.notify(method, params === undefined ? undefined : JSON.stringify(params));
  }
  /**
   * `notifications/message` (`{ level, data, logger? }`) to every connected client whose
   * minimum level (`logging/setLevel`) `level` reaches, or with `sessionId` to that session
   * only; how many were reached. The server-wide form of the TypeScript SDK's
   * `sendLoggingMessage`; inside a handler, `ctx.log(...)` reaches the requesting client in
   * either era. Nothing is sent without the logging capability; an unknown level throws a
   * `TypeError`.
   */
  sendLoggingMessage(params: LoggingMessage, sessionId?: string): number {
    const data = JSON.stringify(params.data === undefined ? null : params.data);
    return this.#native.sendLogMessage(params.level, data, params.logger, sessionId);
  }
  /** `notifications/tools/list_changed`, also to the 2026-07-28 listen streams that asked for it; how many were reached. */
  notifyToolsListChanged(): number {
    return this.#native.notifyListChanged('tools');
  }
  /** `notifications/resources/list_changed`, also to the listen streams that asked for it. */
  notifyResourcesListChanged(): number {
    return this.#native.notifyListChanged('resources');
  }
  /** `notifications/prompts/list_changed`, also to the listen streams that asked for it. */
  notifyPromptsListChanged(): number {
    return this.#native.notifyListChanged('prompts');
  }
  /** `notifications/resources/updated` to the clients subscribed to `uri` and the listen streams watching it. */
  notifyResourceUpdated(uri: string): number {
    return this.#native.notifyResourceUpdated(uri);
  }
  /**
   * Tell the client on connection `connectionId` (`ctx.connectionId`, `connection.id`, an
   * entry of `connectedSessions`) that the URL elicitation `elicitationId` has completed
   * (`notifications/elicitation/complete`): the out-of-band end of a URL elicitation, for the
   * web page or callback that learns of it after the request that asked (or that threw
   * `UrlElicitationRequiredError`) has ended. The connection must be listening (a stdio
   * connection, a held `connection()`, or an HTTP session with its GET stream open) and have
   * negotiated 2025-11-25 or later; whether the notification went out.
   */
  notifyElicitationComplete(connectionId: string, elicitationId: string): boolean {
    if (typeof connectionId !== 'string' || typeof elicitationId !== 'string') {
      throw new TypeError('notifyElicitationComplete(connectionId, elicitationId): both must be strings');
    }
    return this.#native.notifyElicitationComplete(connectionId, elicitationId);
  }

  // ----- introspection -----

  /** The capabilities the server declares to handshake-era clients. */
  get capabilities(): JsonObject {
    return JSON.parse(this.#native.capabilities()) as JsonObject;
  }
  /** The registered tools' descriptors. */
  get tools(): JsonObject[] {
    return JSON.parse(this.#native.tools()) as JsonObject[];
  }
  /** Whether the server is stateless. */
  get isStateless(): boolean {
    return this.#native.isStateless();
  }
  /** Send `ping` to a connected client (by connection or session id); rejects with a `ClientRequestError` (kind "timeout", "noChannel", ...). */
  async pingClient(connectionId: string, timeoutMs = 10_000): Promise<void> {
    clientRequestResult(await this.#native.pingClient(connectionId, timeoutMs));
  }
  /** Ids of the connections currently listening. */
  get connectedSessions(): string[] {
    return this.#native.connectedSessions();
  }

  /**
   * What the server counts now (the figures telemetry exports as metrics): SSE streams open,
   * tasks running in this process, tasks created, and Redis round trips of `useRedis`.
   */
  stats(): ServerStats {
    return JSON.parse(this.#native.stats()) as ServerStats;
  }

  // ----- serving -----

  /** Handle raw JSON-RPC text in-process (the server's one in-process connection, no channel back); resolves to the response text ("" for none). */
  handleRaw(text: string): Promise<string> {
    return transports.handleRaw(this.#native, text);
  }

  /**
   * A new connection with its own state, for raw JSON-RPC text the application carries
   * itself; `onMessage` receives what the server sends on it (see `Connection`).
   */
  connection(options?: ConnectionOptions): Connection {
    const onMessage = options?.onMessage;
    if (onMessage !== undefined && typeof onMessage !== 'function') {
      throw new TypeError('connection(options): onMessage must be a function');
    }
    return new Connection(this.#native.connection(onMessage));
  }

  /**
   * Serve on stdin/stdout. Resolves when stdin ends or `close()` is called; until then it
   * keeps the process alive. Write logs to stderr: stdout carries the protocol.
   */
  connectStdio(options?: { maxLineBytes?: number }): Promise<void> {
    return transports.connectStdio(this.#native, options);
  }

  /**
   * Serve Streamable HTTP on `host:port` at `path` (defaults 127.0.0.1, a free port, /mcp).
   * Resolves once bound to `{ host, port, url }`; serving goes on (keeping the process
   * alive) until `close()`. A bad option rejects with a `TypeError` naming it.
   */
  listen(options?: ListenOptions): Promise<ListenAddress> {
    return transports.listen(this.#native, options);
  }

  /**
   * Serve one Streamable HTTP request of a web-standard server (Hono, Next.js route
   * handlers, any `fetch`-style server) through the server's mounted endpoint:
   * `app.all('/mcp', (c) => server.fetch(c.req.raw, { hostValues: { user: c.get('user') } }))`.
   * The request body is read chunk by chunk; an SSE response body is a `ReadableStream` that
   * pulls from the core as its reader reads; cancelling it, or aborting `request.signal`,
   * cancels the requests it carried. `init.hostValues` and `init.remoteAddress` reach
   * handlers as `ctx.requestInfo.hostValues` and `.remoteAddress`. The endpoint has the
   * default options unless `fetchHandler(options)` or `nodeHandler(options)` set them.
   */
  fetch(request: Request, init?: FetchInit): Promise<Response> {
    return mount.fetchResponse(this.#native, request, init);
  }

  /**
   * `fetch` with the endpoint's options set (the core's HTTP options, as `listen` takes
   * them; a bad one throws a `TypeError` naming it). One endpoint per server: a second call
   * with other options throws.
   */
  fetchHandler(options?: MountOptions): (request: Request, init?: FetchInit) => Promise<Response> {
    this.#native.mount(JSON.stringify(options ?? {}));
    return (request, init) => mount.fetchResponse(this.#native, request, init);
  }

  /**
   * A handler `(req, res, parsedBody?) => Promise<void>` serving Streamable HTTP for
   * node:http, express (`app.all('/mcp', server.nodeHandler())`) and fastify
   * (`(request, reply) => handler(request.raw, reply.raw, request.body)`). Headers come from
   * `req.rawHeaders`, the address from `req.socket`, the body from the stream, or from
   * `parsedBody` (or `req.body`) when a body parser already read it. Responses are written
   * as they come, honouring `res.write()` back-pressure; the client closing the connection
   * before the end cancels the requests it carried. Host values: `options.hostValues(req,
   * res)`, by default the JSON-serialisable entries of express's `res.locals`. The other
   * options are the endpoint's (as `listen` takes them; one endpoint per server).
   */
  nodeHandler(options?: NodeHandlerOptions): NodeHandler {
    return mount.nodeHandler(this.#native, options);
  }

  /** Stop serving (stdio and HTTP) and release the runtime; in-flight requests finish first. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= this.#native.close();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
