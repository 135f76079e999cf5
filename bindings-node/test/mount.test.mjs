// The endpoint mounted in the application's own HTTP server (issue 11): server.nodeHandler()
// in express, fastify and node:http, server.fetch() in Hono under @hono/node-server, each on a real
// port driven by a real HTTP client. A handler reads a request header and a value the host
// app attached; the app's other route answers beside the endpoint; a client that goes away
// mid-SSE cancels the handler (its ctx.signal aborts); a body express.json() already parsed
// is served; an oversized body is 413; request info is undefined on stdio and redacts
// credentials when shown. The whole protocol is checked by the conformance suite against
// examples/node/everything.mjs --mount express|hono (run-tests.sh).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { test } from 'node:test';
import { inspect } from 'node:util';

import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';

import { McpServer, Server } from '../lib/index.mjs';
import { StdioClient, fixtures } from './helpers.mjs';

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

const call = (name, args = {}, meta) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
});

/** A stateless server with `whoami` (what a handler sees of the request) and `slow` (SSE until cancelled). */
function mcpServer() {
  const server = new Server({ name: 'mounted', version: '1.0.0', stateless: true });
  server.tool('whoami', (_args, ctx) => {
    const info = ctx.requestInfo;
    return JSON.stringify({
      tenant: info.headers['x-tenant'],
      user: info.hostValues.user ?? null,
      method: info.method,
      path: info.path,
      remoteAddress: info.remoteAddress,
    });
  });
  let started;
  let cancelled;
  const state = {
    started: new Promise((r) => (started = r)),
    cancelled: new Promise((r) => (cancelled = r)),
  };
  server.tool('slow', async (_args, ctx) => {
    ctx.reportProgress(1, undefined, 'started');
    started();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    cancelled(ctx.signal.aborted);
    return 'cancelled';
  });
  return { server, state };
}

/** The JSON-RPC response of a JSON or SSE body. */
function message(text, contentType) {
  if (contentType.startsWith('text/event-stream')) {
    const data = text
      .split(/\n\n/)
      .flatMap((block) => block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()))
      .filter((d) => d !== '')
      .map((d) => JSON.parse(d));
    return data.find((m) => m.id !== undefined && m.method === undefined);
  }
  return JSON.parse(text);
}

async function post(url, body, headers = {}) {
  const r = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  return { status: r.status, message: message(await r.text(), r.headers.get('content-type') ?? '') };
}

const toolJson = (m) => JSON.parse(m.result.content[0].text);

async function listen(httpServer) {
  if (!httpServer.listening) await once(httpServer, 'listening');
  return `http://127.0.0.1:${httpServer.address().port}`;
}

async function stop(httpServer, server) {
  await server.close();
  httpServer.closeAllConnections?.();
  await new Promise((r) => httpServer.close(r));
}

/** An express app: a middleware that puts the x-user header in res.locals, GET /health, the endpoint. */
function expressApp(handler, { json = false } = {}) {
  const app = express();
  app.use((req, res, next) => {
    if (req.get('x-user') !== undefined) res.locals.user = req.get('x-user');
    res.locals.helper = () => 'not JSON: not a host value';
    next();
  });
  app.get('/health', (_req, res) => res.type('text/plain').send('ok'));
  if (json) {
    app.post('/mcp', express.json(), (req, res) => handler(req, res, req.body));
  } else {
    app.all('/mcp', handler);
  }
  return app;
}

function honoApp(server) {
  const app = new Hono();
  app.use('*', async (c, next) => {
    if (c.req.header('x-user') !== undefined) c.set('user', c.req.header('x-user'));
    await next();
  });
  app.get('/health', (c) => c.text('ok'));
  app.all('/mcp', (c) =>
    server.fetch(c.req.raw, { hostValues: { user: c.get('user') }, remoteAddress: c.env.incoming.socket.remoteAddress }),
  );
  return app;
}

