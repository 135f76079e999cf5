// Middleware (issue 16): order, changing the request, answering without the handler (result or
// error), reading and changing the answer, typed hooks picked inside one call, in both eras.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { McpError, Server } from '../lib/index.mjs';
import { modern, modernOk, rpc, textOf } from './helpers.mjs';

function server(calls = []) {
  const s = new Server({ name: 'mw', version: '1.0.0', stateful: true });
  s.tool('add', { inputSchema: { type: 'object' } }, ({ a, b }) => {
    calls.push(1);
    return String(a + b);
  });
  s.tool('hidden', () => 'secret');
  return s;
}

const add = (a, b) => ({ name: 'add', arguments: { a, b } });

test('middleware runs in the order added around the handler, in both eras', async () => {
  const calls = [];
  const s = server(calls);
  const log = [];
  for (const name of ['a', 'b']) {
    s.use(async (c, next) => {
      log.push(`${name}> ${c.method} ${c.name}`);
      const result = await next();
      log.push(`<${name}`);
      return result;
    });
  }
  const handshake = await rpc(s, 'tools/call', add(1, 2));
  assert.equal(textOf(handshake.result), '3');
  assert.deepEqual(log, ['a> tools/call add', 'b> tools/call add', '<b', '<a']);
  log.length = 0;
  assert.equal(textOf(await modernOk(s, 'tools/call', add(2, 2))), '4');
  assert.deepEqual(log, ['a> tools/call add', 'b> tools/call add', '<b', '<a']);
  assert.equal(calls.length, 2);
});

test('middleware can change the request and the answer', async () => {
  const s = server();
  s.use(async (c, next) => {
    if (c.name === 'add') c.params.arguments.a = 40;
    const result = await next(c);
    if (c.name === 'add') result.content[0].text += '!';
    return result;
  });
  assert.equal(textOf(await modernOk(s, 'tools/call', add(1, 2))), '42!');
});

test('middleware can answer without the handler with a result or an error', async () => {
  const calls = [];
  const s = server(calls);
  s.use((c, next) => {
    if (c.name === 'add' && c.params.arguments.a === 13) throw new McpError(-32001, 'thirteen is refused here', { why: 'superstition' });
    if (c.name === 'add' && c.params.arguments.a === 7) return { content: [{ type: 'text', text: 'seven, from the middleware' }] };
    return next();
  });
  const refused = await modern(s, 'tools/call', add(13, 1));
  assert.deepEqual(refused.error, { code: -32001, message: 'thirteen is refused here', data: { why: 'superstition' } });
  assert.equal(textOf(await modernOk(s, 'tools/call', add(7, 1))), 'seven, from the middleware');
  assert.equal(calls.length, 0);
  assert.equal(textOf(await modernOk(s, 'tools/call', add(1, 1))), '2');
  assert.equal(calls.length, 1);
});

test('a next kept past the answer rejects when awaited, and left unawaited ends nothing', async () => {
  const calls = [];
  const s = server(calls);
  const kept = [];
  s.use((c, next) => {
    if (c.name === 'add' && c.params.arguments.a === 9) {
      kept.push(next);
      return { content: [{ type: 'text', text: 'answered early' }] };
    }
    return next();
  });
  assert.equal(textOf(await modernOk(s, 'tools/call', add(9, 0))), 'answered early');
  let unhandled = 0;
  const count = () => unhandled++;
  process.on('unhandledRejection', count);
  try {
    kept[0](); // called and left: must not become an unhandled rejection
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(unhandled, 0);
    await assert.rejects(kept[0](), (e) => e instanceof Error && /already completed|after it answered/.test(e.message));
  } finally {
    process.off('unhandledRejection', count);
  }
  assert.equal(calls.length, 0, 'the tool never ran');
  assert.equal(textOf(await modernOk(s, 'tools/call', add(3, 4))), '7');
});

