// Registration: what is registered shows up in the lists and capabilities with the exact
// descriptors, can be removed, and bad registrations fail with clear errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';
import { callTool, modernOk, rpc } from './helpers.mjs';

function server() {
  return new Server({ name: 'reg', version: '1.2.3', title: 'Registration' });
}

test('a tool is listed with its description, schemas and annotations', async () => {
  const s = server();
  const inputSchema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
  const outputSchema = { type: 'object', properties: { sum: { type: 'integer' } } };
  s.tool(
    'add',
    { title: 'Add', description: 'Adds', inputSchema, outputSchema, annotations: { readOnlyHint: true } },
    () => 'x',
  );
  const { result } = await rpc(s, 'tools/list', {});
  assert.deepEqual(result.tools, [
    { name: 'add', title: 'Add', description: 'Adds', inputSchema, outputSchema, annotations: { readOnlyHint: true } },
  ]);
  assert.deepEqual(s.tools.map((t) => t.name), ['add']);
});

test('a tool registered without a config takes any object and is called', async () => {
  const s = server();
  s.tool('bare', () => 'called');
  const { result } = await rpc(s, 'tools/list', {});
  assert.deepEqual(result.tools[0].inputSchema, { type: 'object' });
  assert.equal((await callTool(s, 'bare')).content[0].text, 'called');
});

test('resources, templates and prompts are listed and capabilities follow registration', async () => {
  const s = server();
  // Logging is on by default (the core's defaults).
  assert.deepEqual(s.capabilities, { logging: {} });
  s.resource('readme', 'file:///readme', { mimeType: 'text/plain', description: 'Read me' }, () => 'hi');
  s.resourceTemplate('item', 'test://items/{id}', { mimeType: 'application/json' }, () => '{}');
  s.prompt('greet', { description: 'Greets', arguments: [{ name: 'who', required: true }] }, () => 'hello');
  s.completion({ type: 'ref/prompt', name: 'greet' }, 'who', ['world']);

  assert.deepEqual((await rpc(s, 'resources/list', {})).result.resources, [
    { uri: 'file:///readme', name: 'readme', description: 'Read me', mimeType: 'text/plain' },
  ]);
  assert.deepEqual((await rpc(s, 'resources/templates/list', {})).result.resourceTemplates, [
    { uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'application/json' },
  ]);
  assert.deepEqual((await rpc(s, 'prompts/list', {})).result.prompts, [
    { name: 'greet', description: 'Greets', arguments: [{ name: 'who', required: true }] },
  ]);
  assert.deepEqual(Object.keys(s.capabilities).sort(), ['completions', 'logging', 'prompts', 'resources']);
});

test('server options reach the initialize result (stateful; a stateless server offers no session features)', async () => {
  const options = { name: 'opts', version: '9.9.9', instructions: 'Be nice', logging: true, listChanged: { tools: true } };
  const init = (s) =>
    rpc(s, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } });
  const { result } = await init(new Server(options));
  assert.equal(result.protocolVersion, '2025-06-18');
  assert.deepEqual(result.serverInfo, { name: 'opts', version: '9.9.9' });
  assert.equal(result.instructions, 'Be nice');
  assert.deepEqual(result.capabilities, { logging: {}, tools: { listChanged: true } });
  // No session to hold a log level or carry list changes to a handshake-era client.
  assert.deepEqual((await init(new Server({ ...options, stateless: true }))).result.capabilities, { tools: {} });
  assert.deepEqual((await init(new Server({ ...options, stateful: false }))).result.capabilities, { tools: {} });
  // logging: false takes the capability away.
  assert.deepEqual((await init(new Server({ ...options, logging: false }))).result.capabilities, { tools: { listChanged: true } });
});

test('removing a tool, resource, template or prompt unregisters it', async () => {
  const s = server();
  s.tool('keep', () => 'x');
  s.tool('t', () => 'x');
  s.resource('r', 'test://r', () => 'x');
  s.resourceTemplate('tpl', 'test://t/{x}', () => 'x');
  s.prompt('p', () => 'x');
  assert.equal(s.removeTool('t'), true);
  assert.equal(s.removeTool('t'), false);
  assert.equal(s.removeResource('test://r'), true);
  assert.equal(s.removeResourceTemplate('test://t/{x}'), true);
  assert.equal(s.removePrompt('p'), true);
  assert.deepEqual(s.tools.map((t) => t.name), ['keep']);
  const r = await rpc(s, 'tools/call', { name: 't', arguments: {} });
  assert.equal(r.error.code, -32602);
  assert.match(r.error.message, /"t"|\bt\b/);
  // With nothing left of a kind, its capability (and so its methods) is gone.
  assert.deepEqual(Object.keys(s.capabilities).sort(), ['logging', 'tools']);
  assert.equal((await rpc(s, 'resources/list', {})).error.code, -32601);
  assert.equal((await rpc(s, 'prompts/list', {})).error.code, -32601);
});

test('an invalid input schema is refused at registration with the core error', () => {
  const s = server();
  assert.throws(() => s.tool('bad', { inputSchema: { type: 'string' } }, () => 'x'), /inputSchema must be a JSON object/);
  assert.throws(() => s.tool('bad2', { inputSchema: { type: 'object', minProperties: 'x' } }, () => 'x'), /invalid input schema/);
});

test('bad arguments to registration functions are TypeErrors', () => {
  const s = server();
  assert.throws(() => s.tool('x', {}, 'not a function'), TypeError);
  assert.throws(() => s.tool('x', { inputSchema: 'nope' }, () => 'x'), TypeError);
  assert.throws(() => new Server({ name: 'x' }), TypeError);
  assert.throws(() => new Server({ name: 'x', version: '1', stateless: true, stateful: true }), {
    name: 'TypeError',
    message: 'new Server(options): stateless: true contradicts stateful: true',
  });
  assert.throws(() => s.resourceTemplate('t', 'test://{unclosed', () => 'x'), /template/i);
  assert.throws(() => s.completion({ type: 'ref/nothing' }, 'a', ['x']), /invalid completion reference/);
});

test('resource subscriptions: handshake-era sessions of a stateful server, 2026-07-28 clients in any mode', async () => {
  const stateful = new Server({ name: 'x', version: '1', subscriptions: true, logging: false });
  assert.deepEqual(stateful.capabilities, { resources: { subscribe: true } });
  const stateless = new Server({ name: 'x', version: '1', stateless: true, subscriptions: true, logging: false });
  assert.deepEqual(stateless.capabilities, { resources: {} });
  const discovered = await modernOk(stateless, 'server/discover');
  assert.deepEqual(discovered.capabilities.resources, { subscribe: true });
});
