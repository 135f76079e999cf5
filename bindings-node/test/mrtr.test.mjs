// Multi round-trip requests (MRTR): InputRequest is built by the core (its wire shape is the
// core's serialization), InputRequired collects requests and state, and a tool, prompt or
// resource handler returning one (sync or from a Promise) replies input_required on a
// 2026-07-28 request and completes on the retry.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { z } from 'zod';

import { DEFAULT_MAX_TOKENS, InputRequest, InputRequired, Server } from '../lib/index.mjs';
import { callTool, modern, modernOk, rpc, textOf } from './helpers.mjs';

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

test('InputRequest.elicit is the core elicitation/create request (form mode) with the schema given', () => {
  const r = InputRequest.elicit('Your name?', NAME_FORM);
  assert.equal(r.method, 'elicitation/create');
  assert.deepEqual(r.toJSON(), {
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Your name?', requestedSchema: NAME_FORM },
  });
});

test('InputRequest.elicit converts a zod object or raw shape like tool input schemas', () => {
  // As the converter wrote it (zod's $schema included): the core spells the form the
  // restricted way when it sends it (test/elicitation.test.mjs pins what is sent).
  for (const schema of [z.object({ name: z.string().describe('Your name') }), { name: z.string().describe('Your name') }]) {
    const { requestedSchema } = InputRequest.elicit('Name?', schema).toJSON().params;
    assert.equal(requestedSchema.type, 'object');
    assert.deepEqual(requestedSchema.properties.name, { type: 'string', description: 'Your name' });
    assert.deepEqual(requestedSchema.required, ['name']);
  }
});

test('InputRequest.elicitUrl, .listRoots and .sample are the core requests', () => {
  assert.deepEqual(InputRequest.elicitUrl('Sign in', 'https://example.com/login').toJSON(), {
    method: 'elicitation/create',
    params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' },
  });
  assert.deepEqual(InputRequest.listRoots().toJSON(), { method: 'roots/list' });
  assert.deepEqual(InputRequest.sample('Hi?', { maxTokens: 5, temperature: 0.5, systemPrompt: 'be brief' }).toJSON(), {
    method: 'sampling/createMessage',
    params: {
      messages: [{ role: 'user', content: { type: 'text', text: 'Hi?' } }],
      maxTokens: 5,
      temperature: 0.5,
      systemPrompt: 'be brief',
    },
  });
  const messages = [
    { role: 'user', content: { type: 'text', text: 'a' } },
    { role: 'assistant', content: { type: 'text', text: 'b' } },
  ];
  assert.deepEqual(InputRequest.sample(messages).toJSON().params.messages, messages);
});

test('InputRequest.sample uses the maxTokens default of ctx.sample (1000)', () => {
  assert.equal(DEFAULT_MAX_TOKENS, 1000);
  assert.equal(InputRequest.sample('Hi?').toJSON().params.maxTokens, 1000);
});

