/**
 * ferrite-mcp: the idiomatic JavaScript surface over the native `NativeServer`.
 *
 * This layer only converts and adapts; every protocol decision (validation, capabilities,
 * negotiation, cancellation, pagination, error codes, MRTR, sealed state) is made by the
 * Rust core. It is split along its concepts:
 * - `server.ts`: the `Server` (options, notifications, 2026-07-28 settings), and
 *   `server-types.ts`: the options, configs and handler types it takes;
 * - `fleet.ts`: the state a fleet of instances shares, in Redis (`useRedis`);
 * - `mcp.ts` and `stdio.ts`: the TypeScript SDK's `McpServer`, `ResourceTemplate`,
 *   `completable` and `StdioServerTransport`, over the `Server`; `mcp-handles.ts`: the
 *   handles its registrations return;
 * - `registration.ts`: tools, resources, prompts, completions, custom methods and skills,
 *   and the adaptation of user handlers to the one native handler shape;
 * - `context.ts`: the request context handlers receive (also the SDK's `extra`);
 * - `auth.ts`: the `auth` option, token verifiers in JavaScript, the caller's identity;
 * - `connection.ts`: a connection the application holds (raw text on its own state);
 * - `mrtr.ts`: `InputRequest` and `InputRequired` (multi round-trip requests);
 * - `transports.ts`: stdio, Streamable HTTP, in-process;
 * - `mount.ts`: the HTTP endpoint mounted in the app's own server (`fetch`, `nodeHandler`);
 * - `schema.ts`: Standard Schemas (zod, valibot, arktype) and raw shapes to JSON Schema,
 *   and checks of what handlers read;
 * - `errors.ts`: the error classes and the envelopes errors cross in;
 * - `model.ts`: the MCP model types.
 * Values cross to Rust as JSON text: V8's JSON is fast, and serde decodes the core's own types.
 */

export * from './model.js';
export {
  ErrorCode,
  McpError,
  InvalidParamsError,
  MethodNotFoundError,
  InternalError,
  ResourceNotFoundError,
  ClientRequestError,
  UpstreamError,
  RequestCancelledError,
  InvalidArgumentsError,
  UrlElicitationRequiredError,
} from './errors.js';
export type { ClientRequestErrorKind, UrlElicitation } from './errors.js';
export { Context } from './context.js';
export type { NotificationLike, RequestInfo, RequestLike, RequestOptions } from './context.js';
export { InvalidTokenError, VerifierUnavailableError } from './auth.js';
export type {
  AuthInfo,
  AuthOptions,
  Identity,
  IntrospectionOptions,
  JwtOptions,
  OAuthTokenVerifier,
  TokenClaims,
  VerifyAccessToken,
} from './auth.js';
export { Connection } from './connection.js';
export { setDiagnostics, stderrDiagnostics } from './diagnostics.js';
export type { DiagnosticLevel, DiagnosticRecord } from './diagnostics.js';
export type { ConnectionOptions } from './connection.js';
export { InputRequest, InputRequired, DEFAULT_MAX_TOKENS } from './mrtr.js';
export type { InputRequestJson, InputRequiredInit } from './mrtr.js';
export type {
  Middleware,
  MiddlewareContext,
  MiddlewareFunction,
  MiddlewareHooks,
  Next,
  NotificationContext,
  NotificationFunction,
  NotificationNext,
} from './middleware.js';
export { Server, flushTelemetry } from './server.js';
export type { FetchInit, MountOptions, NodeHandler, NodeHandlerOptions } from './mount.js';
export type { RedisOptions } from './fleet.js';
export type {
  Limits,
  ListenAddress,
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
  ServerStats,
  ToolConfig,
  ToolHandler,
} from './server.js';
export { McpServer, ResourceTemplate, completable } from './mcp.js';
export type {
  CompleteCallback,
  ExperimentalMcpServerTasks,
  ListResourcesCallback,
  McpServerOptions,
  PromptCallback,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ServerInfo,
  ServerTransport,
  ToolCallback,
  ToolTaskConfig,
} from './mcp.js';
export { StdioServerTransport } from './stdio.js';