test('the method is read-only: changing it is an error, not silently ignored', async () => {
  const s = server();
  s.use((c, next) => {
    if (c.name === 'hidden') return next({ ...c, method: 'tools/list' });
    if (c.name === 'add' && c.params.arguments.a === 5) c.method = 'tools/list';
    return next();
  });
  const rerouted = await modern(s, 'tools/call', { name: 'hidden', arguments: {} });
  assert.equal(rerouted.error?.code, -32603, JSON.stringify(rerouted));
  assert.match(rerouted.error.message, /cannot change the method/);
  const assigned = await modern(s, 'tools/call', add(5, 0));
  assert.equal(assigned.error?.code, -32603, JSON.stringify(assigned));
  assert.equal(textOf(await modernOk(s, 'tools/call', add(3, 4))), '7');
});

test('an error from the chain rejects next with an McpError carrying its code', async () => {
  const s = server();
  const seen = [];
  s.use(async (c, next) => {
    try {
      return await next();
    } catch (e) {
      seen.push(e instanceof McpError ? e.code : String(e));
      throw e;
    }
  });
  const r = await modern(s, 'tools/call', { name: 'nope', arguments: {} });
  assert.equal(r.error.code, -32602);
  assert.deepEqual(seen, [-32602]);
});

test('typed hooks run inside one call, outermost first, and can filter list results', async () => {
  const s = server();
  const log = [];
  s.use({
    onMessage: (c, next) => (log.push('message'), next(c)),
    onRequest: (c, next) => (log.push('request'), next(c)),
    onCallTool: (c, next) => (log.push('callTool'), next(c)),
    async onListTools(c, next) {
      log.push('listTools');
      const result = await next(c);
      return { ...result, tools: result.tools.filter((t) => t.name !== 'hidden') };
    },
  });
  assert.deepEqual((await modernOk(s, 'tools/list')).tools.map((t) => t.name), ['add']);
  assert.deepEqual(log, ['message', 'request', 'listTools']);
  log.length = 0;
  await modernOk(s, 'tools/call', add(1, 1));
  assert.deepEqual(log, ['message', 'request', 'callTool']);
  log.length = 0;
  // A method without a typed hook (here one no route answers) gets the two general hooks.
  assert.equal((await modern(s, 'x/unknown')).error.code, -32601);
  assert.deepEqual(log, ['message', 'request']);
});

test('the context carries the method, the hook and the request context', async () => {
  const s = server();
  const seen = [];
  s.use((c, next) => {
    seen.push([c.method, c.hook, c.ctx.protocolVersion]);
    return next();
  });
  await modernOk(s, 'tools/list');
  assert.equal((await modern(s, 'resources/templates/list')).error.code, -32601); // no resources here
  assert.deepEqual(seen, [
    ['tools/list', 'list_tools', '2026-07-28'],
    ['resources/templates/list', 'list_resource_templates', '2026-07-28'],
  ]);
});

test('a middleware that breaks is -32603 and the server keeps serving', async () => {
  const s = server();
  s.use(async (c, next) => {
    const a = c.params?.arguments?.a;
    if (a === 0) throw new Error('middleware went wrong');
    if (a === 1) return undefined;
    if (a === 2) {
      await next();
      return next();
    }
    return next();
  });
  assert.deepEqual((await modern(s, 'tools/call', add(0, 0))).error, { code: -32603, message: 'middleware went wrong' });
  assert.deepEqual((await modern(s, 'tools/call', add(1, 0))).error, {
    code: -32603,
    message: "the handler's result is not valid: a middleware returned undefined, not the result object (return what next() resolved to)",
  });
  assert.deepEqual((await modern(s, 'tools/call', add(2, 0))).error, { code: -32603, message: 'a middleware called next twice' });
  assert.equal(textOf(await modernOk(s, 'tools/call', add(3, 4))), '7');
});

test('use refuses what is not a middleware', () => {
  const s = server();
  assert.throws(() => s.use(42), { name: 'TypeError', message: /must be a function \(context, next\) or an object of hooks/ });
  assert.throws(() => s.use(null), TypeError);
});

