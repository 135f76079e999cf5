/**
 * The types the `Server` takes: its constructor's options, what each registration method
 * accepts (configs, metadata and handler signatures) and `listen()`'s options. Kept apart
 * from `server.ts` so the class file holds behaviour; `server.ts` re-exports every one of
 * them, so they are imported from there as before.
 */

import type { AuthOptions, OAuthTokenVerifier, VerifyAccessToken } from './auth.js';
import type { Context } from './context.js';
import type {
  Annotations,
  ArgsSchema,
  ClientCapabilities,
  CompletionSource,
  Icon,
  InferArgs,
  JsonObject,
  PromptArgument,
  PromptReturn,
  ResourceReturn,
  TaskOptions,
  ToolAnnotations,
  ToolExecution,
  ToolReturn,
} from './model.js';

/**
 * The options of `new Server(...)`. The defaults are the core's, the same on every Ferrite
 * surface: stateful, the `logging` capability on, tool arguments validated against their
 * input schema; and, as in the TypeScript SDK, output schemas enforced.
 */
/** The MCP server a proxy fronts (`server.proxy`): a child on stdio, or a Streamable HTTP URL. */
export type ProxyUpstream = (
  | { command: string; args?: string[]; env?: { [name: string]: string } }
  | { url: string; headers?: { [name: string]: string } }
) & {
  /** The revision spoken upstream (default `'auto'`). */
  era?: 'auto' | 'handshake' | 'modern';
  /**
   * Milliseconds (as the TypeScript SDK's request `timeout`) a request to the upstream may go
   * without an answer, a progress notification or a question open with the client (default
   * 60000); past it the request is cancelled upstream and the client gets `-32001`.
   */
  timeout?: number;
};

export interface ServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Sent in the `initialize` result. */
  instructions?: string;
  /**
   * Opt out of sessions: every request gets a transient connection state (no
   * server-to-client requests, subscriptions or per-session log level on handshake-era
   * requests). Default false: one connection state per session (stdio: per process).
   */
  stateless?: boolean;
  /** `stateful: false` is `stateless: true` (default true). */
  stateful?: boolean;
  /** Advertise `logging` and accept `logging/setLevel` (default true). */
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
  /**
   * Enforce output schemas (default true, as the TypeScript SDK does): a successful result
   * of a tool with an `outputSchema` must carry conforming `structuredContent`, or the call
   * fails with `-32603`.
   */
  validateOutput?: boolean;
  /** Threads of the server's Rust runtime (default 1). */
  workerThreads?: number;
  /**
   * Protect the server as an OAuth 2.1 resource server (MCP authorization): every
   * Streamable HTTP request needs `Authorization: Bearer <token>`. The core's configuration,
   * checked by the core (a bad option throws a `TypeError` naming it).
   */
  auth?: AuthOptions;
  /**
   * Verify tokens in JavaScript instead of `auth.jwt` or `auth.introspection`: a function
   * `(token) => claims | AuthInfo | null`, or an `OAuthTokenVerifier` (`{ verifyAccessToken }`).
   */
  verifyAccessToken?: VerifyAccessToken | OAuthTokenVerifier;
  /**
   * How tasks run (tools registered with `execution: { taskSupport: 'optional' | 'required' }`):
   * ttls, the suggested polling interval, and how long a 2026-07-28 call runs inline before it
   * becomes a task. Each field defaults to the core's (see `TaskOptions`); an unknown field or
   * a value that is not a non-negative integer is a `TypeError`.
   */
  tasks?: TaskOptions;
  /**
   * Bound what peers can make the server run (see `Limits`; each field defaults to the
   * core's). A bad value is a `TypeError` naming it.
   */
  limits?: Limits;
}

/**
 * The dispatch limits: the core's `Limits`, camelCase. Each is a whole number at least 1; in
 * `setLimits` a field left out keeps its value, and `server.limits` has every field. A bad
 * value is a `TypeError` with the core's message (`invalid limit maxInFlight: must be at
 * least 1`), the same text on every surface but for the key's spelling.
 */
