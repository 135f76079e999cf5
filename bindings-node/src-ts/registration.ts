/**
 * What a server serves (tools, resources, resource templates, prompts, completions, custom
 * methods and skills), and how user handlers are adapted to the one native handler shape,
 * `(slot, payloadJson) => envelope | null`: an async handler's envelope is handed over with
 * `native.settleCall(slot, envelope)` when it settles (cheaper than Rust awaiting a promise).
 *
 * A user handler (sync or async, any of the shorthand return values) never throws into
 * native code: a throw or rejection is encoded as an error envelope, and an `McpError`
 * keeps its JSON-RPC code. A tool, prompt or resource handler may return an
 * `InputRequired` (MRTR), which crosses in its own envelope (see `mrtr.ts`).
 */

import { Context, type CancelWatcher } from './context.js';
import { InvalidArgumentsError, InvalidParamsError, encodeError, encodeInvalid } from './errors.js';
import type {
  ClientCapabilities,
  CompletionReference,
  CompletionReturn,
  CompletionSource,
  JsonObject,
  JsonSchema,
  JsonValue,
  PromptArgument,
  SkillFiles,
  ToolExecution,
} from './model.js';
import { InputRequired } from './mrtr.js';
import type { NativeServer } from './native.js';
import { type Normalized, type Parsed, describeIssues, isThenable, toSchema } from './schema.js';

/** @internal What the registration helpers need: the native server and the JS server. */
export interface Host {
  native: NativeServer;
  server: CancelWatcher;
}

/** @internal A user handler after its arguments were decoded. */
type Call<A> = (args: A, ctx: Context) => unknown;

// ----- result shorthands -----

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function toolResult(v: unknown): unknown {
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (v === undefined) return { content: [] };
  if (isPlainObject(v)) {
    if (Array.isArray(v.content)) return v;
    if (v.structuredContent !== undefined) {
      return { ...v, content: [{ type: 'text', text: JSON.stringify(v.structuredContent) }] };
    }
  }
  throw new TypeError('a tool handler must return a string, a CallToolResult ({ content: [...] }) or an InputRequired');
}

function resourceResult(v: unknown, uri: string, mimeType: string | undefined): unknown {
  if (typeof v === 'string') return { contents: [{ uri, mimeType, text: v }] };
  if (v instanceof Uint8Array) return { contents: [{ uri, mimeType, blob: toBase64(v) }] };
  if (isPlainObject(v) && Array.isArray(v.contents)) return v;
  throw new TypeError('a resource handler must return a string, a Uint8Array, { contents: [...] } or an InputRequired');
}