test('invalid input requests are TypeErrors: the core refuses bad sampling params', () => {
  assert.throws(() => InputRequest.sample('x', { maxTokens: -1 }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => InputRequest.sample('x', { temperature: 'hot' }), { name: 'TypeError', message: /invalid sampling parameters/ });
  assert.throws(() => InputRequest.sample(42), TypeError);
  assert.throws(() => InputRequest.elicit('x', 'not a schema'), TypeError);
  assert.throws(() => InputRequest.elicit(7, NAME_FORM), TypeError);
  assert.throws(() => InputRequest.elicitUrl('x', undefined), TypeError);
  assert.throws(() => new InputRequest(), /InputRequest.elicit/);
});

test('InputRequired: the constructor, ask and withState build requests in order and state as text', () => {
  const name = InputRequest.elicit('Name?', NAME_FORM);
  const roots = InputRequest.listRoots();
  const ir = new InputRequired({ inputRequests: { who: name }, requestState: 'plain text' }).ask('where', roots);
  assert.deepEqual(Object.keys(ir.inputRequests), ['who', 'where']);
  assert.equal(ir.inputRequests.where, roots);
  assert.equal(ir.requestState, 'plain text');
  assert.equal(ir.withState({ step: 2, name: 'Ada' }).requestState, '{"step":2,"name":"Ada"}');
  assert.equal(new InputRequired().withState(3).requestState, '3');
  assert.deepEqual(new InputRequired().ask('r', roots).toJSON(), { inputRequests: { r: { method: 'roots/list' } } });
  assert.throws(() => new InputRequired().ask('', roots), TypeError);
  assert.throws(() => new InputRequired().ask('k', { method: 'roots/list' }), TypeError);
  assert.throws(() => new InputRequired().withState(undefined), TypeError);
  assert.throws(() => new InputRequired({ requests: {} }), /unknown option "requests"/);
});

function server(stateless = true) {
  const s = new Server({ name: 'mrtr', version: '1.0.0', stateful: !stateless });
  const greet = (ctx) => {
    const r = ctx.inputResponse('user_name', 'elicit');
    if (r === undefined) return new InputRequired().ask('user_name', InputRequest.elicit('Name?', NAME_FORM)).withState('greeting');
    return `Hello, ${r.content.name} (${ctx.requestState})`;
  };
  s.tool('greet_sync', (_args, ctx) => greet(ctx));
  s.tool('greet_async', async (_args, ctx) => {
    await new Promise((resolve) => setImmediate(resolve));
    return greet(ctx);
  });
  s.prompt('greet_prompt', (_args, ctx) => greet(ctx));
  s.resource('greeting', 'test://greeting', async (_uri, ctx) => greet(ctx));
  s.tool('asks_nothing', () => new InputRequired());
  s.completion({ type: 'ref/prompt', name: 'greet_prompt' }, 'x', () => new InputRequired().withState('x'));
  return s;
}

const ANSWER = { user_name: { action: 'accept', content: { name: 'Ada' } } };
const CAPS = { elicitation: {} };

/** The first round's input_required result, then the retry's result. */
async function twoRounds(s, method, params) {
  const first = await modernOk(s, method, params, CAPS);
  assert.equal(first.resultType, 'input_required');
  assert.deepEqual(Object.keys(first.inputRequests), ['user_name']);
  assert.deepEqual(first.inputRequests.user_name, InputRequest.elicit('Name?', NAME_FORM).toJSON());
  assert.equal(typeof first.requestState, 'string');
  assert.notEqual(first.requestState, 'greeting', 'the core seals the state');
  const final = await modernOk(s, method, { ...params, inputResponses: ANSWER, requestState: first.requestState }, CAPS);
  assert.equal(final.resultType, 'complete');
  return final;
}

test('an InputRequired returned from a sync tool handler: input_required, then complete on the retry', async () => {
  const s = server();
  assert.equal(textOf(await twoRounds(s, 'tools/call', { name: 'greet_sync' })), 'Hello, Ada (greeting)');
  await s.close();
});

test('an InputRequired returned from a Promise: the same two rounds', async () => {
  const s = server();
  assert.equal(textOf(await twoRounds(s, 'tools/call', { name: 'greet_async' })), 'Hello, Ada (greeting)');
  await s.close();
});

test('prompt and resource handlers may return an InputRequired too', async () => {
  const s = server(false);
  const prompt = await twoRounds(s, 'prompts/get', { name: 'greet_prompt' });
  assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada (greeting)' } }]);
  const resource = await twoRounds(s, 'resources/read', { uri: 'test://greeting' });
  assert.equal(resource.contents[0].text, 'Hello, Ada (greeting)');
  await s.close();
});

test('on a handshake-era in-process request there is no channel to ask with: the tool reports it', async () => {
  const s = server(false);
  await rpc(s, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '0' } });
  const r = await rpc(s, 'tools/call', { name: 'greet_sync', arguments: {} });
  const failure = r.error?.message ?? textOf(r.result);
  assert.match(failure, /channel|cannot|elicitation/i);
  await s.close();
});

test("an InputRequired that asks for nothing, or one from a completion handler, is the core's invalid result (-32603)", async () => {
  const s = server();
  const r = await rpc(s, 'tools/call', { name: 'asks_nothing', arguments: {} });
  assert.deepEqual(r.error, {
    code: -32603,
    message: "the handler's result is not valid: an InputRequired needs at least one input request or a request state",
  });
  const c = await modern(s, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet_prompt' }, argument: { name: 'x', value: '' } });
  assert.deepEqual(c.error, {
    code: -32603,
    message: "the handler's result is not valid: only tool, prompt and resource handlers may return an InputRequired",
  });
  await s.close();
});
