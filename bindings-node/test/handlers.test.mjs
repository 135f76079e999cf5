// Handlers: sync and async, every return shorthand, template variables and completions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { Server } from '../lib/index.mjs';
import { callTool, rpc } from './helpers.mjs';

test('sync and async tool handlers both answer', async () => {
  const s = new Server({ name: 'h', version: '1' });
  s.tool('sync', () => 'now');
  s.tool('async', async () => {
    await sleep(5);
    return 'later';
  });
  s.tool('thenable', () => ({ then: (resolve) => resolve('thenable') }));
  assert.equal((await callTool(s, 'sync')).content[0].text, 'now');
  assert.equal((await callTool(s, 'async')).content[0].text, 'later');
  assert.equal((await callTool(s, 'thenable')).content[0].text, 'thenable');
});

test('tool return shorthands become CallToolResults', async () => {
  const s = new Server({ name: 'h', version: '1' });
  s.tool('full', () => ({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: false }));
  s.tool('structured', () => ({ structuredContent: { ok: true } }));
  s.tool('nothing', () => undefined);
  assert.deepEqual(await callTool(s, 'full'), {
    content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    isError: false,
  });
  assert.deepEqual(await callTool(s, 'structured'), {
    content: [{ type: 'text', text: '{"ok":true}' }],
    structuredContent: { ok: true },
  });
  assert.deepEqual(await callTool(s, 'nothing'), { content: [] });
});

test('resources: text, bytes and full results; templates get their variables', async () => {
  const s = new Server({ name: 'h', version: '1' });
  s.resource('t', 'test://text', { mimeType: 'text/plain' }, (uri) => `text of ${uri}`);
  s.resource('b', 'test://bytes', { mimeType: 'application/octet-stream' }, async () => new Uint8Array([1, 2, 3]));
  s.resource('f', 'test://full', () => ({ contents: [{ uri: 'test://full', text: 'full' }] }));
  s.resourceTemplate('user', 'test://users/{id}/posts/{post}', { mimeType: 'application/json' }, (uri, vars) =>
    JSON.stringify({ uri, ...vars }),
  );
  const read = async (uri) => (await rpc(s, 'resources/read', { uri })).result.contents[0];
  assert.deepEqual(await read('test://text'), { uri: 'test://text', mimeType: 'text/plain', text: 'text of test://text' });
  assert.deepEqual(await read('test://bytes'), {
    uri: 'test://bytes',
    mimeType: 'application/octet-stream',
    blob: Buffer.from([1, 2, 3]).toString('base64'),
  });
  assert.deepEqual(await read('test://full'), { uri: 'test://full', text: 'full' });
  const t = await read('test://users/42/posts/7');
  assert.deepEqual(JSON.parse(t.text), { uri: 'test://users/42/posts/7', id: '42', post: '7' });
  assert.equal(t.uri, 'test://users/42/posts/7');
});

test('concurrent template reads keep their own URIs', async () => {
  const s = new Server({ name: 'h', version: '1' });
  s.resourceTemplate('item', 'test://item/{n}', async (_uri, { n }) => {
    await sleep(Number(n) % 3);
    return n;
  });
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, n) => rpc(s, 'resources/read', { uri: `test://item/${n}` })),
  );
  results.forEach((r, n) => assert.deepEqual(r.result.contents[0], { uri: `test://item/${n}`, text: String(n) }));
});

test('prompts: a string, a message list and a full result', async () => {
  const s = new Server({ name: 'h', version: '1' });
  s.prompt('s', () => 'one text');
  s.prompt('list', { arguments: [{ name: 'x', required: true }] }, ({ x }) => [
    { role: 'assistant', content: { type: 'text', text: `x=${x}` } },
  ]);
  s.prompt('full', async () => ({ description: 'd', messages: [] }));
  const get = async (name, args) => (await rpc(s, 'prompts/get', { name, arguments: args })).result;
  assert.deepEqual(await get('s'), { messages: [{ role: 'user', content: { type: 'text', text: 'one text' } }] });
  assert.deepEqual((await get('list', { x: 'y' })).messages, [
    { role: 'assistant', content: { type: 'text', text: 'x=y' } },
  ]);
  assert.deepEqual(await get('full'), { description: 'd', messages: [] });
  // The core checks required arguments before the handler runs.
  assert.equal((await rpc(s, 'prompts/get', { name: 'list', arguments: {} })).error.code, -32602);
});

test('completions: fixed candidates, a function with context, and the global handler', async () => {
  const s = new Server({ name: 'h', version: '1' });
  s.prompt(
    'trip',
    {
      arguments: [{ name: 'city' }, { name: 'street' }],
      complete: {
        city: ['paris', 'park', 'rome'],
        street: async (value, { arguments: a }) => [`${a.city ?? '?'}:${value}1`, `${a.city ?? '?'}:${value}2`],
      },
    },
    () => 'x',
  );
  s.resourceTemplate('doc', 'test://docs/{name}', { complete: { name: (v) => ({ values: [v + '.md'], hasMore: true }) } }, () => 'x');
  const complete = async (ref, name, value, args) =>
    (await rpc(s, 'completion/complete', { ref, argument: { name, value }, context: { arguments: args } })).result
      .completion;
  assert.deepEqual((await complete({ type: 'ref/prompt', name: 'trip' }, 'city', 'par')).values, ['paris', 'park']);
  assert.deepEqual((await complete({ type: 'ref/prompt', name: 'trip' }, 'street', 'r', { city: 'rome' })).values, [
    'rome:r1',
    'rome:r2',
  ]);
  assert.deepEqual(await complete({ type: 'ref/resource', uri: 'test://docs/{name}' }, 'name', 'a'), {
    values: ['a.md'],
    hasMore: true,
  });

  const g = new Server({ name: 'g', version: '1' });
  g.prompt('p', () => 'x');
  g.completionHandler((req) => [`${req.ref.type}/${req.argument.name}=${req.argument.value}`]);
  const r = await rpc(g, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'v' } });
  assert.deepEqual(r.result.completion.values, ['ref/prompt/a=v']);
});

test('handleRaw answers notifications with an empty string and batches per the revision', async () => {
  const s = new Server({ name: 'h', version: '1' });
  assert.equal(await s.handleRaw('{"jsonrpc":"2.0","method":"notifications/initialized"}'), '');
  const parseError = JSON.parse(await s.handleRaw('{not json'));
  assert.equal(parseError.error.code, -32700);
});