export interface Limits {
  /**
   * Messages in one JSON-RPC batch (2025-03-26; default 100); a longer batch is refused whole
   * with -32600 and `data: { limit: 'max_batch_len', value }`.
   */
  maxBatchLen?: number;
  /**
   * Requests running at once on one connection (the stdio process, an HTTP session, a
   * `connection()`, `handleRaw`'s; default 256); one more is answered -32603 with
   * `data: { limit: 'max_in_flight_per_connection', value }`.
   */
  maxInFlightPerConnection?: number;
  /**
   * Requests running at once in the whole server (default 10,000); one more is answered
   * -32603 with `data: { limit: 'max_in_flight', value }`.
   */
  maxInFlight?: number;
  /**
   * Objects and arrays nested inside one another in one inbound message (default and at most
   * 127, serde_json's own limit); deeper text is answered -32700 (HTTP 400) with
   * `data: { limit: 'max_json_depth', value }`.
   */
  maxJsonDepth?: number;
}

export interface ToolConfig<S extends ArgsSchema> {
  title?: string;
  description?: string;
  /** JSON Schema, a Standard Schema (zod, valibot, arktype, ...) or a raw shape of them; default `{ type: "object" }`. */
  inputSchema?: S;
  outputSchema?: ArgsSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /**
   * `{ taskSupport: 'optional' | 'required' }` lets the core run calls as tasks (2025-11-25
   * `params.task`, the 2026-07-28 tasks extension) with this same handler; `ctx.isTask` tells
   * it. Default `forbidden`. Another `taskSupport` value is a `TypeError`.
   */
  execution?: ToolExecution;
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

export type ResourceHandler = (uri: string, ctx: Context) => ResourceReturn | Promise<ResourceReturn>;
export type ResourceTemplateHandler = (
  uri: string,
  variables: { [name: string]: string },
  ctx: Context,
) => ResourceReturn | Promise<ResourceReturn>;

export interface PromptConfig<S extends ArgsSchema> {
  title?: string;
  description?: string;
  /** Arguments as a schema (a Standard Schema or raw shape, or JSON Schema with string properties)… */
  argsSchema?: S;
  /** …or as MCP prompt arguments. */
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
  /** Completion of arguments. */
  complete?: { [argument: string]: CompletionSource };
}

export type PromptHandler<S extends ArgsSchema> = (args: InferArgs<S>, ctx: Context) => PromptReturn | Promise<PromptReturn>;

/**
 * The options of `listen()`: the core's HTTP configuration (`HttpConfig`), camelCase; every
 * surface takes the same options and refuses a bad one with the same message.
 */
export interface ListenOptions {
  /** An IP address; default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default `/mcp`: a literal path starting with `/`. */
  path?: string;
  /** JSON unless a handler streams (default), always JSON, or always SSE. */
  responseMode?: 'auto' | 'json' | 'sse';
  /** Larger POST bodies get 413 (default 4 MiB; at least 1). */
  maxBodyBytes?: number;
  /** Idle sessions end after this many milliseconds; 0 never. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /**
   * The most sessions held at once (default 10,000; 0 unbounded): a new one evicts the
   * longest idle session that is not busy (its client gets 404 and initializes again), or
   * gets 503 with `Retry-After` when every one is busy.
   */
  maxSessions?: number;
  /**
   * Close a connection whose request head has not arrived this many milliseconds after it
   * opened or went idle (default 30000; 0 never). `listen()` only: a mounted endpoint's host
   * server reads the head.
   */
  headerReadTimeoutMs?: number;
  /** Answer 408 to a request whose body has not arrived this many milliseconds after its head (default 30000; 0 never). */
  bodyReadTimeoutMs?: number;
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
  /** Keep SSE events so a client can resume with `Last-Event-ID` (stateful servers). Default true. */
  resumable?: boolean;
  /** Events the in-memory event store keeps per stream for resumption, oldest dropped first (default 1024; at least 1). */
  maxEventsPerStream?: number;
  /** Streams the in-memory event store keeps events of, least recent dropped first (default 4096; at least 1). */
  maxEventStreams?: number;
  /** The reconnection delay advertised to clients in SSE `retry` fields, in ms. Default 1000. */
  sseRetryMs?: number;
  /** An SSE comment on a stream idle this many milliseconds (default 15000; 0 never). */
  sseKeepAliveMs?: number;
  /** Events buffered per SSE stream before a slow reader is cut off (default 1024). */
  streamBuffer?: number;
  /** Also serve the deprecated 2024-11-05 HTTP+SSE transport (`GET /sse`, `POST /messages`). */
  legacySse?: boolean;
  /** The HTTP+SSE stream path (default `/sse`). */
  legacySsePath?: string;
  /** The HTTP+SSE message path (default `/messages`). */
  legacyMessagesPath?: string;
}
