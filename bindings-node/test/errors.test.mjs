// Error mapping: failures of a tool are isError results carrying the message; McpError (and
// its subclasses) are JSON-RPC errors with their code; other handlers' failures are -32603.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { InvalidParamsError, McpError, ResourceNotFoundError, Server } from '../lib/index.mjs';
import { callTool, rpc } from './helpers.mjs';

function server() {
  const s = new Server({ name: 'e', version: '1' });
  s.tool('throws', () => {
    throw new Error('sync failure');
  });
  s.tool('rejects', async () => {
    throw new Error('async failure');
  });
  s.tool('throws_string', () => {
    throw 'a bare string'; // eslint-disable-line no-throw-literal
  });
  s.tool('mcp_error', () => {
    throw new McpError(-32099, 'custom protocol error', { hint: 'data' });
  });
  s.tool('invalid_params', async () => {
    throw new InvalidParamsError('bad input');
  });
  s.tool('bad_return', () => 42);
  s.tool('bigint', () => ({ structuredContent: { n: 1n } }));
  s.resource('missing', 'test://missing', () => {
    throw new ResourceNotFoundError('test://missing');
  });
  s.resource('broken', 'test://broken', () => {
    throw new Error('disk on fire');
  });
  s.prompt('broken', () => Promise.reject(new Error('prompt failed')));
  return s;
}

test('a thrown Error is an isError result carrying its message', async () => {
  assert.deepEqual(await callTool(server(), 'throws'), {
    content: [{ type: 'text', text: 'sync failure' }],
    isError: true,
  });
});

test('a rejected Promise is an isError result carrying its message', async () => {
  const r = await callTool(server(), 'rejects');
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'async failure');
});

test('a thrown non-Error value is described in the isError result', async () => {
  const r = await callTool(server(), 'throws_string');
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'a bare string');
});

test('McpError becomes the JSON-RPC error with its code, message and data', async () => {
  const r = await rpc(server(), 'tools/call', { name: 'mcp_error', arguments: {} });
  assert.deepEqual(r.error, { code: -32099, message: 'custom protocol error', data: { hint: 'data' } });
  const p = await rpc(server(), 'tools/call', { name: 'invalid_params', arguments: {} });
  assert.deepEqual(p.error, { code: -32602, message: 'bad input' });
});

test("a return value of the wrong shape, or one JSON cannot carry, is the core's invalid result (-32603)", async () => {
  // A server bug, not a tool execution error: the same answer as on every surface.
  const r = await rpc(server(), 'tools/call', { name: 'bad_return', arguments: {} });
  assert.equal(r.error.code, -32603, JSON.stringify(r));
  assert.match(r.error.message, /^the handler's result is not valid: .*must return a string, a CallToolResult .* or an InputRequired/);
  const b = await rpc(server(), 'tools/call', { name: 'bigint', arguments: {} });
  assert.deepEqual(b.error, { code: -32603, message: "the handler's result is not valid: Do not know how to serialize a BigInt" });
});

test('resource and prompt failures are JSON-RPC errors', async () => {
  const s = server();
  const missing = await rpc(s, 'resources/read', { uri: 'test://missing' });
  assert.deepEqual(missing.error, { code: -32002, message: 'Resource not found: test://missing', data: { uri: 'test://missing' } });
  const broken = await rpc(s, 'resources/read', { uri: 'test://broken' });
  assert.equal(broken.error.code, -32603);
  assert.match(broken.error.message, /disk on fire/);
  const prompt = await rpc(s, 'prompts/get', { name: 'broken' });
  assert.equal(prompt.error.code, -32603);
  assert.match(prompt.error.message, /prompt failed/);
});

test('the error classes are Errors with codes', () => {
  const e = new InvalidParamsError('x', { a: 1 });
  assert.ok(e instanceof McpError && e instanceof Error);
  assert.equal(e.code, -32602);
  assert.deepEqual(e.data, { a: 1 });
  assert.equal(new ResourceNotFoundError('u').code, -32002);
});
