// A connection the application holds (`server.connection()`, the core's `handle_raw_on`):
// its own state, raw text handled against it, what the server sends handed to `onMessage`
// (server-to-client requests answered back through `handleRaw`), pingClient by its id; and
// the core's defaults seen through it (sampling's maxTokens, elicitation params); and
// sendLoggingMessage (Server and McpServer) to the connections whose level it reaches.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_MAX_TOKENS, McpServer, Server } from 'ferrite-mcp';

const INIT = { protocolVersion: '2025-06-18', capabilities: { sampling: {}, elicitation: {} }, clientInfo: { name: 'held', version: '1' } };

/** A connection whose outgoing requests are answered by `answer(method, params)`. */
function held(server, answer = () => ({ error: { code: -32601, message: 'no' } })) {
  const sent = [];
  const conn = server.connection({
    onMessage: (text) => {
      const msg = JSON.parse(text);
      sent.push(msg);
      if (msg.id !== undefined && msg.method !== undefined) {
        // Answer asynchronously, as a client over a wire would.
        setImmediate(() => conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...answer(msg.method, msg.params) })));
      }
    },
  });
  let id = 0;
  const send = async (method, params) => JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })));
  return { conn, sent, send };
}

test('each held connection has its own state: negotiated revision, client info, log level', async () => {
  const server = new Server({ name: 'held', version: '1' });
  server.tool('who', (_args, ctx) => `${ctx.clientInfo?.name} ${ctx.protocolVersion} ${ctx.connectionId}`);
  server.tool('debug', (_args, ctx) => String(ctx.debug('d')));
  const a = held(server);
  const b = held(server);
  try {
    assert.equal((await a.send('initialize', INIT)).result.protocolVersion, '2025-06-18');
    assert.equal((await b.send('initialize', { ...INIT, protocolVersion: '2025-03-26', clientInfo: { name: 'other', version: '1' } })).result.protocolVersion, '2025-03-26');
    assert.notEqual(a.conn.id, b.conn.id);
    assert.equal((await a.send('tools/call', { name: 'who', arguments: {} })).result.content[0].text, `held 2025-06-18 ${a.conn.id}`);
    assert.equal((await b.send('tools/call', { name: 'who', arguments: {} })).result.content[0].text, `other 2025-03-26 ${b.conn.id}`);
    // setLevel on one connection does not change the other's.
    assert.deepEqual((await a.send('logging/setLevel', { level: 'debug' })).result, {});
    assert.equal((await a.send('tools/call', { name: 'debug', arguments: {} })).result.content[0].text, 'true');
    assert.equal((await b.send('tools/call', { name: 'debug', arguments: {} })).result.content[0].text, 'false');
    assert.deepEqual(a.sent.filter((m) => m.method === 'notifications/message').map((m) => m.params), [{ level: 'debug', data: 'd' }]);
    assert.equal(b.sent.filter((m) => m.method === 'notifications/message').length, 0);
  } finally {
    a.conn.close();
    b.conn.close();
    await server.close();
  }
});

test('server-to-client requests go out through onMessage and their answers come back through handleRaw', async () => {
  const server = new Server({ name: 'held', version: '1' });
  server.tool('sample', async (_args, ctx) => (await ctx.sample('hi')).content.text);
  server.tool('ask', async (_args, ctx) => {
    const r = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } });
    return `${r.action} ${r.content?.name}`;
  });
  const { conn, sent, send } = held(server, (method) =>
    method === 'sampling/createMessage'
      ? { result: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' } }
      : { result: { action: 'accept', content: { name: 'Ada' } } },
  );
  try {
    await send('initialize', INIT);
    assert.equal((await send('tools/call', { name: 'sample', arguments: {} })).result.content[0].text, 'sampled');
    const sampling = sent.find((m) => m.method === 'sampling/createMessage');
    // No maxTokens given: the core's default.
    assert.equal(DEFAULT_MAX_TOKENS, 1000);
    assert.equal(sampling.params.maxTokens, DEFAULT_MAX_TOKENS);
    assert.equal((await send('tools/call', { name: 'ask', arguments: {} })).result.content[0].text, 'accept Ada');
    const elicitation = sent.find((m) => m.method === 'elicitation/create');
    assert.deepEqual(elicitation.params, { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    // pingClient reaches the held connection by its id.
    await server.pingClient(conn.id, 5_000);
    assert.ok(sent.some((m) => m.method === 'ping'));
  } finally {
    conn.close();
    await server.close();
  }
});

test('a held connection without onMessage has no channel back; a closed one refuses pings', async () => {
  const server = new Server({ name: 'held', version: '1' });
  server.tool('sample', async (_args, ctx) => {
    try {
      await ctx.sample('hi');
      return 'sampled';
    } catch (e) {
      return `${e.name} ${e.kind}`;
    }
  });
  const conn = server.connection();
  try {
    const send = async (id, method, params) => JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params })));
    await send(1, 'initialize', INIT);
    assert.equal((await send(2, 'tools/call', { name: 'sample', arguments: {} })).result.content[0].text, 'ClientRequestError noChannel');
    assert.equal(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), '');
    const id = conn.id;
    conn.close();
    await assert.rejects(server.pingClient(id, 1_000), { name: 'ClientRequestError' });
  } finally {
    await server.close();
  }
});

