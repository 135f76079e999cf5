// What a handler reads on a 2026-07-28 request and its retry: isModern, isResubmission,
// inputResponses / inputResponse(key) / hasInputResponse, the typed decodes (by the core as
// elicit/sample/roots results, or with a zod schema), requestState / requestStateAs, and
// clientExtension. An answer or a state of the wrong shape is -32602.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { z } from 'zod';

import { InputRequest, InputRequired, Server } from '../lib/index.mjs';
import { callTool, modern, modernOk, textOf } from './helpers.mjs';

const Person = z.object({ name: z.string(), age: z.number().int() });

/** A tool that reports what its context says, as JSON. */
function server() {
  const s = new Server({ name: 'responses', version: '1.0.0' });
  s.tool('report', (_args, ctx) =>
    JSON.stringify({
      isModern: ctx.isModern,
      isResubmission: ctx.isResubmission,
      requestState: ctx.requestState ?? null,
      inputResponses: ctx.inputResponses,
      raw: ctx.inputResponse('a') ?? null,
      hasA: ctx.hasInputResponse('a'),
      hasZ: ctx.hasInputResponse('z'),
      missing: ctx.inputResponse('z', 'elicit') === undefined,
      extension: ctx.clientExtension('com.example/widgets') ?? null,
      noExtension: ctx.clientExtension('com.example/other') === undefined,
    }),
  );
  s.tool('decode', (_args, ctx) => {
    const out = {};
    for (const [key, kind] of [['e', 'elicit'], ['s', 'sample'], ['r', 'roots']]) {
      if (ctx.hasInputResponse(key)) out[key] = ctx.inputResponse(key, kind);
    }
    return JSON.stringify(out);
  });
  // Ask a zod-typed form; decode the answer with the same schema.
  s.tool('person', (_args, ctx) => {
    const r = ctx.inputResponse('person', 'elicit', Person);
    if (r === undefined) return new InputRequired().ask('person', InputRequest.elicit('Who?', Person));
    if (r.action !== 'accept' || r.content === undefined) return `no person (${r.action})`;
    const age = r.content.age + 1;
    return `${r.content.name} turns ${age}`;
  });
  s.tool('zod_answer', (_args, ctx) => {
    const r = ctx.inputResponse('answer', z.object({ action: z.literal('accept'), content: Person }));
    return r === undefined ? 'none' : `${r.content.name}:${r.content.age}`;
  });
  s.tool('state', (_args, ctx) => {
    if (!ctx.isResubmission) return new InputRequired().withState({ step: 2, tags: ['x'] });
    return JSON.stringify(ctx.requestStateAs(z.object({ step: z.number(), tags: z.array(z.string()) })));
  });
  s.tool('bad_state', (_args, ctx) => {
    if (!ctx.isResubmission) return new InputRequired().withState('not json');
    return JSON.stringify(ctx.requestStateAs());
  });
  s.tool('wrong_state_shape', (_args, ctx) => {
    if (!ctx.isResubmission) return new InputRequired().withState({ step: 'two' });
    return JSON.stringify(ctx.requestStateAs(z.object({ step: z.number() })));
  });
  s.tool('bad_kind', (_args, ctx) => ctx.inputResponse('a', 'nonsense'));
  return s;
}

const call = (s, name, extra = {}, caps = {}) => modern(s, 'tools/call', { name, arguments: {}, ...extra }, caps);

test('a first 2026-07-28 call: modern, not a resubmission, no answers, no state', async () => {
  const s = server();
  const r = await call(s, 'report', {}, { extensions: { 'com.example/widgets': { size: 3 } } });
  assert.deepEqual(JSON.parse(textOf(r.result)), {
    isModern: true,
    isResubmission: false,
    requestState: null,
    inputResponses: {},
    raw: null,
    hasA: false,
    hasZ: false,
    missing: true,
    extension: { size: 3 },
    noExtension: true,
  });
  await s.close();
});

test('a handshake-era call is not modern', async () => {
  const s = server();
  const report = JSON.parse(textOf(await callTool(s, 'report', {})));
  assert.equal(report.isModern, false);
  assert.equal(report.extension, null);
  await s.close();
});

test('a retry with answers: inputResponses, inputResponse(key) and hasInputResponse see them as sent', async () => {
  const s = server();
  const answers = { a: { action: 'accept', content: { n: 1 } }, b: { roots: [] } };
  const r = await call(s, 'report', { inputResponses: answers });
  const report = JSON.parse(textOf(r.result));
  assert.equal(report.isResubmission, true);
  assert.deepEqual(report.inputResponses, answers);
  assert.deepEqual(report.raw, answers.a);
  assert.equal(report.hasA, true);
  assert.equal(report.hasZ, false);
  assert.equal(report.missing, true);
  await s.close();
});

