'use strict';
/**
 * ferrite-mcp: the idiomatic JavaScript surface over the native `NativeServer`.
 *
 * This layer only converts and adapts; every protocol decision (validation, capabilities,
 * negotiation, cancellation, pagination, error codes) is made by the Rust core. What lives
 * here and why:
 * - Schema conversion: a zod schema (or a zod "raw shape") becomes JSON Schema, because the
 *   TypeScript SDK's users write zod, while the core validates against JSON Schema.
 * - Handler adaptation: a user's handler (sync or async, any of the shorthand return values)
 *   becomes the one native shape `(slot, payloadJson) => envelope | Promise<envelope>`. It
 *   never throws into native code: a throw or rejection is encoded as an error envelope,
 *   and an `McpError` keeps its JSON-RPC code.
 * - The `Context` object: lazy views over the native request context, reached by slot; the
 *   `AbortSignal` is created only when a handler reads it.
 * Values cross as JSON text: V8's JSON is fast, and serde decodes the core's own types.
 */

const { NativeServer } = require('../index.js');

// ----- errors -----

/** JSON-RPC error codes used by MCP. */
const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
  UrlElicitationRequired: -32042,
});

/** A protocol error: thrown from a handler, it is sent as a JSON-RPC error with this code. */
class McpError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** `-32602`: the request's parameters are wrong. */
class InvalidParamsError extends McpError {
  constructor(message, data) {
    super(ErrorCode.InvalidParams, message, data);
    this.name = 'InvalidParamsError';
  }
}

/** `-32601`: no such method (or the capability behind it is not declared). */
class MethodNotFoundError extends McpError {
  constructor(message, data) {
    super(ErrorCode.MethodNotFound, message, data);
    this.name = 'MethodNotFoundError';
  }
}

/** `-32603`: the server failed. */
class InternalError extends McpError {
  constructor(message, data) {
    super(ErrorCode.InternalError, message, data);
    this.name = 'InternalError';
  }
}

/** `-32002`: the resource does not exist. */
class ResourceNotFoundError extends McpError {
  constructor(uri, message) {
    super(ErrorCode.ResourceNotFound, message ?? `Resource not found: ${uri}`, { uri });
    this.name = 'ResourceNotFoundError';
  }
}

/**
 * A server-to-client request (`sample`, `elicit`, `listRoots`, `request`) that did not
 * produce a result. `kind` says why; `code`/`data` are the client's when `kind` is "rpc".
 * Not an `McpError`: left uncaught in a tool, it becomes an `isError` result.
 */
