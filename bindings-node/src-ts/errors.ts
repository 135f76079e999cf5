/**
 * The errors of ferrite-mcp: the protocol errors a handler throws to answer with a JSON-RPC
 * error (`McpError` and its subclasses), the failure of a server-to-client request
 * (`ClientRequestError`), and the envelopes errors cross to the native side in.
 */

import type { JsonObject, JsonValue } from './model.js';
import { urlElicitationRequired } from './native.js';

/** JSON-RPC error codes used by MCP. */
export const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
  UrlElicitationRequired: -32042,
} as const);

/** A protocol error: thrown from a handler, it is sent as a JSON-RPC error with this code. */
export class McpError extends Error {
  readonly code: number;
  readonly data?: JsonValue;
  constructor(code: number, message: string, data?: JsonValue) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** `-32602`: the request's parameters are wrong. */
export class InvalidParamsError extends McpError {
  constructor(message: string, data?: JsonValue) {
    super(ErrorCode.InvalidParams, message, data);
    this.name = 'InvalidParamsError';
  }
}

/** `-32601`: no such method (or the capability behind it is not declared). */
export class MethodNotFoundError extends McpError {
  constructor(message: string, data?: JsonValue) {
    super(ErrorCode.MethodNotFound, message, data);
    this.name = 'MethodNotFoundError';
  }
}

/** `-32603`: the server failed. */
export class InternalError extends McpError {
  constructor(message: string, data?: JsonValue) {
    super(ErrorCode.InternalError, message, data);
    this.name = 'InternalError';
  }
}

/** `-32002`: the resource does not exist (`data.uri` names it). */
export class ResourceNotFoundError extends McpError {
  constructor(uri: string, message?: string) {
    super(ErrorCode.ResourceNotFound, message ?? `Resource not found: ${uri}`, { uri });
    this.name = 'ResourceNotFoundError';
  }
}

/** One URL elicitation the client must complete (`elicitationId` names it in `notifications/elicitation/complete`). */
export interface UrlElicitation {
  mode?: 'url';
  message: string;
  url: string;
  elicitationId: string;
  _meta?: JsonObject;
}

/**
 * `-32042` (2025-11-25): the request cannot go on until the user completes these URL
 * elicitations (the TypeScript SDK's `UrlElicitationRequiredError`). Thrown from a handler,
 * it is sent as the core's `ErrorObject::url_elicitation_required`: `data.elicitations`, each
 * `{mode: "url", message, url, elicitationId}`. An elicitation without a `url`, `message` or
 * `elicitationId` is a `TypeError` here, when the error is made.
 */
export class UrlElicitationRequiredError extends McpError {
  constructor(elicitations: UrlElicitation[], message?: string) {
    if (!Array.isArray(elicitations)) {
      throw new TypeError('UrlElicitationRequiredError(elicitations, message?): elicitations must be an array');
    }
    let wire: { code: number; message: string; data: { elicitations: JsonObject[] } };
    try {
      wire = JSON.parse(urlElicitationRequired(JSON.stringify(elicitations), message ?? undefined)) as typeof wire;
    } catch (e) {
      throw new TypeError(`UrlElicitationRequiredError: ${(e as Error).message}`);
    }
    super(wire.code, wire.message, wire.data);
    this.name = 'UrlElicitationRequiredError';
  }
  /** The elicitations, in their wire shape. */
  get elicitations(): UrlElicitation[] {
    return ((this.data as { elicitations?: UrlElicitation[] } | undefined)?.elicitations ?? []) as UrlElicitation[];
  }
}

/**
 * Why a server-to-client request failed (`useInputRequired`: the request uses 2026-07-28,
 * where a handler asks for input by returning an `InputRequired`; `invalidElicitation`: the
 * core refused the form before sending it, its message naming the property and the rule;
 * `malformed`: the client's answer did not fit, including an elicitation answer the form's
 * schema refused).
 */
export type ClientRequestErrorKind =
  | 'noChannel'
  | 'stateless'
  | 'missingCapability'
  | 'closed'
  | 'rpc'
  | 'malformed'
  | 'timeout'
  | 'cancelled'
  | 'invalidArguments'
  | 'useInputRequired'
  | 'invalidElicitation'
  | 'other';

/**
 * A server-to-client request (`sample`, `elicit`, `listRoots`, `request`) that did not
 * produce a result. `kind` says why; `code`/`data` are the client's when `kind` is "rpc".
 * Not an `McpError`: left uncaught in a tool, it becomes an `isError` result.
 */
export class ClientRequestError extends Error {
  readonly kind: ClientRequestErrorKind;
  /** The client's JSON-RPC error code, when `kind` is "rpc". */
  readonly code?: number;
  readonly data?: JsonValue;
  constructor(kind: ClientRequestErrorKind, message: string, code?: number, data?: JsonValue) {
    super(message);
    this.name = 'ClientRequestError';
    this.kind = kind;
    if (code !== undefined) this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/**
 * A proxy's upstream server could not be started or reached, or refused or garbled a request
 * the proxy needs (`server.proxy`).
 */
export class UpstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The reason an aborted `ctx.signal` carries: the client cancelled the request. */
export class RequestCancelledError extends Error {
  constructor(message = 'the client cancelled the request') {
    super(message);
    this.name = 'RequestCancelledError';
  }
}

/**
 * Tool arguments that passed the JSON Schema (checked by the core) but not the tool's
 * schema (refinements, transforms): an `isError` result naming the fields.
 */
export class InvalidArgumentsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidArgumentsError';
  }
}

/** @internal The message of anything thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  try {
    return typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e));
  } catch {
    return String(e);
  }
}

/** @internal An error envelope; never throws. */
export function encodeError(e: unknown): string {
  try {
    if (e instanceof McpError && Number.isInteger(e.code)) {
      return JSON.stringify({ error: { message: errorMessage(e), code: e.code, data: e.data } });
    }
    return JSON.stringify({ error: { message: errorMessage(e) } });
  } catch {
    return '{"error":{"message":"the handler failed with an error that cannot be described"}}';
  }
}

/**
 * @internal The envelope of a handler's return value that cannot become its result (a value
 * `JSON.stringify` refuses, a shape its kind does not take): the core answers -32603 "the
 * handler's result is not valid: ...", as on every surface. Never throws.
 */
export function encodeInvalid(e: unknown): string {
  return JSON.stringify({ invalid: errorMessage(e) });
}

interface ClientRequestEnvelope {
  ok?: JsonValue;
  error?: { kind: ClientRequestErrorKind; message: string; code?: number; data?: JsonValue };
}

/** @internal Throw the error an `{"error": {kind, message, code?, data?}}` envelope reports, or return its `ok` value. */
export function clientRequestResult<T = JsonValue>(text: string): T {
  const envelope = JSON.parse(text) as ClientRequestEnvelope;
  if (envelope.error !== undefined) {
    const { kind, message, code, data } = envelope.error;
    throw new ClientRequestError(kind, message, code, data);
  }
  return envelope.ok as T;
}
