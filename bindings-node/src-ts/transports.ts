/**
 * Transports: how a server is reached. All of the protocol runs in the core's transports
 * (stdio, Streamable HTTP, in-process); this module only starts them and shapes what they
 * report back.
 */

import type { NativeServer, StdioLoop } from './native.js';

/** Where `listen()` serves. */
export interface ListenAddress {
  host: string;
  port: number;
  /** `http://host:port/path`. */
  url: string;
}

/** @internal Handle raw JSON-RPC text in-process; resolves to the response text ("" for none). */
export function handleRaw(native: NativeServer, text: string): Promise<string> {
  return native.handleRaw(String(text));
}

/**
 * @internal Serve on stdin/stdout until stdin ends or the server closes. The core's stdio loop
 * runs on this thread: `process.stdin` feeds it, and a handler that answers without waiting is
 * called and answered within that `data` event, with no hand-off to the runtime's threads and
 * back (`FERRITE_NODE_STDIO=runtime` serves from the runtime instead, reading stdin there).
 */
export function connectStdio(native: NativeServer, options?: { maxLineBytes?: number }): Promise<void> {
  if (process.env.FERRITE_NODE_STDIO === 'runtime') return native.connectStdio(options?.maxLineBytes);
  const stdin = process.stdin;
  const loop: StdioLoop = native.stdioLoop(() => loop.poll(), options?.maxLineBytes);
  const onData = (chunk: Buffer) => loop.feed(chunk);
  const onEnd = () => loop.end();
  stdin.on('data', onData);
  stdin.on('end', onEnd);
  stdin.on('error', onEnd);
  return loop.done().finally(() => {
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.off('error', onEnd);
    // Serving ended before stdin did (`close()`): stop reading, so stdin keeps Node alive no more.
    if (!stdin.readableEnded) stdin.destroy();
  });
}

/**
 * @internal Serve Streamable HTTP; resolves once bound to `{ host, port, url }`. The options
 * object goes to the core's `HttpConfig` as it is: the core checks every option, so a bad or
 * misspelt one is a `TypeError` naming it (`invalid HTTP option maxBodyBytes: ...`).
 */
export function listen(native: NativeServer, options?: object): Promise<ListenAddress> {
  return new Promise((resolve, reject) => {
    const done = native.listen(JSON.stringify(options ?? {}), (addressJson) => {
      const address = JSON.parse(addressJson) as { host: string; port: number; path: string };
      const h = address.host.includes(':') ? `[${address.host}]` : address.host;
      resolve({ host: address.host, port: address.port, url: `http://${h}:${address.port}${address.path}` });
    });
    // Before `listening` this is a bind failure; afterwards the settled listen() ignores it.
    done.catch(reject);
  });
}
