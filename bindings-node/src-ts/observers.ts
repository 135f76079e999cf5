/**
 * What a `Server` hears from its clients' notifications: listeners of every notification the
 * core observed (`onNotification`), of `notifications/roots/list_changed` (`onRootsListChanged`,
 * the core's roots observer), and the TypeScript SDK's one handler per method
 * (`setNotificationHandler`). The native observers are installed on first use; a listener
 * that throws is reported as a process warning and never reaches the core.
 */

import { errorMessage } from './errors.js';
import type { JsonObject, SchemaLike } from './model.js';
import type { NativeServer } from './native.js';
import { describeIssues, isStandardSchema } from './schema.js';

/** A notification handler of `setNotificationHandler`. */
export type NotificationHandler = (notification: { method: string; params?: JsonObject }) => void | Promise<void>;

/** The notification listeners of one server. */
export class NotificationObservers {
  #native: NativeServer;
  #listeners = new Set<(method: string, params: JsonObject | undefined) => void>();
  #observing = false;
  #rootsListeners = new Set<() => void>();
  #observingRoots = false;
  #handlers = new Map<string, () => boolean>();

  constructor(native: NativeServer) {
    this.#native = native;
  }

  /** See `Server.onNotification`. */
  onNotification(listener: (method: string, params: JsonObject | undefined) => void): () => boolean {
    if (typeof listener !== 'function') throw new TypeError('onNotification: the listener must be a function');
    this.#listeners.add(listener);
    if (!this.#observing) {
      this.#observing = true;
      this.#native.setNotificationObserver((method, paramsJson) => {
        const params = (JSON.parse(paramsJson) as JsonObject | null) ?? undefined;
        for (const l of this.#listeners) {
          try {
            l(method, params);
          } catch (e) {
            process.emitWarning(`ferrite-mcp: a notification listener threw: ${errorMessage(e)}`);
          }
        }
      });
    }
    return () => this.#listeners.delete(listener);
  }

  /** See `Server.onRootsListChanged`. */
  onRootsListChanged(listener: () => void): () => boolean {
    if (typeof listener !== 'function') throw new TypeError('onRootsListChanged: the listener must be a function');
    this.#rootsListeners.add(listener);
    if (!this.#observingRoots) {
      this.#observingRoots = true;
      this.#native.setRootsListChangedObserver(() => {
        for (const l of this.#rootsListeners) {
          try {
            l();
          } catch (e) {
            process.emitWarning(`ferrite-mcp: a roots listener threw: ${errorMessage(e)}`);
          }
        }
      });
    }
    return () => this.#rootsListeners.delete(listener);
  }

  /** See `Server.setNotificationHandler`. */
  setNotificationHandler(schema: SchemaLike, handler: NotificationHandler): void {
    const method = literalMethod(schema);
    if (method === undefined) {
      throw new TypeError('setNotificationHandler(schema, handler): schema must be a notification schema with a literal method (z.object({ method: z.literal(...) }))');
    }
    if (typeof handler !== 'function') throw new TypeError('setNotificationHandler(schema, handler): handler must be a function');
    const deliver = (params: JsonObject | undefined): void => {
      const notification = params === undefined ? { method } : { method, params };
      void Promise.resolve(schema['~standard'].validate(notification))
        .then((r) => {
          if (r.issues !== undefined) throw new TypeError(`${method}: ${describeIssues(r.issues)}`);
          return handler(r.value as { method: string; params?: JsonObject });
        })
        .catch((e) => process.emitWarning(`ferrite-mcp: the ${method} handler failed: ${errorMessage(e)}`));
    };
    this.#handlers.get(method)?.();
    const off =
      method === 'notifications/roots/list_changed'
        ? this.onRootsListChanged(() => deliver(undefined))
        : this.onNotification((m, params) => {
            if (m === method) deliver(params);
          });
    this.#handlers.set(method, off);
  }

  /** See `Server.removeNotificationHandler`. */
  removeNotificationHandler(method: string): void {
    this.#handlers.get(method)?.();
    this.#handlers.delete(method);
  }
}

/** The literal `method` of a zod notification schema (zod 3 and 4: `shape.method.value`). */
function literalMethod(schema: unknown): string | undefined {
  if (!isStandardSchema(schema)) return undefined;
  const shape = (schema as { shape?: { method?: { value?: unknown } } }).shape;
  const value = shape?.method?.value;
  return typeof value === 'string' ? value : undefined;
}
