/**
 * The request context: the second argument of every handler. Lazy views over the native
 * request context, reached by the request's slot (a number); the `AbortSignal` is created
 * only when a handler reads it. A context is valid until its handler settles.
 *
 * The context is also the TypeScript SDK's `extra` (`RequestHandlerExtra`): `signal`,
 * `requestId`, `_meta`, `sessionId`, `requestInfo`, `authInfo`, `sendNotification`,
 * `sendRequest` and `closeSSEStream` read and do what they do there (`authInfo.token` is
 * undefined: Ferrite never keeps tokens; `identity` and `subject` say who is calling).
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';

import { type AuthInfo, type Identity, authInfoOf, identityOf } from './auth.js';
import { ClientRequestError, InvalidParamsError, RequestCancelledError, clientRequestResult } from './errors.js';
import { samplingParams } from './mrtr.js';
import type {
  ArgsSchema,
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  InferArgs,
  InferSchema,
  JsonObject,
  JsonValue,
  ListRootsResult,
  LoggingLevel,
  RawShape,
  SamplingMessage,
  SamplingOptions,
  SchemaLike,
} from './model.js';
import { type NativeServer, sensitiveHeaders } from './native.js';
import { describeIssues, elicitationForm, isStandardSchema, parseWith } from './schema.js';

const RESPONSE_KINDS = new Set(['elicit', 'sample', 'roots']);

/** The ids the native side knows a request to the client by, while it may be given up. */
let nextAsk = 1;

/**
 * Options of a request to the client, as the TypeScript SDK's `RequestOptions` has them:
 * `signal` gives the request up when it aborts (the promise rejects with the signal's reason,
 * and the client is told with `notifications/cancelled`).
 */
export interface RequestOptions {
  signal?: AbortSignal;
}

/** @internal What a context needs of its server: where it registers its `AbortController`. */
export interface CancelWatcher {
  _watch(slot: number, controller: AbortController): void;
  _unwatch(slot: number): void;
}

interface Info {
  requestId: string | number;
  protocolVersion: string;
  connectionId: string;
  progressToken: string | number | null;
  meta: JsonObject | null;
  stateless: boolean;
  modern: boolean;
  task: boolean;
  resubmission: boolean;
  requestState: string | null;
}

/**
 * The HTTP request a handler serves (`ctx.requestInfo`, the TypeScript SDK's
 * `extra.requestInfo`), on every HTTP transport: `listen()`, `nodeHandler()` and `fetch()`.
 * Read-only. `util.inspect` and `JSON.stringify` show it with the values of credential
 * headers (`authorization`, `cookie`, `proxy-authorization`, `set-cookie`, `x-api-key`)
 * replaced by `<redacted>`; the `headers` object itself holds them as received.
 */
export interface RequestInfo {
  /** The request headers, lower-case names (repeated headers joined with ", "). */
  readonly headers: { readonly [name: string]: string };
  /** The request URL (from the `Host` header and the path), when known. */
  readonly url?: URL;
  /** The HTTP method (`POST`, `GET`, `DELETE`). */
  readonly method: string;
  /** The request path as the client sent it (with any mount prefix). */
  readonly path: string;
  /** The client's IP address, when the transport knows it (IPv4-mapped IPv6 shown as IPv4). */
  readonly remoteAddress?: string;
  /** The client's port, when known. */
  readonly remotePort?: number;
  /** `remoteAddress:remotePort` (`[ip]:port` for IPv6), when known. */
  readonly remoteAddr?: string;
  /**
   * What the host app attached: `fetch(request, { hostValues })`, `nodeHandler({ hostValues })`
   * or express's `res.locals`; `{}` when none (and for `listen()`).
   */
  readonly hostValues: { readonly [name: string]: JsonValue };
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom');
let sensitive: Set<string> | undefined;

/** @internal The request info of one request, redacting credentials when shown. */
class HttpRequestInfo implements RequestInfo {
  readonly headers: { readonly [name: string]: string };
  readonly url?: URL;
  readonly method: string;
  readonly path: string;
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  readonly remoteAddr?: string;
  readonly hostValues: { readonly [name: string]: JsonValue };

