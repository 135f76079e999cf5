/**
 * The types of `McpServer`'s API, named as the TypeScript SDK names them: the options, the
 * callbacks, the configurations `register*` take and the handles they return.
 */

import type { Context } from './context.js';
import type { McpServer } from './mcp.js';
import type {
  ArgsSchema,
  Icon,
  InferArgs,
  JsonObject,
  PromptReturn,
  RawShape,
  ResourceReturn,
  SchemaLike,
  ToolAnnotations,
  ToolExecution,
  ToolReturn,
} from './model.js';
import type { CompleteCallback, ListResourcesCallback, ResourceTemplate } from './resource-template.js';
import type { ServerOptions } from './server.js';

export type { CompleteCallback, ListResourcesCallback };

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

/** A registered tool: its configuration, and what changes it. */
export interface RegisteredTool {
  readonly name: string;
  title?: string;
  description?: string;
  inputSchema?: ArgsSchema;
  outputSchema?: ArgsSchema;
  annotations?: ToolAnnotations;
  /** `{ taskSupport }`: whether calls may or must run as tasks (default forbidden). */
  execution?: ToolExecution;
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
  /**
   * `{ taskSupport: 'optional' | 'required' }`: the core may (or must) run calls as tasks, with
   * this same callback (`extra.isTask` tells it). Default forbidden. (The TypeScript SDK's
   * `registerTool` ignores it; Ferrite honours it.)
   */
  execution?: ToolExecution;
  _meta?: JsonObject;
}

/** The tool configuration of `experimental.tasks.registerToolTask`: `taskSupport` defaults to `required`. */
export interface ToolTaskConfig<S extends ArgsSchema | undefined, O extends ArgsSchema | undefined> extends ToolConfig<S, O> {
  execution?: ToolExecution & { taskSupport?: 'optional' | 'required' };
}

/** `mcpServer.experimental.tasks`: the TypeScript SDK's experimental task registration. */
export interface ExperimentalMcpServerTasks {
  /**
   * Register a tool that runs as a task: `registerTool` with `execution.taskSupport`
   * defaulting to `required` (`forbidden` throws). The callback is an ordinary tool callback:
   * the core creates, stores, polls and cancels the task (the SDK's `{ createTask, getTask,
   * getTaskResult }` handler object is refused with a `TypeError`).
   */
  registerToolTask<S extends ArgsSchema | undefined = undefined, O extends ArgsSchema | undefined = undefined>(
    name: string,
    config: ToolTaskConfig<S, O>,
    cb: ToolCallback<S>,
  ): RegisteredTool;
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
