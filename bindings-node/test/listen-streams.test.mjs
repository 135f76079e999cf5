// 2026-07-28 `subscriptions/listen` streams over this package's listener (both modes):
// notifyToolsListChanged / notifyPromptsListChanged / notifyResourceUpdated reach the streams
// that asked for them, tagged with the stream's subscription id; the generic notify() does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';
import { V2026, envelope } from './helpers.mjs';

/** Open a listen stream; `next(method)` resolves to the next message with that method. */
async function listen(url, id, notifications) {
  const abort = new AbortController();
  const r = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V2026,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications, _meta: envelope() } }),
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/event-stream/);
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  const messages = [];
  let buffer = '';
  const next = async (method) => {
    for (;;) {
      const at = messages.findIndex((m) => m.method === method);
      if (at >= 0) return messages.splice(0, at + 1).at(-1);
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ${method}`);
      buffer += value;
      const events = buffer.split(/\r?\n\r?\n/);
      buffer = events.pop();
      for (const event of events) {
        const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        if (data !== '') messages.push(JSON.parse(data));
      }
    }
  };
  return { next, pending: () => messages, close: () => abort.abort() };
}

for (const stateful of [false, true]) {
  test(`listen streams hear the list changes and resource updates they asked for (${stateful ? 'stateful' : 'stateless'})`, async () => {
    const server = new Server({ name: 'listen', version: '1.0.0', stateful, listChanged: true, subscriptions: true });
    server.tool('t', () => 'x');
    server.prompt('p', () => 'x');
    server.resource('r', 'test://r', () => 'r');
    const { url } = await server.listen({ port: 0 });
    try {
      const tools = await listen(url, 41, { toolsListChanged: true });
      const ack = await tools.next('notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true });
      assert.equal(server.notify('notifications/tools/list_changed'), 0, 'notify() reaches handshake-era listeners only');
      assert.equal(server.notifyPromptsListChanged(), 0, 'the stream did not ask for prompts');
      assert.equal(server.notifyToolsListChanged(), 1);
      const changed = await tools.next('notifications/tools/list_changed');
      assert.equal(changed.params._meta['io.modelcontextprotocol/subscriptionId'], 41);
      assert.deepEqual(tools.pending(), [], 'nothing else was sent to the stream');

      const watch = await listen(url, 42, { promptsListChanged: true, resourceSubscriptions: ['test://r'] });
      await watch.next('notifications/subscriptions/acknowledged');
      assert.equal(server.notifyPromptsListChanged(), 1);
      assert.equal((await watch.next('notifications/prompts/list_changed')).params._meta['io.modelcontextprotocol/subscriptionId'], 42);
      assert.equal(server.notifyResourceUpdated('test://r'), 1);
      assert.equal((await watch.next('notifications/resources/updated')).params.uri, 'test://r');
      assert.equal(server.notifyResourceUpdated('test://other'), 0);
      tools.close();
      watch.close();
    } finally {
      await server.close();
    }
  });
}
