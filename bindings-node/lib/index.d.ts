// Types of ferrite-mcp's public surface (hand-written over the generated native `index.d.ts`,
// which stays internal). No `any`: unknown input is `unknown` or `JsonValue`.

/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
/** A plain JSON Schema object (validated by the core). */
export type JsonSchema = { [key: string]: unknown };

/** A zod 4 schema, structurally (zod is an optional peer dependency). */
export interface ZodV4Like<Output = unknown> {
  readonly _zod: { readonly output: Output };
  safeParse(value: unknown): unknown;
}
/** A zod 3 schema, structurally. */
export interface ZodV3Like<Output = unknown> {
  readonly _output: Output;
  readonly _def: unknown;
  safeParse(value: unknown): unknown;
}
/** A zod schema of either major version. */
export type ZodLike = ZodV4Like | ZodV3Like;
/** A zod "raw shape": `{ a: z.number(), b: z.number() }`, as the TypeScript SDK accepts. */
export type ZodRawShape = { [key: string]: ZodLike };
/** What a zod schema parses to. */
export type InferZod<S> = S extends { readonly _zod: { readonly output: infer O } }
  ? O
  : S extends { readonly _output: infer O }
    ? O
    : never;
/** A schema for arguments: JSON Schema, a zod schema or a zod raw shape. */
export type ArgsSchema = JsonSchema | ZodLike | ZodRawShape;
/** The arguments a handler receives for a schema: typed for zod, a JSON object otherwise. */
export type InferArgs<S> = S extends ZodLike
  ? InferZod<S>
  : S extends ZodRawShape
    ? { [K in keyof S]: InferZod<S[K]> }
    : { [key: string]: JsonValue };

// ----- the MCP model -----

export type Role = 'user' | 'assistant';
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: JsonObject;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** Base64. */
  blob: string;
  _meta?: JsonObject;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export interface ImageContent {
  type: 'image';
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export interface AudioContent {
  type: 'audio';
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
}
/** What a tool handler may return: text, a full result, structured content alone, or nothing. */
export type ToolReturn =
  | string
  | CallToolResult
  | { structuredContent: JsonObject; isError?: boolean; _meta?: JsonObject }
  | undefined
  | void;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ClientCapabilities {
  experimental?: JsonObject;
  roots?: JsonObject;
  sampling?: JsonObject;
  elicitation?: JsonObject;
  tasks?: JsonValue;
  extensions?: JsonObject;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: JsonObject;
}
/** What a resource handler may return: text, bytes (sent as a base64 blob) or a full result. */
export type ResourceReturn = string | Uint8Array | ReadResourceResult;

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
}
/** What a prompt handler may return: one user text, a list of messages or a full result. */
export type PromptReturn = string | PromptMessage[] | GetPromptResult;
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}
/** What a completion handler may return: the candidates, or a `Completion`. */
export type CompletionReturn = string[] | Completion | { completion: Completion };
export interface CompleteRequest {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context: { arguments: { [name: string]: JsonValue } };
}
/** A completion: fixed candidates (prefix-matched) or a function of the typed value. */
export type CompletionSource =
  | string[]
  | ((
      value: string,
      context: { arguments: { [name: string]: JsonValue } },
      ctx: Context,
    ) => CompletionReturn | Promise<CompletionReturn>);

export interface SamplingMessage {
  role: Role;
  content: JsonValue;
}
export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: JsonValue;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: JsonValue;
  tools?: JsonObject[];
  toolChoice?: JsonValue;
}
export interface CreateMessageResult {
  role: Role;
  content: JsonValue;
  model: string;
  stopReason?: string;
  _meta?: JsonObject;
}
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [key: string]: JsonValue };
  _meta?: JsonObject;
}
export interface Root {
  uri: string;
  name?: string;
}
export interface ListRootsResult {
  roots: Root[];
}

// ----- errors -----

/** JSON-RPC error codes used by MCP. */
export declare const ErrorCode: {
  readonly ParseError: -32700;
  readonly InvalidRequest: -32600;
  readonly MethodNotFound: -32601;
  readonly InvalidParams: -32602;
  readonly InternalError: -32603;
  readonly ResourceNotFound: -32002;
  readonly UrlElicitationRequired: -32042;
};