  constructor(head: {
    method: string;
    path: string;
    headers: { [name: string]: string };
    remoteAddr: string | null;
    remoteAddress?: string;
    remotePort?: number | null;
    hostValues: { [name: string]: JsonValue };
  }) {
    this.headers = Object.freeze(head.headers);
    this.method = head.method;
    this.path = head.path;
    const host = head.headers.host;
    if (host !== undefined) {
      try {
        this.url = new URL(head.path, `http://${host}`);
      } catch {
        // A Host header that is no URL authority: no URL.
      }
    }
    if (head.remoteAddr !== null) {
      this.remoteAddr = head.remoteAddr;
      this.remoteAddress = head.remoteAddress;
      if (head.remotePort !== null && head.remotePort !== undefined) this.remotePort = head.remotePort;
    }
    this.hostValues = Object.freeze(head.hostValues ?? {});
    Object.freeze(this);
  }

  /** The same fields, credential headers' values replaced by `<redacted>` (what `JSON.stringify` shows). */
  toJSON(): object {
    sensitive ??= new Set(sensitiveHeaders());
    const headers: { [name: string]: string } = {};
    for (const [name, value] of Object.entries(this.headers)) headers[name] = sensitive.has(name) ? '<redacted>' : value;
    const out: { [name: string]: unknown } = { method: this.method, path: this.path, url: this.url?.href, headers };
    if (this.remoteAddr !== undefined) {
      out.remoteAddress = this.remoteAddress;
      out.remotePort = this.remotePort;
    }
    out.hostValues = this.hostValues;
    return out;
  }

  [INSPECT](depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
    return `RequestInfo ${inspect(this.toJSON(), options)}`;
  }
}

/** A notification as the TypeScript SDK's `extra.sendNotification` takes it. */
export interface NotificationLike {
  method: string;
  params?: JsonObject;
}

/** A request as the TypeScript SDK's `extra.sendRequest` takes it. */
export interface RequestLike {
  method: string;
  params?: JsonObject;
}

/** Everything a handler can know and do about the request it serves. */
export class Context {
  #native: NativeServer;
  #server: CancelWatcher;
  #slot: number;
  #info: Info | undefined;
  #abort: AbortController | undefined;
  #responses: { [key: string]: JsonObject } | undefined;
  #identity: Identity | null | undefined;
  #requestInfo: RequestInfo | null | undefined;

  /** @internal Made by the server for each request. */
  constructor(native: NativeServer, server: CancelWatcher, slot: number) {
    this.#native = native;
    this.#server = server;
    this.#slot = slot;
  }

  #infoValue(): Info {
    if (this.#info === undefined) this.#info = JSON.parse(this.#native.ctxInfo(this.#slot)) as Info;
    return this.#info;
  }

  /** The JSON-RPC id of the request. */
  get requestId(): string | number {
    return this.#infoValue().requestId;
  }
  /** The protocol revision in effect for this request. */
  get protocolVersion(): string {
    return this.#infoValue().protocolVersion;
  }
  /** A stable identifier of this request's connection or session. */
  get connectionId(): string {
    return this.#infoValue().connectionId;
  }
  /** The request's `_meta.progressToken`, if any. */
  get progressToken(): string | number | undefined {
    return this.#infoValue().progressToken ?? undefined;
  }
  /** The request's `_meta`, if any. */
  get meta(): JsonObject | undefined {
    return this.#infoValue().meta ?? undefined;
  }
  /** The request's `_meta`, if any (the TypeScript SDK's name). */
  get _meta(): JsonObject | undefined {
    return this.meta;
  }
  /**
   * Whether this request has no server-to-client channel: a stateless server, or a
   * 2026-07-28 request (which asks for input by returning `InputRequired`).
   */
  get isStateless(): boolean {
    return this.#infoValue().stateless;
  }
  /** Whether the request uses the 2026-07-28 revision (per-request envelope, MRTR). */
  get isModern(): boolean {
    return this.#infoValue().modern;
  }
  /**
   * Whether the handler runs as a task's body (a tool registered with `execution: {
   * taskSupport }` called as a task). Inside a task `signal` is aborted by `tasks/cancel`,
   * `elicit`/`sample`/`listRoots` (and an `InputRequired` returned) wait in the task until the
   * client answers (`tasks/result` on 2025-11-25, `tasks/update` on 2026-07-28), and
   * notifications (progress, logs) are dropped: the request they were tied to has ended.
   */
  get isTask(): boolean {
    return this.#infoValue().task;
  }