function promptResult(v: unknown): unknown {
  if (typeof v === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
  if (Array.isArray(v)) return { messages: v };
  if (isPlainObject(v) && Array.isArray(v.messages)) return v;
  throw new TypeError('a prompt handler must return a string, an array of messages, { messages: [...] } or an InputRequired');
}

/** Candidates cross as a list (the core caps them at 100, with `total` and `hasMore`), or as a whole result. */
function completionResult(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(String);
  if (isPlainObject(v)) {
    if (v.completion !== undefined) return v;
    if (Array.isArray(v.values)) return { completion: v };
  }
  throw new TypeError('a completion handler must return an array of strings or { values: [...] }');
}

function methodResult(v: unknown): unknown {
  if (v === undefined) return {};
  if (isPlainObject(v)) return v;
  throw new TypeError('a method handler must return an object');
}

// ----- the native handler shape -----

/**
 * Adapt a user handler to the native shape. `decode` turns the payload into the handler's
 * arguments (or a Promise of them), `encode` turns its return value into the core's result
 * object; `mrtr` says whether the handler may return an `InputRequired`.
 */
function adapt<A>(
  host: Host,
  decode: (payload: string) => A | Promise<A>,
  call: Call<A>,
  encode: (value: unknown, args: A) => unknown,
  mrtr = false,
): (slot: number, payload: string) => string | null {
  const { native, server } = host;
  return (slot, payload) => {
    let ctx: Context | undefined;
    let args: A | Promise<A>;
    let out: unknown;
    try {
      ctx = new Context(native, server, slot);
      args = decode(payload);
      out = isThenable<A>(args) ? Promise.resolve(args).then((a) => ((args = a), call(a, ctx!))) : call(args, ctx);
    } catch (e) {
      ctx?._done();
      return encodeError(e);
    }
    return settle(native, slot, ctx, out, (v) => encodeOk(encode, v, args as A, mrtr));
  };
}

/**
 * @internal The envelope of what a handler returned (`out`, a value or a promise): `ok(value)`,
 * or the error envelope of a throw or rejection; the context is done either way. A value's
 * envelope is returned; a promise's is handed to `native.settleCall(slot, envelope)` once it
 * settles, and null returned.
 */
export function settle(
  native: NativeServer,
  slot: number,
  ctx: Context,
  out: unknown,
  ok: (value: unknown) => string,
): string | null {
  if (isThenable(out)) {
    Promise.resolve(out)
      .then(
        (v) => {
          ctx._done();
          return ok(v);
        },
        (e: unknown) => {
          ctx._done();
          return encodeError(e);
        },
      )
      .then((envelope) => {
        native.settleCall(slot, envelope);
      })
      // Only a server torn down under the handler gets here: nobody waits for the answer.
      .catch(() => undefined);
    return null;
  }
  ctx._done();
  return ok(out);
}

/** A success (or input-required) envelope, or the invalid-result envelope of a value that cannot be encoded. */
function encodeOk<A>(encode: (value: unknown, args: A) => unknown, value: unknown, args: A, mrtr: boolean): string {
  try {
    if (value instanceof InputRequired) {
      if (!mrtr) throw new TypeError('only tool, prompt and resource handlers may return an InputRequired');
      return value._envelope();
    }
    return '{"ok":' + JSON.stringify(encode(value, args)) + '}';
  } catch (e) {
    return encodeInvalid(e);
  }
}

/**
 * The arguments decoder of a schema: JSON as is, or parsed by the schema (defaults,
 * transforms, refinements the core's JSON Schema check cannot express); a value the schema
 * refuses throws `refuse(issues)`.
 */
function parseArgs(schema: Normalized, refuse: (issues: string) => Error): (payload: string) => unknown {
  const { parse } = schema;
  if (parse === undefined) return (payload) => JSON.parse(payload) as unknown;
  const settle = (r: Parsed): unknown => {
    if (!r.ok) throw refuse(describeIssues(r.issues));
    return r.value;
  };
  return (payload) => {
    const r = parse(JSON.parse(payload));
    return isThenable<Parsed>(r) ? Promise.resolve(r).then(settle) : settle(r);
  };
}

function promptArguments(json: JsonSchema | undefined): PromptArgument[] {
  const props = (json?.properties ?? {}) as { [name: string]: { description?: unknown; title?: unknown } };
  const required = new Set((json?.required ?? []) as string[]);
  return Object.entries(props).map(([name, p]) => {
    const a: PromptArgument = { name, required: required.has(name) };
    if (typeof p?.description === 'string') a.description = p.description;
    if (typeof p?.title === 'string') a.title = p.title;
    return a;
  });
}

/** @internal `o` without its undefined values. */
export function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** `(first, handler)` or `(first, config, handler)`: the config (default `{}`) and the handler. */
function configAndHandler<C extends object, H>(config: C | H | undefined, handler: H | undefined, what: string): [C, H] {
  if (typeof config === 'function') return [{} as C, config as H];
  if (typeof handler !== 'function') throw new TypeError(`${what}: the handler must be a function`);
  return [(config ?? {}) as C, handler];
}

// ----- what a server serves -----

/** @internal The configuration of a tool. */
export interface ToolSpec {
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: JsonObject | object;
  icons?: unknown[];
  execution?: ToolExecution;
  _meta?: JsonObject;
  requiredClientCapabilities?: ClientCapabilities;
}

/** @internal */
export function tool(host: Host, name: string, config: ToolSpec | Call<never>, handler?: Call<never>): void {
  if (typeof name !== 'string') throw new TypeError('tool(name, ...): name must be a string');
  const [spec, fn] = configAndHandler<ToolSpec, Call<unknown>>(config as ToolSpec, handler as Call<unknown>, `tool ${name}`);
  const input = toSchema(spec.inputSchema, 'input', `tool ${name}: inputSchema`);
  const output = toSchema(spec.outputSchema, 'output', `tool ${name}: outputSchema`);
  const descriptor = definedOnly({
    name,
    title: spec.title,
    description: spec.description,
    inputSchema: input.json ?? { type: 'object' },
    outputSchema: output.json,
    annotations: spec.annotations,
    icons: spec.icons,
    execution: spec.execution,
    _meta: spec._meta,
  });
  const refuse = (issues: string) => new InvalidArgumentsError(`Invalid arguments for tool ${name}: ${issues}`);
  const { native } = host;
  native.addTool(JSON.stringify(descriptor), adapt(host, parseArgs(input, refuse), fn, toolResult, true));
  if (spec.requiredClientCapabilities !== undefined) {
    native.setToolRequiredClientCapabilities(name, JSON.stringify(spec.requiredClientCapabilities));
  }
}

type ResourcePayload = { uri: string; variables: { [name: string]: string } };

/** @internal */
export function resource(
  host: Host,
  name: string,
  uri: string,
  metadata: object | ((uri: string, ctx: Context) => unknown),
  handler?: (uri: string, ctx: Context) => unknown,
): void {
  const [meta, fn] = configAndHandler<{ mimeType?: string }, (uri: string, ctx: Context) => unknown>(
    metadata,
    handler,
    `resource ${uri}`,
  );
  if (typeof uri !== 'string') throw new TypeError(`resource ${name}: the URI must be a string`);
  const descriptor = definedOnly({ ...meta, uri, name });
  const mime = meta.mimeType;
  host.native.addResource(
    JSON.stringify(descriptor),
    adapt<ResourcePayload>(
      host,
      (p) => JSON.parse(p) as ResourcePayload,
      (p, ctx) => fn(p.uri, ctx),
      (v) => resourceResult(v, uri, mime),
      true,
    ),
  );
}

/** @internal */
export function resourceTemplate(
  host: Host,
  name: string,
  uriTemplate: string,
  metadata: object | ((uri: string, variables: { [name: string]: string }, ctx: Context) => unknown),
  handler?: (uri: string, variables: { [name: string]: string }, ctx: Context) => unknown,
): void {
  const [meta, fn] = configAndHandler<
    { mimeType?: string; complete?: { [variable: string]: CompletionSource } },
    (uri: string, variables: { [name: string]: string }, ctx: Context) => unknown
  >(metadata, handler, `resource template ${uriTemplate}`);
  if (typeof uriTemplate !== 'string') throw new TypeError(`resource template ${name}: the URI template must be a string`);
  const { complete, ...rest } = meta;
  const descriptor = definedOnly({ ...rest, uriTemplate, name });
  const mime = meta.mimeType;
  host.native.addResourceTemplate(
    JSON.stringify(descriptor),
    adapt<ResourcePayload>(
      host,
      (p) => JSON.parse(p) as ResourcePayload,
      (p, ctx) => fn(p.uri, p.variables, ctx),
      (v, p) => resourceResult(v, p.uri, mime),
      true,
    ),
  );
  for (const [argument, values] of Object.entries(complete ?? {})) {
    completion(host, { type: 'ref/resource', uri: uriTemplate }, argument, values);
  }
}

/** @internal The configuration of a prompt. */
export interface PromptSpec {
  title?: string;
  description?: string;
  argsSchema?: unknown;
  arguments?: PromptArgument[];
  icons?: unknown[];
  _meta?: JsonObject;
  complete?: { [argument: string]: CompletionSource };
}

/** @internal */
export function prompt(host: Host, name: string, config: PromptSpec | Call<never>, handler?: Call<never>): void {
  if (typeof name !== 'string') throw new TypeError('prompt(name, ...): name must be a string');
  const [spec, fn] = configAndHandler<PromptSpec, Call<unknown>>(config as PromptSpec, handler as Call<unknown>, `prompt ${name}`);
  let args = spec.arguments;
  let schema: Normalized = { json: undefined };
  if (spec.argsSchema !== undefined) {
    schema = toSchema(spec.argsSchema, 'input', `prompt ${name}: argsSchema`);
    args = promptArguments(schema.json);
  }
  const descriptor = definedOnly({
    name,
    title: spec.title,
    description: spec.description,
    arguments: args,
    icons: spec.icons,
    _meta: spec._meta,
  });
  // As in the TypeScript SDK, prompt arguments the schema refuses are a protocol error (-32602).
  const refuse = (issues: string) => new InvalidParamsError(`Invalid arguments for prompt ${name}: ${issues}`);
  host.native.addPrompt(JSON.stringify(descriptor), adapt(host, parseArgs(schema, refuse), fn, promptResult, true));
  for (const [argument, values] of Object.entries(spec.complete ?? {})) {
    completion(host, { type: 'ref/prompt', name }, argument, values);
  }
}

type CompletePayload = {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context?: { arguments?: { [name: string]: JsonValue } };
};

/** @internal */
export function completion(host: Host, ref: CompletionReference, argument: string, values: CompletionSource): void {
  const refJson = JSON.stringify(ref);
  if (Array.isArray(values)) {
    host.native.setArgumentCandidates(refJson, argument, values.map(String));
    return;
  }
  if (typeof values !== 'function') throw new TypeError('completion values must be an array or a function');
  host.native.setArgumentCompleter(
    refJson,
    argument,
    adapt<CompletePayload>(
      host,
      (p) => JSON.parse(p) as CompletePayload,
      (req, ctx) => values(req.argument.value, { arguments: req.context?.arguments ?? {} }, ctx),
      completionResult,
    ),
  );
}

/** @internal */
export function completionHandler(
  host: Host,
  handler: (request: CompletePayload, ctx: Context) => CompletionReturn | Promise<CompletionReturn>,
): void {
  if (typeof handler !== 'function') throw new TypeError('completionHandler: the handler must be a function');
  host.native.setCompletionHandler(adapt<CompletePayload>(host, (p) => JSON.parse(p) as CompletePayload, handler, completionResult));
}

/** @internal */
export function method(host: Host, name: string, handler: (params: JsonObject, ctx: Context) => unknown): void {
  if (typeof name !== 'string') throw new TypeError('addMethod(name, handler): name must be a string');
  if (typeof handler !== 'function') throw new TypeError(`method ${name}: the handler must be a function`);
  host.native.addMethod(name, adapt<JsonObject>(host, (p) => JSON.parse(p) as JsonObject, handler, methodResult));
}

/** @internal */
export function skill(host: Host, root: string, files: SkillFiles): void {
  if (typeof root !== 'string') throw new TypeError('addSkill(root, files): root must be a string');
  if (!isPlainObject(files)) throw new TypeError('addSkill(root, files): files must be an object of path -> contents');
  for (const [path, contents] of Object.entries(files)) {
    if (typeof contents !== 'string' && !(contents instanceof Uint8Array)) {
      throw new TypeError(`skill file ${JSON.stringify(path)}: the contents must be a string or a Uint8Array`);
    }
  }
  host.native.addSkill(root, files);
}
