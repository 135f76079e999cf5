// Test helpers: an in-process JSON-RPC caller over `server.handleRaw`, and a small stdio
// client that spawns a Node server script, answers its server-to-client requests and
// collects its notifications.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

let nextId = 1;

/** Send one request in-process; returns the parsed response object. */
export async function rpc(server, method, params, id = nextId++) {
  const text = await server.handleRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return text === '' ? undefined : JSON.parse(text);
}

/** The 2026-07-28 revision. */
export const V2026 = '2026-07-28';

/** The `_meta` envelope of a 2026-07-28 request with these client capabilities. */
export function envelope(caps = {}) {
  return { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': caps };
}

/** A 2026-07-28 request in-process (no initialize); returns the parsed response object. */
export async function modern(server, method, params = {}, caps = {}, id = nextId++) {
  const text = await server.handleRaw(
    JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...params._meta, ...envelope(caps) } } }),
  );
  return JSON.parse(text);
}

/** A 2026-07-28 request in-process; returns its result (throws on a JSON-RPC error). */
export async function modernOk(server, method, params, caps) {
  const r = await modern(server, method, params, caps);
  if (r.error) throw Object.assign(new Error(`${method}: ${r.error.message}`), { rpc: r.error });
  return r.result;
}

/** The text of the first content block of a tool result. */
export const textOf = (result) => result.content[0].text;

/** `tools/call` in-process; returns the result (throws on a JSON-RPC error). */
export async function callTool(server, name, args) {
  const r = await rpc(server, 'tools/call', args === undefined ? { name } : { name, arguments: args });
  if (r.error) throw Object.assign(new Error(r.error.message), { rpc: r.error });
  return r.result;
}

/** A line-delimited JSON-RPC client over a child process's stdio. */
export class StdioClient {
  constructor(script, args = [], { onRequest } = {}) {
    this.child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.pending = new Map();
    /** Every response read, in arrival order (also those nobody awaits any more). */
    this.responses = [];
    this.notifications = [];
    this.waiters = [];
    this.stderr = '';
    this.onRequest = onRequest ?? (() => ({ error: { code: -32601, message: 'not supported by the test client' } }));
    this.child.stderr.on('data', (d) => (this.stderr += d));
    const lines = createInterface({ input: this.child.stdout });
    lines.on('line', (line) => this.#onLine(line));
    this.id = 1;
  }

  #onLine(line) {
    const msg = JSON.parse(line);
    if (msg.method !== undefined && msg.id !== undefined) {
      Promise.resolve(this.onRequest(msg.method, msg.params)).then((answer) => {
        this.send({ jsonrpc: '2.0', id: msg.id, ...answer });
      });
    } else if (msg.method !== undefined) {
      this.notifications.push(msg);
      for (const w of this.waiters.splice(0)) w();
    } else {
      this.responses.push(msg);
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        p(msg);
      }
    }
  }

  send(message) {
    this.child.stdin.write(JSON.stringify(message) + '\n');
  }

  /** Send a request; resolves to the whole response message. */
  request(method, params, id = this.id++) {
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method, params) {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** initialize + notifications/initialized with these client capabilities. */
  async initialize(capabilities = {}, protocolVersion = '2025-06-18') {
    const r = await this.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'ferrite-node-tests', version: '0.0.0' },
    });
    this.notify('notifications/initialized');
    return r;
  }

  /** Wait until a notification matching `pred` arrived. */
  async waitForNotification(pred, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.notifications.find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('timed out waiting for a notification');
      await new Promise((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Close stdin and wait for the process to exit; returns its exit code. */
  async close() {
    this.child.stdin.end();
    if (this.child.exitCode === null) await once(this.child, 'exit');
    return this.child.exitCode;
  }
}