test("inputResponse(key, kind) decodes with the core's result types", async () => {
  const s = server();
  const answers = {
    e: { action: 'decline' },
    s: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' },
    r: { roots: [{ uri: 'file:///a', name: 'a' }] },
  };
  const r = await call(s, 'decode', { inputResponses: answers });
  assert.deepEqual(JSON.parse(textOf(r.result)), answers);
  await s.close();
});

test('an answer the core cannot decode as its kind is -32602 naming the key', async () => {
  const s = server();
  for (const [key, bad] of [['e', { action: 'maybe' }], ['s', { role: 'assistant' }], ['r', { roots: 'none' }]]) {
    const r = await call(s, 'decode', { inputResponses: { [key]: bad } });
    assert.equal(r.error?.code, -32602, JSON.stringify(r));
    assert.match(r.error.message, new RegExp(`input response "${key}"`));
  }
  await s.close();
});

test('a zod-typed elicitation: the form schema comes from zod, the answer content is parsed by it', async () => {
  const s = server();
  const first = await modernOk(s, 'tools/call', { name: 'person', arguments: {} }, { elicitation: {} });
  assert.equal(first.resultType, 'input_required');
  const schema = first.inputRequests.person.params.requestedSchema;
  assert.deepEqual(schema.required, ['name', 'age']);
  assert.equal(schema.properties.age.type, 'integer');
  const answer = (content) => ({ name: 'person', arguments: {}, inputResponses: { person: { action: 'accept', content } } });
  const ok = await modernOk(s, 'tools/call', answer({ name: 'Ada', age: 36 }), { elicitation: {} });
  assert.equal(textOf(ok), 'Ada turns 37');
  const bad = await modern(s, 'tools/call', answer({ name: 'Ada', age: 'old' }), { elicitation: {} });
  assert.equal(bad.error?.code, -32602);
  assert.match(bad.error.message, /input response "person" content/);
  const declined = await modernOk(s, 'tools/call', { ...answer(undefined), inputResponses: { person: { action: 'decline' } } }, {});
  assert.equal(textOf(declined), 'no person (decline)');
  await s.close();
});

test('inputResponse(key, zodSchema) parses the whole answer; a bad shape is -32602', async () => {
  const s = server();
  const ok = await call(s, 'zod_answer', { inputResponses: { answer: { action: 'accept', content: { name: 'Bo', age: 4 } } } });
  assert.equal(textOf(ok.result), 'Bo:4');
  const bad = await call(s, 'zod_answer', { inputResponses: { answer: { action: 'decline' } } });
  assert.equal(bad.error?.code, -32602);
  await s.close();
});

test('requestState and requestStateAs: the state written as JSON is read back parsed (and zod-checked)', async () => {
  const s = server();
  const first = await modernOk(s, 'tools/call', { name: 'state', arguments: {} });
  assert.equal(first.resultType, 'input_required');
  assert.equal(first.inputRequests, undefined);
  const second = await modernOk(s, 'tools/call', { name: 'state', arguments: {}, requestState: first.requestState });
  assert.deepEqual(JSON.parse(textOf(second)), { step: 2, tags: ['x'] });
  await s.close();
});

test('requestStateAs on text that is not JSON, or of the wrong shape, is -32602', async () => {
  const s = server();
  for (const name of ['bad_state', 'wrong_state_shape']) {
    const first = await modernOk(s, 'tools/call', { name, arguments: {} });
    const r = await modern(s, 'tools/call', { name, arguments: {}, requestState: first.requestState });
    assert.equal(r.error?.code, -32602, `${name}: ${JSON.stringify(r)}`);
    assert.match(r.error.message, /request state/);
  }
  await s.close();
});

test('an unknown decode kind is a TypeError (an isError result)', async () => {
  const s = server();
  const r = await call(s, 'bad_kind', { inputResponses: { a: {} } });
  assert.equal(r.result.isError, true);
  assert.match(textOf(r.result), /kind is "elicit", "sample" or "roots"/);
  await s.close();
});

test('on a 2026-07-28 request the blocking ctx.elicit rejects with kind useInputRequired', async () => {
  const s = new Server({ name: 'blocking', version: '1', stateful: true });
  s.tool('old_style', async (_args, ctx) => {
    try {
      await ctx.elicit('Name?', { type: 'object', properties: {} });
      return 'asked';
    } catch (e) {
      return `${e.name}:${e.kind}`;
    }
  });
  assert.equal(textOf(await modernOk(s, 'tools/call', { name: 'old_style', arguments: {} }, { elicitation: {} })), 'ClientRequestError:useInputRequired');
  await s.close();
});
