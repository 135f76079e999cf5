'use strict';
/**
 * Multi round-trip requests (MRTR, MCP 2026-07-28).
 *
 * A tool, prompt or resource handler that needs something from the client (a form filled
 * in, an LLM completion, the client's roots) returns an `InputRequired` naming each
 * `InputRequest` by a key, optionally with some state; it is called again with the answers,
 * which it reads from the context (`ctx.inputResponse(key)`). On a 2026-07-28 request the
 * client receives the input requests and retries; on a handshake-era session the core sends
 * them as real server-to-client requests and calls the handler again. The core seals the
 * state before it leaves the server, so a handler only ever reads back what it wrote.
 *
 * Every input request is built by the core's `InputRequest` type (the native
 * `mrtrInputRequest`): this module never writes the wire shape itself, it keeps the core's
 * serialization and hands it back when the handler returns.
 */

const { mrtrInputRequest } = require('../index.js');
const { elicitationSchema } = require('./schema.js');

/** The `maxTokens` of `ctx.sample` and `InputRequest.sample` when none is given. */
const DEFAULT_MAX_TOKENS = 1000;

const CONSTRUCT = Symbol('InputRequest');

/**
 * The params of `sampling/createMessage`: `prompt` is one user text or a list of messages;
 * `options` are `maxTokens` (default `DEFAULT_MAX_TOKENS`) and the other params (camelCase,
 * as on the wire: `systemPrompt`, `temperature`, `stopSequences`, ...).
 */
function samplingParams(prompt, options) {
  let messages;
  if (typeof prompt === 'string') messages = [{ role: 'user', content: { type: 'text', text: prompt } }];
  else if (Array.isArray(prompt)) messages = prompt;
  else throw new TypeError('a sampling prompt is a string or an array of messages');
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new TypeError('sampling options must be an object');
  }
  const { maxTokens = DEFAULT_MAX_TOKENS, ...rest } = options ?? {};
  return { ...rest, messages, maxTokens };
}

function text(value, what) {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
  return value;
}

/**
 * One request the client must answer before the handler can finish. Build it with
 * `InputRequest.elicit`, `.elicitUrl`, `.sample` or `.listRoots`.
 */
class InputRequest {
  #wire;

  /** @internal Use the static factories. */
  constructor(construct, wire) {
    if (construct !== CONSTRUCT) {
      throw new TypeError('build an InputRequest with InputRequest.elicit, .elicitUrl, .sample or .listRoots');
    }
    this.#wire = wire;
  }

  static #make(kind, args) {
    return new InputRequest(CONSTRUCT, mrtrInputRequest(kind, JSON.stringify(args)));
  }

  /**
   * Ask the user to fill a form (`elicitation/create`, form mode). `schema` is a JSON Schema
   * object, or a zod object (schema or raw shape) converted like tool input schemas. The
   * answer reads with `ctx.inputResponse(key, 'elicit')` (or `'elicit', contentSchema`).
   */
  static elicit(message, schema) {
    return InputRequest.#make('elicit', { message: text(message, 'message'), requestedSchema: elicitationSchema(schema) });
  }

  /** Send the user to `url` (`elicitation/create`, URL mode; the client needs `elicitation.url`). */
  static elicitUrl(message, url) {
    return InputRequest.#make('elicitUrl', { message: text(message, 'message'), url: text(url, 'url') });
  }

  /**
   * Ask the client's LLM (`sampling/createMessage`), as `ctx.sample` does: `prompt` is one
   * user text or a list of messages; `options` holds `maxTokens` (default 1000) and the
   * other params. The answer reads with `ctx.inputResponse(key, 'sample')`.
   */
  static sample(prompt, options) {
    return InputRequest.#make('sample', samplingParams(prompt, options));
  }

  /** Ask for the client's roots (`roots/list`). The answer reads with `ctx.inputResponse(key, 'roots')`. */
  static listRoots() {
    return InputRequest.#make('listRoots', {});
  }

  /** The method the client answers (`"elicitation/create"`, ...). */
  get method() {
    return this.toJSON().method;
  }

  /** The wire shape, as the core serializes it (`{ method, params }`). */
  toJSON() {
    return JSON.parse(this.#wire);
  }
}

/**
 * What a tool, prompt or resource handler returns when it needs the client's input first:
 * the input requests by key, and the state to carry to the retry.
 */
class InputRequired {
  #requests = new Map();
  #state;

  /** `new InputRequired({ inputRequests: { key: request }, requestState })`; both optional. */
  constructor(init) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object' || Array.isArray(init)) {
      throw new TypeError('new InputRequired(init): init must be { inputRequests?, requestState? }');
    }
    const { inputRequests, requestState, ...unknown } = init;
    const extra = Object.keys(unknown);
    if (extra.length > 0) throw new TypeError(`new InputRequired(init): unknown option ${JSON.stringify(extra[0])}`);
    if (inputRequests !== undefined) {
      if (inputRequests === null || typeof inputRequests !== 'object' || Array.isArray(inputRequests)) {
        throw new TypeError('inputRequests must be an object of key -> InputRequest');
      }
      for (const [key, request] of Object.entries(inputRequests)) this.ask(key, request);
    }
    if (requestState !== undefined) this.withState(requestState);
  }

  /** Ask `request` under `key` (the answer is read by that key); returns `this`. */
  ask(key, request) {
    if (typeof key !== 'string' || key === '') throw new TypeError('an input request key must be a non-empty string');
    if (!(request instanceof InputRequest)) throw new TypeError(`input request ${JSON.stringify(key)} must be an InputRequest`);
    this.#requests.set(key, request);
    return this;
  }

  /**
   * Carry `state` to the retry: a string as is, any other JSON value as its JSON text (read
   * it back with `ctx.requestState` or `ctx.requestStateAs()`); returns `this`.
   */
  withState(state) {
    if (typeof state === 'string') {
      this.#state = state;
      return this;
    }
    const json = JSON.stringify(state);
    if (json === undefined) throw new TypeError('the request state must be a string or a JSON value');
    this.#state = json;
    return this;
  }

  /** The input requests, by key, in the order asked. */
  get inputRequests() {
    return Object.fromEntries(this.#requests);
  }

  /** The state carried to the retry, as text. */
  get requestState() {
    return this.#state;
  }

  /** The requests (in their wire shape) and the state, for inspection. */
  toJSON() {
    const inputRequests = {};
    for (const [key, request] of this.#requests) inputRequests[key] = request.toJSON();
    return this.#state === undefined ? { inputRequests } : { inputRequests, requestState: this.#state };
  }

  /** @internal The envelope the native side decodes into the core's `InputRequired`. */
  _envelope() {
    if (this.#requests.size === 0 && this.#state === undefined) {
      throw new TypeError('an InputRequired needs at least one input request or a request state');
    }
    const inputRequests = [...this.#requests].map(([key, request]) => [key, request.toJSON()]);
    return `{"inputRequired":${JSON.stringify({ inputRequests, requestState: this.#state })}}`;
  }
}

module.exports = { InputRequest, InputRequired, DEFAULT_MAX_TOKENS, samplingParams };
