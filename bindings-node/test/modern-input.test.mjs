// Bad 2026-07-28 input is refused the documented way, in-process (handleRaw) and over this
// package's own listener (listen()), and the server keeps serving; an MRTR tool completes in
// two rounds over both, and a tampered requestState is refused. ctx.header() reads the HTTP
// request's headers.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { InputRequest, InputRequired, Server } from '../lib/index.mjs';
import { V2026, envelope, modern, modernOk, textOf } from './helpers.mjs';

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

function build(stateless = true) {
  const s = new Server({ name: 'modern-input', version: '1.0.0', stateful: !stateless });
  s.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
  s.tool('greet', (_args, ctx) => {
    const r = ctx.inputResponse('user_name', 'elicit');
    if (r === undefined) return new InputRequired().ask('user_name', InputRequest.elicit('Name?', NAME_FORM)).withState('greeting');
    return `Hello, ${r.content?.name} (${ctx.requestState})`;
  });
  s.tool('header', (_args, ctx) => `${ctx.header('x-test-header') ?? 'none'}|${ctx.header('mcp-method') ?? 'none'}`);
  return s;
}

const raw = async (s, message) => JSON.parse(await s.handleRaw(JSON.stringify(message)));

async function stillServes(s) {
  assert.equal(textOf(await modernOk(s, 'tools/call', { name: 'echo', arguments: { text: 'ok' } })), 'ok');
}

// ----- in-process -----

test('handleRaw: an envelope without clientCapabilities is -32602', async () => {
  const s = build();
  const r = await raw(s, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V2026 } } });
  assert.equal(r.id, 1);
  assert.equal(r.error.code, -32602);
  assert.match(r.error.message, /clientCapabilities/);
  await stillServes(s);
  await s.close();
});

test('handleRaw: unsupported version 1999-01-01 is -32022 with data.supported and data.requested', async () => {
  const s = build();
  const meta = { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '1999-01-01' };
  const r = await raw(s, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } });
  assert.equal(r.error.code, -32022);
  assert.equal(r.error.data.requested, '1999-01-01');
  assert.ok(r.error.data.supported.includes(V2026), JSON.stringify(r.error.data));
  await stillServes(s);
  await s.close();
});

test('handleRaw: the removed method ping with an envelope is -32601', async () => {
  const s = build();
  const r = await modern(s, 'ping');
  assert.equal(r.error.code, -32601);
  await stillServes(s);
  await s.close();
});

test('handleRaw: a batch containing an enveloped request is -32600', async () => {
  const s = build();
  const r = await raw(s, [
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope() } },
  ]);
  assert.equal(Array.isArray(r), false);
  assert.equal(r.id, null);
  assert.equal(r.error.code, -32600);
  await stillServes(s);
  await s.close();
});

for (const stateless of [true, false]) {
  test(`handleRaw: an MRTR tool completes in two rounds (${stateless ? 'stateless' : 'stateful'})`, async () => {
    const s = build(stateless);
    const first = await modernOk(s, 'tools/call', { name: 'greet' }, { elicitation: {} });
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests), ['user_name']);
    assert.equal(first.inputRequests.user_name.method, 'elicitation/create');
    const final = await modernOk(
      s,
      'tools/call',
      { name: 'greet', inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } }, requestState: first.requestState },
      { elicitation: {} },
    );
    assert.equal(final.resultType, 'complete');
    assert.equal(textOf(final), 'Hello, Ada (greeting)');
    await s.close();
  });
}

test('handleRaw: a tampered requestState is -32602', async () => {
  const s = build();
  const sealed = (await modernOk(s, 'tools/call', { name: 'greet' }, { elicitation: {} })).requestState;
  const at = sealed.length - 5;
  const flipped = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
  const r = await modern(
    s,
    'tools/call',
    { name: 'greet', inputResponses: { user_name: { action: 'accept', content: { name: 'x' } } }, requestState: flipped },
    { elicitation: {} },
  );
  assert.equal(r.error?.code, -32602, JSON.stringify(r));
  await stillServes(s);
  await s.close();
});

// ----- over this package's listener -----

/** POST a JSON-RPC message; `{ status, body }` (the body parsed, JSON or the response of an SSE stream). */
async function post(url, message, headers) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
  const text = await r.text();
  let body;
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
    body = data.find((m) => m.id !== undefined && m.method === undefined);
  } else {
    body = JSON.parse(text);
  }
  return { status: r.status, body };
}

/** A 2026-07-28 request with the headers its method asks for. */
function modernPost(url, id, method, params = {}, { caps = {}, headers = {} } = {}) {
  const h = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  if (method === 'tools/call') h['mcp-name'] = params.name;
  return post(url, { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(caps) } }, { ...h, ...headers });
}

async function listening(fn, stateless = true) {
  const s = build(stateless);
  const { url } = await s.listen({ port: 0 });
  try {
    await fn(url);
  } finally {
    await s.close();
  }
}

async function httpStillServes(url) {
  const { status, body } = await modernPost(url, 99, 'tools/call', { name: 'echo', arguments: { text: 'ok' } });
  assert.equal(status, 200);
  assert.equal(textOf(body.result), 'ok');
}

test('HTTP: MCP-Protocol-Version differing from the envelope is 400 with -32020', () =>
  listening(async (url) => {
    const { status, body } = await modernPost(url, 1, 'tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } });
    assert.equal(status, 400);
    assert.equal(body.error.code, -32020);
    await httpStillServes(url);
  }));

test('HTTP: an unknown method is 404 with -32601', () =>
  listening(async (url) => {
    const { status, body } = await modernPost(url, 2, 'no/such/method');
    assert.equal(status, 404);
    assert.equal(body.error.code, -32601);
    await httpStillServes(url);
  }));

test('HTTP: a missing envelope with MCP-Protocol-Version 2026-07-28 is 400 with -32602', () =>
  listening(async (url) => {
    const { status, body } = await post(
      url,
      { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': V2026, 'mcp-method': 'tools/list' },
    );
    assert.equal(status, 400);
    assert.equal(body.id, 9);
    assert.equal(body.error.code, -32602);
    await httpStillServes(url);
  }));

for (const stateless of [true, false]) {
  test(`HTTP: an MRTR tool completes in two rounds (${stateless ? 'stateless' : 'stateful'})`, () =>
    listening(async (url) => {
      const caps = { elicitation: {} };
      const first = await modernPost(url, 1, 'tools/call', { name: 'greet' }, { caps });
      assert.equal(first.status, 200);
      assert.equal(first.body.result.resultType, 'input_required');
      const retry = {
        name: 'greet',
        inputResponses: { user_name: { action: 'accept', content: { name: 'Grace' } } },
        requestState: first.body.result.requestState,
      };
      const final = await modernPost(url, 2, 'tools/call', retry, { caps });
      assert.equal(final.status, 200);
      assert.equal(textOf(final.body.result), 'Hello, Grace (greeting)');
    }, stateless));
}

test('HTTP: ctx.header reads the request headers by case-insensitive name; in-process it has none', async () => {
  await listening(async (url) => {
    const { body } = await modernPost(url, 1, 'tools/call', { name: 'header' }, { headers: { 'X-Test-Header': 'hello' } });
    assert.equal(textOf(body.result), 'hello|tools/call');
  });
  const s = build();
  assert.equal(textOf(await modernOk(s, 'tools/call', { name: 'header' })), 'none|none');
  await s.close();
});
