/**
 * `ResourceTemplate` and `completable`, as the TypeScript SDK's: a URI template with a listing
 * and completions of its variables, and a prompt argument schema with completions attached.
 * `McpServer` (mcp.ts) registers them with the core.
 */

import type { Context } from './context.js';
import type { Resource, SchemaLike } from './model.js';
import { matchUriTemplate } from './native.js';

/** Lists the resources a template stands for. */
export type ListResourcesCallback = (extra?: Context) => { resources: Resource[] } | Promise<{ resources: Resource[] }>;

/** Completes one variable of a template (or one completable prompt argument). */
export type CompleteCallback = (
  value: string,
  context?: { arguments?: { [name: string]: string } },
) => string[] | Promise<string[]>;

/** A URI template with a listing and completions of its variables, as the TypeScript SDK's. */
export class ResourceTemplate {
  #uriTemplate: string;
  #callbacks: { list: ListResourcesCallback | undefined; complete?: { [variable: string]: CompleteCallback } };

  constructor(
    uriTemplate: string,
    callbacks: { list: ListResourcesCallback | undefined; complete?: { [variable: string]: CompleteCallback } },
  ) {
    if (typeof uriTemplate !== 'string') throw new TypeError('new ResourceTemplate(uriTemplate, callbacks): uriTemplate must be a string');
    if (callbacks === null || typeof callbacks !== 'object') {
      throw new TypeError('new ResourceTemplate(uriTemplate, callbacks): callbacks must be { list, complete? }');
    }
    if (callbacks.list !== undefined && typeof callbacks.list !== 'function') {
      throw new TypeError(`ResourceTemplate ${uriTemplate}: list must be a function or undefined`);
    }
    for (const [variable, f] of Object.entries(callbacks.complete ?? {})) {
      if (typeof f !== 'function') throw new TypeError(`ResourceTemplate ${uriTemplate}: complete.${variable} must be a function`);
    }
    // The core parses the template (and refuses a bad one) now, not at registration.
    matchUriTemplate(uriTemplate, '');
    this.#uriTemplate = uriTemplate;
    this.#callbacks = callbacks;
  }

  /** The URI template (RFC 6570). */
  get uriTemplate(): string {
    return this.#uriTemplate;
  }
  /** The listing callback, if any. */
  get listCallback(): ListResourcesCallback | undefined {
    return this.#callbacks.list;
  }
  /** The completion callback of one variable, if any. */
  completeCallback(variable: string): CompleteCallback | undefined {
    return this.#callbacks.complete?.[variable];
  }
  /** @internal The variables with a completion callback. */
  get _completions(): [string, CompleteCallback][] {
    return Object.entries(this.#callbacks.complete ?? {});
  }
}

/** @internal The completion callback `completable` attached to a schema, if any. */
export function completerOf(schema: object): CompleteCallback | undefined {
  return COMPLETERS.get(schema);
}

const COMPLETERS = new WeakMap<object, CompleteCallback>();

/**
 * A prompt argument schema whose values the client can complete (`completion/complete`), as
 * the TypeScript SDK's `completable`: returns `schema`, with `complete` attached.
 */
export function completable<S extends SchemaLike>(schema: S, complete: CompleteCallback): S {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) {
    throw new TypeError('completable(schema, complete): schema must be a schema');
  }
  if (typeof complete !== 'function') throw new TypeError('completable(schema, complete): complete must be a function');
  COMPLETERS.set(schema, complete);
  return schema;
}
