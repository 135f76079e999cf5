// Cache hints (2026-07-28 ttlMs/cacheScope): setCacheHints takes the core's CacheHints shape
// (camelCase) and shows in the results it names, others keep their value; a resource's own
// hint shows in its reads; the core refuses bad shapes and unknown resources (TypeError).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';
import { modernOk, rpc } from './helpers.mjs';

const PRIVATE0 = { ttlMs: 0, cacheScope: 'private' };

function server() {
  const s = new Server({ name: 'cache', version: '1.0.0' });
  s.tool('t', () => 'x');
  s.prompt('p', () => 'x');
  s.resource('r', 'test://r', () => 'r');
  s.resource('other', 'test://other', () => 'o');
  s.resourceTemplate('tpl', 'test://t/{id}', (_uri, { id }) => id);
  return s;
}

const hintOf = (r) => ({ ttlMs: r.ttlMs, cacheScope: r.cacheScope });

test('every hint starts at ttlMs 0, private', async () => {
  const s = server();
  assert.deepEqual(s.cacheHints, {
    discover: PRIVATE0,
    toolsList: PRIVATE0,
    promptsList: PRIVATE0,
    resourcesList: PRIVATE0,
    templatesList: PRIVATE0,
    resourceRead: PRIVATE0,
  });
  assert.deepEqual(hintOf(await modernOk(s, 'tools/list')), PRIVATE0);
  await s.close();
});

test('setCacheHints: the named hints show in their results; the others keep their value', async () => {
  const s = server();
  s.setCacheHints({ toolsList: { ttlMs: 5000, cacheScope: 'public' }, discover: { ttlMs: 60_000, cacheScope: 'private' } });
  s.setCacheHints({ resourceRead: { ttlMs: 7, cacheScope: 'public' } });
  assert.deepEqual(hintOf(await modernOk(s, 'tools/list')), { ttlMs: 5000, cacheScope: 'public' });
  assert.deepEqual(hintOf(await modernOk(s, 'server/discover')), { ttlMs: 60_000, cacheScope: 'private' });
  assert.deepEqual(hintOf(await modernOk(s, 'prompts/list')), PRIVATE0);
  assert.deepEqual(hintOf(await modernOk(s, 'resources/read', { uri: 'test://r' })), { ttlMs: 7, cacheScope: 'public' });
  assert.deepEqual(s.cacheHints.toolsList, { ttlMs: 5000, cacheScope: 'public' });
  assert.deepEqual(s.cacheHints.resourceRead, { ttlMs: 7, cacheScope: 'public' });
  await s.close();
});

test('setResourceCacheHint: a resource or template read carries its own hint; others the default', async () => {
  const s = server();
  s.setResourceCacheHint('test://r', { ttlMs: 60_000, cacheScope: 'public' });
  s.setResourceCacheHint('test://t/{id}', { ttlMs: 10, cacheScope: 'private' });
  assert.deepEqual(hintOf(await modernOk(s, 'resources/read', { uri: 'test://r' })), { ttlMs: 60_000, cacheScope: 'public' });
  assert.deepEqual(hintOf(await modernOk(s, 'resources/read', { uri: 'test://t/9' })), { ttlMs: 10, cacheScope: 'private' });
  assert.deepEqual(hintOf(await modernOk(s, 'resources/read', { uri: 'test://other' })), PRIVATE0);
  await s.close();
});

test('handshake-era results carry no hints', async () => {
  const s = server();
  s.setCacheHints({ toolsList: { ttlMs: 5000, cacheScope: 'public' } });
  const r = await rpc(s, 'tools/list', {});
  assert.equal(r.result.ttlMs, undefined);
  assert.equal(r.result.cacheScope, undefined);
  await s.close();
});

test('bad hints are TypeErrors from the core; an unknown resource too', async () => {
  const s = server();
  const invalid = { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' };
  assert.throws(() => s.setCacheHints({ toolList: PRIVATE0 }), { ...invalid, message: /toolList/ });
  assert.throws(() => s.setCacheHints({ toolsList: { ttlMs: 5, cacheScope: 'everyone' } }), invalid);
  assert.throws(() => s.setCacheHints({ toolsList: { ttlMs: -1, cacheScope: 'public' } }), invalid);
  assert.throws(() => s.setCacheHints([]), TypeError);
  assert.throws(() => s.setResourceCacheHint('test://r', { ttlMs: 5 }), invalid);
  assert.throws(() => s.setResourceCacheHint('test://missing', PRIVATE0), { ...invalid, message: /test:\/\/missing/ });
  assert.deepEqual(s.cacheHints.toolsList, PRIVATE0, 'a refused update changes nothing');
  await s.close();
});
