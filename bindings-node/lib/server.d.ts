// The server of ferrite-mcp (hand-written; part of lib/index.d.ts).

import type { Context } from './context.js';
import type {
  Annotations,
  ArgsSchema,
  CacheHint,
  CacheHints,
  ClientCapabilities,
  CompleteRequest,
  CompletionReference,
  CompletionReturn,
  CompletionSource,
  Icon,
  InferArgs,
  JsonObject,
  JsonSchema,
  JsonValue,
  PromptArgument,
  PromptReturn,
  ResourceReturn,
  SkillFiles,
  ToolAnnotations,
  ToolReturn,
} from './model.js';

export interface ServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Sent in the `initialize` result. */
  instructions?: string;
  /** One connection state per session (stdio: per process); default false (stateless). */
  stateful?: boolean;
  /** Advertise `logging` and accept `logging/setLevel`. */
  logging?: boolean;
  /**
   * Advertise `resources.subscribe`: `resources/subscribe` on handshake-era sessions of a
   * stateful server, per-URI updates on 2026-07-28 `subscriptions/listen` streams (any mode).
   */
  subscriptions?: boolean;
  /** Advertise `listChanged` for all kinds, or some. */
  listChanged?: boolean | { tools?: boolean; resources?: boolean; prompts?: boolean };
  /** Items per page of the list methods; 0 (default) disables pagination. */
  pageSize?: number;
  /** Refuse requests before `notifications/initialized`. */
  requireInitialized?: boolean;
  /** Validate tool arguments against input schemas (default true). */
  validateInput?: boolean;
  /** Enforce output schemas on successful tool results. */
  validateOutput?: boolean;
  /** Threads of the server's Rust runtime (default 1). */
  workerThreads?: number;
}

export interface ToolConfig<S extends ArgsSchema> {
  title?: string;
  description?: string;
  /** JSON Schema, a zod schema or a zod raw shape; default `{ type: "object" }`. */
  inputSchema?: S;
  outputSchema?: ArgsSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: JsonObject;
  _meta?: JsonObject;
  /** Calls from clients that did not declare these are refused. */
  requiredClientCapabilities?: ClientCapabilities;
}

export type ToolHandler<S extends ArgsSchema> = (args: InferArgs<S>, ctx: Context) => ToolReturn | Promise<ToolReturn>;

/** A custom method's handler: the params object (without `_meta`) in, an object out. */
export type MethodHandler = (
  params: JsonObject,
  ctx: Context,
) => JsonObject | undefined | void | Promise<JsonObject | undefined | void>;

export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}
export interface ResourceTemplateMetadata extends Omit<ResourceMetadata, 'size'> {
  /** Completion of template variables. */
  complete?: { [variable: string]: CompletionSource };
}

export interface PromptConfig<S extends ArgsSchema> {
  title?: string;
  description?: string;
  /** Arguments as a schema (zod or JSON Schema with string properties)… */
  argsSchema?: S;
  /** …or as MCP prompt arguments. */
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
  /** Completion of arguments. */
  complete?: { [argument: string]: CompletionSource };
}

export interface ListenOptions {
  /** An IP address; default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default `/mcp`. */
  path?: string;
  /** JSON unless a handler streams (default), always JSON, or always SSE. */
  responseMode?: 'auto' | 'json' | 'sse';
  maxBodyBytes?: number;
  /** Idle sessions end after this many seconds; 0 never. Default 30 minutes. */
  sessionIdleTimeoutSecs?: number;
  /** Also serve the deprecated 2024-11-05 HTTP+SSE transport (`GET /sse`, `POST /messages`). */
  legacySse?: boolean;
  /**
   * DNS-rebinding protection: the accepted `Host` names (no port, any port is accepted;
   * IPv6 in brackets, like `[::1]`). Replaces the default `localhost`, `127.0.0.1`, `[::1]`;
   * other hosts get 403.
   */
  allowedHosts?: string[];
  /**
   * The accepted browser `Origin`s as `scheme://host` (no port, any port is accepted).
   * Replaces the default loopback origins; requests without `Origin` are always accepted.
   */
  allowedOrigins?: string[];
  /** Turn the `Host` and `Origin` checks off (behind a proxy that does them). Not with the lists. */
  allowAnyHost?: boolean;
  /** The reconnection delay advertised to clients in SSE `retry` fields, in ms. Default 1000. */
  sseRetryMs?: number;
  /** Keep SSE events so a client can resume with `Last-Event-ID` (stateful servers). Default true. */
  resumable?: boolean;
}
export interface ListenAddress {
  host: string;
  port: number;
  /** `http://host:port/path`. */
  url: string;
}

/** An MCP server: register tools, resources, prompts and completions, then serve. */
export declare class Server implements AsyncDisposable {
  constructor(options: ServerOptions);

  tool<S extends ArgsSchema = JsonSchema>(name: string, config: ToolConfig<S>, handler: ToolHandler<S>): void;
  tool(name: string, handler: ToolHandler<JsonSchema>): void;
  removeTool(name: string): boolean;

