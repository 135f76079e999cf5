// Elicitation from the Node surface (issue 12): a form given as a zod schema, another Standard
// Schema (valibot), a raw shape or plain JSON Schema is sent spelled the restricted way by the
// core (no $schema, enums from $defs in place, optional fields as their type) and an accepted
// answer comes back decoded through the schema; a form the spec's restrictions refuse never
// leaves the server (ClientRequestError "invalidElicitation", the core's message), on
// ctx.elicit and as an MRTR input request; an accepted answer that does not fit the form is
// refused by the core (ClientRequestError "malformed", the core's message); URL elicitation's
// completion notification and the -32042 UrlElicitationRequiredError.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as v from 'valibot';
import { z } from 'zod';

import { ClientRequestError, ErrorCode, InputRequest, InputRequired, McpError, Server, UrlElicitationRequiredError } from '../lib/index.mjs';
import { modern, modernOk, textOf } from './helpers.mjs';

const INIT = { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {}, url: {} } }, clientInfo: { name: 'held', version: '1' } };

/** A held connection whose elicitation requests are answered with `answer` (and recorded in `sent`). */
async function held(server, answer = { action: 'accept', content: {} }) {
  const sent = [];
  const conn = server.connection({
    onMessage: (text) => {
      const msg = JSON.parse(text);
      sent.push(msg);
      if (msg.id !== undefined && msg.method !== undefined) {
        const reply = typeof answer === 'function' ? answer(msg) : answer;
        setImmediate(() => conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: reply })));
      }
    },
  });
  let id = 0;
  const send = async (method, params) => JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })));
  const call = async (name, args = {}) => send('tools/call', { name, arguments: args });
  await send('initialize', INIT);
  return { conn, sent, send, call, requests: () => sent.filter((m) => m.method === 'elicitation/create') };
}

/** A server with one tool asking `form` and answering the result (or the error) as JSON. */
function asking(form) {
  const server = new Server({ name: 'elicit', version: '1' });
  server.tool('ask', async (_args, ctx) => {
    try {
      return JSON.stringify(await ctx.elicit('Who are you?', form));
    } catch (e) {
      return JSON.stringify({ error: e.name, kind: e.kind, message: e.message });
    }
  });
  return server;
}

const Plan = z.enum(['basic', 'pro']);
/** An enum field, an optional field, descriptions, and a nullable optional field. */
const Contact = z.object({
  name: z.string().describe('Your name'),
  age: z.number().int().optional().describe('Your age, if you like'),
  plan: Plan,
  nick: z.string().nullable().optional(),
});
/** What the core sends for Contact: zod's $schema dropped, [string, null] spelled string. */
const CONTACT_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your name' },
    age: { type: 'integer', description: 'Your age, if you like', minimum: -9007199254740991, maximum: 9007199254740991 },
    plan: { type: 'string', enum: ['basic', 'pro'] },
    nick: { type: 'string' },
  },
  required: ['name', 'plan'],
};

