/**
 * The Streamable HTTP endpoint mounted in the application's own HTTP server: `fetch` for
 * web-standard servers (Hono, Next.js route handlers, Bun/Deno-style `fetch` handlers) and
 * `nodeHandler` for node:http, express and fastify. Every protocol decision (sessions, SSE,
 * resumability, the DNS-rebinding policy, body limits, the 2026-07-28 classifier) is the
 * core's: this module carries the request head and body in and the response out, chunk by
 * chunk, and cancels the exchange when the client goes away.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { NativeExchange, NativeServer } from './native.js';
import type { ListenOptions } from './server.js';

/** What `fetch(request, init)` adds to the request. */
export interface FetchInit {
  /**
   * Values for handlers to read (`ctx.requestInfo.hostValues`): a tenant, the user an auth
   * middleware found. Must be JSON-serialisable.
   */
  hostValues?: { [name: string]: unknown };
  /** The client's address (`ctx.requestInfo.remoteAddress`), when the host server knows it. */
  remoteAddress?: string;
}

/**
 * The options of the mounted endpoint: the core's HTTP options as `listen` takes them (the
 * host app listens and reads request heads, so `host`, `port` and `headerReadTimeoutMs` mean
 * nothing here). One endpoint per server: every
 * `nodeHandler()` and `fetch()` of a server share its sessions and options.
 */
export type MountOptions = Omit<ListenOptions, 'host' | 'port' | 'headerReadTimeoutMs'>;

/** The options of `nodeHandler()`: the endpoint's, and where host values come from. */
export interface NodeHandlerOptions extends MountOptions {
  /**
   * The values handlers read as `ctx.requestInfo.hostValues`, per request. Default: the
   * JSON-serialisable entries of express's `res.locals` (what express middleware attaches).
   */
  hostValues?: (req: IncomingMessage, res: ServerResponse) => { [name: string]: unknown } | undefined | Promise<{ [name: string]: unknown } | undefined>;
}

/** A node:http / express / fastify handler: `(req, res, parsedBody?)`. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;

/** Statuses whose response has no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** Values as JSON survives them (functions, symbols, cycles and BigInts left out). */
function jsonValues(values: object | undefined | null): { [name: string]: unknown } | undefined {
  if (values === undefined || values === null || typeof values !== 'object') return undefined;
  const out: { [name: string]: unknown } = {};
  for (const [name, value] of Object.entries(values)) {
    try {
      const text = JSON.stringify(value);
      if (text !== undefined) out[name] = JSON.parse(text);
    } catch {
      // Not JSON-serialisable: not a host value.
    }
  }
  return out;
}

/** A header array `[name, value, ...]` as `setHeader` takes it (repeated names as arrays). */
function headerObject(flat: string[]): { [name: string]: string | string[] } {
  const out: { [name: string]: string | string[] } = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i];
    const prev = out[name];
    if (prev === undefined) out[name] = flat[i + 1];
    else if (Array.isArray(prev)) prev.push(flat[i + 1]);
    else out[name] = [prev, flat[i + 1]];
  }
  return out;
}

/** Push a web request body to the exchange chunk by chunk, awaiting each (back-pressure). */
async function pump(ex: NativeExchange, body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength === 0) continue;
      if (!(await ex.write(Buffer.from(value.buffer, value.byteOffset, value.byteLength)))) return;
    }
    ex.end();
  } catch {
    // The client's body failed (it went away): nothing more will come.
    ex.cancel();
  } finally {
    reader.releaseLock();
  }
}

/**
 * Push a node:http request body to the exchange: the stream is paused while a chunk is on
 * its way (back-pressure); once the endpoint stops reading (it answered, say 413) the rest is
 * read and discarded, so that the answer still reaches the client.
 */
function pumpNode(ex: NativeExchange, req: IncomingMessage): void {
  let stopped = false;
  req.on('data', (chunk: Buffer) => {
    if (stopped) return;
    req.pause();
    ex.write(chunk).then(
      (taken) => {
        if (!taken) stopped = true;
        req.resume();
      },
      () => {
        stopped = true;
        req.resume();
      },
    );
  });
  req.once('end', () => {
    if (!stopped) ex.end();
  });
  req.once('error', () => ex.cancel());
}

