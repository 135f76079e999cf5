// The core's diagnostics through setDiagnostics (issue 16): records with their level, target
// and message, off, a bad level refused, and the environment's choice at load.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { Server, setDiagnostics } from '../lib/index.mjs';
import { rpc } from './helpers.mjs';

const INVALID = "the handler's result is not valid: Do not know how to serialize a BigInt";

function badServer() {
  const s = new Server({ name: 'diag', version: '1' });
  s.tool('bigint', () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { n: 1n } }));
  return s;
}

// Records arrive on the event loop: wait until `n` are in, or a second passed.
async function settle(seen, n) {
  for (let i = 0; i < 100 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 10));
}

test('records reach the handler with their level, target and message, until turned off', async () => {
  const seen = [];
  setDiagnostics('error', (r) => seen.push(r));
  const s = badServer();
  try {
    const r = await rpc(s, 'tools/call', { name: 'bigint', arguments: {} });
    assert.equal(r.error.code, -32603);
    await settle(seen, 1);
    assert.deepEqual(seen, [{ level: 'error', target: 'ferrite::handler', message: INVALID }]);
    setDiagnostics('off');
    await rpc(s, 'tools/call', { name: 'bigint', arguments: {} });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(seen.length, 1);
  } finally {
    setDiagnostics(null);
    await s.close();
  }
});

test('an unknown level is a TypeError', () => {
  assert.throws(() => setDiagnostics('loud'), {
    name: 'TypeError',
    message: 'invalid diagnostics level "loud": error, warn, info, debug or trace',
  });
});

test('FERRITE_DIAGNOSTICS at load writes records on stderr, never stdout', () => {
  const script = `
    import { Server } from ${JSON.stringify(new URL('../lib/index.mjs', import.meta.url).href)};
    const s = new Server({ name: 'diag', version: '1' });
    s.tool('bigint', () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { n: 1n } }));
    await s.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bigint', arguments: {} } }));
    await new Promise((r) => setTimeout(r, 100));
    await s.close();
  `;
  const run = (env) => spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const on = run({ FERRITE_DIAGNOSTICS: 'error' });
  assert.equal(on.status, 0, on.stderr);
  assert.equal(on.stdout, '');
  assert.equal(on.stderr, `ferrite::handler error: ${INVALID}\n`);
  const off = run({ FERRITE_DIAGNOSTICS: '', DEBUG: '' });
  assert.equal(off.status, 0, off.stderr);
  assert.equal(off.stderr, '');
});

test('DEBUG turns diagnostics on with the debug package\'s patterns', async () => {
  const { diagnosticsFromEnvironment: chosen } = await import('../lib/diagnostics.js');
  for (const debug of ['ferrite*', 'ferrite', 'ferrite:*', '*', 'express,ferrite*', 'fer*te']) {
    assert.equal(chosen({ DEBUG: debug }), 'debug', debug);
  }
  for (const debug of ['', 'express', '*,-ferrite', 'ferrite*,-ferrite', 'ferritex']) {
    assert.equal(chosen({ DEBUG: debug }), undefined, debug);
  }
  assert.equal(chosen({ FERRITE_DIAGNOSTICS: 'warn', DEBUG: '-ferrite' }), 'warn');
});
