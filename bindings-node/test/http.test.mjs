// Streamable HTTP through listen(): a session is created at initialize (none when stateless),
// tool calls are answered (JSON or SSE), ctx.closeSseStream() ends a POST stream mid-call
// and the result is replayed after a reconnect, and close() ends serving so the process
// can exit. The full protocol is checked by the conformance suite and the TypeScript SDK
// client (run-tests.sh); these tests pin the Node surface itself, including the listen()
// options that reach the core: DNS-rebinding protection (allowedHosts, allowedOrigins,
// allowAnyHost), sseRetryMs, resumable and legacySse.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { Server } from '../lib/index.mjs';
import { fixtures } from './helpers.mjs';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const VERSION = '2025-11-25';

/** Parse an SSE body into its events: `{ id, retry, data }` (data parsed when present). */
function sseEvents(text) {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = {};
      for (const line of block.split(/\r?\n/)) {
        const at = line.indexOf(':');
        const [field, value] = at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 1).replace(/^ /, '')];
        if (field === 'id') event.id = value;
        else if (field === 'retry') event.retry = Number(value);
        else if (field === 'data') event.data = (event.data ?? '') + value;
      }
      if (event.data !== undefined && event.data !== '') event.data = JSON.parse(event.data);
      return event;
    });
}

/** The JSON-RPC response in a response body, JSON or SSE. */
async function message(response) {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return sseEvents(text)
      .map((e) => e.data)
      .find((m) => m?.id !== undefined && m.method === undefined);
  }
  return JSON.parse(text);
}

function poster(url) {
  return (body, extra = {}) =>
    fetch(url, { method: 'POST', headers: { ...HEADERS, ...extra }, body: JSON.stringify(body) });
}

const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '0' } },
});

/** initialize + notifications/initialized; returns the headers later requests carry. */
async function openSession(post) {
  const init = await post(initialize());
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'a stateful server issues a session id');
  await init.text();
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': VERSION };
  const ack = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  assert.equal(ack.status, 202);
  return headers;
}

test('listen() serves Streamable HTTP with sessions until close()', async () => {
  const server = new Server({ name: 'http', version: '1.0.0', stateful: true, logging: true });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } }, ({ a, b }, ctx) => {
    ctx.info('adding');
    return String(a + b);
  });
  const address = await server.listen({ port: 0 });
  try {
    await serveSessions(address);
  } finally {
    await server.close();
  }
  await assert.rejects(fetch(address.url, { method: 'POST', headers: HEADERS, body: '{}' }), 'close() stopped the listener');
});

async function serveSessions(address) {
  assert.equal(address.host, '127.0.0.1');
  assert.ok(address.port > 0);
  assert.equal(address.url, `http://127.0.0.1:${address.port}/mcp`);

  const post = poster(address.url);
  const init = await post(initialize());
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  assert.match(session ?? '', /^[\x21-\x7e]{16,}$/, 'a stateful server issues a visible-ASCII session id');
  assert.equal((await message(init)).result.serverInfo.name, 'http');
  const sessionHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': VERSION };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);

  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, sessionHeaders);
  assert.equal(call.status, 200);
  assert.equal((await message(call)).result.content[0].text, '5');

  const unknown = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { ...sessionHeaders, 'mcp-session-id': 'nope' });
  assert.equal(unknown.status, 404, 'an unknown session id is 404');
  await unknown.text();
}

test('a stateless listen() issues no session id and answers every POST on its own', async () => {
  const server = new Server({ name: 'stateless-http', version: '1.0.0', stateless: true });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
  const { url } = await server.listen({ responseMode: 'json' });
  try {
    const post = poster(url);
    const init = await post(initialize());
    assert.equal(init.status, 200);
    assert.equal(init.headers.get('mcp-session-id'), null);
    assert.equal((await init.json()).result.serverInfo.name, 'stateless-http');
    const call = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { 'mcp-protocol-version': VERSION },
    );
    assert.equal(call.status, 200);
    assert.match(call.headers.get('content-type'), /^application\/json/);
    assert.equal((await call.json()).result.content[0].text, 'hi');
    const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405, 'no standalone stream without sessions');
    await get.text();
  } finally {
    await server.close();
  }
});

