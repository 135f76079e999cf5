/**
 * A connection the application holds (`server.connection()`): its own connection state
 * (negotiated revision, client capabilities, log level, subscriptions), raw JSON-RPC text
 * handled against it, and what the server sends on it handed to a function. The core's
 * `handle_raw_on`, for applications that carry the messages themselves (a custom transport,
 * a test harness).
 */

import type { NativeConnection } from './native.js';

/** Options of `server.connection()`. */
export interface ConnectionOptions {
  /**
   * Receives what the server sends on this connection, as wire text: notifications (log
   * messages, progress, list changes) and server-to-client requests (`sampling/createMessage`,
   * `elicitation/create`, `roots/list`, `ping`), whose answers go back through `handleRaw`.
   * Without it the connection has no channel back (server-to-client requests fail with
   * `noChannel`, notifications are dropped).
   */
  onMessage?: (message: string) => void;
}

/** A connection to a server, held by the application. */
export class Connection {
  #native: NativeConnection;

  /** @internal Made by `server.connection()`. */
  constructor(native: NativeConnection) {
    this.#native = native;
  }

  /** The connection's id: `ctx.connectionId` of its requests, and what `server.pingClient` takes. */
  get id(): string {
    return this.#native.id;
  }

  /**
   * Handle raw JSON-RPC text (a message, a batch, or the client's answer to a server
   * request) against this connection; resolves to the response text ("" for none).
   */
  handleRaw(text: string): Promise<string> {
    return this.#native.handleRaw(String(text));
  }

  /** Close: requests waiting for the client's answer fail, server-wide notifications stop. Idempotent. */
  close(): void {
    this.#native.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
