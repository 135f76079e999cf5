/**
 * A server as one instance of a fleet behind one endpoint. Instances of a fleet answer each
 * other's clients, so the state they share lives in Redis rather than in one process: the core
 * keeps it there (today the tasks of both generations, and the fleet-wide notifications) once
 * `useRedis` is called. Sealed `requestState` needs no store, only the same keys on every
 * instance (`setRequestStateKeys`).
 */

import type { NativeServer } from './native.js';

/** The options of `server.useRedis(url, options)`. */
export interface RedisOptions {
  /**
   * Every key the server writes starts with it (default `"ferrite:"`): the instances of one
   * fleet use the same prefix, fleets and tests that share a Redis use different ones.
   */
  keyPrefix?: string;
}

/** @internal See `Server.useRedis`. */
export function useRedis(native: NativeServer, url: string, options: RedisOptions = {}): void {
  if (typeof url !== 'string') throw new TypeError('useRedis(url, options?): url must be a string (redis://host:port/db)');
  if (options === null || typeof options !== 'object') throw new TypeError('useRedis(url, options?): options must be an object');
  const keyPrefix = options.keyPrefix ?? 'ferrite:';
  if (typeof keyPrefix !== 'string') throw new TypeError('useRedis(url, options?): keyPrefix must be a string');
  native.useRedis(url, keyPrefix);
}
