// Process lifetime: handlers never keep Node alive; a stdio server exits on its own after
// close() (with stdin still open) or at EOF; close() is idempotent and ends serving.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { promisify } from 'node:util';

import { Server } from '../lib/index.mjs';
import { StdioClient, fixtures } from './helpers.mjs';

const run = promisify(execFile);

test('a process with registered handlers and no serving exits by itself', async () => {
  const { stdout } = await run(process.execPath, [`${fixtures}idle.mjs`], { timeout: 10_000 });
  assert.equal(stdout.trim(), 'pong');
});

test('after close() the stdio server process exits by itself although stdin stays open', async () => {
  const client = new StdioClient(`${fixtures}close-on-call.mjs`);
  const r = await client.request('tools/call', { name: 'close', arguments: {} });
  assert.equal(r.result.content[0].text, 'closing');
  const timer = setTimeout(() => client.child.kill('SIGKILL'), 10_000);
  const [code, signal] = await once(client.child, 'exit');
  clearTimeout(timer);
  assert.equal(signal, null, 'the process had to be killed: it did not exit by itself');
  assert.equal(code, 0);
  assert.match(client.stderr, /connectStdio resolved/);
  assert.equal(client.child.stdin.writableEnded, false, 'stdin was still open');
});

test('a server with a skill, a custom method, an MRTR tool and a trigger exits by itself after close()', async () => {
  const client = new StdioClient(`${fixtures}close-modern.mjs`);
  await client.initialize();
  assert.equal((await client.request('tools/call', { name: 'trigger', arguments: {} })).result.content[0].text, 'triggered 1, 1 listeners');
  assert.equal((await client.request('tools/call', { name: 'dynamic', arguments: {} })).result.content[0].text, 'version 1');
  assert.deepEqual((await client.request('com.example/echo', { x: 1 })).result, { echo: { x: 1 } });
  const r = await client.request('tools/call', { name: 'close', arguments: {} });
  assert.equal(r.result.content[0].text, 'closing');
  const timer = setTimeout(() => client.child.kill('SIGKILL'), 10_000);
  const [code, signal] = await once(client.child, 'exit');
  clearTimeout(timer);
  assert.equal(signal, null, 'the process had to be killed: it did not exit by itself');
  assert.equal(code, 0, client.stderr);
  assert.match(client.stderr, /connectStdio resolved/);
});

test('a stdio server exits when its stdin ends', async () => {
  const child = spawn(process.execPath, [`${fixtures}close-on-call.mjs`], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  assert.equal(signal, null);
  assert.equal(code, 0);
});

test('close() is idempotent, Symbol.asyncDispose closes, and a closed server refuses to serve', async () => {
  const s = new Server({ name: 'l', version: '1' });
  s.tool('t', () => 'x');
  await s.handleRaw('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  const first = s.close();
  assert.equal(s.close(), first);
  await first;
  await s[Symbol.asyncDispose]();
  assert.throws(() => s.handleRaw('{"jsonrpc":"2.0","id":2,"method":"ping"}'), /closed/);
  assert.throws(() => s.connectStdio(), /closed/);
});
