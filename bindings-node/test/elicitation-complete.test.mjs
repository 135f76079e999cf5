// The out-of-band end of a URL elicitation from Node: server.notifyElicitationComplete(
// connectionId, elicitationId) (the core's Server::notify_elicitation_complete) sends
// notifications/elicitation/complete with { elicitationId } to a listening connection that
// negotiated 2025-11-25, after the request that asked for it ended, and answers whether it
// went out: false for an unknown connection id and for a connection on an older revision.
// Over a real stdio connection, and over connections the test holds (server.connection()).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';
import { StdioClient, fixtures, textOf } from './helpers.mjs';

const COMPLETE = 'notifications/elicitation/complete';

test('the server-level notifyElicitationComplete reaches a stdio connection with { elicitationId } and is false for an unknown id', async () => {
  const client = new StdioClient(`${fixtures}url-elicitation-stdio.mjs`);
  try {
    const init = await client.initialize({ elicitation: { url: {} } }, '2025-11-25');
    assert.equal(init.result.protocolVersion, '2025-11-25');
    const refused = await client.request('tools/call', { name: 'export', arguments: {} });
    assert.equal(refused.error.code, -32042);
    assert.equal(refused.error.data.elicitations[0].elicitationId, 'login-1');
    assert.deepEqual(client.notifications.filter((n) => n.method === COMPLETE), []);

    const r = await client.request('tools/call', { name: 'login_callback', arguments: {} });
    assert.deepEqual(JSON.parse(textOf(r.result)), { sent: true, unknown: false });
    await client.waitForNotification((n) => n.method === COMPLETE);
    assert.deepEqual(
      client.notifications.filter((n) => n.method === COMPLETE),
      [{ jsonrpc: '2.0', method: COMPLETE, params: { elicitationId: 'login-1' } }],
    );
    assert.equal(textOf((await client.request('tools/call', { name: 'export', arguments: {} })).result), 'exported');
  } finally {
    assert.equal(await client.close(), 0, client.stderr);
  }
});

/** Resolves once `pred()` holds (what a held connection receives arrives on the event loop). */
async function until(pred, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A connection held at `protocolVersion`; what the server sends on it goes to `frames`. */
async function held(server, protocolVersion, frames) {
  const conn = server.connection({ onMessage: (text) => frames.push(JSON.parse(text)) });
  const init = { protocolVersion, capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'held', version: '1' } };
  const r = JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })));
  assert.equal(r.result.protocolVersion, protocolVersion);
  await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return conn;
}

test('notifyElicitationComplete reaches only the connection named, only from 2025-11-25, and not once it closed', async () => {
  const server = new Server({ name: 'url', version: '1' });
  const current = [];
  const other = [];
  const older = [];
  const a = await held(server, '2025-11-25', current);
  const b = await held(server, '2025-11-25', other);
  const old = await held(server, '2025-06-18', older);
  try {
    assert.equal(server.notifyElicitationComplete(a.id, 'pay-7'), true);
    assert.equal(server.notifyElicitationComplete(old.id, 'pay-7'), false);
    await until(() => current.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(current, [{ jsonrpc: '2.0', method: COMPLETE, params: { elicitationId: 'pay-7' } }]);
    assert.deepEqual(other, []);
    // 2025-06-18 has no URL elicitation: nothing is sent.
    assert.deepEqual(older, []);
    assert.equal(server.notifyElicitationComplete('no-such-connection', 'pay-7'), false);
    b.close();
    assert.equal(server.notifyElicitationComplete(b.id, 'pay-7'), false);
    assert.throws(() => server.notifyElicitationComplete(a.id), { name: 'TypeError' });
  } finally {
    for (const c of [a, b, old]) c.close();
    await server.close();
  }
});
