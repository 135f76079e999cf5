// The dispatch limits (issue 15) from Node: the `limits` constructor option, setLimits() and
// the `limits` getter (camelCase in and out), a bad value thrown as a TypeError with the core's
// message; a call past maxInFlightPerConnection answered -32603 naming the limit while the
// running one finishes; a batch past maxBatchLen refused whole with -32600; and the HTTP
// session cap (maxSessions: 1, through listen() and the mounted endpoint): a second initialize
// evicts the first session, whose next request gets 404; a message nested past maxJsonDepth
// answered -32700 naming the limit (HTTP 400) in-process, through listen() and fetchHandler().
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';

const DEFAULTS = { maxBatchLen: 100, maxInFlightPerConnection: 256, maxInFlight: 10000, maxJsonDepth: 127 };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const initialize = (version) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const ping = (id) => ({ jsonrpc: '2.0', id, method: 'ping' });
const hold = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold' } });
const raw = async (server, message) => JSON.parse(await server.handleRaw(JSON.stringify(message)));

test('limits are set in the constructor or by setLimits and read back, camelCase', async () => {
  const server = new Server({ name: 'limits', version: '1', limits: { maxBatchLen: 7 } });
  try {
    assert.deepEqual(server.limits, { ...DEFAULTS, maxBatchLen: 7 });
    const now = server.setLimits({ max_in_flight: 50 });
    assert.deepEqual(now, { ...DEFAULTS, maxBatchLen: 7, maxInFlight: 50 }, 'snake_case is read too; the answer is camelCase');
    assert.deepEqual(server.limits, now);
    assert.equal(server.inFlight, 0);
  } finally {
    await server.close();
  }
});

test('a bad limit is a TypeError with the core message and changes nothing', async () => {
  const server = new Server({ name: 'limits', version: '1' });
  try {
    const cases = [
      [{ maxBatchLen: 5, maxInFlight: 0 }, /^invalid limit maxInFlight: must be at least 1$/],
      [{ maxSessions: 3 }, /^invalid limit maxSessions: unknown limit$/],
      [{ maxBatchLen: 'many' }, /^invalid limit maxBatchLen: /],
      [{ maxBatchLen: -1 }, /^invalid limit maxBatchLen: /],
      [null, /^invalid limit limits: expected an object of limits$/],
      [{ maxJsonDepth: 128 }, /^invalid limit maxJsonDepth: must be at most 127$/],
    ];
    for (const [limits, message] of cases) {
      assert.throws(() => server.setLimits(limits), (e) => e instanceof TypeError && e.code === 'ERR_INVALID_ARG_VALUE' && message.test(e.message));
      assert.deepEqual(server.limits, DEFAULTS, JSON.stringify(limits));
    }
    assert.throws(() => new Server({ name: 'limits', version: '1', limits: { maxInFlight: 0 } }), {
      name: 'TypeError',
      message: 'invalid limit maxInFlight: must be at least 1',
    });
  } finally {
    await server.close();
  }
});

test('a call past the connection limit is refused naming it while the running one finishes', async () => {
  const server = new Server({ name: 'limits', version: '1', limits: { maxInFlightPerConnection: 1 } });
  let started;
  const running = new Promise((resolve) => (started = resolve));
  let release;
  const released = new Promise((resolve) => (release = resolve));
  let entered = 0;
  server.tool('hold', async () => {
    entered += 1;
    started();
    await released;
    return 'released';
  });
  try {
    await raw(server, initialize('2025-11-25'));
    const first = raw(server, hold(2));
    await running;
    const refused = await raw(server, hold(3));
    assert.equal(refused.id, 3);
    assert.equal(refused.error.code, -32603);
    assert.deepEqual(refused.error.data, { limit: 'max_in_flight_per_connection', value: 1 });
    assert.equal(entered, 1, 'the refused call reached its handler');
    release();
    assert.equal((await first).result.content[0].text, 'released');
    assert.deepEqual((await raw(server, ping(4))).result, {});
  } finally {
    release();
    await server.close();
  }
});

test('a batch past maxBatchLen is refused whole', async () => {
  const server = new Server({ name: 'limits', version: '1' });
  try {
    server.setLimits({ maxBatchLen: 2 });
    await raw(server, initialize('2025-03-26'));
    assert.deepEqual(
      (await raw(server, [ping(2), ping(3)])).map((r) => r.id),
      [2, 3],
    );
    const refused = await raw(server, [ping(4), ping(5), ping(6)]);
    assert.equal(refused.error.code, -32600);
    assert.deepEqual(refused.error.data, { limit: 'max_batch_len', value: 2 });
  } finally {
    await server.close();
  }
});

/** A ping nested `arrays + 2` deep (the envelope and `params` are two levels). */
const nestedPing = (id, arrays) => {
  let value = 1;
  for (let i = 0; i < arrays; i++) value = [value];
  return { jsonrpc: '2.0', id, method: 'ping', params: { a: value } };
};
const DEPTH_REFUSED = { limit: 'max_json_depth', value: 6 };