  // ----- multi round-trip requests (MRTR) -----

  /** Whether this call is a retry carrying the client's answers or the handler's request state. */
  get isResubmission(): boolean {
    return this.#infoValue().resubmission;
  }
  /** The request state the handler returned with `InputRequired`, as it wrote it; undefined on a first call. */
  get requestState(): string | undefined {
    return this.#infoValue().requestState ?? undefined;
  }
  /**
   * The request state parsed from JSON (as `InputRequired.withState(value)` wrote it), checked
   * with `schema` when given; undefined when there is none. Text that is not JSON, or a value
   * the schema refuses, throws an `InvalidParamsError` (-32602).
   */
  requestStateAs(): JsonValue | undefined;
  requestStateAs<S extends SchemaLike | RawShape>(schema: S): InferArgs<S> | undefined;
  requestStateAs(schema?: SchemaLike | RawShape): unknown {
    const text = this.requestState;
    if (text === undefined) return undefined;
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (e) {
      throw new InvalidParamsError(`request state: ${(e as Error).message}`);
    }
    return schema === undefined ? value : parseWith(schema, value, 'request state');
  }
  /** Every answer the client attached to this retry: key -> the bare result it returned; `{}` on a first call. */
  get inputResponses(): { [key: string]: JsonObject } {
    if (this.#responses === undefined) {
      this.#responses = JSON.parse(this.#native.ctxInputResponses(this.#slot)) as { [key: string]: JsonObject };
    }
    return this.#responses;
  }
  /** Whether the client answered input request `key`. */
  hasInputResponse(key: string): boolean {
    return Object.hasOwn(this.inputResponses, key);
  }
  /**
   * The client's answer to input request `key`, or undefined when it did not answer it.
   * - `inputResponse(key)`: the answer as sent.
   * - `inputResponse(key, schema)`: checked and parsed with a schema (or raw shape).
   * - `inputResponse(key, 'elicit' | 'sample' | 'roots')`: decoded by the core as an
   *   `ElicitResult`, `CreateMessageResult` or `ListRootsResult`.
   * - `inputResponse(key, 'elicit', contentSchema)`: an `ElicitResult` whose accepted
   *   `content` is checked and parsed with a schema.
   * An answer of another shape throws an `InvalidParamsError` (-32602): left uncaught, it is
   * the protocol error MCP asks for.
   */
  inputResponse(key: string): JsonObject | undefined;
  inputResponse(key: string, kind: 'elicit'): ElicitResult | undefined;
  inputResponse<S extends SchemaLike | RawShape>(key: string, kind: 'elicit', contentSchema: S): ElicitResult<InferArgs<S>> | undefined;
  inputResponse(key: string, kind: 'sample'): CreateMessageResult | undefined;
  inputResponse(key: string, kind: 'roots'): ListRootsResult | undefined;
  inputResponse<S extends SchemaLike | RawShape>(key: string, schema: S): InferArgs<S> | undefined;
  inputResponse(key: string, schema?: string | SchemaLike | RawShape, contentSchema?: SchemaLike | RawShape): unknown {
    if (typeof key !== 'string') throw new TypeError('inputResponse(key): key must be a string');
    if (!this.hasInputResponse(key)) return undefined;
    const what = `input response ${JSON.stringify(key)}`;
    if (schema === undefined) return this.inputResponses[key];
    if (typeof schema !== 'string') return parseWith(schema, this.inputResponses[key], what);
    if (!RESPONSE_KINDS.has(schema)) {
      throw new TypeError(`inputResponse(key, kind): kind is "elicit", "sample" or "roots", not ${JSON.stringify(schema)}`);
    }
    const decoded = JSON.parse(this.#native.ctxInputResponseAs(this.#slot, key, schema) ?? 'null') as {
      ok?: JsonObject;
      error?: { message: string };
    };
    if (decoded.error !== undefined) throw new InvalidParamsError(decoded.error.message);
    const value = decoded.ok as JsonObject;
    if (contentSchema !== undefined) {
      if (schema !== 'elicit') throw new TypeError('a content schema applies to "elicit" answers only');
      if (value.action === 'accept') value.content = parseWith(contentSchema, value.content ?? {}, `${what} content`);
    }
    return value;
  }

