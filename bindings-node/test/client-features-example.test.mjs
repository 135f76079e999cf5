// examples/node/client_features.mjs over stdio, driven by a line-delimited client that
// answers its server-to-client requests: the typed form and its decoded answer, URL
// elicitation (the completion notification, then -32042 no more), sampling with
// includeContext, and the roots observer.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { StdioClient } from './helpers.mjs';

const example = fileURLToPath(new URL('../../examples/node/client_features.mjs', import.meta.url));
let client;
const asked = [];

before(async () => {
  client = new StdioClient(example, [], {
    onRequest(method, params) {
      asked.push({ method, params });
      if (method === 'elicitation/create' && params.mode === 'url') return { result: { action: 'accept' } };
      if (method === 'elicitation/create') return { result: { action: 'accept', content: { name: 'Ada', plan: 'pro', age: 36 } } };
      if (method === 'sampling/createMessage') return { result: { role: 'assistant', content: { type: 'text', text: 'tools' }, model: 'm' } };
      return { error: { code: -32601, message: 'unknown' } };
    },
  });
  const init = await client.initialize({ elicitation: { form: {}, url: {} }, sampling: { context: {} }, roots: { listChanged: true } }, '2025-11-25');
  assert.equal(init.result.protocolVersion, '2025-11-25');
});

after(async () => {
  assert.equal(await client.close(), 0, client.stderr);
});

const call = (name) => client.request('tools/call', { name, arguments: {} });

test('client_features.mjs: a zod form sent the restricted way, its answer decoded', async () => {
  assert.equal((await call('signup')).result.content[0].text, 'welcome Ada on pro, aged 36');
  const form = asked.find((a) => a.method === 'elicitation/create').params;
  assert.deepEqual(form.requestedSchema, {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Your name' },
      plan: { type: 'string', enum: ['basic', 'pro'], description: 'Which plan' },
      age: { type: 'integer', description: 'Your age, if you like', minimum: -9007199254740991, maximum: 9007199254740991 },
    },
    required: ['name', 'plan'],
  });
});

test('client_features.mjs: -32042 until the URL elicitation completed, with its notification', async () => {
  const refused = await call('export');
  assert.equal(refused.error.code, -32042);
  const [elicitation] = refused.error.data.elicitations;
  assert.equal(elicitation.mode, 'url');
  assert.equal((await call('login')).result.content[0].text, 'signed in');
  const done = await client.waitForNotification((n) => n.method === 'notifications/elicitation/complete');
  assert.deepEqual(done.params, { elicitationId: elicitation.elicitationId });
  assert.equal((await call('export')).result.content[0].text, 'exported');
});

test('client_features.mjs: sampling carries includeContext; roots changes are observed', async () => {
  assert.equal((await call('summarize')).result.content[0].text, 'tools');
  assert.equal(asked.find((a) => a.method === 'sampling/createMessage').params.includeContext, 'thisServer');
  client.notify('notifications/roots/list_changed');
  client.notify('notifications/roots/list_changed');
  for (let i = 0; i < 50; i++) {
    if ((await call('roots_changes')).result.content[0].text === '2') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('the roots observer did not see two changes');
});