/** Start `slow` over SSE with node:http, read its first event, then drop the connection. */
async function dropMidStream(base, state) {
  const body = JSON.stringify(call('slow', {}, { progressToken: 'p' }));
  const req = request(`${base}/mcp`, { method: 'POST', headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) } });
  req.end(body);
  const [res] = await once(req, 'response');
  assert.equal(res.headers['content-type'], 'text/event-stream');
  await once(res, 'data');
  await state.started;
  req.destroy();
  return state.cancelled;
}

test('express: a handler reads a request header and the host value a middleware put in res.locals; /health answers beside', async () => {
  const { server } = mcpServer();
  const http = expressApp(server.nodeHandler()).listen(0, '127.0.0.1');
  const base = await listen(http);
  try {
    const r = await post(`${base}/mcp`, call('whoami'), { 'x-tenant': 'acme', 'x-user': 'ada' });
    assert.equal(r.status, 200);
    assert.deepEqual(toolJson(r.message), { tenant: 'acme', user: 'ada', method: 'POST', path: '/mcp', remoteAddress: '127.0.0.1' });
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok');
  } finally {
    await stop(http, server);
  }
});

test('hono (server.fetch): a handler reads a request header and the host value the app passed; /health answers beside', async () => {
  const { server } = mcpServer();
  const http = serve({ fetch: honoApp(server).fetch, port: 0, hostname: '127.0.0.1' });
  const base = await listen(http);
  try {
    const r = await post(`${base}/mcp`, call('whoami'), { 'x-tenant': 'acme', 'x-user': 'ada' });
    assert.equal(r.status, 200);
    assert.deepEqual(toolJson(r.message), { tenant: 'acme', user: 'ada', method: 'POST', path: '/mcp', remoteAddress: '127.0.0.1' });
    const health = await fetch(`${base}/health`);
    assert.equal(await health.text(), 'ok');
  } finally {
    await stop(http, server);
  }
});

test('node:http with options.hostValues(req, res): the values reach the handler', async () => {
  const { server } = mcpServer();
  const handler = server.nodeHandler({ hostValues: (req) => ({ user: `from ${req.headers['x-user']}` }) });
  const http = createServer((req, res) => void handler(req, res)).listen(0, '127.0.0.1');
  const base = await listen(http);
  try {
    const r = await post(`${base}/mcp`, call('whoami'), { 'x-user': 'bob' });
    assert.equal(toolJson(r.message).user, 'from bob');
  } finally {
    await stop(http, server);
  }
});