  // ----- the client and the request -----

  /** The settings the client declared for extension `id` (2026-07-28), or undefined. */
  clientExtension(id: string): JsonValue | undefined {
    const json = this.#native.ctxClientExtension(this.#slot, String(id));
    return json === null || json === undefined ? undefined : (JSON.parse(json) as JsonValue);
  }
  /** A request header by case-insensitive name (Streamable HTTP only), or undefined. */
  header(name: string): string | undefined {
    return this.#native.ctxHeader(this.#slot, String(name)) ?? undefined;
  }
  /** The HTTP session id (`Mcp-Session-Id`) on a stateful Streamable HTTP session; undefined elsewhere (as the TypeScript SDK's `extra.sessionId`). */
  get sessionId(): string | undefined {
    return this.header('mcp-session-id');
  }
  /**
   * The HTTP request (method, path, headers, URL, the client's address, the host app's
   * values), or undefined on stdio and in-process requests (the TypeScript SDK's
   * `extra.requestInfo`). See `RequestInfo`.
   */
  get requestInfo(): RequestInfo | undefined {
    if (this.#requestInfo === undefined) {
      const head = JSON.parse(this.#native.ctxRequestInfo(this.#slot)) as ConstructorParameters<typeof HttpRequestInfo>[0] | null;
      this.#requestInfo = head === null ? null : new HttpRequestInfo(head);
    }
    return this.#requestInfo ?? undefined;
  }
  /**
   * The verified caller (subject, client id, scopes, expiry, issuer, claims) when the server
   * is protected (the `auth` option) and the request came over HTTP; undefined otherwise.
   * Never the token.
   */
  get identity(): Identity | undefined {
    if (this.#identity === undefined) {
      const json = this.#native.ctxIdentity(this.#slot);
      this.#identity = json === null || json === undefined ? null : identityOf(json);
    }
    return this.#identity ?? undefined;
  }
  /** The verified caller's subject (`identity.subject`), or undefined. */
  get subject(): string | undefined {
    return this.identity?.subject;
  }
  /**
   * The verified token as the TypeScript SDK's `extra.authInfo` (`clientId`, `scopes`,
   * `expiresAt`, `resource` from `aud`, every claim in `extra`), or undefined. `token` is
   * always undefined: Ferrite does not keep tokens past their verification.
   */
  get authInfo(): AuthInfo | undefined {
    const id = this.identity;
    return id === undefined ? undefined : authInfoOf(id);
  }
  /** Whether the client cancelled this request; true also once the request is over with no one waiting for its answer (the server closed while the handler ran on), so a polling loop ends. */
  get cancelled(): boolean {
    return this.#native.ctxIsCancelled(this.#slot);
  }

  /** Aborted (with a `RequestCancelledError`) when the client cancels this request (`notifications/cancelled`). */
  get signal(): AbortSignal {
    if (this.#abort === undefined) {
      const controller = new AbortController();
      this.#abort = controller;
      this.#server._watch(this.#slot, controller);
      if (this.#native.ctxWatchCancel(this.#slot) === true) controller.abort(new RequestCancelledError());
    }
    return this.#abort.signal;
  }

  /** @internal Called when the handler settled. */
  _done(): void {
    if (this.#abort !== undefined) this.#server._unwatch(this.#slot);
  }

  /** Emit `notifications/message`; whether it was sent (logging enabled and level high enough). */
  log(level: LoggingLevel, data: JsonValue, logger?: string): boolean {
    return this.#native.ctxLog(this.#slot, level, JSON.stringify(data ?? null), logger ?? undefined);
  }
  debug(message: string): boolean {
    return this.log('debug', message);
  }
  info(message: string): boolean {
    return this.log('info', message);
  }
  notice(message: string): boolean {
    return this.log('notice', message);
  }
  warning(message: string): boolean {
    return this.log('warning', message);
  }
  error(message: string): boolean {
    return this.log('error', message);
  }

  /** Emit `notifications/progress`; false when the request carried no progress token. */
  reportProgress(progress: number, total?: number, message?: string): boolean {
    return this.#native.ctxProgress(this.#slot, progress, total ?? undefined, message ?? undefined);
  }

  /** Send a notification related to this request (written before its response). */
  notify(method: string, params?: JsonObject): void {
    this.#native.ctxNotify(this.#slot, method, params === undefined ? undefined : JSON.stringify(params));
  }
  /** Send a notification related to this request (the TypeScript SDK's `extra.sendNotification`). */
  async sendNotification(notification: NotificationLike): Promise<void> {
    if (notification === null || typeof notification !== 'object' || typeof notification.method !== 'string') {
      throw new TypeError('sendNotification(notification): notification must be { method, params? }');
    }
    this.notify(notification.method, notification.params);
  }

  /**
   * Close the stream this request's messages ride on (Streamable HTTP's SSE stream) while
   * the handler keeps running; the client reconnects after `retryMs` and gets the rest.
   * Returns false on transports that cannot (stdio, in-process).
   */
  closeSseStream(retryMs?: number): boolean {
    return this.#native.ctxCloseSseStream(this.#slot, retryMs ?? undefined);
  }
  /** `closeSseStream()` under the TypeScript SDK's name. */
  closeSSEStream(): void {
    this.closeSseStream();
  }

  /** Whether the client declared a capability, by dotted path ("sampling", "elicitation.url"). */
  clientSupports(capability: string): boolean {
    return this.#native.ctxClientSupports(this.#slot, capability);
  }
  /** The client's declared capabilities. */
  get clientCapabilities(): ClientCapabilities {
    return JSON.parse(this.#native.ctxClientCapabilities(this.#slot)) as ClientCapabilities;
  }
  /** The client's `clientInfo`, when known. */
  get clientInfo(): Implementation | undefined {
    return (JSON.parse(this.#native.ctxClientInfo(this.#slot)) as Implementation | null) ?? undefined;
  }

  // ----- server-to-client requests (handshake era; a 2026-07-28 request rejects them
  // with kind "useInputRequired": return an InputRequired instead) -----

  async #request<T>(kind: string, args: JsonObject, options?: RequestOptions): Promise<T> {
    const signal = options?.signal;
    if (signal === undefined) return clientRequestResult<T>(await this.#native.ctxRequest(this.#slot, kind, JSON.stringify(args)));
    signal.throwIfAborted();
    const ask = nextAsk++;
    const asked = this.#native.ctxRequest(this.#slot, kind, JSON.stringify(args), ask);
    // Given up: the core withdraws the request from the client (notifications/cancelled).
    const giveUp = () => this.#native.ctxRequestCancel(ask);
    signal.addEventListener('abort', giveUp, { once: true });
    try {
      const text = await asked;
      signal.throwIfAborted();
      return clientRequestResult<T>(text);
    } finally {
      signal.removeEventListener('abort', giveUp);
    }
  }

  /**
   * `sampling/createMessage`. Pass the request params, or a prompt string (one user
   * message) or a list of messages with `{ maxTokens, ...params }` (`maxTokens` defaults to
   * `DEFAULT_MAX_TOKENS`, the core's 1000).
   */
  sample(
    params: CreateMessageParams | string | SamplingMessage[],
    options?: SamplingOptions & RequestOptions,
  ): Promise<CreateMessageResult> {
    const { signal, ...sampling } = options ?? {};
    const p = typeof params === 'string' || Array.isArray(params) ? samplingParams(params, sampling) : params;
    return this.#request<CreateMessageResult>('sample', p as unknown as JsonObject, { signal });
  }

  /**
   * `elicitation/create` in form mode. `requestedSchema` is a Standard Schema (zod, valibot,
   * arktype, ...), a raw shape of them, or plain JSON Schema. A schema or raw shape is
   * converted to JSON Schema (the core spells it the restricted way: no `$schema` or root
   * title, enums from `$defs` in place, optional fields as their type) and an accepted
   * answer's `content` is parsed with it, so it arrives typed (`z.infer<typeof schema>`);
   * content it refuses rejects with a `ClientRequestError` of kind "malformed". Plain JSON
   * Schema's content arrives as the client sent it.
   *
   * A form outside the spec's restrictions (a nested object, an array that is not a
   * multi-select, a union type, ...) rejects with a `ClientRequestError` of kind
   * "invalidElicitation" carrying the core's message (`invalid elicitation schema: property
   * "x": ...`); nothing is sent.
   */
  elicit(message: string): Promise<ElicitResult>;
  elicit<S extends SchemaLike | RawShape>(
    message: string,
    requestedSchema: S,
    options?: RequestOptions,
  ): Promise<ElicitResult<InferArgs<S>>>;
  elicit(message: string, requestedSchema: ArgsSchema, options?: RequestOptions): Promise<ElicitResult>;
  async elicit(message: string, requestedSchema?: ArgsSchema, options?: RequestOptions): Promise<ElicitResult<unknown>> {
    if (typeof message !== 'string') throw new TypeError('elicit(message, requestedSchema): message must be a string');
    const form = elicitationForm(requestedSchema);
    const result = await this.#request<ElicitResult<unknown>>('elicit', { message, requestedSchema: form.json as JsonObject }, options);
    if (form.parse === undefined || result.action !== 'accept') return result;
    const parsed = await form.parse(result.content ?? {});
    if (!parsed.ok) {
      throw new ClientRequestError(
        'malformed',
        `malformed answer from the client: the form's answer does not fit the requested schema: ${describeIssues(parsed.issues)}`,
      );
    }
    return { ...result, content: parsed.value };
  }

  /** `elicitation/create` in URL mode (2025-11-25; the client needs `elicitation.url`). */
  elicitUrl(message: string, url: string, elicitationId: string, options?: RequestOptions): Promise<ElicitResult> {
    for (const [name, v] of [['message', message], ['url', url], ['elicitationId', elicitationId]] as const) {
      if (typeof v !== 'string') throw new TypeError(`elicitUrl(message, url, elicitationId): ${name} must be a string`);
    }
    return this.#request<ElicitResult>('elicit', { mode: 'url', message, url, elicitationId }, options);
  }

  /**
   * Tell the client the URL elicitation `elicitationId` has completed
   * (`notifications/elicitation/complete`, 2025-11-25), so it can retry what needed it. Sent
   * on this request's stream: call it before the handler settles (the TypeScript SDK's
   * `server.createElicitationCompletionNotifier(id)()`).
   */
  notifyElicitationComplete(elicitationId: string): void {
    if (typeof elicitationId !== 'string') throw new TypeError('notifyElicitationComplete(elicitationId): elicitationId must be a string');
    this.#native.ctxNotifyElicitationComplete(this.#slot, elicitationId);
  }

  /** `roots/list`. */
  listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    return this.#request<ListRootsResult>('listRoots', {}, options);
  }

  /** Any request to the client; resolves to its raw result. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonValue> {
    return this.#request<JsonValue>('request', params === undefined ? { method } : { method, params }, options);
  }

  /**
   * A request to the client (the TypeScript SDK's `extra.sendRequest`): `{ method, params }`,
   * its result checked with `resultSchema` (a Standard Schema, say the SDK's
   * `CreateMessageResultSchema`) when given; a result the schema refuses rejects with an
   * `InvalidParamsError`.
   */
  async sendRequest<S extends SchemaLike | undefined = undefined>(
    request: RequestLike,
    resultSchema?: S,
    options?: RequestOptions,
  ): Promise<S extends SchemaLike ? InferSchema<S> : JsonValue> {
    if (request === null || typeof request !== 'object' || typeof request.method !== 'string') {
      throw new TypeError('sendRequest(request, resultSchema?): request must be { method, params? }');
    }
    const result = await this.request(request.method, request.params, options);
    if (resultSchema === undefined) return result as S extends SchemaLike ? InferSchema<S> : JsonValue;
    if (!isStandardSchema(resultSchema)) throw new TypeError('sendRequest: resultSchema must be a Standard Schema (zod, valibot, ...)');
    const r = await (resultSchema as StandardSchemaV1)['~standard'].validate(result);
    if (r.issues !== undefined) throw new InvalidParamsError(`${request.method} result: ${describeIssues(r.issues)}`);
    return r.value as S extends SchemaLike ? InferSchema<S> : JsonValue;
  }
}
