// Streamable HTTP through listen(): a session is created at initialize, tool calls are
// answered (JSON or SSE), and close() ends serving.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';

/** The JSON-RPC message of a response body, JSON or a one-event SSE stream. */
async function message(response) {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
    return data.map((d) => JSON.parse(d)).find((m) => m.id !== undefined);
  }
  return JSON.parse(text);
}

test('listen() serves Streamable HTTP with sessions until close()', async () => {
  const server = new Server({ name: 'http', version: '1.0.0', stateful: true, logging: true });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } }, ({ a, b }, ctx) => {
    ctx.info('adding');
    return String(a + b);
  });
  const address = await server.listen({ port: 0 });
  assert.equal(address.host, '127.0.0.1');
  assert.ok(address.port > 0);
  assert.equal(address.url, `http://127.0.0.1:${address.port}/mcp`);

  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = (body, extra = {}) =>
    fetch(address.url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'a stateful server issues a session id');
  assert.equal((await message(init)).result.serverInfo.name, 'http');
  const sessionHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);

  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, sessionHeaders);
  assert.equal(call.status, 200);
  assert.equal((await message(call)).result.content[0].text, '5');

  await server.close();
  await assert.rejects(fetch(address.url, { method: 'POST', headers, body: '{}' }));
});

test('listen() rejects with a clear error when the address is taken or invalid', async () => {
  const a = new Server({ name: 'a', version: '1' });
  const { port } = await a.listen();
  const b = new Server({ name: 'b', version: '1' });
  await assert.rejects(b.listen({ port }), /cannot listen/);
  await assert.rejects(async () => b.listen({ host: 'not-an-ip' }), /invalid host/);
  await a.close();
  await b.close();
});
