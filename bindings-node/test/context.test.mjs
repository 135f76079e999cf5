// The request context over a real stdio connection: identity, logging, progress, client
// capabilities and the server-to-client requests (sample, elicit, listRoots).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { StdioClient, fixtures } from './helpers.mjs';

let client;
const answered = [];

before(async () => {
  client = new StdioClient(`${fixtures}context-server.mjs`, [], {
    onRequest(method, params) {
      answered.push({ method, params });
      if (method === 'sampling/createMessage') {
        if (params.messages[0].content.text === 'unanswerable') return { error: { code: -1, message: 'declined' } };
        return { result: { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test-model' } };
      }
      if (method === 'elicitation/create') return { result: { action: 'accept', content: { name: 'Ada' } } };
      if (method === 'roots/list') return { result: { roots: [{ uri: 'file:///work', name: 'work' }] } };
      if (method === 'ping') return { result: {} };
      return { error: { code: -32601, message: 'unknown' } };
    },
  });
  const init = await client.initialize({ sampling: {}, elicitation: {}, roots: {} });
  assert.equal(init.result.protocolVersion, '2025-06-18');
});

after(async () => {
  assert.equal(await client.close(), 0, client.stderr);
});

const text = (r) => r.result.content[0].text;

test('the context exposes request id, protocol version, connection id and client info', async () => {
  const r = await client.request('tools/call', { name: 'info', arguments: {}, _meta: { progressToken: 'tok' } }, 'req-7');
  const info = JSON.parse(text(r));
  assert.equal(info.requestId, 'req-7');
  assert.equal(info.protocolVersion, '2025-06-18');
  assert.equal(typeof info.connectionId, 'string');
  assert.ok(info.connectionId.length > 0);
  assert.equal(info.progressToken, 'tok');
  assert.equal(info.isStateless, false);
  assert.equal(info.supportsSampling, true);
  assert.equal(info.supportsRoots, true);
  assert.deepEqual(info.clientInfo, { name: 'ferrite-node-tests', version: '0.0.0' });
});

test('log helpers and reportProgress send notifications before the response', async () => {
  const r = await client.request('tools/call', { name: 'log_and_progress', arguments: {}, _meta: { progressToken: 9 } });
  // info and warning are sent; debug is below the default level; progress has a token.
  assert.deepEqual(JSON.parse(text(r)), [true, true, false, true]);
  const logs = client.notifications.filter((n) => n.method === 'notifications/message');
  assert.deepEqual(logs.slice(-2).map((n) => n.params), [
    { level: 'info', data: 'hello from a tool' },
    { level: 'warning', data: { detail: 42 }, logger: 'fixture-logger' },
  ]);
  const progress = client.notifications.find((n) => n.method === 'notifications/progress');
  assert.deepEqual(progress.params, { progressToken: 9, progress: 1, total: 2, message: 'half way' });
});

test('sample resolves to the client reply', async () => {
  const r = await client.request('tools/call', { name: 'sample', arguments: {} });
  assert.equal(text(r), 'model=test-model text=4');
  const sent = answered.find((a) => a.method === 'sampling/createMessage');
  assert.equal(sent.params.maxTokens, 5);
  assert.deepEqual(sent.params.messages, [{ role: 'user', content: { type: 'text', text: 'What is 2+2?' } }]);
});

test('elicit takes a zod schema and resolves to the user answer', async () => {
  const r = await client.request('tools/call', { name: 'elicit_zod', arguments: {} });
  assert.deepEqual(JSON.parse(text(r)), { action: 'accept', content: { name: 'Ada' } });
  const sent = answered.find((a) => a.method === 'elicitation/create');
  assert.equal(sent.params.message, 'Your name?');
  assert.deepEqual(sent.params.requestedSchema.properties.name, { type: 'string', description: 'Your name' });
});

test('listRoots resolves to the client roots', async () => {
  const r = await client.request('tools/call', { name: 'roots', arguments: {} });
  assert.deepEqual(JSON.parse(text(r)), { roots: [{ uri: 'file:///work', name: 'work' }] });
});

test('a client error answer rejects with a ClientRequestError of kind rpc and the client code', async () => {
  const r = await client.request('tools/call', { name: 'sample_error', arguments: {} });
  assert.equal(text(r), 'true:rpc:-1');
});

test('a context used after its request completed throws a clear error', async () => {
  assert.equal(text(await client.request('tools/call', { name: 'keep_context', arguments: {} })), 'kept');
  const r = await client.request('tools/call', { name: 'use_stale_context', arguments: {} });
  assert.equal(r.result.isError, true);
  assert.match(text(r), /already completed/);
});

test('the AbortSignal aborts when the client cancels, and the response is suppressed', async () => {
  const id = 'to-cancel';
  const count = async (name) => text(await client.request('tools/call', { name, arguments: {} }));
  const until = async (name, want) => {
    let got;
    for (let i = 0; i < 500 && got !== want; i++) {
      got = await count(name); // each round is a full request/response
      if (got !== want) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return got;
  };
  client.request('tools/call', { name: 'wait_for_abort', arguments: {} }, id);
  // Cancel once the handler runs (cancelling a request not yet begun is a different case).
  assert.equal(await until('waiting_count', '1'), '1');
  client.notify('notifications/cancelled', { requestId: id, reason: 'test' });
  // The handler saw the abort and returned.
  assert.equal(await until('aborted_count', '1'), '1');
  // Drain: a follow-up sent after the handler returned; stdout is one ordered stream, so once
  // its answer is read, anything written for the cancelled id was read too.
  assert.deepEqual((await client.request('ping', {})).result, {});
  assert.deepEqual(client.responses.filter((r) => r.id === id), [], 'the cancelled request was answered');
});

test('pingClient reaches the connected client and names a missing one', async () => {
  assert.equal(text(await client.request('tools/call', { name: 'ping_me', arguments: {} })), 'pong');
  assert.ok(answered.some((a) => a.method === 'ping'));
  assert.equal(text(await client.request('tools/call', { name: 'ping_nobody', arguments: {} })), 'true:noChannel');
});

test('closeSseStream is false on stdio, which has no stream to close', async () => {
  assert.equal(text(await client.request('tools/call', { name: 'close_sse_stream', arguments: {} })), 'false');
});
