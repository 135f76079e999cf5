// The error classes of ferrite-mcp (hand-written; part of lib/index.d.ts).

import type { JsonValue } from './model.js';

/** JSON-RPC error codes used by MCP. */
export declare const ErrorCode: {
  readonly ParseError: -32700;
  readonly InvalidRequest: -32600;
  readonly MethodNotFound: -32601;
  readonly InvalidParams: -32602;
  readonly InternalError: -32603;
  readonly ResourceNotFound: -32002;
  readonly UrlElicitationRequired: -32042;
};

/** A protocol error: thrown from a handler, it is sent as a JSON-RPC error with this code. */
export declare class McpError extends Error {
  constructor(code: number, message: string, data?: JsonValue);
  readonly code: number;
  readonly data?: JsonValue;
}
/** `-32602`. */
export declare class InvalidParamsError extends McpError {
  constructor(message: string, data?: JsonValue);
}
/** `-32601`. */
export declare class MethodNotFoundError extends McpError {
  constructor(message: string, data?: JsonValue);
}
/** `-32603`. */
export declare class InternalError extends McpError {
  constructor(message: string, data?: JsonValue);
}
/** `-32002`, with `data.uri`. */
export declare class ResourceNotFoundError extends McpError {
  constructor(uri: string, message?: string);
}
/**
 * Why a server-to-client request failed (`useInputRequired`: the request uses 2026-07-28,
 * where a handler asks for input by returning an `InputRequired`).
 */
export type ClientRequestErrorKind =
  | 'noChannel'
  | 'stateless'
  | 'missingCapability'
  | 'closed'
  | 'rpc'
  | 'malformed'
  | 'timeout'
  | 'invalidArguments'
  | 'useInputRequired'
  | 'other';
/** A server-to-client request that produced no result (not an `McpError`: uncaught in a tool it is an `isError` result). */
export declare class ClientRequestError extends Error {
  constructor(kind: ClientRequestErrorKind, message: string, code?: number, data?: JsonValue);
  readonly kind: ClientRequestErrorKind;
  /** The client's JSON-RPC error code, when `kind` is "rpc". */
  readonly code?: number;
  readonly data?: JsonValue;
}
/** The reason an aborted `ctx.signal` carries. */
export declare class RequestCancelledError extends Error {
  constructor(message?: string);
}
/** Arguments that passed the JSON Schema but failed the tool's zod schema. */
export declare class InvalidArgumentsError extends Error {
  constructor(detail: string);
}
