/**
 * The MCP model and the schema types of ferrite-mcp's public surface. No `any`: unknown
 * input is `unknown` or `JsonValue`.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';

import type { Context } from './context.js';
import type { InputRequired } from './mrtr.js';

export type { StandardSchemaV1 } from '@standard-schema/spec';

/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
/** A plain JSON Schema object (validated by the core). */
export type JsonSchema = { [key: string]: unknown };

/**
 * A schema from any Standard Schema library (zod 4, zod 3.25 through `zod/v4`, valibot,
 * arktype, ...): it validates with `~standard.validate`; its JSON Schema comes from
 * `~standard.jsonSchema` or the library's converter.
 */
export type SchemaLike = StandardSchemaV1;
/** A "raw shape": `{ a: z.number(), b: z.number() }`, as the TypeScript SDK accepts. */
export type RawShape = { [key: string]: StandardSchemaV1 };
/** What a Standard Schema parses to. */
export type InferSchema<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : never;
/** A schema for arguments: JSON Schema, a Standard Schema (zod, valibot, arktype, ...) or a raw shape of them. */
export type ArgsSchema = JsonSchema | SchemaLike | RawShape;
/** The arguments a handler receives for a schema: typed for a schema or raw shape, a JSON object otherwise. */
export type InferArgs<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends RawShape
    ? { [K in keyof S]: InferSchema<S[K]> }
    : { [key: string]: JsonValue };

/** @deprecated Use `SchemaLike` (zod schemas are Standard Schemas). */
export type ZodLike = SchemaLike;
/** @deprecated Use `RawShape`. */
export type ZodRawShape = RawShape;

// ----- the MCP model -----

export type Role = 'user' | 'assistant';
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** The params of `notifications/message` (`sendLoggingMessage`). */
export interface LoggingMessage {
  level: LoggingLevel;
  /** Any JSON value; a string for a plain message. */
  data?: unknown;
  logger?: string;
}

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
/**
 * What a tool handler may return: text, a full result, structured content alone, nothing,
 * or an `InputRequired` (MRTR).
 */
export type ToolReturn =
  | string
  | CallToolResult
  | { structuredContent: JsonObject; isError?: boolean; _meta?: JsonObject }
  | InputRequired
  | undefined
  | void;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * Whether calls of a tool run as tasks (`execution.taskSupport`): never (`forbidden`, the
 * default), when the client asks for one or declares the tasks extension (`optional`), or
 * only as tasks (`required`: a client that cannot take one gets an error).
 */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A tool's `execution` (MCP 2025-11-25): `taskSupport`, and any other keys as sent. */
export interface ToolExecution {
  taskSupport?: TaskSupport;
  [key: string]: JsonValue | undefined;
}

/**
 * How a server runs tasks (the `tasks` option): each field defaults to the core's, the same on
 * every Ferrite surface.
 */
export interface TaskOptions {
  /** How long a task is kept after it was created and after it ended (default 300000: 5 minutes). */
  defaultTtlMs?: number;
  /** The longest ttl a 2025-11-25 client may ask for (default 3600000: 1 hour). */
  maxTtlMs?: number;
  /** The polling interval suggested to clients (default 1000). */
  pollIntervalMs?: number;
  /** How long a 2026-07-28 call runs inline before it becomes a task (default 100). */
  promoteAfterMs?: number;
}

export interface ClientCapabilities {
  experimental?: JsonObject;
  roots?: JsonObject;
  sampling?: JsonObject;
  elicitation?: JsonObject;
  tasks?: JsonValue;
  extensions?: JsonObject;
}

/** A resource as `resources/list` lists it. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: JsonObject;
}
/** What a resource handler may return: text, bytes (sent as a base64 blob), a full result or an `InputRequired`. */
export type ResourceReturn = string | Uint8Array | ReadResourceResult | InputRequired;

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
}
/** What a prompt handler may return: one user text, a list of messages, a full result or an `InputRequired`. */
export type PromptReturn = string | PromptMessage[] | GetPromptResult | InputRequired;
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

/** The params of `sampling/createMessage` besides the messages, with `maxTokens` optional (default 1000). */
export type SamplingOptions = Omit<CreateMessageParams, 'messages' | 'maxTokens'> & { maxTokens?: number };

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
/** The answer to an elicitation; `Content` is the form's values (typed by a zod content schema). */
export interface ElicitResult<Content = { [key: string]: JsonValue }> {
  action: 'accept' | 'decline' | 'cancel';
  content?: Content;
  _meta?: JsonObject;
}
export interface Root {
  uri: string;
  name?: string;
}
export interface ListRootsResult {
  roots: Root[];
}

// ----- 2026-07-28 -----

/** Who may share a cached result. */
export type CacheScope = 'public' | 'private';
/** A cache hint (2026-07-28): how long a result stays fresh, and who may share it. */
export interface CacheHint {
  /** Milliseconds the result stays fresh; 0 means stale at once. */
  ttlMs: number;
  cacheScope: CacheScope;
}
/** The cache hints of `server/discover`, the list methods and resource reads (each defaults to `{ ttlMs: 0, cacheScope: "private" }`). */
export interface CacheHints {
  discover: CacheHint;
  toolsList: CacheHint;
  promptsList: CacheHint;
  resourcesList: CacheHint;
  templatesList: CacheHint;
  /** Reads of resources and templates registered without a hint of their own. */
  resourceRead: CacheHint;
}
/** How an input response is decoded by the core: as an `ElicitResult`, a `CreateMessageResult` or a `ListRootsResult`. */
export type InputResponseKind = 'elicit' | 'sample' | 'roots';
/** A skill's files: relative path -> text (UTF-8) or bytes. */
export type SkillFiles = { [path: string]: string | Uint8Array };