test('a message past maxJsonDepth is a parse error naming the limit', async () => {
  const server = new Server({ name: 'limits', version: '1', limits: { maxJsonDepth: 6 } });
  try {
    await raw(server, initialize('2025-11-25'));
    const refused = await raw(server, nestedPing(2, 5));
    assert.deepEqual([refused.id, refused.error.code, refused.error.data], [null, -32700, DEPTH_REFUSED]);
    assert.deepEqual((await raw(server, nestedPing(3, 4))).result, {});
  } finally {
    await server.close();
  }
});

/** A body past maxJsonDepth is 400 naming the limit; one level less is served: `post(body, session?)` sends one POST. */
async function deepBodyIsRefused(post) {
  const init = await post(initialize('2025-11-25'));
  assert.equal(init.status, 200);
  const session = init.headers.get('mcp-session-id');
  const refused = await post(nestedPing(2, 5), session);
  assert.equal(refused.status, 400);
  const body = await refused.json();
  assert.deepEqual([body.id, body.error.code, body.error.data], [null, -32700, DEPTH_REFUSED]);
  const served = await post(nestedPing(3, 4), session);
  assert.equal(served.status, 200);
  const text = await served.text();
  const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5));
  assert.deepEqual(JSON.parse(data.length ? data.at(-1) : text), { jsonrpc: '2.0', id: 3, result: {} });
}

test('listen() and fetchHandler(): a body past maxJsonDepth is 400 naming the limit', async () => {
  const server = new Server({ name: 'deep', version: '1', limits: { maxJsonDepth: 6 } });
  try {
    const { url } = await server.listen({ port: 0 });
    await deepBodyIsRefused((body, session) => fetch(url, postInit(body, session)));
    const handle = server.fetchHandler();
    await deepBodyIsRefused((body, session) => handle(new Request('http://127.0.0.1/mcp', postInit(body, session))));
  } finally {
    await server.close();
  }
});

/** A second initialize evicts the first session when maxSessions is 1: `post(body, session?)` sends one POST. */
async function secondSessionEvictsTheFirst(post) {
  const a = await post(initialize('2025-11-25'));
  assert.equal(a.status, 200);
  const first = a.headers.get('mcp-session-id');
  const b = await post(initialize('2025-11-25'));
  assert.equal(b.status, 200);
  const second = b.headers.get('mcp-session-id');
  assert.notEqual(second, first);
  const gone = await post(ping(2), first);
  assert.equal(gone.status, 404, await gone.text());
  const kept = await post(ping(3), second);
  assert.equal(kept.status, 200);
  assert.deepEqual((await kept.json()).result, {});
}

const postInit = (body, session) => ({
  method: 'POST',
  headers: session === undefined ? HEADERS : { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify(body),
});

test('listen({ maxSessions: 1 }): a second initialize evicts the first session', async () => {
  const server = new Server({ name: 'sessions', version: '1' });
  const { url } = await server.listen({
    port: 0,
    maxSessions: 1,
    headerReadTimeoutMs: 5000,
    bodyReadTimeoutMs: 5000,
    maxEventsPerStream: 8,
    maxEventStreams: 8,
  });
  try {
    await secondSessionEvictsTheFirst((body, session) => fetch(url, postInit(body, session)));
  } finally {
    await server.close();
  }
});

test('fetchHandler({ maxSessions: 1 }): a second initialize evicts the first session', async () => {
  const server = new Server({ name: 'sessions', version: '1' });
  try {
    const handle = server.fetchHandler({ maxSessions: 1, bodyReadTimeoutMs: 5000 });
    await secondSessionEvictsTheFirst((body, session) => handle(new Request('http://127.0.0.1/mcp', postInit(body, session))));
  } finally {
    await server.close();
  }
});

test('the new HTTP options are the core ones', async () => {
  const server = new Server({ name: 'opts', version: '1' });
  try {
    await assert.rejects(server.listen({ port: 0, maxSessions: -1 }), { name: 'TypeError', message: /^invalid HTTP option maxSessions: / });
    await assert.rejects(server.listen({ port: 0, headerReadTimeoutMs: 'soon' }), {
      name: 'TypeError',
      message: /^invalid HTTP option headerReadTimeoutMs: /,
    });
    await assert.rejects(server.listen({ port: 0, maxEventsPerStream: 0 }), {
      name: 'TypeError',
      message: 'invalid HTTP option maxEventsPerStream: must be at least 1, not 0',
    });
    await assert.rejects(server.listen({ port: 0, maxEventStreams: 0 }), {
      name: 'TypeError',
      message: 'invalid HTTP option maxEventStreams: must be at least 1, not 0',
    });
    assert.throws(() => server.fetchHandler({ bodyReadTimeoutMs: -1 }), { name: 'TypeError', message: /^invalid HTTP option bodyReadTimeoutMs: / });
  } finally {
    await server.close();
  }
});
