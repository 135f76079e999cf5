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
 *
 * Notifications from the client (`notifications/initialized`, `notifications/cancelled`,
 * `notifications/roots/list_changed`, ...) pass through the same chain before the server acts
 * on them, and reach the hooks objects that have notification hooks: `onNotification`, and
 * `onMessage`, which runs for every message (FastMCP's `on_message`). There the context is a
 * {@link NotificationContext} (`hook` is `'notification'`, no `ctx`), and `next()` resolves to
 * undefined once the rest of the chain has handled it; a hook that does not call it drops the
 * notification. A middleware function sees requests only.
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

/** A client notification as a notification hook sees it. */
export interface NotificationContext {
  /** The notification's method (`notifications/cancelled`, ...). */
  readonly method: string;
  /** Its params; what the hook leaves here is what `next()` sends on. */
  params: JsonObject | undefined;
  /** Always `'notification'`. */
  readonly hook: 'notification';
  /** The connection (the session, on a stateful HTTP server) it came on. */
  readonly connectionId: string;
  /** A notification has no request context. */
  readonly ctx: undefined;
}

/** The rest of a notification's chain: resolves once the server has handled it. */
export type NotificationNext = (context?: NotificationContext) => Promise<void>;

/** A notification hook: calls `next()` to pass the notification on, or not, to drop it. */
export type NotificationFunction = (context: NotificationContext, next: NotificationNext) => void | Promise<void>;

/** A middleware with typed hooks; each one it has runs for its requests (`onMessage` and
 * `onNotification` for the client's notifications too). */
export interface MiddlewareHooks {
  onMessage?: MiddlewareFunction;
  onNotification?: NotificationFunction;
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
    if (context.hook !== undefined) wrap(hooks[hookMethod(context.hook)] as MiddlewareFunction | undefined);
    wrap(hooks.onRequest);
    wrap(hooks.onMessage);
    return run(context);
  };
}

/** The notification hooks of a hooks object composed around `next`, outermost first. */
function composeNotificationHooks(hooks: MiddlewareHooks): NotificationFunction {
  return (context, next) => {
    let run: NotificationNext = next;
    const wrap = (hook: ((c: never, n: never) => unknown) | undefined): void => {
      if (typeof hook !== 'function') return;
      const inner = run;
      run = (c?: NotificationContext) =>
        Promise.resolve((hook as (c: NotificationContext, n: NotificationNext) => unknown).call(hooks, c ?? context, inner)).then(() => undefined);
    };
    wrap(hooks.onNotification);
    wrap(hooks.onMessage);
    return run(context);
  };
}

/** One notification through a hooks object: `''` when its hooks finished, else the failure. */
async function runNotification(native: Host['native'], fn: NotificationFunction, slot: number, payload: string): Promise<string> {
  try {
    const p = JSON.parse(payload) as { method: string; params: JsonObject | null; connectionId: string };
    const context: NotificationContext = {
      method: p.method,
      params: p.params ?? undefined,
      hook: 'notification',
      connectionId: p.connectionId,
      ctx: undefined,
    };
    const next: NotificationNext = async (c?: NotificationContext) => {
      const params = (c ?? context).params;
      await native.notificationNext(slot, params === undefined ? null : JSON.stringify(params));
    };
    await fn(context, next);
    return '';
  } catch (e) {
    return (e instanceof Error ? e.message : String(e)) || 'a notification hook failed';
  }
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
  const hooks = typeof middleware === 'object' ? middleware : undefined;
  const notify =
    hooks !== undefined && (typeof hooks.onNotification === 'function' || typeof hooks.onMessage === 'function')
      ? composeNotificationHooks(hooks)
      : undefined;
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
      // A middleware changes what is asked (the params), not which route answers.
      Object.defineProperty(context, 'method', { value: p.method, writable: false, enumerable: true });
      const next: Next = (c?: MiddlewareContext) => {
        if (c !== undefined && c.method !== context.method) {
          return Promise.reject(new TypeError(`next: a middleware cannot change the method (${context.method} to ${String(c.method)})`));
        }
        const params = (c ?? context).params;
        const answered = (async () => {
          const answer = JSON.parse(await native.middlewareNext(slot, params === undefined ? null : JSON.stringify(params))) as AnswerEnvelope;
          if (answer.error !== undefined) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
          return answer.ok as JsonObject;
        })();
        // A `next()` nobody awaits (called and left, or called after the middleware answered)
        // must not end the process with an unhandled rejection; who awaits it still sees it.
        answered.catch(() => {});
        return answered;
      };
      out = fn(context, next);
    } catch (e) {
      ctx?._done();
      return encodeError(e);
    }
    return settle(native, slot, ctx, out, encodeResult);
  }, notify === undefined ? undefined : (slot, payload) => runNotification(native, notify, slot, payload));
}
