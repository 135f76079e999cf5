// stdio served from the JS thread (`connectStdio`'s default): a synchronous handler is called
// and answered inside the stdin `data` event that brought its request, with no hand-off to the
// runtime's threads; `FERRITE_NODE_STDIO=runtime` serves from the runtime instead. Both modes
// answer every request of a pipelined burst of synchronous and Promise handlers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';

import { fixtures } from './helpers.mjs';

/** Run the fixture with `env`, write `lines` at once, read `count` lines back, end stdin. */
async function exchange(env, lines, count) {
  const child = spawn(process.execPath, [`${fixtures}stdio-loop-server.mjs`], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const out = [];
  const read = new Promise((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      out.push(JSON.parse(line));
      if (out.length === count) resolve();
    });
  });
  child.stdin.write(lines.map((m) => JSON.stringify(m) + '\n').join(''));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await read;
  child.stdin.end();
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  assert.equal(code, 0, stderr);
  return out;
}

const init = [
  { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];
const call = (id, name, args = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

test('served from the JS thread, a synchronous handler runs inside the stdin data event that brought its request', async () => {
  const [, where] = await exchange({}, [...init, call('w', 'where')], 2);
  assert.equal(where.id, 'w');
  assert.deepEqual(JSON.parse(where.result.content[0].text), { inData: true });
});

for (const [mode, env] of [
  ['the JS thread (the default)', {}],
  ['the runtime (FERRITE_NODE_STDIO=runtime)', { FERRITE_NODE_STDIO: 'runtime' }],
]) {
  test(`served from ${mode}: 300 pipelined calls, synchronous and Promise handlers, each get their own answer`, async () => {
    const calls = Array.from({ length: 300 }, (_, n) => call(n, n % 2 ? 'slow_double' : 'double', { n }));
    const out = await exchange(env, [...init, ...calls], 301);
    const answers = new Map(out.filter((m) => m.id !== 'init').map((m) => [m.id, m]));
    assert.equal(answers.size, 300);
    for (let n = 0; n < 300; n++) assert.equal(answers.get(n)?.result?.content[0].text, String(n * 2), `call ${n}`);
  });

  test(`served from ${mode}: a handler's log notification is written before its answer`, async () => {
    const setLevel = { jsonrpc: '2.0', id: 'lvl', method: 'logging/setLevel', params: { level: 'info' } };
    const out = await exchange(env, [...init, setLevel, call('l', 'logs_then_answers')], 4);
    const log = out.findIndex((m) => m.method === 'notifications/message');
    const answer = out.findIndex((m) => m.id === 'l');
    assert.ok(log >= 0 && answer > log, JSON.stringify(out));
    assert.equal(out[log].params.data, 'before the answer');
    assert.equal(out[answer].result.content[0].text, 'answered');
  });
}

test('served from the JS thread, close() lets a waiting Promise handler answer, then the process exits with stdin open', async () => {
  const child = spawn(process.execPath, [`${fixtures}stdio-loop-server.mjs`], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const out = [];
  createInterface({ input: child.stdout }).on('line', (line) => out.push(JSON.parse(line)));
  child.stdin.write([...init, call('slow', 'slow_then_answers'), call('c', 'close')].map((m) => JSON.stringify(m) + '\n').join(''));
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  assert.equal(signal, null, 'the process had to be killed: it did not exit by itself');
  assert.equal(code, 0, stderr);
  assert.match(stderr, /connectStdio resolved/);
  assert.equal(child.stdin.writableEnded, false, 'stdin was still open');
  const byId = new Map(out.map((m) => [m.id, m]));
  assert.equal(byId.get('c')?.result?.content[0].text, 'closing');
  assert.equal(byId.get('slow')?.result?.content[0].text, 'answered after close');
});
