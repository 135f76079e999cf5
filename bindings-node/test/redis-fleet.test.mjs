// Two servers sharing one Redis (`server.useRedis`), against a real `redis-server`
// (`scripts/redis.sh install`; run-tests.sh installs it): a 2026-07-28 task created through one
// is read and cancelled through the other, and the handler running it on the first observes the
// cancellation (`ctx.signal` aborts, `ctx.cancelled` turns true); round trips are counted; a bad
// Redis URL and a call after the first task throw with the core's message. The everything
// server's `--redis` and FERRITE_REQUEST_STATE_KEYS are checked through its command line.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { Server } from 'ferrite-mcp';

import { modernOk } from './helpers.mjs';

const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const NO_ARGS = { type: 'object', additionalProperties: false };
const EVERYTHING = fileURLToPath(new URL('../../examples/node/everything.mjs', import.meta.url));

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const accepts = (port) =>
  new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });

// A throwaway redis-server on a free loopback port, with no persistence, killed at the end.
let redis;
let redisUrl;
before(async () => {
  const found = spawnSync('sh', ['-c', 'command -v redis-server']);
  assert.equal(found.status, 0, 'redis-server is not on PATH: run scripts/redis.sh install');
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    assert.ok(redis.exitCode === null, 'redis-server exited');
    assert.ok(Date.now() < deadline, `redis-server did not start on port ${port}`);
    await sleep(20);
  }
  redisUrl = `redis://127.0.0.1:${port}/`;
});
after(() => redis?.kill());

let fleets = 0;
/** A key prefix of its own for each test (one fleet per test). */
const prefix = () => `node-fleet-${process.pid}-${++fleets}:`;

/** One instance: task tools (required and optional) that run until cancelled; `seen` records how its handlers observed it. */
function instance(seen) {
  const server = new Server({ name: 'fleet', version: '1', tasks: { pollIntervalMs: 100 } });
  server.tool('wait_signal', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, (_args, ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        seen.push('signal');
        resolve('stopped');
      });
    }),
  );
  server.tool('poll_cancelled', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    while (!ctx.cancelled) await sleep(5);
    seen.push('poll');
    return 'stopped';
  });
  return server;
}

async function until(check, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

for (const [tool, how] of [
  ['wait_signal', 'signal'],
  ['poll_cancelled', 'poll'],
]) {
  test(`a task created on one server is read and cancelled on the other, whose handler observes it (${how})`, async () => {
    const seenA = [];
    const seenB = [];
    const a = instance(seenA);
    const b = instance(seenB);
    try {
      const keyPrefix = prefix();
      a.useRedis(redisUrl, { keyPrefix });
      b.useRedis(redisUrl, { keyPrefix });
      const created = await modernOk(a, 'tools/call', { name: tool, arguments: {} }, EXT);
      assert.equal(created.resultType, 'task', JSON.stringify(created));
      await sleep(150); // it runs longer than 100 ms
      assert.equal((await modernOk(b, 'tasks/get', { taskId: created.taskId }, EXT)).status, 'working');
      await modernOk(b, 'tasks/cancel', { taskId: created.taskId }, EXT);
      assert.ok(await until(() => seenA.length > 0), `A's handler did not observe the cancellation made on B`);
      assert.deepEqual(seenA, [how]);
      assert.deepEqual(seenB, [], 'B never ran the task');
      assert.ok(
        await until(async () => (await modernOk(a, 'tasks/get', { taskId: created.taskId }, EXT)).status === 'cancelled'),
      );
      assert.ok(a.redisRoundTrips > 0 && b.redisRoundTrips > 0, `${a.redisRoundTrips} ${b.redisRoundTrips}`);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

test('requests that touch no task make no Redis round trip; no Redis, no count', async () => {
  const a = instance([]);
  const alone = new Server({ name: 'alone', version: '1' });
  try {
    a.useRedis(redisUrl, { keyPrefix: prefix() });
    const before = a.redisRoundTrips;
    await modernOk(a, 'tools/list', {}, EXT);
    assert.equal(a.redisRoundTrips, before);
    assert.equal(alone.redisRoundTrips, undefined);
  } finally {
    await a.close();
    await alone.close();
  }
});

test('a bad Redis URL throws a TypeError with the core message', async () => {
  const server = new Server({ name: 'bad', version: '1' });
  try {
    for (const url of ['not a url', 'http://127.0.0.1:6379/', 'redis://127.0.0.1:notaport/']) {
      assert.throws(
        () => server.useRedis(url),
        (e) => e instanceof TypeError && e.code === 'ERR_INVALID_ARG_VALUE' && e.message.includes(`redis URL "${url}": `),
      );
    }
    assert.throws(() => server.useRedis(redisUrl, { keyPrefix: 3 }), TypeError);
  } finally {
    await server.close();
  }
});

test('useRedis after the first task throws ERR_INVALID_STATE with the core message', async () => {
  const server = instance([]);
  try {
    const created = await modernOk(server, 'tools/call', { name: 'poll_cancelled', arguments: {} }, EXT);
    await modernOk(server, 'tasks/cancel', { taskId: created.taskId }, EXT);
    assert.throws(() => server.useRedis(redisUrl, { keyPrefix: prefix() }), {
      name: 'Error',
      code: 'ERR_INVALID_STATE',
      message: 'the task options cannot change after the first task was created',
    });
    assert.equal(server.redisRoundTrips, undefined);
  } finally {
    await server.close();
  }
});

test('the everything server refuses a bad Redis URL or requestState key', () => {
  const run = (args, env) => spawnSync(process.execPath, [EVERYTHING, ...args], { encoding: 'utf8', timeout: 30_000, env });
  const { FERRITE_REQUEST_STATE_KEYS: _unset, ...clean } = process.env;
  let r = run([], { ...clean, FERRITE_REQUEST_STATE_KEYS: 'not-a-key' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^everything: the current request state key: /);
  r = run(['--redis', 'nope'], clean);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^everything: .*redis URL "nope": /);
  r = run(['--redis'], clean);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^everything: --redis needs a URL\nusage: /);
});