class ClientRequestError extends Error {
  constructor(kind, message, code, data) {
    super(message);
    this.name = 'ClientRequestError';
    this.kind = kind;
    if (code !== undefined) this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** The reason an aborted `ctx.signal` carries: the client cancelled the request. */
class RequestCancelledError extends Error {
  constructor(message = 'the client cancelled the request') {
    super(message);
    this.name = 'RequestCancelledError';
  }
}

function errorMessage(e) {
  if (e instanceof Error) return e.message || e.name;
  try {
    return typeof e === 'string' ? e : JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}

/** An error envelope; never throws. */
function encodeError(e) {
  try {
    if (e instanceof McpError && Number.isInteger(e.code)) {
      return JSON.stringify({ error: { message: errorMessage(e), code: e.code, data: e.data } });
    }
    return JSON.stringify({ error: { message: errorMessage(e) } });
  } catch {
    return '{"error":{"message":"the handler failed with an error that cannot be described"}}';
  }
}

// ----- schemas -----

function isZodSchema(s) {
  return s !== null && typeof s === 'object' && typeof s.safeParse === 'function' && (s._zod || s._def) !== undefined;
}

function isZodShape(s) {
  if (s === null || typeof s !== 'object' || Array.isArray(s) || isZodSchema(s)) return false;
  const values = Object.values(s);
  return values.length > 0 && values.every(isZodSchema);
}

function requireZod() {
  try {
    return require('zod');
  } catch {
    throw new TypeError('a zod schema was given but the zod package cannot be loaded: install zod');
  }
}

/**
 * Normalize a schema given by the user: returns `{ json, zod }` where `json` is JSON Schema
 * for the core and `zod` (or undefined) parses arguments for the handler.
 */
function toSchema(schema, io, where) {
  if (schema === undefined || schema === null) return { json: undefined, zod: undefined };
  let zod;
  if (isZodShape(schema)) {
    zod = requireZod().z.object(schema);
  } else if (isZodSchema(schema)) {
    zod = schema;
  }
  if (zod === undefined) {
    if (typeof schema !== 'object' || Array.isArray(schema)) {
      throw new TypeError(`${where} must be a JSON Schema object or a zod schema`);
    }
    return { json: schema, zod: undefined };
  }
  if (zod._zod !== undefined) {
    const json = requireZod().toJSONSchema(zod, { io });
    return { json, zod };
  }
  // A zod 3 schema: convert with zod-to-json-schema when the user has it.
  let convert;
  try {
    convert = require('zod-to-json-schema').zodToJsonSchema;
  } catch {
    throw new TypeError(`${where}: zod 3 schemas need the zod-to-json-schema package (or use zod 4)`);
  }
  return { json: convert(zod, { target: 'jsonSchema7', $refStrategy: 'none' }), zod };
}

// ----- result shorthands -----

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

function toBase64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function toolResult(v) {
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (v === undefined) return { content: [] };
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    if (Array.isArray(v.content)) return v;
    if (v.structuredContent !== undefined) {
      return { ...v, content: [{ type: 'text', text: JSON.stringify(v.structuredContent) }] };
    }
  }
  throw new TypeError('a tool handler must return a string or a CallToolResult ({ content: [...] })');
}

function resourceResult(v, uri, mimeType) {
  if (typeof v === 'string') return { contents: [{ uri, mimeType, text: v }] };
  if (v instanceof Uint8Array) return { contents: [{ uri, mimeType, blob: toBase64(v) }] };
  if (v !== null && typeof v === 'object' && Array.isArray(v.contents)) return v;
  throw new TypeError('a resource handler must return a string, a Uint8Array or { contents: [...] }');
}

function promptResult(v) {
  if (typeof v === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
  if (Array.isArray(v)) return { messages: v };
  if (v !== null && typeof v === 'object' && Array.isArray(v.messages)) return v;
  throw new TypeError('a prompt handler must return a string, an array of messages or { messages: [...] }');
}

function completionResult(v) {
  if (Array.isArray(v)) {
    const values = v.slice(0, 100).map(String);
    return { completion: { values, total: v.length, hasMore: v.length > 100 } };
  }
  if (v !== null && typeof v === 'object') {
    if (v.completion !== undefined) return v;
    if (Array.isArray(v.values)) return { completion: v };
  }
  throw new TypeError('a completion handler must return an array of strings or { values: [...] }');
}

// ----- the request context -----

function clientRequestResult(text) {
  const envelope = JSON.parse(text);
  if (envelope.error !== undefined) {
    const { kind, message, code, data } = envelope.error;
    throw new ClientRequestError(kind, message, code, data);
  }
  return envelope.ok;
}

/** Everything a handler can know and do about the request it serves. */
class Context {
  #native;
  #server;
  #slot;
  #info;
  #abort;

  constructor(native, server, slot) {
    this.#native = native;
    this.#server = server;
    this.#slot = slot;
  }

  #infoValue() {
    if (this.#info === undefined) this.#info = JSON.parse(this.#native.ctxInfo(this.#slot));
    return this.#info;
  }

  /** The JSON-RPC id of the request. */
  get requestId() {
    return this.#infoValue().requestId;
  }
  /** The protocol revision in effect for this request. */
  get protocolVersion() {
    return this.#infoValue().protocolVersion;
  }
  /** A stable identifier of this request's connection or session. */
  get connectionId() {
    return this.#infoValue().connectionId;
  }
  /** The request's `_meta.progressToken`, if any. */
  get progressToken() {
    return this.#infoValue().progressToken ?? undefined;
  }
  /** The request's `_meta`, if any. */
  get meta() {
    return this.#infoValue().meta ?? undefined;
  }
  /** Whether the server is stateless (no server-to-client requests). */
  get isStateless() {
    return this.#infoValue().stateless;
  }
  /** Whether the client cancelled this request. */
  get cancelled() {
    return this.#native.ctxIsCancelled(this.#slot);
  }

  /** Aborted when the client cancels this request (`notifications/cancelled`). */
  get signal() {
    if (this.#abort === undefined) {
      const controller = new AbortController();
      this.#abort = controller;
      this.#server._watch(this.#slot, controller);
      if (this.#native.ctxWatchCancel(this.#slot) === true) controller.abort(new RequestCancelledError());
    }
    return this.#abort.signal;
  }

  /** @internal Called when the handler settled. */
  _done() {
    if (this.#abort !== undefined) this.#server._unwatch(this.#slot);
  }

  /** Emit `notifications/message`; whether it was sent (logging enabled and level high enough). */
  log(level, data, logger) {
    return this.#native.ctxLog(this.#slot, level, JSON.stringify(data ?? null), logger ?? undefined);
  }
  debug(message) {
    return this.log('debug', message);
  }
  info(message) {
    return this.log('info', message);
  }
  notice(message) {
    return this.log('notice', message);
  }
  warning(message) {
    return this.log('warning', message);
  }
  error(message) {
    return this.log('error', message);
  }

  /** Emit `notifications/progress`; false when the request carried no progress token. */
  reportProgress(progress, total, message) {
    return this.#native.ctxProgress(this.#slot, progress, total ?? undefined, message ?? undefined);
  }

  /** Send a notification related to this request (written before its response). */
  notify(method, params) {
    this.#native.ctxNotify(this.#slot, method, params === undefined ? undefined : JSON.stringify(params));
  }

  /**
   * Close the stream this request's messages ride on (Streamable HTTP's SSE stream) while
   * the handler keeps running; the client reconnects after `retryMs` and gets the rest.
   * Returns false on transports that cannot (stdio, in-process).
   */
  closeSseStream(retryMs) {
    return this.#native.ctxCloseSseStream(this.#slot, retryMs ?? undefined);
  }

  /** Whether the client declared a capability, by dotted path ("sampling", "elicitation.url"). */
  clientSupports(capability) {
    return this.#native.ctxClientSupports(this.#slot, capability);
  }
  /** The client's declared capabilities. */
  get clientCapabilities() {
    return JSON.parse(this.#native.ctxClientCapabilities(this.#slot));
  }
  /** The client's `clientInfo`, when known. */
  get clientInfo() {
    return JSON.parse(this.#native.ctxClientInfo(this.#slot)) ?? undefined;
  }

  async #request(kind, args) {
    return clientRequestResult(await this.#native.ctxRequest(this.#slot, kind, JSON.stringify(args)));
  }

  /**
   * `sampling/createMessage`. Pass the request params, or a prompt string (one user
   * message) with `{ maxTokens }`.
   */
  sample(params, options) {
    if (typeof params === 'string') {
      params = {
        messages: [{ role: 'user', content: { type: 'text', text: params } }],
        maxTokens: options?.maxTokens ?? 1000,
      };
    }
    return this.#request('sample', params);
  }

  /** `elicitation/create` in form mode; `requestedSchema` is JSON Schema or a zod object. */
  elicit(message, requestedSchema) {
    const { json, zod } = toSchema(requestedSchema ?? { type: 'object', properties: {} }, 'input', 'requestedSchema');
    // Elicitation schemas are a restricted, flat subset: drop the dialect marker zod adds.
    const schema = zod === undefined ? json : (({ $schema, ...rest }) => rest)(json);
    return this.#request('elicit', { message, requestedSchema: schema });
  }

  /** `elicitation/create` in URL mode (2025-11-25). */
  elicitUrl(message, url, elicitationId) {
    return this.#request('elicitUrl', { message, url, elicitationId });
  }

  /** `roots/list`. */
  listRoots() {
    return this.#request('listRoots', {});
  }

  /** Any request to the client; resolves to its raw result. */
  request(method, params) {
    return this.#request('request', { method, params });
  }
}

// ----- the server -----

/**
 * Adapt a user handler to the native shape. `decode` turns the payload into the handler's
 * arguments, `encode` turns its return value into the core's result object.
 */
function adapt(native, server, decode, call, encode) {
  return (slot, payload) => {
    let ctx;
    let args;
    let out;
    try {
      ctx = new Context(native, server, slot);
      args = decode(payload);
      out = call(args, ctx);
    } catch (e) {
      ctx?._done();
      return encodeError(e);
    }
    if (isThenable(out)) {
      return Promise.resolve(out).then(
        (v) => {
          ctx._done();
          return encodeOk(encode, v, args);
        },
        (e) => {
          ctx._done();
          return encodeError(e);
        },
      );
    }
    ctx._done();
    return encodeOk(encode, out, args);
  };
}

/** A success envelope, or the error envelope of a return value that cannot be encoded. */
function encodeOk(encode, value, args) {
  try {
    return '{"ok":' + JSON.stringify(encode(value, args)) + '}';
  } catch (e) {
    return encodeError(e);
  }
}

function parseArgs(zod) {
  if (zod === undefined) return JSON.parse;
  return (payload) => {
    const r = zod.safeParse(JSON.parse(payload));
    if (!r.success) throw new InvalidArgumentsError(r.error.message);
    return r.data;
  };
}

/** Arguments that passed the JSON Schema but not the zod schema (refinements, transforms). */
class InvalidArgumentsError extends Error {
  constructor(detail) {
    super(`Invalid arguments: ${detail}`);
    this.name = 'InvalidArgumentsError';
  }
}

function promptArguments(schema) {
  const { json, zod } = toSchema(schema, 'input', 'argsSchema');
  const props = json?.properties ?? {};
  const required = new Set(json?.required ?? []);
  const args = Object.entries(props).map(([name, p]) => {
    const a = { name, required: required.has(name) };
    if (typeof p?.description === 'string') a.description = p.description;
    if (typeof p?.title === 'string') a.title = p.title;
    return a;
  });
  return { args, zod };
}

function definedOnly(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** An MCP server: register tools, resources, prompts and completions, then serve. */
class Server {
  #native;
  #watched = new Map();
  #listeners = new Set();
  #observing = false;
  #closed;

  constructor(options) {
    if (options === null || typeof options !== 'object') throw new TypeError('new Server(options): options must be an object');
    if (typeof options.name !== 'string' || typeof options.version !== 'string') {
      throw new TypeError('new Server(options): name and version must be strings');
    }
    const { name, version, title, description, websiteUrl, icons, instructions, stateful, workerThreads } = options;
    this.#native = new NativeServer(
      JSON.stringify(definedOnly({ name, version, title, description, websiteUrl, icons, instructions, stateful, workerThreads })),
    );
    const n = this.#native;
    if (options.logging) n.enableLogging();
    if (options.subscriptions) n.enableResourceSubscriptions();
    const lc = options.listChanged;
    for (const kind of ['tools', 'resources', 'prompts']) {
      if (lc === true || (lc && lc[kind])) n.enableListChanged(kind);
    }
    if (options.pageSize !== undefined) n.setPageSize(options.pageSize);
    if (options.requireInitialized) n.requireInitialized();
    if (options.validateInput === false) n.setInputValidation(false);
    if (options.validateOutput) n.enableOutputValidation();
    n.setCancelCallback((slot) => {
      const controller = this.#watched.get(slot);
      if (controller !== undefined) controller.abort(new RequestCancelledError());
    });
  }

  /** @internal */
  _watch(slot, controller) {
    this.#watched.set(slot, controller);
  }
  /** @internal */
  _unwatch(slot) {
    this.#watched.delete(slot);
  }

  /**
   * Register (or replace) a tool. `config.inputSchema`/`outputSchema` take JSON Schema, a
   * zod schema or a zod raw shape; with zod the handler receives the parsed arguments.
   */
  tool(name, config, handler) {
    if (typeof config === 'function') {
      handler = config;
      config = {};
    }
    if (typeof name !== 'string') throw new TypeError('tool(name, ...): name must be a string');
    if (typeof handler !== 'function') throw new TypeError(`tool ${name}: the handler must be a function`);
    config ??= {};
    const input = toSchema(config.inputSchema, 'input', `tool ${name}: inputSchema`);
    const output = toSchema(config.outputSchema, 'output', `tool ${name}: outputSchema`);
    const descriptor = definedOnly({
      name,
      title: config.title,
      description: config.description,
      inputSchema: input.json ?? { type: 'object' },
      outputSchema: output.json,
      annotations: config.annotations,
      icons: config.icons,
      execution: config.execution,
      _meta: config._meta,
    });
    const native = this.#native;
    native.addTool(JSON.stringify(descriptor), adapt(native, this, parseArgs(input.zod), handler, toolResult));
    if (config.requiredClientCapabilities !== undefined) {
      native.setToolRequiredClientCapabilities(name, JSON.stringify(config.requiredClientCapabilities));
    }
  }

  /** Remove a tool; whether it existed. */
  removeTool(name) {
    return this.#native.removeTool(name);
  }

  /** Register (or replace) a resource at a fixed URI. */
  resource(name, uri, metadata, handler) {
    if (typeof metadata === 'function') {
      handler = metadata;
      metadata = {};
    }
    if (typeof handler !== 'function') throw new TypeError(`resource ${uri}: the handler must be a function`);
    metadata ??= {};
    const descriptor = definedOnly({ ...metadata, uri, name });
    const mime = metadata.mimeType;
    this.#native.addResource(
      JSON.stringify(descriptor),
      adapt(
        this.#native,
        this,
        JSON.parse,
        (p, ctx) => handler(p.uri, ctx),
        (v) => resourceResult(v, uri, mime),
      ),
    );
  }

  /** Remove a resource; whether it existed. */
  removeResource(uri) {
    return this.#native.removeResource(uri);
  }

  /**
   * Register a resource template (RFC 6570). The handler gets the URI and the captured
   * variables; `metadata.complete` maps a variable to its completion values or function.
   */
  resourceTemplate(name, uriTemplate, metadata, handler) {
    if (typeof metadata === 'function') {
      handler = metadata;
      metadata = {};
    }
    if (typeof handler !== 'function') throw new TypeError(`resource template ${uriTemplate}: the handler must be a function`);
    metadata ??= {};
    const { complete, ...rest } = metadata;
    const descriptor = definedOnly({ ...rest, uriTemplate, name });
    const mime = metadata.mimeType;
    this.#native.addResourceTemplate(
      JSON.stringify(descriptor),
      adapt(
        this.#native,
        this,
        JSON.parse,
        (p, ctx) => handler(p.uri, p.variables, ctx),
        (v, p) => resourceResult(v, p.uri, mime),
      ),
    );
    for (const [argument, values] of Object.entries(complete ?? {})) {
      this.completion({ type: 'ref/resource', uri: uriTemplate }, argument, values);
    }
  }

  /** Remove a resource template; whether it existed. */
  removeResourceTemplate(uriTemplate) {
    return this.#native.removeResourceTemplate(uriTemplate);
  }

  /**
   * Register (or replace) a prompt. `config.argsSchema` (zod or JSON Schema) or
   * `config.arguments` (MCP PromptArgument list) declares its arguments; `config.complete`
   * maps an argument to its completion values or function.
   */
  prompt(name, config, handler) {
    if (typeof config === 'function') {
      handler = config;
      config = {};
    }
    if (typeof handler !== 'function') throw new TypeError(`prompt ${name}: the handler must be a function`);
    config ??= {};
    let args = config.arguments;
    let zod;
    if (config.argsSchema !== undefined) ({ args, zod } = promptArguments(config.argsSchema));
    const descriptor = definedOnly({
      name,
      title: config.title,
      description: config.description,
      arguments: args,
      icons: config.icons,
      _meta: config._meta,
    });
    this.#native.addPrompt(JSON.stringify(descriptor), adapt(this.#native, this, parseArgs(zod), handler, promptResult));
    for (const [argument, values] of Object.entries(config.complete ?? {})) {
      this.completion({ type: 'ref/prompt', name }, argument, values);
    }
  }

  /** Remove a prompt; whether it existed. */
  removePrompt(name) {
    return this.#native.removePrompt(name);
  }

  /**
   * Completion for one argument of a prompt (`{type: "ref/prompt", name}`) or resource
   * template (`{type: "ref/resource", uri}`): a list of candidates (prefix-matched by the
   * core) or a function `(value, { arguments }, ctx) => string[] | { values, total?, hasMore? }`.
   */
  completion(ref, argument, values) {
    const refJson = JSON.stringify(ref);
    if (Array.isArray(values)) {
      this.#native.setArgumentCandidates(refJson, argument, values.map(String));
      return;
    }
    if (typeof values !== 'function') throw new TypeError('completion values must be an array or a function');
    this.#native.setArgumentCompleter(
      refJson,
      argument,
      adapt(
        this.#native,
        this,
        JSON.parse,
        (req, ctx) => values(req.argument.value, { arguments: req.context.arguments }, ctx),
        completionResult,
      ),
    );
  }

  /** The global completion handler, tried before per-argument completions. */
  completionHandler(handler) {
    if (typeof handler !== 'function') throw new TypeError('completionHandler: the handler must be a function');
    this.#native.setCompletionHandler(adapt(this.#native, this, JSON.parse, handler, completionResult));
  }

  /** Observe client notifications (`method`, `params`). Returns a function that unsubscribes. */
  onNotification(listener) {
    if (typeof listener !== 'function') throw new TypeError('onNotification: the listener must be a function');
    this.#listeners.add(listener);
    if (!this.#observing) {
      this.#observing = true;
      this.#native.setNotificationObserver((method, paramsJson) => {
        const params = JSON.parse(paramsJson) ?? undefined;
        for (const l of this.#listeners) {
          try {
            l(method, params);
          } catch (e) {
            process.emitWarning(`ferrite-mcp: a notification listener threw: ${errorMessage(e)}`);
          }
        }
      });
    }
    return () => this.#listeners.delete(listener);
  }

  /** Call `listener` on `notifications/roots/list_changed`. */
  onRootsListChanged(listener) {
    return this.onNotification((method) => {
      if (method === 'notifications/roots/list_changed') listener();
    });
  }

  /** Send a notification to every connected client; how many were reached. */
  notify(method, params) {
    return this.#native.notify(method, params === undefined ? undefined : JSON.stringify(params));
  }
  /** `notifications/tools/list_changed`. */
  notifyToolsListChanged() {
    return this.notify('notifications/tools/list_changed');
  }
  /** `notifications/resources/list_changed`. */
  notifyResourcesListChanged() {
    return this.notify('notifications/resources/list_changed');
  }
  /** `notifications/prompts/list_changed`. */
  notifyPromptsListChanged() {
    return this.notify('notifications/prompts/list_changed');
  }
  /** `notifications/resources/updated` to the clients subscribed to `uri`. */
  notifyResourceUpdated(uri) {
    return this.#native.notifyResourceUpdated(uri);
  }

  /** The capabilities the server declares. */
  get capabilities() {
    return JSON.parse(this.#native.capabilities());
  }
  /** The registered tools' descriptors. */
  get tools() {
    return JSON.parse(this.#native.tools());
  }
  /** Whether the server is stateless. */
  get isStateless() {
    return this.#native.isStateless();
  }
  /** Send `ping` to a connected client (by connection or session id); rejects with a ClientRequestError. */
  async pingClient(connectionId, timeoutMs = 10_000) {
    clientRequestResult(await this.#native.pingClient(connectionId, timeoutMs));
  }

  /** Ids of the connections currently listening. */
  get connectedSessions() {
    return this.#native.connectedSessions();
  }

  /** Handle raw JSON-RPC text in-process; resolves to the response text ("" for none). */
  handleRaw(text) {
    return this.#native.handleRaw(String(text));
  }

  /**
   * Serve on stdin/stdout. Resolves when stdin ends or `close()` is called; until then it
   * keeps the process alive. Write logs to stderr: stdout carries the protocol.
   */
  connectStdio(options) {
    return this.#native.connectStdio(options?.maxLineBytes);
  }

  /**
   * Serve Streamable HTTP on `host:port` at `path` (defaults 127.0.0.1, a free port, /mcp).
   * Resolves once bound to `{ host, port, url }`; serving goes on (keeping the process
   * alive) until `close()`.
   */
  listen(options) {
    const path = options?.path;
    // Every option goes to the native side, which checks types and values and rejects
    // unknown names, so a misspelt option is an error rather than a silent default.
    const json = JSON.stringify(options ?? {});
    return new Promise((resolve, reject) => {
      const done = this.#native.listen(json, (addressJson) => {
        const address = JSON.parse(addressJson);
        const h = address.host.includes(':') ? `[${address.host}]` : address.host;
        resolve({ host: address.host, port: address.port, url: `http://${h}:${address.port}${path ?? '/mcp'}` });
      });
      // Before `listening` this is a bind failure; afterwards the settled listen() ignores it.
      done.catch(reject);
    });
  }

  /** Stop serving (stdio and HTTP) and release the runtime; in-flight requests finish first. Idempotent. */
  close() {
    this.#closed ??= this.#native.close();
    return this.#closed;
  }

  [Symbol.asyncDispose]() {
    return this.close();
  }
}

module.exports = {
  Server,
  Context,
  McpError,
  InvalidParamsError,
  MethodNotFoundError,
  InternalError,
  ResourceNotFoundError,
  ClientRequestError,
  RequestCancelledError,
  InvalidArgumentsError,
  ErrorCode,
};
