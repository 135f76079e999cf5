'use strict';
/**
 * The request context: the second argument of every handler. Lazy views over the native
 * request context, reached by the request's slot (a number); the `AbortSignal` is created
 * only when a handler reads it. A context is valid until its handler settles.
 */

const { InvalidParamsError, RequestCancelledError, clientRequestResult } = require('./errors.js');
const { samplingParams } = require('./mrtr.js');
const { elicitationSchema, parseWith } = require('./schema.js');

const RESPONSE_KINDS = new Set(['elicit', 'sample', 'roots']);

/** Everything a handler can know and do about the request it serves. */
class Context {
  #native;
  #server;
  #slot;
  #info;
  #abort;
  #responses;

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
  /**
   * Whether this request has no server-to-client channel: a stateless server, or a
   * 2026-07-28 request (which asks for input by returning `InputRequired`).
   */
  get isStateless() {
    return this.#infoValue().stateless;
  }
  /** Whether the request uses the 2026-07-28 revision (per-request envelope, MRTR). */
  get isModern() {
    return this.#infoValue().modern;
  }

  // ----- multi round-trip requests (MRTR) -----

  /** Whether this call is a retry carrying the client's answers or the handler's request state. */
  get isResubmission() {
    return this.#infoValue().resubmission;
  }
  /** The request state the handler returned with `InputRequired`, as it wrote it; undefined on a first call. */
  get requestState() {
    return this.#infoValue().requestState ?? undefined;
  }
  /**
   * The request state parsed from JSON (as `InputRequired.withState(value)` wrote it), checked
   * with `schema` (zod) when given; undefined when there is none. Text that is not JSON, or
   * a value the schema refuses, throws an `InvalidParamsError` (-32602).
   */
  requestStateAs(schema) {
    const text = this.requestState;
    if (text === undefined) return undefined;
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new InvalidParamsError(`request state: ${e.message}`);
    }
    return schema === undefined ? value : parseWith(schema, value, 'request state');
  }
  /** Every answer the client attached to this retry: key -> the bare result it returned; `{}` on a first call. */
  get inputResponses() {
    if (this.#responses === undefined) this.#responses = JSON.parse(this.#native.ctxInputResponses(this.#slot));
    return this.#responses;
  }
  /** Whether the client answered input request `key`. */
  hasInputResponse(key) {
    return Object.hasOwn(this.inputResponses, key);
  }
  /**
   * The client's answer to input request `key`, or undefined when it did not answer it.
   * - `inputResponse(key)`: the answer as sent.
   * - `inputResponse(key, schema)`: checked and parsed with a zod schema (or raw shape).
   * - `inputResponse(key, 'elicit' | 'sample' | 'roots')`: decoded by the core as an
   *   `ElicitResult`, `CreateMessageResult` or `ListRootsResult`.
   * - `inputResponse(key, 'elicit', contentSchema)`: an `ElicitResult` whose accepted
   *   `content` is checked and parsed with a zod schema.
   * An answer of another shape throws an `InvalidParamsError` (-32602): left uncaught, it is
   * the protocol error MCP asks for.
   */
  inputResponse(key, schema, contentSchema) {
    if (typeof key !== 'string') throw new TypeError('inputResponse(key): key must be a string');
    if (!this.hasInputResponse(key)) return undefined;
    const what = `input response ${JSON.stringify(key)}`;
    if (schema === undefined) return this.inputResponses[key];
    if (typeof schema !== 'string') return parseWith(schema, this.inputResponses[key], what);
    if (!RESPONSE_KINDS.has(schema)) {
      throw new TypeError(`inputResponse(key, kind): kind is "elicit", "sample" or "roots", not ${JSON.stringify(schema)}`);
    }
    const decoded = JSON.parse(this.#native.ctxInputResponseAs(this.#slot, key, schema));
    if (decoded.error !== undefined) throw new InvalidParamsError(decoded.error.message);
    const value = decoded.ok;
    if (contentSchema !== undefined) {
      if (schema !== 'elicit') throw new TypeError('a content schema applies to "elicit" answers only');
      if (value.action === 'accept') value.content = parseWith(contentSchema, value.content ?? {}, `${what} content`);
    }
    return value;
  }

  // ----- the client -----

  /** The settings the client declared for extension `id` (2026-07-28), or undefined. */
  clientExtension(id) {
    const json = this.#native.ctxClientExtension(this.#slot, String(id));
    return json === null ? undefined : JSON.parse(json);
  }
  /** A request header by case-insensitive name (Streamable HTTP only), or undefined. */
  header(name) {
    return this.#native.ctxHeader(this.#slot, String(name)) ?? undefined;
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

  // ----- server-to-client requests (handshake era; a 2026-07-28 request rejects them
  // with kind "useInputRequired": return an InputRequired instead) -----

  async #request(kind, args) {
    return clientRequestResult(await this.#native.ctxRequest(this.#slot, kind, JSON.stringify(args)));
  }

  /**
   * `sampling/createMessage`. Pass the request params, or a prompt string (one user
   * message) or a list of messages with `{ maxTokens, ...params }` (default maxTokens 1000).
   */
  sample(params, options) {
    if (typeof params === 'string' || Array.isArray(params)) params = samplingParams(params, options);
    return this.#request('sample', params);
  }

  /** `elicitation/create` in form mode; `requestedSchema` is JSON Schema or a zod object. */
  elicit(message, requestedSchema) {
    return this.#request('elicit', { message, requestedSchema: elicitationSchema(requestedSchema) });
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

module.exports = { Context };