test('fastify: the body fastify parsed is served, a header and host values from options.hostValues reach the handler; /health answers beside', async () => {
  const { server } = mcpServer();
  const handler = server.nodeHandler({ hostValues: (req) => ({ user: req.headers['x-user'] }) });
  const app = Fastify();
  app.get('/health', async () => 'ok');
  app.all('/mcp', async (request, reply) => {
    reply.hijack();
    await handler(request.raw, reply.raw, request.body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  try {
    const r = await post(`${base}/mcp`, call('whoami'), { 'x-tenant': 'acme', 'x-user': 'ada' });
    assert.equal(r.status, 200);
    assert.deepEqual(toolJson(r.message), { tenant: 'acme', user: 'ada', method: 'POST', path: '/mcp', remoteAddress: '127.0.0.1' });
    assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
  } finally {
    await server.close();
    await app.close();
  }
});

test('express: a client that goes away mid-SSE cancels the handler (ctx.signal aborts)', async () => {
  const { server, state } = mcpServer();
  const http = expressApp(server.nodeHandler()).listen(0, '127.0.0.1');
  const base = await listen(http);
  try {
    assert.equal(await dropMidStream(base, state), true);
  } finally {
    await stop(http, server);
  }
});

test('hono (server.fetch): a client that goes away mid-SSE cancels the handler (ctx.signal aborts)', async () => {
  const { server, state } = mcpServer();
  const http = serve({ fetch: honoApp(server).fetch, port: 0, hostname: '127.0.0.1' });
  const base = await listen(http);
  try {
    assert.equal(await dropMidStream(base, state), true);
  } finally {
    await stop(http, server);
  }
});

test('express.json() already read the body: the parsed body passed to the handler is served', async () => {
  const { server } = mcpServer();
  const http = expressApp(server.nodeHandler(), { json: true }).listen(0, '127.0.0.1');
  const base = await listen(http);
  try {
    const r = await post(`${base}/mcp`, call('whoami'), { 'x-tenant': 't1' });
    assert.equal(r.status, 200);
    assert.equal(toolJson(r.message).tenant, 't1');
  } finally {
    await stop(http, server);
  }
});

test('a body of several chunks streams through to the handler (express and hono)', async () => {
  const { server } = mcpServer();
  const viaExpress = expressApp(server.nodeHandler()).listen(0, '127.0.0.1');
  const viaHono = serve({ fetch: honoApp(server).fetch, port: 0, hostname: '127.0.0.1' });
  try {
    for (const base of [await listen(viaExpress), await listen(viaHono)]) {
      const r = await post(`${base}/mcp`, call('whoami', { pad: 'x'.repeat(300_000) }), { 'x-tenant': 'big' });
      assert.equal(r.status, 200);
      assert.equal(toolJson(r.message).tenant, 'big');
    }
  } finally {
    await stop(viaHono, server);
    await stop(viaExpress, server);
  }
});

test('a body over maxBodyBytes is answered 413 (express, streamed body; server.fetch)', async () => {
  const { server } = mcpServer();
  const http = expressApp(server.nodeHandler({ maxBodyBytes: 64 })).listen(0, '127.0.0.1');
  const base = await listen(http);
  try {
    const big = call('whoami', { pad: 'x'.repeat(4096) });
    assert.equal((await fetch(`${base}/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(big) })).status, 413);
    // Streamed without a length: the endpoint stops reading part way.
    const body = new ReadableStream({
      start(c) {
        for (let i = 0; i < 64; i++) c.enqueue(new TextEncoder().encode('x'.repeat(256)));
        c.close();
      },
    });
    const r = await fetch(`${base}/mcp`, { method: 'POST', headers: HEADERS, body, duplex: 'half' });
    assert.equal(r.status, 413);
    const viaFetch = await server.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(big) }));
    assert.equal(viaFetch.status, 413);
  } finally {
    await stop(http, server);
  }
});

test('server.fetch refuses a request whose body a middleware already read (a TypeError)', async () => {
  const server = new Server({ name: 'm', version: '1' });
  try {
    const req = new Request('http://127.0.0.1/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(call('x')) });
    await req.text();
    await assert.rejects(server.fetch(req), (e) => e instanceof TypeError && /already read/.test(e.message));
  } finally {
    await server.close();
  }
});

test('one endpoint per server: other options throw a TypeError; a bad option throws one naming it', async () => {
  const server = new Server({ name: 'm', version: '1' });
  try {
    assert.throws(() => server.nodeHandler({ maxBodyBytes: 0 }), (e) => e instanceof TypeError && /maxBodyBytes/.test(e.message));
    server.nodeHandler({ maxBodyBytes: 1000 });
    server.fetchHandler({ maxBodyBytes: 1000 });
    assert.throws(() => server.nodeHandler({ maxBodyBytes: 2000 }), TypeError);
  } finally {
    await server.close();
  }
});

test('McpServer (extra.requestInfo): fetch and nodeHandler serve the same endpoint', async () => {
  const mcp = new McpServer({ name: 'm', version: '1' }, { stateless: true });
  mcp.registerTool('who', {}, (extra) => ({ content: [{ type: 'text', text: extra.requestInfo.headers['x-tenant'] }] }));
  try {
    const r = await mcp.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...HEADERS, 'x-tenant': 'z' }, body: JSON.stringify(call('who')) }));
    assert.equal(message(await r.text(), r.headers.get('content-type')).result.content[0].text, 'z');
    assert.equal(typeof mcp.nodeHandler(), 'function');
  } finally {
    await mcp.close();
  }
});

test('request info on stdio is undefined', async () => {
  const client = new StdioClient(`${fixtures}request-info-stdio.mjs`);
  try {
    await client.initialize();
    const r = await client.request('tools/call', { name: 'request_info', arguments: {} });
    assert.deepEqual(JSON.parse(r.result.content[0].text), { requestInfo: 'undefined' });
  } finally {
    await client.close();
  }
});

test('listen(): request info redacts credential headers in util.inspect and JSON, and the handler still reads them', async () => {
  const server = new Server({ name: 'm', version: '1', stateless: true });
  server.tool('show', (_args, ctx) =>
    JSON.stringify({ inspected: inspect(ctx.requestInfo), json: JSON.stringify(ctx.requestInfo), authorization: ctx.requestInfo.headers.authorization }),
  );
  const { url } = await server.listen();
  try {
    const secrets = { authorization: 'Bearer s3cret-token', cookie: 'sid=s3cret-cookie', 'x-api-key': 's3cret-key' };
    const r = await post(url, call('show'), { ...secrets, 'x-trace': 'visible' });
    const shown = toolJson(r.message);
    for (const text of [shown.inspected, shown.json]) {
      assert.doesNotMatch(text, /s3cret/);
      assert.match(text, /<redacted>/);
      assert.match(text, /visible/);
    }
    assert.equal(JSON.parse(shown.json).headers.authorization, '<redacted>');
    assert.equal(shown.authorization, 'Bearer s3cret-token');
  } finally {
    await server.close();
  }
});

/** POST `body` with node:http (which, unlike fetch, lets a test set Host and Origin); the status. */
async function rawStatus(base, body, headers) {
  const text = JSON.stringify(body);
  const req = request(`${base}/mcp`, { method: 'POST', headers: { ...HEADERS, 'content-length': Buffer.byteLength(text), ...headers } });
  req.end(text);
  const [res] = await once(req, 'response');
  res.resume();
  await once(res, 'end');
  return res.statusCode;
}

test('a mounted endpoint checks Host and Origin as the listener does (express and hono)', async () => {
  for (const kind of ['express', 'hono']) {
    const { server } = mcpServer();
    const http = kind === 'express'
      ? expressApp(server.nodeHandler()).listen(0, '127.0.0.1')
      : serve({ fetch: honoApp(server).fetch, port: 0, hostname: '127.0.0.1' });
    const base = await listen(http);
    try {
      assert.equal(await rawStatus(base, call('whoami'), { host: 'evil.example' }), 403, `${kind}: foreign Host`);
      assert.equal(await rawStatus(base, call('whoami'), { origin: 'http://evil.example' }), 403, `${kind}: foreign Origin`);
      assert.equal(await rawStatus(base, call('whoami'), { origin: 'http://localhost:5173' }), 200, `${kind}: local Origin`);
    } finally {
      await stop(http, server);
    }
  }
});

test('node:http: an event stream waits for drain when the response is full (back-pressure), then goes on', async () => {
  const server = new Server({ name: 'mounted', version: '1.0.0', stateless: true });
  server.tool('twice', async (_args, ctx) => {
    ctx.reportProgress(1, 2, 'first');
    await new Promise((r) => setTimeout(r, 50));
    return 'done';
  });
  const handler = server.nodeHandler();
  const events = [];
  const http = createServer((req, res) => {
    // The first write reports a full buffer; 'drain' comes 300 ms later.
    const write = res.write.bind(res);
    let writes = 0;
    res.write = (chunk, ...rest) => {
      writes += 1;
      events.push(`write ${writes}`);
      write(chunk, ...rest);
      if (writes === 1) {
        setTimeout(() => {
          events.push('drain');
          res.emit('drain');
        }, 300);
        return false;
      }
      return true;
    };
    void handler(req, res);
  }).listen(0, '127.0.0.1');
  const base = await listen(http);
  try {
    const r = await post(`${base}/mcp`, call('twice', {}, { progressToken: 'p' }));
    assert.equal(r.message.result.content[0].text, 'done');
    assert.deepEqual(events.slice(0, 3), ['write 1', 'drain', 'write 2'], 'nothing more is written before drain');
  } finally {
    await stop(http, server);
  }
});