/** Resolves once `check()` is true (polled), or fails after 5 s. */
async function until(check, what) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('sendLoggingMessage reaches the connections at or above their level, or the session named', async () => {
  const mcp = new McpServer({ name: 'held', version: '1' });
  const server = mcp.server;
  const a = held(server);
  const b = held(server);
  try {
    await a.send('initialize', INIT);
    await b.send('initialize', INIT);
    assert.deepEqual((await a.send('logging/setLevel', { level: 'warning' })).result, {});
    assert.deepEqual((await b.send('logging/setLevel', { level: 'error' })).result, {});
    assert.equal(server.sendLoggingMessage({ level: 'info', data: 'quiet' }), 0, 'below both levels');
    assert.equal(server.sendLoggingMessage({ level: 'error', data: 'elsewhere' }, 'no-such-session'), 0, 'another session');
    assert.equal(server.sendLoggingMessage({ level: 'warning', data: { disk: 'low' }, logger: 'ops' }), 1, 'a only: b wants error');
    await mcp.sendLoggingMessage({ level: 'critical', data: 'for b' }, b.conn.id);
    const logs = (c) => c.sent.filter((m) => m.method === 'notifications/message').map((m) => m.params);
    await until(() => logs(a).length === 1 && logs(b).length === 1, 'the two log messages');
    assert.deepEqual(logs(a), [{ level: 'warning', data: { disk: 'low' }, logger: 'ops' }]);
    assert.deepEqual(logs(b), [{ level: 'critical', data: 'for b' }]);
    assert.throws(() => server.sendLoggingMessage({ level: 'loud', data: 'x' }), { name: 'TypeError', message: 'unknown log level "loud"' });
  } finally {
    a.conn.close();
    b.conn.close();
    await mcp.close();
  }
});

test('a question whose call is cancelled is withdrawn from the client with notifications/cancelled', async () => {
  const server = new Server({ name: 'held', version: '1' });
  server.tool('ask', async (_args, ctx) => {
    const r = await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } });
    return r.action;
  });
  const sent = [];
  const conn = server.connection({ onMessage: (text) => sent.push(JSON.parse(text)) }); // never answers
  try {
    await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT }));
    const call = conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 'asking', method: 'tools/call', params: { name: 'ask', arguments: {} } }));
    for (let i = 0; i < 500 && !sent.some((m) => m.method === 'elicitation/create'); i++) await new Promise((r) => setTimeout(r, 10));
    const asked = sent.find((m) => m.method === 'elicitation/create');
    assert.ok(asked, JSON.stringify(sent));
    await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'asking' } }));
    assert.equal(await call, '', 'no response to the cancelled call');
    const withdrawn = sent.filter((m) => m.method === 'notifications/cancelled');
    assert.deepEqual(withdrawn.map((m) => m.params.requestId), [asked.id]);
  } finally {
    conn.close();
    await server.close();
  }
});

test('a question the handler gives up with an AbortSignal is withdrawn from the client', async () => {
  const server = new Server({ name: 'held', version: '1' });
  server.tool('impatient', async (_args, ctx) => {
    try {
      await ctx.elicit('Name?', { type: 'object', properties: { name: { type: 'string' } } }, { signal: AbortSignal.timeout(300) });
      return 'answered';
    } catch (e) {
      return `gave up: ${e.name}`;
    }
  });
  const sent = [];
  const conn = server.connection({ onMessage: (text) => sent.push(JSON.parse(text)) }); // never answers
  try {
    await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT }));
    const r = JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'impatient', arguments: {} } })));
    assert.equal(r.result.content[0].text, 'gave up: TimeoutError');
    const asked = sent.find((m) => m.method === 'elicitation/create');
    assert.ok(asked, JSON.stringify(sent));
    for (let i = 0; i < 200 && !sent.some((m) => m.method === 'notifications/cancelled'); i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(sent.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId), [asked.id]);
    // An already aborted signal sends nothing.
    const before = sent.length;
    server.tool('never', async (_args, ctx) => {
      try {
        await ctx.listRoots({ signal: AbortSignal.abort() });
        return 'asked';
      } catch (e) {
        return `not asked: ${e.name}`;
      }
    });
    const n = JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'never', arguments: {} } })));
    assert.equal(n.result.content[0].text, 'not asked: AbortError');
    assert.ok(sent.slice(before).every((m) => m.method !== 'roots/list'));
  } finally {
    conn.close();
    await server.close();
  }
});
