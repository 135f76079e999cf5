// The request context of ferrite-mcp (hand-written; part of lib/index.d.ts).

import type {
  ArgsSchema,
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  InferArgs,
  JsonObject,
  JsonValue,
  ListRootsResult,
  LoggingLevel,
  SamplingMessage,
  SamplingOptions,
  ZodLike,
  ZodRawShape,
} from './model.js';

/** Everything a handler can know and do about the request it serves. Valid until the handler settles. */
export declare class Context {
  private constructor();
  readonly requestId: string | number;
  readonly protocolVersion: string;
  readonly connectionId: string;
  readonly progressToken: string | number | undefined;
  readonly meta: JsonObject | undefined;
  /** No server-to-client channel: a stateless server, or a 2026-07-28 request. */
  readonly isStateless: boolean;
  /** Whether the request uses the 2026-07-28 revision (per-request envelope, MRTR). */
  readonly isModern: boolean;
  /** Whether the client cancelled this request. */
  readonly cancelled: boolean;
  /** Aborted (with a `RequestCancelledError`) when the client cancels this request. */
  readonly signal: AbortSignal;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;

  // ----- multi round-trip requests (MRTR) -----

  /** Whether this call is a retry carrying the client's answers or the handler's request state. */
  readonly isResubmission: boolean;
  /** The request state the handler returned with `InputRequired`, as it wrote it; undefined on a first call. */
  readonly requestState: string | undefined;
  /** The request state parsed from JSON; a state that is not JSON throws an `InvalidParamsError` (-32602). */
  requestStateAs(): JsonValue | undefined;
  /** The request state parsed from JSON and checked with a zod schema (`InvalidParamsError` when it does not fit). */
  requestStateAs<S extends ZodLike | ZodRawShape>(schema: S): InferArgs<S> | undefined;
  /** Every answer the client attached to this retry: key -> the bare result it returned; `{}` on a first call. */
  readonly inputResponses: { [key: string]: JsonObject };
  /** Whether the client answered input request `key`. */
  hasInputResponse(key: string): boolean;
  /** The client's answer to input request `key` as sent, or undefined. */
  inputResponse(key: string): JsonObject | undefined;
  /** The answer decoded by the core as an `ElicitResult` (`InvalidParamsError`, -32602, when it has another shape). */
  inputResponse(key: string, kind: 'elicit'): ElicitResult | undefined;
  /** An `ElicitResult` whose accepted `content` is checked and parsed with a zod schema. */
  inputResponse<S extends ZodLike | ZodRawShape>(key: string, kind: 'elicit', contentSchema: S): ElicitResult<InferArgs<S>> | undefined;
  /** The answer decoded by the core as a `CreateMessageResult`. */
  inputResponse(key: string, kind: 'sample'): CreateMessageResult | undefined;
  /** The answer decoded by the core as a `ListRootsResult`. */
  inputResponse(key: string, kind: 'roots'): ListRootsResult | undefined;
  /** The answer checked and parsed with a zod schema (`InvalidParamsError`, -32602, when it does not fit). */
  inputResponse<S extends ZodLike | ZodRawShape>(key: string, schema: S): InferArgs<S> | undefined;

  // ----- the client and the request -----

  /** Whether the client declared a capability, by dotted path ("sampling", "elicitation.url"). */
  clientSupports(capability: string): boolean;
  /** The settings the client declared for extension `id` (2026-07-28), or undefined. */
  clientExtension(id: string): JsonValue | undefined;
  /** A request header by case-insensitive name (Streamable HTTP only), or undefined. */
  header(name: string): string | undefined;

  /** Emit `notifications/message`; whether it was sent (logging enabled and level high enough). */
  log(level: LoggingLevel, data: JsonValue, logger?: string): boolean;
  debug(message: string): boolean;
  info(message: string): boolean;
  notice(message: string): boolean;
  warning(message: string): boolean;
  error(message: string): boolean;
  /** Emit `notifications/progress`; false when the request carried no progress token. */
  reportProgress(progress: number, total?: number, message?: string): boolean;
  /** Send a notification related to this request. */
  notify(method: string, params?: JsonObject): void;
  /** Close this request's SSE stream (Streamable HTTP) while it runs; the client reconnects after `retryMs`. False on stdio. */
  closeSseStream(retryMs?: number): boolean;

  // ----- server-to-client requests (handshake era; on 2026-07-28 they reject with kind "useInputRequired") -----

  /** `sampling/createMessage`: the params, or a prompt string or messages with options (default maxTokens 1000). */
  sample(params: CreateMessageParams | string | SamplingMessage[], options?: SamplingOptions): Promise<CreateMessageResult>;
  /** `elicitation/create` in form mode. */
  elicit(message: string, requestedSchema?: ArgsSchema): Promise<ElicitResult>;
  /** `elicitation/create` in URL mode (2025-11-25). */
  elicitUrl(message: string, url: string, elicitationId: string): Promise<ElicitResult>;
  /** `roots/list`. */
  listRoots(): Promise<ListRootsResult>;
  /** Any request to the client; resolves to its raw result. */
  request(method: string, params?: JsonObject): Promise<JsonValue>;
}
