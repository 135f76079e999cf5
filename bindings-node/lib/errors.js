'use strict';
/**
 * The errors of ferrite-mcp: the protocol errors a handler throws to answer with a JSON-RPC
 * error (`McpError` and its subclasses), the failure of a server-to-client request
 * (`ClientRequestError`), and the envelopes errors cross to the native side in.
 */

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

/** Arguments that passed the JSON Schema but not the zod schema (refinements, transforms). */
class InvalidArgumentsError extends Error {
  constructor(detail) {
    super(`Invalid arguments: ${detail}`);
    this.name = 'InvalidArgumentsError';
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

/** Throw the error an `{"error": {kind, message, code?, data?}}` envelope reports, or return its `ok` value. */
function clientRequestResult(text) {
  const envelope = JSON.parse(text);
  if (envelope.error !== undefined) {
    const { kind, message, code, data } = envelope.error;
    throw new ClientRequestError(kind, message, code, data);
  }
  return envelope.ok;
}

module.exports = {
  ErrorCode,
  McpError,
  InvalidParamsError,
  MethodNotFoundError,
  InternalError,
  ResourceNotFoundError,
  ClientRequestError,
  RequestCancelledError,
  InvalidArgumentsError,
  errorMessage,
  encodeError,
  clientRequestResult,
};