  resource(
    name: string,
    uri: string,
    metadata: ResourceMetadata,
    handler: (uri: string, ctx: Context) => ResourceReturn | Promise<ResourceReturn>,
  ): void;
  resource(name: string, uri: string, handler: (uri: string, ctx: Context) => ResourceReturn | Promise<ResourceReturn>): void;
  removeResource(uri: string): boolean;

  resourceTemplate(
    name: string,
    uriTemplate: string,
    metadata: ResourceTemplateMetadata,
    handler: (
      uri: string,
      variables: { [name: string]: string },
      ctx: Context,
    ) => ResourceReturn | Promise<ResourceReturn>,
  ): void;
  resourceTemplate(
    name: string,
    uriTemplate: string,
    handler: (
      uri: string,
      variables: { [name: string]: string },
      ctx: Context,
    ) => ResourceReturn | Promise<ResourceReturn>,
  ): void;
  removeResourceTemplate(uriTemplate: string): boolean;

  prompt<S extends ArgsSchema = JsonSchema>(
    name: string,
    config: PromptConfig<S>,
    handler: (args: InferArgs<S>, ctx: Context) => PromptReturn | Promise<PromptReturn>,
  ): void;
  prompt(name: string, handler: (args: { [key: string]: JsonValue }, ctx: Context) => PromptReturn | Promise<PromptReturn>): void;
  removePrompt(name: string): boolean;

  completion(ref: CompletionReference, argument: string, values: CompletionSource): void;
  completionHandler(
    handler: (request: CompleteRequest, ctx: Context) => CompletionReturn | Promise<CompletionReturn>,
  ): void;

  /** Serve a custom request method (both eras); the core's own methods cannot be replaced (TypeError). */
  addMethod(name: string, handler: MethodHandler): void;
  removeMethod(name: string): boolean;
  /** Serve a skill (`io.modelcontextprotocol/skills`) at `root` (`skill://name`). */
  addSkill(root: string, files: SkillFiles): void;
  /** Serve a skill at `root` made of every file under directory `dir`. */
  addSkillDir(root: string, dir: string): void;

  // ----- 2026-07-28 settings -----

  /** Seal request state with `current` (64 hex characters or base64 of 32 bytes); still open states sealed with `previous`. */
  setRequestStateKeys(current: string, previous?: string[]): void;
  /** How long a sealed request state stays valid, in milliseconds (default 15 minutes). */
  setRequestStateTtl(ms: number): void;
  /** The id of the current sealing key (not secret). */
  readonly requestStateKeyId: string;
  /** Advertise extension `id` (`"com.example/name"`) with `settings` to 2026-07-28 clients. */
  addExtension(id: string, settings?: JsonObject): void;
  removeExtension(id: string): boolean;
  /** The cache hints of `server/discover`, the lists and resource reads. */
  readonly cacheHints: CacheHints;
  /** Set the cache hints named in `hints`; the others keep their value. */
  setCacheHints(hints: Partial<CacheHints>): void;
  /** The cache hint of reads of one registered resource or resource template (by URI or URI template). */
  setResourceCacheHint(uri: string, hint: CacheHint): void;

  /** Observe client notifications; returns a function that unsubscribes. */
  onNotification(listener: (method: string, params: JsonObject | undefined) => void): () => boolean;
  onRootsListChanged(listener: () => void): () => boolean;

  /** A notification to every handshake-era connected client; how many were reached. */
  notify(method: string, params?: JsonObject): number;
  /** The list-changed notifications, also to the 2026-07-28 listen streams that asked for them. */
  notifyToolsListChanged(): number;
  notifyResourcesListChanged(): number;
  notifyPromptsListChanged(): number;
  /** `notifications/resources/updated` to subscribed clients and the listen streams watching `uri`. */
  notifyResourceUpdated(uri: string): number;

  readonly capabilities: JsonObject;
  readonly tools: JsonObject[];
  readonly isStateless: boolean;
  readonly connectedSessions: string[];
  /** Send `ping` to a connected client; rejects with a `ClientRequestError` (kind "timeout", "noChannel", ...). */
  pingClient(connectionId: string, timeoutMs?: number): Promise<void>;

  /** Handle raw JSON-RPC text in-process; resolves to the response text ("" for none). */
  handleRaw(text: string): Promise<string>;
  /** Serve on stdin/stdout; resolves when stdin ends or `close()` is called. */
  connectStdio(options?: { maxLineBytes?: number }): Promise<void>;
  /**
   * Serve Streamable HTTP (defaults: 127.0.0.1, a free port, `/mcp`). Resolves once bound;
   * serving goes on, keeping the process alive, until `close()`.
   */
  listen(options?: ListenOptions): Promise<ListenAddress>;
  /** Stop serving (stdio and HTTP) and release the runtime; in-flight requests finish first. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