test('ctx.closeSseStream() ends the POST stream mid-call; a GET with Last-Event-ID gets the result', async () => {
  const server = new Server({ name: 'reconnect', version: '1.0.0', stateful: true });
  let release;
  const released = new Promise((resolve) => (release = resolve));
  let closed;
  server.tool('reconnect', async (_args, ctx) => {
    closed = ctx.closeSseStream(50);
    // The test lets the handler finish once the POST stream has ended (bounded, so a stream
    // that never ends fails the assertions below instead of hanging).
    await Promise.race([released, sleep(5000)]);
    return 'after reconnect';
  });
  const { url } = await server.listen();
  try {
    const post = poster(url);
    const headers = await openSession(post);
    const call = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'reconnect' } }, headers);
    assert.equal(call.status, 200);
    assert.match(call.headers.get('content-type'), /^text\/event-stream/);
    const events = sseEvents(await call.text()); // ends while the handler still waits
    assert.equal(closed, true, 'closeSseStream is true over HTTP');
    assert.ok(!events.some((e) => e.data?.id === 7), 'the result did not ride the closed stream');
    const primed = events.find((e) => e.id !== undefined);
    assert.ok(primed, `the stream carried an event id to resume from: ${JSON.stringify(events)}`);
    assert.equal(events.at(-1).retry, 50, 'the stream ends telling the client when to reconnect');

    release();
    const resumed = await fetch(url, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primed.id },
    });
    assert.equal(resumed.status, 200);
    // Read until the result arrives, then drop the stream.
    const reader = resumed.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    let result;
    while (result === undefined) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the resumed stream ended without the result: ${text}`);
      text += value;
      result = sseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2)).find((e) => e.data?.id === 7);
    }
    await reader.cancel();
    assert.equal(result.data.result.content[0].text, 'after reconnect');
  } finally {
    release();
    await server.close();
  }
});

test('a process serving HTTP stays alive, and exits by itself after close()', async () => {
  const child = spawn(process.execPath, [`${fixtures}http-close-on-call.mjs`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  try {
    const [url] = await once(createInterface({ input: child.stdout }), 'line');
    const post = poster(url);
    const headers = await openSession(post);
    // Nothing but the listener is pending: the process must still be serving.
    await sleep(300);
    assert.equal(child.exitCode, null, `the process exited while listening: ${stderr}`);
    const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'close' } }, headers);
    assert.equal((await message(call)).result.content[0].text, 'closing');
    const [code, signal] = child.exitCode === null ? await once(child, 'exit') : [child.exitCode, child.signalCode];
    assert.equal(signal, null, 'the process had to be killed: it did not exit by itself after close()');
    assert.equal(code, 0, stderr);
  } finally {
    clearTimeout(timer);
    child.kill('SIGKILL');
  }
});

test('listen() rejects with a clear error when the address is taken or invalid', async () => {
  const a = new Server({ name: 'a', version: '1' });
  const b = new Server({ name: 'b', version: '1' });
  try {
    const { port } = await a.listen();
    await assert.rejects(b.listen({ port }), /cannot listen/);
    await assert.rejects(async () => b.listen({ host: 'not-an-ip' }), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
      message: 'invalid HTTP option host: "not-an-ip" is not an IP address (bind to 127.0.0.1, 0.0.0.0 or ::)',
    });
    await assert.rejects(async () => b.listen({ responseMode: 'xml' }), {
      name: 'TypeError',
      message: 'invalid HTTP option responseMode: unknown variant `xml`, expected one of `auto`, `json`, `sse`',
    });
  } finally {
    await a.close();
    await b.close();
  }
});

/**
 * POST `initialize` through node:http, which (unlike fetch) lets the caller set `Host`.
 * Resolves to the status code and the body text.
 */
function rawInitialize(url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...HEADERS, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(initialize()));
  });
}

/** Run `fn(url, port)` against a stateless server listening with `options`, then close it. */
async function withListener(options, fn) {
  const server = new Server({ name: 'policy', version: '1.0.0', stateless: true });
  const { url, port } = await server.listen({ responseMode: 'json', ...options });
  try {
    await fn(url, port);
  } finally {
    await server.close();
  }
}

test('a foreign Host is refused with 403 by default and accepted when listed in allowedHosts', async () => {
  await withListener({}, async (url, port) => {
    assert.equal((await rawInitialize(url, { host: `127.0.0.1:${port}` })).status, 200, 'loopback is accepted');
    assert.equal((await rawInitialize(url, { host: `localhost:${port}` })).status, 200, 'localhost is accepted');
    const foreign = await rawInitialize(url, { host: `mcp.example.com:${port}` });
    assert.equal(foreign.status, 403, `a foreign Host is refused: ${foreign.body}`);
  });
  await withListener({ allowedHosts: ['mcp.example.com'] }, async (url, port) => {
    const listed = await rawInitialize(url, { host: `mcp.example.com:${port}` });
    assert.equal(listed.status, 200, listed.body);
    assert.equal(JSON.parse(listed.body).result.serverInfo.name, 'policy');
    assert.equal((await rawInitialize(url, { host: 'MCP.Example.COM' })).status, 200, 'names match case-insensitively');
    assert.equal((await rawInitialize(url, { host: `evil.example:${port}` })).status, 403, 'an unlisted Host is refused');
    assert.equal(
      (await rawInitialize(url, { host: `127.0.0.1:${port}` })).status,
      403,
      'the list replaces the loopback default',
    );
  });
});

test('allowAnyHost accepts any Host and Origin', async () => {
  await withListener({ allowAnyHost: true }, async (url, port) => {
    assert.equal((await rawInitialize(url, { host: `mcp.example.com:${port}` })).status, 200);
    assert.equal((await rawInitialize(url, { origin: 'https://evil.example' })).status, 200);
  });
});

test('a foreign Origin is refused with 403 unless listed in allowedOrigins', async () => {
  await withListener({}, async (url) => {
    assert.equal((await rawInitialize(url, {})).status, 200, 'no Origin (a non-browser client) is accepted');
    assert.equal((await rawInitialize(url, { origin: 'http://localhost:5173' })).status, 200, 'a loopback Origin is accepted');
    const foreign = await rawInitialize(url, { origin: 'https://app.example.com' });
    assert.equal(foreign.status, 403, `a foreign Origin is refused: ${foreign.body}`);
  });
  await withListener({ allowedOrigins: ['https://app.example.com'] }, async (url) => {
    assert.equal((await rawInitialize(url, { origin: 'https://app.example.com' })).status, 200);
    assert.equal((await rawInitialize(url, { origin: 'https://app.example.com:8443' })).status, 200, 'any port');
    assert.equal((await rawInitialize(url, { origin: 'http://app.example.com' })).status, 403, 'the scheme counts');
    assert.equal((await rawInitialize(url, { origin: 'https://evil.example' })).status, 403);
    assert.equal(
      (await rawInitialize(url, { host: 'localhost' })).status,
      200,
      'allowedOrigins leaves the Host default in place',
    );
  });
});

test('listen() options go through the core\'s HttpConfig: each bad option is a TypeError with the core\'s message, key in camelCase', async () => {
  const server = new Server({ name: 'bad-options', version: '1' });
  const no = (key, why) => `invalid HTTP option ${key}: ${why}`;
  const noPort = 'no port (any port is accepted); write IPv6 addresses in brackets, like [::1]';
  try {
    const cases = [
      [{ maxBodyBytes: 0 }, no('maxBodyBytes', 'must be at least 1 byte, not 0')],
      [{ max_body_bytes: 0 }, no('maxBodyBytes', 'must be at least 1 byte, not 0')],
      [{ maxBodyBytes: 'big' }, no('maxBodyBytes', 'invalid type: string "big", expected u64')],
      [{ path: 'mcp' }, no('path', '"mcp" is not a literal path starting with \'/\'')],
      [{ path: '/a/{b}' }, no('path', '"/a/{b}" is not a literal path starting with \'/\'')],
      [{ streamBuffer: 0 }, no('streamBuffer', 'must be at least 1 event, not 0')],
      [{ legacySse: true, path: '/sse' }, no('legacySsePath', '"/sse" is also the endpoint path')],
      [{ allowedHosts: ['example.com:8080'] }, no('allowedHosts', `entry "example.com:8080": ${noPort}`)],
      [{ allowedHosts: ['::1'] }, no('allowedHosts', `entry "::1": ${noPort}`)],
      [{ allowedHosts: ['[nope]'] }, no('allowedHosts', 'entry "[nope]": not an IPv6 address in brackets')],
      [{ allowedHosts: ['http://example.com'] }, no('allowedHosts', 'entry "http://example.com": a host name, not a URL (origins go in the allowed origins)')],
      [{ allowedHosts: [] }, no('allowedHosts', 'is empty, which would refuse every request (allow_any_host accepts any)')],
      [{ allowedOrigins: ['example.com'] }, no('allowedOrigins', 'entry "example.com": an origin is scheme://host, like http://localhost')],
      [{ allowedOrigins: ['https://example.com/'] }, no('allowedOrigins', 'entry "https://example.com/": no trailing \'/\' or path')],
      [{ allowedOrigins: ['https://example.com:443'] }, no('allowedOrigins', `entry "https://example.com:443": ${noPort}`)],
      [{ allowedOrigins: [] }, no('allowedOrigins', 'is empty, which would refuse every request (allow_any_host accepts any)')],
      [{ allowAnyHost: true, allowedHosts: ['example.com'] }, no('allowedHosts', 'contradicts allow_any_host, which turns the Host and Origin checks off')],
      [{ allowedHosts: 'example.com' }, no('allowedHosts', 'invalid type: string "example.com", expected a sequence')],
      [{ allowAnyHost: 'yes' }, no('allowAnyHost', 'invalid type: string "yes", expected a boolean')],
      [{ sseRetryMs: -1 }, no('sseRetryMs', 'invalid value: integer `-1`, expected u64')],
      [{ sseRetryMs: 1.5 }, no('sseRetryMs', 'invalid type: floating point `1.5`, expected u64')],
      [{ resumable: 1 }, no('resumable', 'invalid type: integer `1`, expected a boolean')],
      [{ allowedHost: ['example.com'] }, no('allowedHost', 'unknown option')],
      // The option of earlier versions, in seconds, is gone (`sessionIdleTimeoutMs`).
      [{ sessionIdleTimeoutSecs: 5 }, no('sessionIdleTimeoutSecs', 'unknown option')],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(
        async () => server.listen(options),
        { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message },
        JSON.stringify(options),
      );
    }
  } finally {
    await server.close();
  }
});

test('listen() options in camelCase reach the core: path, sessionIdleTimeoutMs: 0 (never), maxBodyBytes', async () => {
  const server = new Server({ name: 'opts', version: '1', stateless: true });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
  const { url } = await server.listen({ path: '/custom', sessionIdleTimeoutMs: 0, maxBodyBytes: 400, responseMode: 'json' });
  try {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/custom$/);
    const post = poster(url);
    assert.equal((await post(initialize())).status, 200);
    const big = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(500) } } });
    assert.equal(big.status, 413);
    await big.text();
  } finally {
    await server.close();
  }
});

test('sseRetryMs sets the retry of the priming event; resumable: false sends no event ids', async () => {
  for (const resumable of [true, false]) {
    const server = new Server({ name: 'retry', version: '1.0.0', stateful: true });
    server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
    const { url } = await server.listen({ responseMode: 'sse', sseRetryMs: 2500, resumable });
    try {
      const post = poster(url);
      const headers = await openSession(post);
      const call = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
        headers,
      );
      assert.equal(call.status, 200);
      assert.match(call.headers.get('content-type'), /^text\/event-stream/);
      const events = sseEvents(await call.text());
      assert.equal(events.find((e) => e.data?.id === 2)?.data.result.content[0].text, 'hi', JSON.stringify(events));
      if (resumable) {
        assert.ok(events[0].id, `the stream opens with a priming event id: ${JSON.stringify(events)}`);
        assert.equal(events[0].retry, 2500, 'the priming event advertises sseRetryMs');
      } else {
        assert.ok(!events.some((e) => e.id !== undefined), `no event ids without resumability: ${JSON.stringify(events)}`);
      }
    } finally {
      await server.close();
    }
  }
});

test('legacySse serves GET /sse whose first event names the message endpoint', async () => {
  const server = new Server({ name: 'legacy', version: '1.0.0', stateful: true });
  const { port } = await server.listen({ legacySse: true });
  const plain = new Server({ name: 'plain', version: '1.0.0', stateful: true });
  const { port: plainPort } = await plain.listen();
  try {
    const response = await fetch(`http://127.0.0.1:${port}/sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type'), /^text\/event-stream/);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the stream ended before its first event: ${text}`);
      text += value;
    }
    await reader.cancel();
    const first = text.slice(0, text.indexOf('\n\n')).split('\n');
    assert.equal(first[0], 'event: endpoint');
    assert.match(first[1], /^data: \/messages\?sessionId=[\x21-\x7e]+$/);

    const absent = await fetch(`http://127.0.0.1:${plainPort}/sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(absent.status, 404, 'no /sse without legacySse');
    await absent.text();
  } finally {
    await server.close();
    await plain.close();
  }
});
