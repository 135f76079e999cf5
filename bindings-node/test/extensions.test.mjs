// Extensions (2026-07-28) and how the core's configuration errors reach JS: addExtension
// advertises in server/discover (not to handshake-era clients), removeExtension withdraws;
// refused configuration is a TypeError with code ERR_INVALID_ARG_VALUE and the core's message.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';
import { modernOk, rpc } from './helpers.mjs';

const INVALID = { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' };

function server() {
  const s = new Server({ name: 'ext', version: '1.0.0', stateful: true });
  s.tool('t', () => 'x');
  return s;
}

test('addExtension advertises the extension with its settings on 2026-07-28 only; removeExtension withdraws it', async () => {
  const s = server();
  s.addExtension('com.example/widgets', { size: 3 });
  s.addExtension('com.example/plain');
  const discovered = await modernOk(s, 'server/discover');
  assert.deepEqual(discovered.capabilities.extensions, { 'com.example/widgets': { size: 3 }, 'com.example/plain': {} });
  const init = await rpc(s, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
  assert.equal(init.result.capabilities.extensions, undefined);
  assert.equal(s.removeExtension('com.example/widgets'), true);
  assert.equal(s.removeExtension('com.example/widgets'), false);
  assert.deepEqual((await modernOk(s, 'server/discover')).capabilities.extensions, { 'com.example/plain': {} });
  await s.close();
});

test('an extension id without a prefix, or settings that are not an object, are TypeErrors', async () => {
  const s = server();
  assert.throws(() => s.addExtension('widgets', {}), { ...INVALID, message: /needs a prefix/ });
  assert.throws(() => s.addExtension('com.example/x', [1]), { ...INVALID, message: /JSON object/ });
  assert.throws(() => s.addExtension(7), TypeError);
  await s.close();
});

test("the core's configuration errors are TypeErrors with its message", async () => {
  const s = server();
  // InputSchemaNotObject
  assert.throws(() => s.tool('bad', { inputSchema: { type: 'string' } }, () => 'x'), { ...INVALID, message: /inputSchema must be a JSON object/ });
  // InvalidSchema
  assert.throws(() => s.tool('bad', { inputSchema: { type: 'object', minProperties: 'x' } }, () => 'x'), { ...INVALID, message: /invalid input schema/ });
  // InvalidParamHeader: an x-mcp-header on a number-typed property
  const numberHeader = { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } };
  assert.throws(() => s.tool('hdr', { inputSchema: numberHeader }, () => 'x'), { ...INVALID, message: /x-mcp-header/ });
  // InvalidTemplate
  assert.throws(() => s.resourceTemplate('t', 'test://{unclosed', () => 'x'), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  // UnknownResource
  assert.throws(() => s.setResourceCacheHint('test://none', { ttlMs: 0, cacheScope: 'private' }), { ...INVALID, message: /no resource/ });
  // ReservedMethod
  assert.throws(() => s.addMethod('tools/list', () => ({})), { ...INVALID, message: /served by the core/ });
  assert.deepEqual(s.tools.map((t) => t.name), ['t'], 'refused tools are not registered');
  await s.close();
});

test('a string-typed x-mcp-header property registers and is served', async () => {
  const s = server();
  const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] };
  s.tool('geo', { inputSchema: schema }, ({ region }) => `region: ${region}`);
  const r = await modernOk(s, 'tools/call', { name: 'geo', arguments: { region: 'eu' } });
  assert.equal(r.content[0].text, 'region: eu');
  await s.close();
});
