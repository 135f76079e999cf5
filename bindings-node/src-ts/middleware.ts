/**
 * Middleware: code around every request the server answers, in the core's chain.
 *
 * A middleware is `(context, next) => result` (async or not): it reads (and may change)
 * `context.params`, answers without the handler by returning a result or throwing an
 * `McpError`, or awaits `next()` (or `next(context)`) and reads or changes the result it
 * resolves to; a JSON-RPC error from the rest of the chain rejects `next` with an `McpError`.
 * An object with typed hooks works too (`onMessage`, `onRequest`, `onCallTool`, `onListTools`,
 * `onReadResource`, `onListResources`, `onListResourceTemplates`, `onGetPrompt`,
 * `onListPrompts`, `onComplete`, each `(context, next)`): the core calls it once per request
 * and the hooks it has run inside that call, outermost first (`onMessage`, `onRequest`, then
 * the method's own). Which method has which hook is the core's table (`context.hook`), the
 * same on every surface.
 *
 * Middleware runs after the transport, the 2026-07-28 classifier and the server's limits,
 * before routing, in both eras; `initialize` and `ping` do not pass through it.
 */

import { Context } from './context.js';
import { McpError, encodeError, encodeInvalid } from './errors.js';
import type { JsonObject, JsonValue } from './model.js';
import { type Host, settle } from './registration.js';

/** One request as a middleware sees it. */
export interface MiddlewareContext {
  /** The JSON-RPC method (`tools/call`, ...). */
  readonly method: string;
  /** Its params as the client sent them; what the middleware leaves here is what `next()` sends on. */
  params: JsonObject | undefined;
  /** The method's typed hook in the core's words (`call_tool`, `list_tools`, ...), or undefined. */
  readonly hook: string | undefined;
  /** `params.name`: the tool or prompt a `tools/call` or `prompts/get` names. */
  readonly name: string | undefined;
  /** The request's context (identity, request info, logging, its AbortSignal). */
  readonly ctx: Context;
}

/** The rest of the chain: resolves to the result, or rejects with an `McpError`. */
export type Next = (context?: MiddlewareContext) => Promise<JsonObject>;

/** A middleware function. */
export type MiddlewareFunction = (context: MiddlewareContext, next: Next) => JsonObject | Promise<JsonObject>;

/** A middleware with typed hooks; each one it has runs for its requests. */
export interface MiddlewareHooks {
  onMessage?: MiddlewareFunction;
  onRequest?: MiddlewareFunction;
  onCallTool?: MiddlewareFunction;
  onListTools?: MiddlewareFunction;
  onReadResource?: MiddlewareFunction;
  onListResources?: MiddlewareFunction;
  onListResourceTemplates?: MiddlewareFunction;
  onGetPrompt?: MiddlewareFunction;
  onListPrompts?: MiddlewareFunction;
  onComplete?: MiddlewareFunction;
}

/** What `Server.use` takes. */
export type Middleware = MiddlewareFunction | MiddlewareHooks;

interface Payload {
  method: string;
  params: JsonObject | null;
  hook: string | null;
}

/** `call_tool` -> `onCallTool`. */
function hookMethod(hook: string): keyof MiddlewareHooks {
  return ('on' + hook.replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())) as keyof MiddlewareHooks;
}

/** The function a hooks object is: its hooks composed around `next`, outermost first. */
function composeHooks(hooks: MiddlewareHooks): MiddlewareFunction {
  return (context, next) => {
    let run: Next = next;
    const wrap = (hook: MiddlewareFunction | undefined): void => {
      if (typeof hook !== 'function') return;
      const inner = run;
      run = (c?: MiddlewareContext) => Promise.resolve(hook.call(hooks, c ?? context, inner));
    };
    if (context.hook !== undefined) wrap(hooks[hookMethod(context.hook)]);
    wrap(hooks.onRequest);
    wrap(hooks.onMessage);
    return run(context);
  };
}

function isPlainObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function encodeResult(value: unknown): string {
  try {
    if (!isPlainObject(value)) {
      const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
      throw new TypeError(`a middleware returned ${what}, not the result object (return what next() resolved to)`);
    }
    return '{"ok":' + JSON.stringify(value) + '}';
  } catch (e) {
    return encodeInvalid(e);
  }
}

interface AnswerEnvelope {
  ok?: JsonObject;
  error?: { code: number; message: string; data?: JsonValue };
}

/** @internal Add `middleware` to the host's chain. */
export function use(host: Host, middleware: Middleware): void {
  let fn: MiddlewareFunction;
  if (typeof middleware === 'function') fn = middleware;
  else if (middleware !== null && typeof middleware === 'object') fn = composeHooks(middleware);
  else throw new TypeError('use(middleware): the middleware must be a function (context, next) or an object of hooks');
  const { native, server } = host;
  native.addMiddleware((slot, payload) => {
    let ctx: Context | undefined;
    let out: unknown;
    try {
      ctx = new Context(native, server, slot);
      const p = JSON.parse(payload) as Payload;
      const name = p.params?.name;
      const context: MiddlewareContext = {
        method: p.method,
        params: p.params ?? undefined,
        hook: p.hook ?? undefined,
        name: typeof name === 'string' ? name : undefined,
        ctx,
      };
      const next: Next = async (c?: MiddlewareContext) => {
        const params = (c ?? context).params;
        const answer = JSON.parse(await native.middlewareNext(slot, params === undefined ? null : JSON.stringify(params))) as AnswerEnvelope;
        if (answer.error !== undefined) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
        return answer.ok as JsonObject;
      };
      out = fn(context, next);
    } catch (e) {
      ctx?._done();
      return encodeError(e);
    }
    return settle(ctx, out, encodeResult);
  });
}
