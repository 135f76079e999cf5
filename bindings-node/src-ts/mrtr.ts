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
 * `mrtrInputRequest`, which decodes the arguments into the core's `ElicitRequestParams` and
 * `CreateMessageParams`): this module never writes the wire shape itself, it keeps the core's
 * serialization and hands it back when the handler returns.
 */

import type { ArgsSchema, JsonObject, JsonValue, SamplingMessage, SamplingOptions } from './model.js';
import { defaultMaxTokens, mrtrInputRequest } from './native.js';
import { elicitationSchema } from './schema.js';

/** The `maxTokens` of `ctx.sample` and `InputRequest.sample` when none is given: the core's `CreateMessageParams::DEFAULT_MAX_TOKENS` (1000). */
export const DEFAULT_MAX_TOKENS: number = defaultMaxTokens();

const CONSTRUCT = Symbol('InputRequest');

/**
 * @internal The params of `sampling/createMessage`: `prompt` is one user text or a list of
 * messages; `options` are `maxTokens` (when left out, the core's default) and the other
 * params (camelCase, as on the wire: `systemPrompt`, `temperature`, `stopSequences`, ...).
 */
export function samplingParams(prompt: string | SamplingMessage[], options?: SamplingOptions): JsonObject {
  let messages: SamplingMessage[];
  if (typeof prompt === 'string') messages = [{ role: 'user', content: { type: 'text', text: prompt } }];
  else if (Array.isArray(prompt)) messages = prompt;
  else throw new TypeError('a sampling prompt is a string or an array of messages');
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new TypeError('sampling options must be an object');
  }
  return { ...(options as JsonObject | undefined), messages: messages as unknown as JsonValue };
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
  return value;
}

/** An input request as the core serializes it. */
export interface InputRequestJson {
  method: string;
  params?: JsonObject;
}

/**
 * One request the client must answer before the handler can finish. Build it with
 * `InputRequest.elicit`, `.elicitUrl`, `.sample` or `.listRoots`.
 */
export class InputRequest {
  #wire: string;

  /** Use the static factories. */
  private constructor(construct: symbol, wire: string) {
    if (construct !== CONSTRUCT) {
      throw new TypeError('build an InputRequest with InputRequest.elicit, .elicitUrl, .sample or .listRoots');
    }
    this.#wire = wire;
  }

  static #make(kind: string, args: JsonObject): InputRequest {
    return new InputRequest(CONSTRUCT, mrtrInputRequest(kind, JSON.stringify(args)));
  }

  /**
   * Ask the user to fill a form (`elicitation/create`, form mode). `schema` is a JSON Schema
   * object, or a schema or raw shape converted like tool input schemas. The answer reads
   * with `ctx.inputResponse(key, 'elicit')` (or `'elicit', contentSchema`).
   */
  static elicit(message: string, schema: ArgsSchema): InputRequest {
    return InputRequest.#make('elicit', {
      message: text(message, 'message'),
      requestedSchema: elicitationSchema(schema) as JsonObject,
    });
  }

  /** Send the user to `url` (`elicitation/create`, URL mode; the client needs `elicitation.url`). */
  static elicitUrl(message: string, url: string): InputRequest {
    return InputRequest.#make('elicit', { mode: 'url', message: text(message, 'message'), url: text(url, 'url') });
  }

  /**
   * Ask the client's LLM (`sampling/createMessage`), as `ctx.sample` does: `prompt` is one
   * user text or a list of messages; `options` holds `maxTokens` (default
   * `DEFAULT_MAX_TOKENS`) and the other params. The answer reads with
   * `ctx.inputResponse(key, 'sample')`.
   */
  static sample(prompt: string | SamplingMessage[], options?: SamplingOptions): InputRequest {
    return InputRequest.#make('sample', samplingParams(prompt, options));
  }

  /** Ask for the client's roots (`roots/list`). The answer reads with `ctx.inputResponse(key, 'roots')`. */
  static listRoots(): InputRequest {
    return InputRequest.#make('listRoots', {});
  }

  /** The method the client answers (`"elicitation/create"`, ...). */
  get method(): string {
    return this.toJSON().method;
  }

  /** The wire shape, as the core serializes it (`{ method, params }`). */
  toJSON(): InputRequestJson {
    return JSON.parse(this.#wire) as InputRequestJson;
  }
}

/** How an `InputRequired` starts: its requests by key, and the state to carry. */
export interface InputRequiredInit {
  inputRequests?: { [key: string]: InputRequest };
  /** Text as is; any other JSON value is stored as its JSON text. */
  requestState?: JsonValue;
}

/**
 * What a tool, prompt or resource handler returns when it needs the client's input first:
 * the input requests by key, and the state to carry to the retry.
 */
export class InputRequired {
  #requests = new Map<string, InputRequest>();
  #state: string | undefined;

  /** `new InputRequired({ inputRequests: { key: request }, requestState })`; both optional. */
  constructor(init?: InputRequiredInit) {
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
  ask(key: string, request: InputRequest): this {
    if (typeof key !== 'string' || key === '') throw new TypeError('an input request key must be a non-empty string');
    if (!(request instanceof InputRequest)) throw new TypeError(`input request ${JSON.stringify(key)} must be an InputRequest`);
    this.#requests.set(key, request);
    return this;
  }

  /**
   * Carry `state` to the retry: a string as is, any other JSON value as its JSON text (read
   * it back with `ctx.requestState` or `ctx.requestStateAs()`); returns `this`.
   */
  withState(state: JsonValue): this {
    if (typeof state === 'string') {
      this.#state = state;
      return this;
    }
    const json = JSON.stringify(state) as string | undefined;
    if (json === undefined) throw new TypeError('the request state must be a string or a JSON value');
    this.#state = json;
    return this;
  }

  /** The input requests, by key, in the order asked. */
  get inputRequests(): { [key: string]: InputRequest } {
    return Object.fromEntries(this.#requests);
  }

  /** The state carried to the retry, as text. */
  get requestState(): string | undefined {
    return this.#state;
  }

  /** The requests (in their wire shape) and the state, for inspection. */
  toJSON(): { inputRequests: { [key: string]: InputRequestJson }; requestState?: string } {
    const inputRequests: { [key: string]: InputRequestJson } = {};
    for (const [key, request] of this.#requests) inputRequests[key] = request.toJSON();
    return this.#state === undefined ? { inputRequests } : { inputRequests, requestState: this.#state };
  }

  /** @internal The envelope the native side decodes into the core's `InputRequired`. */
  _envelope(): string {
    if (this.#requests.size === 0 && this.#state === undefined) {
      throw new TypeError('an InputRequired needs at least one input request or a request state');
    }
    const inputRequests = [...this.#requests].map(([key, request]) => [key, request.toJSON()]);
    return `{"inputRequired":${JSON.stringify({ inputRequests, requestState: this.#state })}}`;
  }
}
