// Request-state sealing (2026-07-28 MRTR): setRequestStateKeys lets instances that share a key
// open each other's states (and rotate keys with `previous`), a foreign key's state is
// refused with -32602, setRequestStateTtl bounds a state's life, and bad keys or lifetimes
// are TypeErrors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { InputRequired, Server } from '../lib/index.mjs';
import { modern, modernOk, textOf } from './helpers.mjs';

const KEY_A = 'a'.repeat(64);
const KEY_B = Buffer.alloc(32, 7).toString('base64');

function instance(current, previous) {
  const s = new Server({ name: 'sealed', version: '1.0.0' });
  if (current !== undefined) s.setRequestStateKeys(current, previous);
  s.tool('stateful_step', (_args, ctx) => (ctx.isResubmission ? `state: ${ctx.requestState}` : new InputRequired().withState('step-2')));
  return s;
}

/** The sealed state `from` hands out, then what `to` answers when it comes back. */
async function handOver(from, to) {
  const first = await modernOk(from, 'tools/call', { name: 'stateful_step', arguments: {} });
  assert.equal(first.resultType, 'input_required');
  return modern(to, 'tools/call', { name: 'stateful_step', arguments: {}, requestState: first.requestState });
}

test('two instances with the same key open each other\'s states; the key id is the same', async () => {
  const [a, b] = [instance(KEY_A), instance(KEY_A)];
  assert.equal(a.requestStateKeyId, b.requestStateKeyId);
  assert.match(a.requestStateKeyId, /^[0-9a-f]{16}$/);
  assert.equal(textOf((await handOver(a, b)).result), 'state: step-2');
  await Promise.all([a.close(), b.close()]);
});

test('a state sealed with another key is -32602', async () => {
  const [a, c] = [instance(KEY_A), instance(KEY_B)];
  assert.notEqual(a.requestStateKeyId, c.requestStateKeyId);
  const r = await handOver(a, c);
  assert.equal(r.error?.code, -32602, JSON.stringify(r));
  await Promise.all([a.close(), c.close()]);
});

test('rotation: a server whose previous keys include the old one still opens its states', async () => {
  const [old, rotated] = [instance(KEY_A), instance(KEY_B, [KEY_A])];
  assert.equal(textOf((await handOver(old, rotated)).result), 'state: step-2');
  await Promise.all([old.close(), rotated.close()]);
});

test('without setRequestStateKeys each server has a fresh key of its own', async () => {
  const [a, b] = [instance(), instance()];
  assert.notEqual(a.requestStateKeyId, b.requestStateKeyId);
  assert.equal((await handOver(a, b)).error?.code, -32602);
  await Promise.all([a.close(), b.close()]);
});

test('setRequestStateTtl: a state older than its lifetime is refused with -32602', async () => {
  const s = instance(KEY_A);
  s.setRequestStateTtl(1);
  const first = await modernOk(s, 'tools/call', { name: 'stateful_step', arguments: {} });
  await sleep(50);
  const r = await modern(s, 'tools/call', { name: 'stateful_step', arguments: {}, requestState: first.requestState });
  assert.equal(r.error?.code, -32602, JSON.stringify(r));
  s.setRequestStateTtl(60_000);
  assert.equal(textOf((await handOver(s, s)).result), 'state: step-2');
  await s.close();
});

test('bad keys and lifetimes are TypeErrors with code ERR_INVALID_ARG_VALUE', async () => {
  const s = instance();
  for (const bad of [() => s.setRequestStateKeys('abc'), () => s.setRequestStateKeys(KEY_A, ['x'.repeat(64)])]) {
    assert.throws(bad, { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /request state key/ });
  }
  assert.throws(() => s.setRequestStateKeys(KEY_A, 'not a list'), TypeError);
  for (const ms of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => s.setRequestStateTtl(ms), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  }
  assert.throws(() => s.setRequestStateTtl('600'), TypeError);
  await s.close();
});
