// Cancellation in-process: notifications/cancelled aborts the handler's AbortSignal, flips
// ctx.cancelled, and the core suppresses the response.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { RequestCancelledError, Server } from '../lib/index.mjs';

function cancel(server, requestId) {
  return server.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }));
}

test('the AbortSignal aborts with a RequestCancelledError when the client cancels', async () => {
  const s = new Server({ name: 'c', version: '1' });
  let seen;
  s.tool('wait', (_args, ctx) => {
    assert.equal(ctx.signal.aborted, false);
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        seen = { reason: ctx.signal.reason, cancelled: ctx.cancelled };
        resolve('stopped');
      });
    });
  });
  const pending = s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'wait' } }));
  await sleep(50);
  assert.equal(seen, undefined);
  await cancel(s, 41);
  assert.equal(await pending, '', 'a cancelled request gets no response');
  assert.ok(seen.reason instanceof RequestCancelledError);
  assert.equal(seen.cancelled, true);
});

test('a signal read after the cancellation is already aborted', async () => {
  const s = new Server({ name: 'c', version: '1' });
  let aborted;
  s.tool('late', async (_args, ctx) => {
    while (!ctx.cancelled) await sleep(5);
    aborted = ctx.signal.aborted;
    return 'done';
  });
  const pending = s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 'late', method: 'tools/call', params: { name: 'late' } }));
  await sleep(30);
  await cancel(s, 'late');
  assert.equal(await pending, '');
  assert.equal(aborted, true);
});

test('cancelling one request leaves the others running', async () => {
  const s = new Server({ name: 'c', version: '1' });
  s.tool('wait', { inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } }, async ({ ms }, ctx) => {
    await sleep(ms);
    return ctx.signal.aborted ? 'aborted' : 'finished';
  });
  const call = (id) =>
    s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { ms: 80 } } }));
  const a = call(1);
  const b = call(2);
  await sleep(20);
  await cancel(s, 1);
  assert.equal(await a, '');
  assert.equal(JSON.parse(await b).result.content[0].text, 'finished');
});
