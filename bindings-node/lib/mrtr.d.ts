// Multi round-trip requests (MRTR, 2026-07-28) of ferrite-mcp (hand-written; part of lib/index.d.ts).

import type { ArgsSchema, JsonObject, JsonValue, SamplingMessage, SamplingOptions } from './model.js';

/** The `maxTokens` of `ctx.sample` and `InputRequest.sample` when none is given: 1000. */
export declare const DEFAULT_MAX_TOKENS: 1000;

/** An input request as the core serializes it. */
export interface InputRequestJson {
  method: string;
  params?: JsonObject;
}

/** One request the client must answer before the handler can finish; built by the core. */
export declare class InputRequest {
  private constructor();
  /** A form (`elicitation/create`, form mode): JSON Schema, or a zod object (schema or raw shape). */
  static elicit(message: string, schema: ArgsSchema): InputRequest;
  /** Send the user to `url` (`elicitation/create`, URL mode; needs the client's `elicitation.url`). */
  static elicitUrl(message: string, url: string): InputRequest;
  /** Ask the client's LLM (`sampling/createMessage`): one user text or messages; `maxTokens` defaults to 1000. */
  static sample(prompt: string | SamplingMessage[], options?: SamplingOptions): InputRequest;
  /** Ask for the client's roots (`roots/list`). */
  static listRoots(): InputRequest;
  /** The method the client answers (`"elicitation/create"`, ...). */
  readonly method: string;
  /** The wire shape, as the core serializes it. */
  toJSON(): InputRequestJson;
}

/** How an `InputRequired` starts: its requests by key, and the state to carry. */
export interface InputRequiredInit {
  inputRequests?: { [key: string]: InputRequest };
  /** Text as is; any other JSON value is stored as its JSON text. */
  requestState?: JsonValue;
}

/** What a tool, prompt or resource handler returns when it needs the client's input first. */
export declare class InputRequired {
  constructor(init?: InputRequiredInit);
  /** Ask `request` under `key` (the answer is read by that key). */
  ask(key: string, request: InputRequest): this;
  /** Carry `state` to the retry: text as is, any other JSON value as its JSON text. */
  withState(state: JsonValue): this;
  /** The input requests, by key, in the order asked. */
  readonly inputRequests: { [key: string]: InputRequest };
  /** The state carried to the retry, as text. */
  readonly requestState: string | undefined;
  toJSON(): { inputRequests: { [key: string]: InputRequestJson }; requestState?: string };
}
