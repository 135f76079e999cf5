// Input schemas: plain JSON Schema (validated by the core), zod schemas and zod raw shapes
// (converted to JSON Schema for the wire, and parsed for the handler).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { z } from 'zod';

import { Server } from '../lib/index.mjs';
import { callTool, rpc } from './helpers.mjs';

test('JSON Schema input: arguments violating it are an isError result from the core', async () => {
  const s = new Server({ name: 's', version: '1' });
  let calls = 0;
  s.tool(
    'add',
    { inputSchema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } },
    ({ a }) => {
      calls += 1;
      return String(a + 1);
    },
  );
  assert.equal((await callTool(s, 'add', { a: 1 })).content[0].text, '2');
  const bad = await callTool(s, 'add', { a: 'one' });
  assert.equal(bad.isError, true);
  assert.equal(calls, 1);
});

test('a zod object becomes JSON Schema on the wire and the handler gets parsed values', async () => {
  const s = new Server({ name: 's', version: '1' });
  s.tool(
    'greet',
    {
      inputSchema: z.object({
        name: z.string().describe('Who to greet'),
        times: z.number().int().default(1),
      }),
    },
    ({ name, times }) => `${'hi '.repeat(times)}${name}`,
  );
  const { result } = await rpc(s, 'tools/list', {});
  const schema = result.tools[0].inputSchema;
  assert.equal(schema.type, 'object');
  assert.deepEqual(schema.properties.name, { type: 'string', description: 'Who to greet' });
  assert.deepEqual(schema.required, ['name']);
  // The zod default applies: the handler sees times = 1.
  assert.equal((await callTool(s, 'greet', { name: 'Ada' })).content[0].text, 'hi Ada');
  assert.equal((await callTool(s, 'greet', { name: 'Ada', times: 2 })).content[0].text, 'hi hi Ada');
  // The core validates against the converted schema before JS runs.
  assert.equal((await callTool(s, 'greet', { times: 2 })).isError, true);
});

test('a zod raw shape is accepted like the TypeScript SDK accepts it', async () => {
  const s = new Server({ name: 's', version: '1' });
  s.tool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a + b));
  const { result } = await rpc(s, 'tools/list', {});
  assert.deepEqual(result.tools[0].inputSchema.required, ['a', 'b']);
  assert.equal((await callTool(s, 'add', { a: 2, b: 3 })).content[0].text, '5');
});

test('a zod refinement failing after the JSON Schema passed is an isError result naming it', async () => {
  const s = new Server({ name: 's', version: '1' });
  s.tool('even', { inputSchema: z.object({ n: z.number().refine((n) => n % 2 === 0, 'n must be even') }) }, () => 'ok');
  const r = await callTool(s, 'even', { n: 3 });
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'Invalid arguments for tool even: n: n must be even');
  assert.equal((await callTool(s, 'even', { n: 4 })).content[0].text, 'ok');
});

test('a zod output schema is listed and structured content is returned', async () => {
  const s = new Server({ name: 's', version: '1' });
  s.tool('sum', { inputSchema: { a: z.number() }, outputSchema: z.object({ sum: z.number() }) }, ({ a }) => ({
    structuredContent: { sum: a },
  }));
  const { result } = await rpc(s, 'tools/list', {});
  assert.deepEqual(result.tools[0].outputSchema.required, ['sum']);
  const r = await callTool(s, 'sum', { a: 7 });
  assert.deepEqual(r.structuredContent, { sum: 7 });
  assert.equal(r.content[0].text, '{"sum":7}');
});

test('a prompt argsSchema in zod declares the prompt arguments', async () => {
  const s = new Server({ name: 's', version: '1' });
  s.prompt(
    'review',
    { argsSchema: { code: z.string().describe('The code'), style: z.string().optional() } },
    ({ code }) => `Review: ${code}`,
  );
  const { result } = await rpc(s, 'prompts/list', {});
  assert.deepEqual(result.prompts[0].arguments, [
    { name: 'code', description: 'The code', required: true },
    { name: 'style', required: false },
  ]);
  const got = await rpc(s, 'prompts/get', { name: 'review', arguments: { code: 'x = 1' } });
  assert.equal(got.result.messages[0].content.text, 'Review: x = 1');
});
