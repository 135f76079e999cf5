// Server-to-client requests on a stateless server or without a channel fail with the kind
// that says why, and capabilities the client did not declare are refused before sending.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ClientRequestError, Server } from '../lib/index.mjs';
import { callTool } from './helpers.mjs';

function probe(server) {
  server.tool('probe', async (_args, ctx) => {
    const kinds = [];
    for (const f of [() => ctx.sample('x'), () => ctx.elicit('x'), () => ctx.listRoots(), () => ctx.request('ping')]) {
      try {
        await f();
        kinds.push('ok');
      } catch (e) {
        assert.ok(e instanceof ClientRequestError);
        kinds.push(e.kind);
      }
    }
    return kinds.join(',');
  });
}

test('a stateless server refuses server-to-client requests', async () => {
  const s = new Server({ name: 's', version: '1', stateless: true });
  probe(s);
  assert.equal((await callTool(s, 'probe')).content[0].text, 'stateless,stateless,stateless,stateless');
});

test('in-process calls have no channel back; undeclared capabilities are named', async () => {
  const s = new Server({ name: 's', version: '1', stateful: true });
  probe(s);
  assert.equal(
    (await callTool(s, 'probe')).content[0].text,
    'missingCapability,missingCapability,missingCapability,noChannel',
  );
});

test('an uncaught ClientRequestError in a tool is an isError result', async () => {
  const s = new Server({ name: 's', version: '1', stateless: true });
  s.tool('sample', async (_args, ctx) => (await ctx.sample('hi')).model);
  const r = await callTool(s, 'sample');
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /stateful/);
});
