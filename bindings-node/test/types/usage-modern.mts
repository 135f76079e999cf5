// Type-level tests of the 2026-07-28 surface (checked by `tsc` in modules.test.mjs): MRTR
// builders and returns, typed answer decodes, request state, server settings; mistakes fail.
import { z } from 'zod';

import {
  DEFAULT_MAX_TOKENS,
  InputRequest,
  InputRequired,
  Server,
  type CacheHints,
  type ElicitResult,
  type InputRequestJson,
  type JsonObject,
  type JsonValue,
} from 'ferrite-mcp';

const server = new Server({ name: 'modern-types', version: '1.0.0' });
const Person = z.object({ name: z.string(), age: z.number() });

server.tool('greet', (_args, ctx) => {
  const modern: boolean = ctx.isModern;
  const resubmitted: boolean = ctx.isResubmission;
  const answer = ctx.inputResponse('person', 'elicit', Person);
  if (answer === undefined) {
    return new InputRequired()
      .ask('person', InputRequest.elicit('Who?', Person))
      .ask('llm', InputRequest.sample('Hi?', { maxTokens: 5, temperature: 0.2 }))
      .ask('roots', InputRequest.listRoots())
      .ask('site', InputRequest.elicitUrl('Sign in', 'https://example.com'))
      .withState({ step: 1 });
  }
  const typed: ElicitResult<{ name: string; age: number }> = answer;
  const age: number | undefined = typed.content?.age;
  const llm = ctx.inputResponse('llm', 'sample');
  const model: string | undefined = llm?.model;
  const roots = ctx.inputResponse('roots', 'roots');
  const uri: string | undefined = roots?.roots[0]?.uri;
  const raw: JsonObject | undefined = ctx.inputResponse('other');
  const all: { [key: string]: JsonObject } = ctx.inputResponses;
  const parsed: { n: number } | undefined = ctx.inputResponse('n', z.object({ n: z.number() }));
  const state: string | undefined = ctx.requestState;
  const stateValue: JsonValue | undefined = ctx.requestStateAs();
  const step: { step: number } | undefined = ctx.requestStateAs({ step: z.number() });
  const header: string | undefined = ctx.header('x-region');
  const ext: JsonValue | undefined = ctx.clientExtension('com.example/widgets');
  // @ts-expect-error: the decode kind is elicit, sample or roots
  ctx.inputResponse('x', 'nonsense');
  void [modern, resubmitted, age, model, uri, raw, all, parsed, state, stateValue, step, header, ext];
  return 'done';
});

server.tool('async_mrtr', async () => new InputRequired({ inputRequests: { r: InputRequest.listRoots() }, requestState: 'text' }));
server.prompt('p', () => new InputRequired().withState('x'));
server.resource('r', 'test://r', async () => new InputRequired().withState('x'));

// @ts-expect-error: an InputRequest is built by its factories
new InputRequest();
// @ts-expect-error: ask takes an InputRequest, not its wire shape
new InputRequired().ask('k', { method: 'roots/list' });
// @ts-expect-error: sample takes a prompt or messages
InputRequest.sample(42);

const wire: InputRequestJson = InputRequest.listRoots().toJSON();
const max: number = DEFAULT_MAX_TOKENS;
void [wire, max];

server.setRequestStateKeys('a'.repeat(64), ['b'.repeat(64)]);
server.setRequestStateTtl(60_000);
const keyId: string = server.requestStateKeyId;
server.addExtension('com.example/widgets', { size: 3 });
const removed: boolean = server.removeExtension('com.example/widgets');
server.setCacheHints({ toolsList: { ttlMs: 1000, cacheScope: 'public' } });
// @ts-expect-error: a cache scope is public or private
server.setCacheHints({ toolsList: { ttlMs: 1000, cacheScope: 'shared' } });
const hints: CacheHints = server.cacheHints;
server.setResourceCacheHint('test://r', { ttlMs: 60_000, cacheScope: 'public' });
server.addMethod('com.example/echo', (params, ctx) => ({ echo: params, modern: ctx.isModern }));
server.addMethod('com.example/async', async () => ({ ok: true }));
// @ts-expect-error: a method returns an object
server.addMethod('com.example/bad', () => 42);
server.addSkill('skill://add-numbers', { 'SKILL.md': '---\nname: add-numbers\n---\n', 'bin/x': new Uint8Array([1]) });
server.addSkillDir('skill://add-numbers', 'skills/add-numbers');
void [keyId, removed, hints];
