'use strict';
/**
 * ferrite-mcp: the idiomatic JavaScript surface over the native `NativeServer`.
 *
 * This layer only converts and adapts; every protocol decision (validation, capabilities,
 * negotiation, cancellation, pagination, error codes, MRTR, sealed state) is made by the
 * Rust core. It is split along its concepts:
 * - `server.js`: the `Server` (options, notifications, 2026-07-28 settings);
 * - `registration.js`: tools, resources, prompts, completions, custom methods and skills,
 *   and the adaptation of user handlers to the one native handler shape;
 * - `context.js`: the request context handlers receive;
 * - `mrtr.js`: `InputRequest` and `InputRequired` (multi round-trip requests);
 * - `transports.js`: stdio, Streamable HTTP, in-process;
 * - `schema.js`: zod to JSON Schema, and zod checks of what handlers read;
 * - `errors.js`: the error classes and the envelopes errors cross in.
 * Values cross to Rust as JSON text: V8's JSON is fast, and serde decodes the core's own types.
 */

const { Context } = require('./context.js');
const {
  ErrorCode,
  McpError,
  InvalidParamsError,
  MethodNotFoundError,
  InternalError,
  ResourceNotFoundError,
  ClientRequestError,
  RequestCancelledError,
  InvalidArgumentsError,
} = require('./errors.js');
const { InputRequest, InputRequired, DEFAULT_MAX_TOKENS } = require('./mrtr.js');
const { Server } = require('./server.js');

module.exports = {
  Server,
  Context,
  InputRequest,
  InputRequired,
  DEFAULT_MAX_TOKENS,
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