test('a zod form (enum, optional and nullable fields, descriptions) is sent the restricted way and its answer decoded through the schema', async () => {
  const server = asking(Contact);
  const c = await held(server, { action: 'accept', content: { name: 'Ada', plan: 'pro' } });
  try {
    const r = JSON.parse(textOf((await c.call('ask')).result));
    assert.deepEqual(r, { action: 'accept', content: { name: 'Ada', plan: 'pro' } });
    const [request] = c.requests();
    assert.deepEqual(request.params, { mode: 'form', message: 'Who are you?', requestedSchema: CONTACT_FORM });
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('a zod enum with an id (lifted into $defs by zod) is put in place by the core', async () => {
  const server = asking(z.object({ plan: Plan.meta({ id: 'Plan' }).describe('Which plan') }));
  const c = await held(server, { action: 'accept', content: { plan: 'basic' } });
  try {
    assert.deepEqual(JSON.parse(textOf((await c.call('ask')).result)), { action: 'accept', content: { plan: 'basic' } });
    assert.deepEqual(c.requests()[0].params.requestedSchema, {
      type: 'object',
      properties: { plan: { type: 'string', enum: ['basic', 'pro'], description: 'Which plan' } },
      required: ['plan'],
    });
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('an accepted answer that does not fit the form rejects with ClientRequestError "malformed" and the core\'s message; a fitting one decodes through the zod schema; decline and cancel carry no content', async () => {
  // The core checks every accepted answer against the form it sent, before zod sees it.
  const answers = [
    { action: 'accept', content: { plan: 'pro' } },
    { action: 'accept', content: { name: 'Ada', plan: 'gold' } },
    { action: 'accept', content: { name: 'Ada', plan: 'pro', age: 'old' } },
    { action: 'accept', content: { name: 'Ada', plan: 'pro', admin: true } },
    { action: 'accept', content: { name: 'Ada', plan: 'pro', age: 36 } },
    { action: 'decline' },
    { action: 'cancel' },
  ];
  const server = asking(Contact);
  const c = await held(server, () => answers.shift());
  const refused = (message) => ({ error: 'ClientRequestError', kind: 'malformed', message: `the accepted answer does not fit the requested form: ${message}` });
  try {
    const ask = async () => JSON.parse(textOf((await c.call('ask')).result));
    assert.deepEqual(await ask(), refused('the required field "name" is missing'));
    assert.deepEqual(await ask(), refused('field "plan": "gold" is not one of the options'));
    assert.deepEqual(await ask(), refused('field "age": must be an integer'));
    assert.deepEqual(await ask(), refused('"admin" is not a field of the form'));
    assert.deepEqual(await ask(), { action: 'accept', content: { name: 'Ada', plan: 'pro', age: 36 } });
    assert.deepEqual(await ask(), { action: 'decline' });
    assert.deepEqual(await ask(), { action: 'cancel' });
    assert.equal(c.requests().length, 7);
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('an unfitting answer to a plain JSON Schema form is refused too, and left uncaught it is the tool\'s isError result', async () => {
  const server = new Server({ name: 'elicit', version: '1' });
  const form = { type: 'object', properties: { colour: { type: 'string', enum: ['red', 'green'] } }, required: ['colour'] };
  server.tool('pick', async (_args, ctx) => JSON.stringify(await ctx.elicit('Pick', form)));
  const answers = [{ action: 'accept', content: { colour: 'blue' } }, { action: 'accept', content: { colour: 'red' } }];
  const c = await held(server, () => answers.shift());
  try {
    const r = (await c.call('pick')).result;
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'the accepted answer does not fit the requested form: field "colour": "blue" is not one of the options');
    assert.deepEqual(JSON.parse(textOf((await c.call('pick')).result)), { action: 'accept', content: { colour: 'red' } });
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('a valibot form and a raw shape of zod fields: the same restricted form, the answer decoded', async () => {
  const forms = {
    valibot: v.object({
      name: v.pipe(v.string(), v.description('Your name')),
      age: v.optional(v.pipe(v.number(), v.integer())),
      plan: v.picklist(['basic', 'pro']),
    }),
    shape: { name: z.string().describe('Your name'), age: z.number().int().optional(), plan: Plan },
  };
  for (const [which, form] of Object.entries(forms)) {
    const server = asking(form);
    const c = await held(server, { action: 'accept', content: { name: 'Grace', age: 36, plan: 'basic' } });
    try {
      const r = JSON.parse(textOf((await c.call('ask')).result));
      assert.deepEqual(r, { action: 'accept', content: { name: 'Grace', age: 36, plan: 'basic' } }, which);
      const sent = c.requests()[0].params.requestedSchema;
      assert.deepEqual(sent.required, ['name', 'plan'], which);
      assert.deepEqual(sent.properties.name, { type: 'string', description: 'Your name' }, which);
      assert.deepEqual(sent.properties.plan, { type: 'string', enum: ['basic', 'pro'] }, which);
      assert.equal(sent.properties.age.type, 'integer', which);
      assert.equal(sent.$schema, undefined, which);
    } finally {
      c.conn.close();
      await server.close();
    }
  }
});

test('plain JSON Schema as a generator writes it ($schema, title, $defs, [T, null]) is spelled the restricted way; the answer is as sent', async () => {
  const generated = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Signup',
    type: 'object',
    $defs: { Plan: { type: 'string', enum: ['basic', 'pro'], title: 'Plan' } },
    properties: { plan: { $ref: '#/$defs/Plan', description: 'Which plan' }, nick: { type: ['string', 'null'] } },
    required: ['plan'],
  };
  const server = asking(generated);
  const c = await held(server, { action: 'accept', content: { plan: 'pro', nick: 'ada' } });
  try {
    assert.deepEqual(JSON.parse(textOf((await c.call('ask')).result)), { action: 'accept', content: { plan: 'pro', nick: 'ada' } });
    assert.deepEqual(c.requests()[0].params.requestedSchema, {
      type: 'object',
      properties: { plan: { type: 'string', enum: ['basic', 'pro'], description: 'Which plan' }, nick: { type: 'string' } },
      required: ['plan'],
    });
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('a nested form (zod, raw shape or JSON Schema) is refused with the core\'s message and nothing is sent', async () => {
  const nested = {
    zod: z.object({ contact: z.object({ name: z.string() }) }),
    shape: { contact: z.object({ name: z.string() }) },
    json: { type: 'object', properties: { contact: { type: 'object', properties: { name: { type: 'string' } } } } },
  };
  for (const [which, form] of Object.entries(nested)) {
    const server = asking(form);
    const c = await held(server);
    try {
      const r = JSON.parse(textOf((await c.call('ask')).result));
      assert.deepEqual(
        r,
        {
          error: 'ClientRequestError',
          kind: 'invalidElicitation',
          message:
            'invalid elicitation schema: property "contact": "properties" is not allowed: fields are primitives, enums or multi-select arrays, never nested',
        },
        which,
      );
      assert.deepEqual(c.requests(), [], `${which}: nothing reached the client`);
    } finally {
      c.conn.close();
      await server.close();
    }
  }
  // Left uncaught, the refusal is the tool's isError result.
  const server = new Server({ name: 'elicit', version: '1' });
  server.tool('ask', (_args, ctx) => ctx.elicit('Tags?', { tags: z.array(z.number()) }).then(() => 'sent'));
  const c = await held(server);
  try {
    const r = (await c.call('ask')).result;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^invalid elicitation schema: property "tags": .*multi-select/);
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('2026-07-28: an MRTR form from a zod schema is sent the restricted way and its answer decoded; a bad one is -32603 naming it', async () => {
  const server = new Server({ name: 'mrtr', version: '1' });
  server.tool('signup', (_args, ctx) => {
    const r = ctx.inputResponse('contact', 'elicit', Contact);
    if (r === undefined) return new InputRequired().ask('contact', InputRequest.elicit('Who?', Contact));
    return `hello ${r.content.name} on ${r.content.plan}`;
  });
  server.tool('bad_form', () => new InputRequired().ask('tags', InputRequest.elicit('Tags?', { tags: z.array(z.number()) })));
  const caps = { elicitation: {} };
  try {
    const first = await modernOk(server, 'tools/call', { name: 'signup', arguments: {} }, caps);
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(first.inputRequests.contact.params.requestedSchema, CONTACT_FORM);
    const answer = { contact: { action: 'accept', content: { name: 'Grace', plan: 'basic' } } };
    const done = await modernOk(server, 'tools/call', { name: 'signup', arguments: {}, inputResponses: answer }, caps);
    assert.equal(textOf(done), 'hello Grace on basic');

    const bad = await modern(server, 'tools/call', { name: 'bad_form', arguments: {} }, caps);
    assert.equal(bad.error.code, ErrorCode.InternalError);
    assert.match(bad.error.message, /asked input "tags" with an invalid elicitation schema: property "tags": .*multi-select/);
  } finally {
    await server.close();
  }
});

test('URL elicitation: elicitUrl, notifyElicitationComplete, and a thrown UrlElicitationRequiredError is -32042 with data.elicitations', async () => {
  const server = new Server({ name: 'url', version: '1' });
  server.tool('login', async (_args, ctx) => {
    const r = await ctx.elicitUrl('Sign in first', 'https://example.com/login', 'login-1');
    ctx.notifyElicitationComplete('login-1');
    return r.action;
  });
  server.tool('needs_login', () => {
    throw new UrlElicitationRequiredError([{ message: 'Sign in first', url: 'https://example.com/login', elicitationId: 'login-2' }]);
  });
  const c = await held(server, { action: 'accept' });
  try {
    assert.equal(textOf((await c.call('login')).result), 'accept');
    assert.deepEqual(c.requests()[0].params, { mode: 'url', message: 'Sign in first', url: 'https://example.com/login', elicitationId: 'login-1' });
    const complete = c.sent.filter((m) => m.method === 'notifications/elicitation/complete');
    assert.deepEqual(complete.map((m) => m.params), [{ elicitationId: 'login-1' }]);

    const r = await c.call('needs_login');
    assert.deepEqual(r.error, {
      code: -32042,
      message: 'URL elicitation required',
      data: { elicitations: [{ mode: 'url', message: 'Sign in first', url: 'https://example.com/login', elicitationId: 'login-2' }] },
    });
  } finally {
    c.conn.close();
    await server.close();
  }
});

test('UrlElicitationRequiredError: an McpError with the code, the core\'s wire shape, a message of one\'s own; a bad elicitation is a TypeError', () => {
  const e = new UrlElicitationRequiredError([{ message: 'm', url: 'https://example.com/a', elicitationId: 'a' }], 'Two steps');
  assert.ok(e instanceof McpError);
  assert.equal(e.name, 'UrlElicitationRequiredError');
  assert.equal(e.code, ErrorCode.UrlElicitationRequired);
  assert.equal(e.message, 'Two steps');
  assert.deepEqual(e.elicitations, [{ mode: 'url', message: 'm', url: 'https://example.com/a', elicitationId: 'a' }]);
  assert.throws(() => new UrlElicitationRequiredError([{ message: 'm', url: 'https://example.com/a' }]), {
    name: 'TypeError',
    message: 'UrlElicitationRequiredError: elicitations[0]: a URL elicitation needs an elicitationId',
  });
  assert.throws(() => new UrlElicitationRequiredError([{ mode: 'form', message: 'm', requestedSchema: { type: 'object' } }]), {
    name: 'TypeError',
    message: 'UrlElicitationRequiredError: elicitations[0]: only URL elicitations (mode "url") belong here',
  });
  assert.throws(() => new UrlElicitationRequiredError('nope'), { name: 'TypeError' });
});

test('ClientRequestError is what a refused form rejects with', async () => {
  const server = new Server({ name: 'elicit', version: '1' });
  let caught;
  server.tool('ask', async (_args, ctx) => {
    try {
      await ctx.elicit('Bad', { type: 'object', properties: { x: { type: 'string', format: 'phone' } } });
    } catch (e) {
      caught = e;
    }
    return 'done';
  });
  const c = await held(server);
  try {
    await c.call('ask');
    assert.ok(caught instanceof ClientRequestError);
    assert.equal(caught.kind, 'invalidElicitation');
    assert.match(caught.message, /^invalid elicitation schema: property "x": format must be one of email, uri, date, date-time$/);
  } finally {
    c.conn.close();
    await server.close();
  }
});
