// Many concurrent calls: every response matches its request, in-process and over stdio.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { Server } from '../lib/index.mjs';
import { StdioClient } from './helpers.mjs';

test('2,000 concurrent in-process calls, sync and async, each get their own answer', async () => {
  // All 2,000 run at once on the in-process connection: past the default
  // maxInFlightPerConnection (256), so it is raised for this test.
  const s = new Server({ name: 'c', version: '1', limits: { maxInFlightPerConnection: 2000 } });
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  s.tool('double', { inputSchema: schema }, ({ n }) => String(n * 2));
  s.tool('slow_double', { inputSchema: schema }, async ({ n }) => {
    await sleep(n % 7);
    return String(n * 2);
  });
  const calls = Array.from({ length: 2000 }, (_, n) =>
    s
      .handleRaw(
        JSON.stringify({
          jsonrpc: '2.0',
          id: n,
          method: 'tools/call',
          params: { name: n % 2 ? 'slow_double' : 'double', arguments: { n } },
        }),
      )
      .then(JSON.parse),
  );
  const responses = await Promise.all(calls);
  responses.forEach((r, n) => {
    assert.equal(r.id, n);
    assert.equal(r.result.content[0].text, String(n * 2));
  });
});

test('500 pipelined calls over stdio to the everything server all answer correctly', async () => {
  const script = fileURLToPath(new URL('../../examples/node/everything.mjs', import.meta.url));
  const client = new StdioClient(script);
  try {
    await client.initialize();
    const responses = await Promise.all(
      Array.from({ length: 500 }, (_, i) => client.request('tools/call', { name: 'add', arguments: { a: i, b: 1000 } })),
    );
    responses.forEach((r, i) => {
      assert.deepEqual(r.result.structuredContent, { sum: i + 1000 });
      assert.equal(r.result.content[0].text, String(i + 1000));
    });
  } finally {
    assert.equal(await client.close(), 0, client.stderr);
  }
});