/** A protocol error: thrown from a handler, it is sent as a JSON-RPC error with this code. */
export declare class McpError extends Error {
  constructor(code: number, message: string, data?: JsonValue);
  readonly code: number;
  readonly data?: JsonValue;
}
/** `-32602`. */
export declare class InvalidParamsError extends McpError {
  constructor(message: string, data?: JsonValue);
}
/** `-32601`. */
export declare class MethodNotFoundError extends McpError {
  constructor(message: string, data?: JsonValue);
}
/** `-32603`. */
export declare class InternalError extends McpError {
  constructor(message: string, data?: JsonValue);
}
/** `-32002`, with `data.uri`. */
export declare class ResourceNotFoundError extends McpError {
  constructor(uri: string, message?: string);
}
/** Why a server-to-client request failed. */
export type ClientRequestErrorKind =
  | 'noChannel'
  | 'stateless'
  | 'missingCapability'
  | 'closed'
  | 'rpc'
  | 'malformed'
  | 'timeout'
  | 'invalidArguments'
  | 'other';
/** A server-to-client request that produced no result (not an `McpError`: uncaught in a tool it is an `isError` result). */
export declare class ClientRequestError extends Error {
  constructor(kind: ClientRequestErrorKind, message: string, code?: number, data?: JsonValue);
  readonly kind: ClientRequestErrorKind;
  /** The client's JSON-RPC error code, when `kind` is "rpc". */
  readonly code?: number;
  readonly data?: JsonValue;
}
/** The reason an aborted `ctx.signal` carries. */
export declare class RequestCancelledError extends Error {
  constructor(message?: string);
}
/** Arguments that passed the JSON Schema but failed the tool's zod schema. */
export declare class InvalidArgumentsError extends Error {
  constructor(detail: string);
}

// ----- the request context -----

/** Everything a handler can know and do about the request it serves. Valid until the handler settles. */
export declare class Context {
  private constructor();
  readonly requestId: string | number;
  readonly protocolVersion: string;
  readonly connectionId: string;
  readonly progressToken: string | number | undefined;
  readonly meta: JsonObject | undefined;
  readonly isStateless: boolean;
  /** Whether the client cancelled this request. */
  readonly cancelled: boolean;
  /** Aborted (with a `RequestCancelledError`) when the client cancels this request. */
  readonly signal: AbortSignal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;

  /** Emit `notifications/message`; whether it was sent (logging enabled and level high enough). */
  log(level: LoggingLevel, data: JsonValue, logger?: string): boolean;
  debug(message: string): boolean;
  info(message: string): boolean;
  notice(message: string): boolean;
  warning(message: string): boolean;
  error(message: string): boolean;
  /** Emit `notifications/progress`; false when the request carried no progress token. */
  reportProgress(progress: number, total?: number, message?: string): boolean;
  /** Send a notification related to this request. */
  notify(method: string, params?: JsonObject): void;
  /** Whether the client declared a capability, by dotted path ("sampling", "elicitation.url"). */
  clientSupports(capability: string): boolean;
  /** Close this request's SSE stream (Streamable HTTP) while it runs; the client reconnects after `retryMs`. False on stdio. */
  closeSseStream(retryMs?: number): boolean;

  /** `sampling/createMessage`: the params, or a prompt string with `{ maxTokens }` (default 1000). */
  sample(params: CreateMessageParams | string, options?: { maxTokens?: number }): Promise<CreateMessageResult>;
  /** `elicitation/create` in form mode. */
  elicit(message: string, requestedSchema?: ArgsSchema): Promise<ElicitResult>;
  /** `elicitation/create` in URL mode (2025-11-25). */
  elicitUrl(message: string, url: string, elicitationId: string): Promise<ElicitResult>;
  /** `roots/list`. */
  listRoots(): Promise<ListRootsResult>;
  /** Any request to the client; resolves to its raw result. */
  request(method: string, params?: JsonObject): Promise<JsonValue>;
}

// ----- the server -----

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
  /** Advertise `resources.subscribe` (stateful servers only). */
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

  /** Observe client notifications; returns a function that unsubscribes. */
  onNotification(listener: (method: string, params: JsonObject | undefined) => void): () => boolean;
  onRootsListChanged(listener: () => void): () => boolean;

  notify(method: string, params?: JsonObject): number;
  notifyToolsListChanged(): number;
  notifyResourcesListChanged(): number;
  notifyPromptsListChanged(): number;
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
