// Sampling's capability gates and the roots list-changed observer from the Node surface
// (issue 12): `includeContext` other than "none" needs the client's `sampling.context`, and
// `tools`/`toolChoice` its `sampling.tools` (the core checks, nothing is sent otherwise);
// `server.onRootsListChanged` (and the TypeScript SDK's `setNotificationHandler` with its
// `RootsListChangedNotificationSchema`) is called on `notifications/roots/list_changed`.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { McpServer, Server } from '../lib/index.mjs';
import { textOf } from './helpers.mjs';

const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'summary' }, model: 'm' };

/** A held connection initialized with `capabilities`; its sampling requests are answered SAMPLED. */
async function held(server, capabilities) {
  const sent = [];
  const conn = server.connection({
    onMessage: (text) => {
      const msg = JSON.parse(text);
      sent.push(msg);
      if (msg.id !== undefined && msg.method !== undefined) {
        setImmediate(() => conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: SAMPLED })));
      }
    },
  });
  let id = 0;
  const send = async (method, params) => JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })));
  const notify = (method, params) => conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method, params }));
  await send('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'held', version: '1' } });
  await notify('notifications/initialized');
  const call = async (name) => textOf((await send('tools/call', { name, arguments: {} })).result);
  return { conn, sent, notify, call, sampling: () => sent.filter((m) => m.method === 'sampling/createMessage') };
}

function samplingServer() {
  const server = new Server({ name: 'sampling', version: '1' });
  const attempt = (params) => async (_args, ctx) => {
    try {
      return `sampled: ${(await ctx.sample(params)).content.text}`;
    } catch (e) {
      return `${e.name} ${e.kind}: ${e.message}`;
    }
  };
  const messages = [{ role: 'user', content: { type: 'text', text: 'Summarize' } }];
  server.tool('with_context', attempt({ messages, maxTokens: 10, includeContext: 'thisServer' }));
  server.tool('no_context', attempt({ messages, maxTokens: 10, includeContext: 'none' }));
  server.tool('with_prompt', async (_args, ctx) => (await ctx.sample('Summarize', { maxTokens: 10, includeContext: 'allServers' })).content.text);
  server.tool('with_tool_choice', attempt({ messages, maxTokens: 10, toolChoice: { mode: 'auto' } }));
  return server;
}

test('includeContext other than "none" without the client\'s sampling.context: the core refuses, nothing is sent', async () => {
  const server = samplingServer();
  const c = await held(server, { sampling: {} });
  try {
    assert.equal(await c.call('with_context'), 'ClientRequestError missingCapability: the client did not declare the sampling.context capability');
    assert.deepEqual(c.sampling(), []);
    // "none" asks for no context: no capability needed.
    assert.equal(await c.call('no_context'), 'sampled: summary');
    assert.equal(c.sampling()[0].params.includeContext, 'none');
    // toolChoice needs sampling.tools.
    assert.equal(await c.call('with_tool_choice'), 'ClientRequestError missingCapability: the client did not declare the sampling.tools capability');
    assert.equal(c.sampling().length, 1);
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('with sampling.context the request carries includeContext (params and the prompt form)', async () => {
  const server = samplingServer();
  const c = await held(server, { sampling: { context: {} } });
  try {
    assert.equal(await c.call('with_context'), 'sampled: summary');
    assert.equal(await c.call('with_prompt'), 'summary');
    assert.deepEqual(
      c.sampling().map((m) => [m.params.includeContext, m.params.maxTokens, m.params.messages[0].content.text]),
      [
        ['thisServer', 10, 'Summarize'],
        ['allServers', 10, 'Summarize'],
      ],
    );
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('onRootsListChanged: each listener is called on notifications/roots/list_changed only, until it unsubscribes', async () => {
  const server = new Server({ name: 'roots', version: '1' });
  const seen = [];
  const offA = server.onRootsListChanged(() => seen.push('a'));
  server.onRootsListChanged(() => seen.push('b'));
  server.onRootsListChanged(() => {
    throw new Error('a listener that throws does not stop the others');
  });
  const warnings = [];
  const onWarning = (w) => warnings.push(w.message);
  process.on('warning', onWarning);
  const c = await held(server, { roots: { listChanged: true } });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  try {
    await c.notify('notifications/roots/list_changed');
    await c.notify('notifications/progress', { progressToken: 1, progress: 1 });
    await settle();
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal(offA(), true);
    await c.notify('notifications/roots/list_changed');
    await settle();
    assert.deepEqual(seen, ['a', 'b', 'b']);
    assert.ok(warnings.some((m) => m.includes('a roots listener threw: a listener that throws')), warnings.join('\n'));
    assert.throws(() => server.onRootsListChanged('nope'), { name: 'TypeError' });
  } finally {
    process.off('warning', onWarning);
    c.conn.close();
    await server.close();
  }
});

test('McpServer: server.setNotificationHandler(RootsListChangedNotificationSchema, handler), as with the TypeScript SDK', async () => {
  const mcp = new McpServer({ name: 'roots', version: '1' });
  const got = [];
  mcp.server.setNotificationHandler(RootsListChangedNotificationSchema, async (n) => {
    got.push(n);
  });
  // Any notification schema with a literal method; a second handler replaces the first.
  const Custom = z.object({ method: z.literal('notifications/custom'), params: z.object({ n: z.number() }) });
  mcp.server.setNotificationHandler(Custom, (n) => got.push(['first', n]));
  mcp.server.setNotificationHandler(Custom, (n) => got.push(n));
  const c = await held(mcp.server, { roots: { listChanged: true } });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  try {
    await c.notify('notifications/roots/list_changed');
    await c.notify('notifications/custom', { n: 3 });
    await settle();
    assert.deepEqual(got, [{ method: 'notifications/roots/list_changed' }, { method: 'notifications/custom', params: { n: 3 } }]);
    mcp.server.removeNotificationHandler('notifications/roots/list_changed');
    await c.notify('notifications/roots/list_changed');
    await settle();
    assert.equal(got.length, 2);
    assert.throws(() => mcp.server.setNotificationHandler(z.object({ method: z.string() }), () => {}), { name: 'TypeError' });
  } finally {
    c.conn.close();
    await mcp.close();
  }
});
