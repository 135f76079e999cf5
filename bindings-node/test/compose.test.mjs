// Composition (issue 16): a server mounted in another under a prefix, names and URIs rewritten
// both ways, live, notifications carried to the parent's clients, in both eras; and a proxy in
// front of the Node everything server as a stdio child.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Server, UpstreamError } from '../lib/index.mjs';
import { modernOk, rpc, textOf } from './helpers.mjs';

function weather(seen) {
  const s = new Server({ name: 'weather', version: '1.0.0' });
  s.tool('forecast', { inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, ({ city }) => `sunny in ${city}`);
  s.tool('alerts', async ({ city }) => {
    await new Promise((r) => setImmediate(r));
    return `no alerts in ${city ?? '?'}`;
  });
  s.resourceTemplate('city', 'data://cities/{city}', (uri, { city }) => {
    seen.push(String(uri));
    return `about ${city}`;
  });
  s.prompt('brief', { argsSchema: { city: { type: 'string' } } }, ({ city }) => `brief for ${city}`);
  return s;
}

test('a mounted server is served under its prefix, names and URIs rewritten both ways, in both eras', async () => {
  const seen = [];
  const parent = new Server({ name: 'app', version: '1.0.0' });
  parent.tool('own', () => 'own');
  const child = weather(seen);
  assert.equal(parent.mount('weather', child), parent, 'mount returns the server');
  const tools = (await rpc(parent, 'tools/list', {})).result.tools.map((t) => t.name);
  assert.deepEqual(tools, ['own', 'weather_forecast', 'weather_alerts']);
  assert.equal(textOf((await rpc(parent, 'tools/call', { name: 'weather_forecast', arguments: { city: 'oslo' } })).result), 'sunny in oslo');
  assert.equal(textOf(await modernOk(parent, 'tools/call', { name: 'weather_alerts', arguments: { city: 'rome' } })), 'no alerts in rome');
  const bad = await rpc(parent, 'tools/call', { name: 'weather_forecast', arguments: {} });
  assert.equal(bad.result.isError, true, "the child's input schema still applies");
  assert.equal((await rpc(parent, 'tools/call', { name: 'forecast', arguments: { city: 'x' } })).error.code, -32602);
  const templates = (await rpc(parent, 'resources/templates/list', {})).result.resourceTemplates;
  assert.deepEqual(templates.map((t) => t.uriTemplate), ['data://weather/cities/{city}']);
  const read = (await rpc(parent, 'resources/read', { uri: 'data://weather/cities/lima' })).result.contents[0];
  assert.equal(read.uri, 'data://weather/cities/lima');
  assert.equal(read.text, 'about lima');
  assert.deepEqual(seen, ['data://cities/lima'], 'the child reads its own URI');
  const prompt = (await rpc(parent, 'prompts/get', { name: 'weather_brief', arguments: { city: 'bern' } })).result;
  assert.equal(prompt.messages[0].content.text, 'brief for bern');
  await parent.close();
  await child.close();
});

test("the mount is live and the child's notifications reach the parent's clients", async () => {
  const child = weather([]);
  const parent = new Server({ name: 'app', version: '1.0.0' }).mount('w', child);
  const frames = [];
  const conn = parent.connection({ onMessage: (text) => frames.push(JSON.parse(text)) });
  const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } };
  await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }));
  child.tool('later', () => 'later');
  const call = JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'w_later', arguments: {} } })));
  assert.equal(textOf(call.result), 'later');
  assert.equal(child.notifyToolsListChanged(), 1, "the child's list change reached the parent's one listener");
  for (let i = 0; i < 100 && frames.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(frames.map((f) => f.method), ['notifications/tools/list_changed']);
  assert.equal(child.removeTool('forecast'), true);
  const tools = (await rpc(parent, 'tools/list', {})).result.tools.map((t) => t.name);
  assert.ok(!tools.includes('w_forecast'), `${tools}`);
  conn.close();
  // Closing the child unmounts it: the parent keeps serving, without the child's tools.
  await child.close();
  assert.equal((await rpc(parent, 'tools/call', { name: 'w_later', arguments: {} })).error.code, -32601);
  await parent.close();
});

test('bad prefixes and cycles are TypeErrors; unmount takes the mount out', async () => {
  const child = weather([]);
  const parent = new Server({ name: 'app', version: '1.0.0' });
  assert.throws(() => parent.mount('has space', child), { name: 'TypeError', message: /mount prefix/ });
  assert.throws(() => parent.mount('x', {}), { name: 'TypeError', message: /child must be a Server/ });
  parent.mount('', child);
  assert.throws(() => child.mount('loop', parent), { name: 'TypeError', message: /cannot be mounted in itself/ });
  assert.equal(textOf(await modernOk(parent, 'tools/call', { name: 'forecast', arguments: { city: 'a' } })), 'sunny in a');
  assert.equal(parent.unmount('', child), true);
  assert.equal(parent.unmount('', child), false);
  assert.equal((await rpc(parent, 'tools/call', { name: 'forecast', arguments: { city: 'a' } })).error.code, -32601);
  await parent.close();
  await child.close();
});

const everything = fileURLToPath(new URL('../../examples/node/everything.mjs', import.meta.url));

test('a proxy serves a stdio upstream in both eras; bad upstreams reject clearly', async () => {
  const proxy = new Server({ name: 'proxy', version: '1.0.0' });
  assert.equal(await proxy.proxy({ command: process.execPath, args: [everything] }), proxy);
  assert.equal(textOf((await rpc(proxy, 'tools/call', { name: 'add', arguments: { a: 20, b: 22 } })).result), '42');
  assert.equal(textOf(await modernOk(proxy, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })), '3');
  await assert.rejects(proxy.proxy({ command: '/nonexistent/mcp-server' }), { name: 'UpstreamError', message: /upstream server/ });
  await assert.rejects(proxy.proxy({ port: 1 }), { name: 'TypeError', message: /command/ });
  await assert.rejects(proxy.proxy({ url: 'http://127.0.0.1:9/mcp', timeout: 0 }), {
    name: 'TypeError',
    message: /timeout_ms must be a positive whole number/,
  });
  assert.ok(UpstreamError.prototype instanceof Error);
  await proxy.close();
});

test('a proxied call past the timeout fails with -32001 and is cancelled upstream', async () => {
  const proxy = new Server({ name: 'proxy', version: '1.0.0' });
  await proxy.proxy({ command: process.execPath, args: [everything], era: 'handshake', timeout: 300 });
  try {
    const r = await rpc(proxy, 'tools/call', { name: 'test_slow', arguments: { ms: 5000 } });
    assert.equal(r.error?.code, -32001, JSON.stringify(r));
    assert.match(r.error.message, /within 300 ms/);
    let counted = '';
    for (let i = 0; i < 100 && counted !== '1'; i++) {
      counted = textOf((await rpc(proxy, 'tools/call', { name: 'test_cancellation_count', arguments: {} })).result);
      if (counted !== '1') await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(counted, '1', 'the upstream handler saw the cancellation');
  } finally {
    await proxy.close();
  }
});