test('built-in middleware runs in the core, configured by an object', async () => {
  const s = server();
  s.useBuiltin('rateLimit', { perSecond: 0.01, burst: 2, methods: ['tools/call'] });
  for (let i = 0; i < 2; i++) assert.equal(textOf(await modernOk(s, 'tools/call', add(1, 2))), '3');
  const over = (await modern(s, 'tools/call', add(1, 2))).error;
  assert.equal(over.code, -32000);
  assert.equal(over.data.limit, 'rate');
  assert.ok(over.data.retryAfterMs > 90_000, JSON.stringify(over));
  assert.ok(Array.isArray((await modernOk(s, 'tools/list')).tools)); // a method the limit does not name
  assert.throws(() => s.useBuiltin('rate_limit', { perSecond: 0 }), { name: 'TypeError', message: /middleware "rate_limit": perSecond must be a positive number/ });
  assert.throws(() => s.useBuiltin('nope'), { name: 'TypeError', message: /no such built-in middleware "nope"/ });
});

test('built-in error masking composes with a JS middleware', async () => {
  const s = server();
  s.useBuiltin('errorMasking', { message: 'Something went wrong' });
  s.use((c, next) => {
    if (c.params?.arguments?.a === 0) throw new Error('secret detail');
    return next();
  });
  assert.deepEqual((await modern(s, 'tools/call', add(0, 0))).error, { code: -32603, message: 'Something went wrong' });
  assert.equal(textOf(await modernOk(s, 'tools/call', add(5, 0))), '5');
});

/** Logs the notifications it sees under `name`, drops the methods in `drop`, stamps the rest. */
function notes(name, log, drop = []) {
  return {
    async onNotification(c, next) {
      log.push(`${name}> ${c.method} ${c.hook} ${c.ctx} ${typeof c.connectionId}`);
      if (drop.includes(c.method)) return;
      if (c.params !== undefined) c.params.stamped = name;
      await next();
      log.push(`<${name}`);
    },
  };
}

async function eventually(check) {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(check());
}

test('notifications pass through the notification hooks in order, and can be changed or dropped', async () => {
  const calls = [];
  const s = server(calls);
  const log = [];
  s.use(notes('a', log));
  s.use(notes('b', log, ['notifications/roots/list_changed']));
  const plain = [];
  s.use(async (c, next) => (plain.push(c.method), next()));
  const seen = [];
  s.onNotification((method, params) => seen.push([method, params]));
  const conn = s.connection();
  const notify = (method, params) => conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method, params }));
  try {
    assert.equal(await notify('notifications/progress', { progressToken: 't', progress: 1 }), '');
    assert.deepEqual(log, [
      'a> notifications/progress notification undefined string',
      'b> notifications/progress notification undefined string',
      '<b',
      '<a',
    ]);
    // What the server acted on is what the innermost hook left: stamped by a, then by b.
    await eventually(() => seen.length === 1);
    assert.deepEqual(seen, [['notifications/progress', { progressToken: 't', progress: 1, stamped: 'b' }]]);
    log.length = 0;
    assert.equal(await notify('notifications/roots/list_changed', {}), '');
    // b dropped it: a saw it, the server did not.
    assert.deepEqual(log, [
      'a> notifications/roots/list_changed notification undefined string',
      'b> notifications/roots/list_changed notification undefined string',
      '<a',
    ]);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(seen.length, 1);
    // A middleware function sees requests only; requests pass the notification hooks by.
    assert.equal(textOf(await modernOk(s, 'tools/call', add(1, 2))), '3');
    assert.deepEqual(plain, ['tools/call']);
    assert.equal(calls.length, 1);
  } finally {
    conn.close();
    await s.close();
  }
});

test('onMessage sees requests and notifications; a failing notification hook drops only its notification', async () => {
  const s = server();
  const log = [];
  s.use({
    onMessage: async (c, next) => (log.push(`message ${c.method}`), next()),
    onNotification: async (c, next) => {
      if (c.method === 'notifications/progress') throw new Error('this hook fails');
      await next();
    },
  });
  const seen = [];
  s.onNotification((method) => seen.push(method));
  const conn = s.connection();
  try {
    for (const method of ['notifications/progress', 'notifications/roots/list_changed']) {
      assert.equal(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method, params: {} })), '');
    }
    assert.equal(textOf(await modernOk(s, 'tools/call', add(2, 2))), '4');
    assert.deepEqual(log, ['message notifications/progress', 'message notifications/roots/list_changed', 'message tools/call']);
    await eventually(() => seen.length === 1);
    assert.deepEqual(seen, ['notifications/roots/list_changed']);
  } finally {
    conn.close();
    await s.close();
  }
});