/** @internal `server.fetch(request, init)`. */
export async function fetchResponse(native: NativeServer, request: Request, init?: FetchInit): Promise<Response> {
  // Duck-typed: a `Request` of another realm or of the undici package is one too.
  if (request === null || typeof request !== 'object' || typeof request.url !== 'string' || typeof request.method !== 'string') {
    throw new TypeError('fetch(request, init?): request must be a Request');
  }
  if (request.bodyUsed) {
    throw new TypeError('fetch(request, init?): the request body was already read (by a middleware?): pass the request before anything reads it');
  }
  const url = new URL(request.url);
  const headers: [string, string][] = [];
  request.headers.forEach((value, name) => {
    headers.push([name, value]);
  });
  // A `Request` keeps the authority in its URL, not in a `Host` header (a forbidden header
  // name for fetch): give the endpoint the one the client sent.
  if (!request.headers.has('host')) headers.push(['host', url.host]);
  const head = {
    method: request.method,
    target: url.pathname + url.search,
    headers,
    remoteAddress: init?.remoteAddress,
    hostValues: jsonValues(init?.hostValues),
  };
  let first: Buffer | undefined;
  let streamed = request.body !== null;
  const declared = request.headers.get('content-length');
  if (streamed && declared !== null && Number(declared) <= SMALL_BODY) {
    // A small body with a declared length crosses whole, with the head: one crossing.
    try {
      first = Buffer.from(await request.arrayBuffer());
    } catch {
      return new Response(null, { status: 499 }); // the client went away
    }
    streamed = false;
  }
  let ex: NativeExchange;
  try {
    ex = native.httpExchange(JSON.stringify(head), first, !streamed);
  } catch (e) {
    return new Response(`Service Unavailable: ${(e as Error).message}`, { status: 503 });
  }
  const signal: AbortSignal | undefined = request.signal ?? undefined;
  const onAbort = (): void => ex.cancel();
  if (signal?.aborted) ex.cancel();
  else signal?.addEventListener('abort', onAbort, { once: true });
  if (streamed && request.body !== null) void pump(ex, request.body);
  const h = await ex.head();
  if (h === null) {
    signal?.removeEventListener('abort', onAbort);
    return new Response(null, { status: 499 });
  }
  const responseHeaders = new Headers();
  for (let i = 0; i + 1 < h.headers.length; i += 2) responseHeaders.append(h.headers[i], h.headers[i + 1]);
  if (!h.eventStream) {
    signal?.removeEventListener('abort', onAbort);
    const body = NULL_BODY.has(h.status) ? null : (h.body ?? null);
    return new Response(body, { status: h.status, headers: responseHeaders });
  }
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await ex.read();
        if (chunk === null) {
          signal?.removeEventListener('abort', onAbort);
          controller.close();
        } else {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        }
      },
      cancel() {
        signal?.removeEventListener('abort', onAbort);
        ex.cancel();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status: h.status, headers: responseHeaders });
}

/** Bodies up to this many bytes with a `Content-Length` are read whole before the exchange starts. */
const SMALL_BODY = 64 * 1024;

/** Read a body of a declared (small) length whole; undefined when the client went away first. */
function readSmall(req: IncomingMessage, length: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    const onGone = (): void => {
      done();
      resolve(undefined);
    };
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
    };
    if (length === 0 && req.readableEnded) return resolve(Buffer.alloc(0));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onGone);
    req.once('close', onGone);
  });
}

/** @internal `server.nodeHandler(options)`. */
export function nodeHandler(native: NativeServer, options?: NodeHandlerOptions): NodeHandler {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError('nodeHandler(options?): options must be an object');
  }
  const { hostValues, ...http } = options ?? {};
  if (hostValues !== undefined && typeof hostValues !== 'function') {
    throw new TypeError('nodeHandler(options?): hostValues must be a function (req, res) => object');
  }
  native.mount(JSON.stringify(http));
  return async (req, res, parsedBody) => {
    const values = hostValues !== undefined ? await hostValues(req, res) : (res as { locals?: object }).locals;
    // A body parser (express.json(), fastify) already read the stream: use what it parsed.
    // (Mounted as express middleware, the third argument is express's `next`: no body.)
    const parsed = typeof parsedBody === 'function' ? undefined : parsedBody;
    const body = parsed !== undefined ? parsed : req.readableEnded ? (req as { body?: unknown }).body : undefined;
    const bodyBytes =
      body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const raw = req.rawHeaders;
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      // A re-serialised parsed body has its own length.
      if (bodyBytes !== undefined && (name === 'content-length' || name === 'transfer-encoding')) continue;
      headers.push([name, raw[i + 1]]);
    }
    const head = {
      method: req.method ?? 'GET',
      target: (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/',
      headers,
      remoteAddress: req.socket?.remoteAddress,
      remotePort: req.socket?.remotePort,
      hostValues: jsonValues(values),
    };
    let streamed = bodyBytes === undefined && !req.readableEnded;
    let first = bodyBytes;
    const declared = req.headers['content-length'];
    const length = declared === undefined ? NaN : Number(declared);
    if (streamed && length <= SMALL_BODY) {
      // A small body with a declared length crosses whole, with the head: one crossing.
      first = await readSmall(req, length);
      if (first === undefined) return; // the client went away
      streamed = false;
    }
    let ex: NativeExchange;
    try {
      ex = native.httpExchange(JSON.stringify(head), first, !streamed);
    } catch (e) {
      if (!res.headersSent) res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Service Unavailable: ${(e as Error).message}`);
      return;
    }
    // The client went away before the response ended: cancel what it carried.
    let finished = false;
    res.once('close', () => {
      if (!finished) ex.cancel();
    });
    if (req.socket?.destroyed) ex.cancel();
    if (streamed) pumpNode(ex, req);
    const h = await ex.head();
    if (h === null) return;
    for (const [name, value] of Object.entries(headerObject(h.headers))) res.setHeader(name, value);
    res.statusCode = h.status;
    if (!h.eventStream) {
      finished = true;
      res.end(NULL_BODY.has(h.status) ? undefined : h.body);
      return;
    }
    res.flushHeaders();
    for (;;) {
      const chunk = await ex.read();
      if (chunk === null) break;
      if (res.destroyed) return;
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    finished = true;
    if (!res.destroyed) res.end();
  };
}
