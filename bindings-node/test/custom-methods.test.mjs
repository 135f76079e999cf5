// Custom request methods: addMethod serves a method in both eras with a sync or async
// handler (params without _meta in, an object out, the context available), an McpError
// keeps its code, anything but an object is an error, removeMethod withdraws it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { McpError, Server } from '../lib/index.mjs';
import { modern, modernOk, rpc } from './helpers.mjs';

function server() {
  const s = new Server({ name: 'methods', version: '1.0.0', stateful: true });
  s.addMethod('com.example/echo', (params, ctx) => ({ echo: params, modern: ctx.isModern }));
  s.addMethod('com.example/slow', async (params) => {
    await new Promise((resolve) => setImmediate(resolve));
    return { twice: params.n * 2 };
  });
  s.addMethod('com.example/refuse', () => {
    throw new McpError(-32001, 'refused here', { why: 'test' });
  });
  s.addMethod('com.example/list', () => [1, 2]);
  s.addMethod('com.example/nothing', () => undefined);
  return s;
}

test('a sync method handler gets the params without _meta and the context (2026-07-28)', async () => {
  const s = server();
  const r = await modernOk(s, 'com.example/echo', { a: 1, nested: { b: [2] } });
  assert.deepEqual(r.echo, { a: 1, nested: { b: [2] } });
  assert.equal(r.modern, true);
  assert.equal(r.resultType, 'complete');
  await s.close();
});

test('a handshake-era session reaches the same method', async () => {
  const s = server();
  await rpc(s, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
  const r = await rpc(s, 'com.example/echo', { a: 1 });
  assert.deepEqual(r.result, { echo: { a: 1 }, modern: false });
  await s.close();
});

test('an async method handler resolves to its object; undefined is an empty object', async () => {
  const s = server();
  assert.equal((await modernOk(s, 'com.example/slow', { n: 21 })).twice, 42);
  const r = await modernOk(s, 'com.example/nothing');
  assert.deepEqual(Object.keys(r).filter((k) => k !== '_meta' && k !== 'resultType'), []);
  await s.close();
});

test('a thrown McpError is sent with its code and data; a non-object result is an error', async () => {
  const s = server();
  const refused = await modern(s, 'com.example/refuse');
  assert.deepEqual(refused.error, { code: -32001, message: 'refused here', data: { why: 'test' } });
  const list = await modern(s, 'com.example/list');
  assert.equal(list.error?.code, -32603, JSON.stringify(list));
  assert.match(list.error.message, /^the handler's result is not valid: .*must return an object/);
  await s.close();
});

test('removeMethod withdraws it (-32601 afterwards); core methods cannot be replaced', async () => {
  const s = server();
  assert.equal(s.removeMethod('com.example/echo'), true);
  assert.equal(s.removeMethod('com.example/echo'), false);
  assert.equal((await modern(s, 'com.example/echo')).error.code, -32601);
  assert.throws(() => s.addMethod('initialize', () => ({})), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => s.addMethod('x/y', 'not a function'), TypeError);
  await s.close();
});
