// Cancellation in-process: notifications/cancelled aborts the handler's AbortSignal, flips
// ctx.cancelled, and the core suppresses the response.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { RequestCancelledError, Server } from '../lib/index.mjs';

function cancel(server, requestId) {
  return server.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }));
}

/** A promise and the function that resolves it. */
function signal() {
  let fire;
  const fired = new Promise((resolve) => (fire = resolve));
  return { fired, fire };
}

test('the AbortSignal aborts with a RequestCancelledError when the client cancels', async () => {
  const s = new Server({ name: 'c', version: '1' });
  const started = signal();
  let seen;
  s.tool('wait', (_args, ctx) => {
    assert.equal(ctx.signal.aborted, false);
    started.fire();
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        seen = { reason: ctx.signal.reason, cancelled: ctx.cancelled };
        resolve('stopped');
      });
    });
  });
  const pending = s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'wait' } }));
  await started.fired;
  assert.equal(seen, undefined);
  await cancel(s, 41);
  assert.equal(await pending, '', 'a cancelled request gets no response');
  assert.ok(seen.reason instanceof RequestCancelledError);
  assert.equal(seen.cancelled, true);
});

test('a signal read after the cancellation is already aborted', async () => {
  const s = new Server({ name: 'c', version: '1' });
  const started = signal();
  let aborted;
  s.tool('late', async (_args, ctx) => {
    started.fire();
    while (!ctx.cancelled) await sleep(5);
    aborted = ctx.signal.aborted;
    return 'done';
  });
  const pending = s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 'late', method: 'tools/call', params: { name: 'late' } }));
  await started.fired;
  await cancel(s, 'late');
  assert.equal(await pending, '');
  assert.equal(aborted, true);
});

test('cancelling one request leaves the others running', async () => {
  const s = new Server({ name: 'c', version: '1' });
  const started = { 1: signal(), 2: signal() };
  const release = signal();
  s.tool('wait', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } }, async ({ n }, ctx) => {
    started[n].fire();
    // Both run until the test releases them, after the cancellation of the first.
    await release.fired;
    return ctx.signal.aborted ? 'aborted' : 'finished';
  });
  const call = (id) =>
    s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { n: id } } }));
  const a = call(1);
  const b = call(2);
  await Promise.all([started[1].fired, started[2].fired]);
  await cancel(s, 1);
  release.fire();
  assert.equal(await a, '');
  assert.equal(JSON.parse(await b).result.content[0].text, 'finished');
});
