// Schemas from every library the TypeScript SDK's users bring: zod 4, zod 3.25 through
// `zod/v4`, and Standard Schema libraries with a JSON Schema converter (valibot through
// @valibot/to-json-schema, arktype through its toJsonSchema()). Each: a real registration,
// a call that passes, one the core refuses (JSON Schema) and one the library refuses
// (a check JSON Schema cannot say), each error naming the field; and output schemas
// enforced by default.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod3/v4';

import { McpServer } from 'ferrite-mcp';
import { callTool, rpc } from './helpers.mjs';

const text = (t) => ({ content: [{ type: 'text', text: t }] });

const libraries = {
  'zod 4': {
    input: z.object({ n: z.number().int().min(1), word: z.string().refine((s) => s !== 'no', 'word must not be "no"') }),
    output: z.object({ doubled: z.number() }),
  },
  'zod 3.25 (zod/v4)': {
    input: z3.object({ n: z3.number().int().min(1), word: z3.string().refine((s) => s !== 'no', 'word must not be "no"') }),
    output: z3.object({ doubled: z3.number() }),
  },
  valibot: {
    input: v.object({
      n: v.pipe(v.number(), v.integer(), v.minValue(1)),
      word: v.pipe(v.string(), v.check((s) => s !== 'no', 'word must not be "no"')),
    }),
    output: v.object({ doubled: v.number() }),
  },
  arktype: {
    input: type({ n: 'number.integer >= 1', word: type('string').narrow((s, ctx) => s !== 'no' || ctx.mustBe('not "no"')) }),
    output: type({ doubled: 'number' }),
  },
};

for (const [library, { input, output }] of Object.entries(libraries)) {
  test(`${library}: input schema listed, a passing call, refusals naming the field, output schema enforced`, async () => {
    const m = new McpServer({ name: 'schemas', version: '1.0.0' });
    try {
      m.registerTool('double', { inputSchema: input, outputSchema: output }, ({ n, word }) => {
        if (word === 'bad-output') return { ...text('oops'), structuredContent: { doubled: 'many' } };
        if (word === 'no-output') return text('nothing structured');
        return { ...text(`${word} ${n * 2}`), structuredContent: { doubled: n * 2 } };
      });
      const [tool] = (await rpc(m.server, 'tools/list', {})).result.tools;
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.inputSchema.properties.n.type, 'integer');
      assert.equal(tool.inputSchema.properties.n.minimum, 1);
      assert.deepEqual([...tool.inputSchema.required].sort(), ['n', 'word']);
      assert.deepEqual(tool.outputSchema.properties, { doubled: { type: 'number' } });
      assert.deepEqual(tool.outputSchema.required, ['doubled']);

      assert.deepEqual(await callTool(m.server, 'double', { n: 2, word: 'hi' }), {
        ...text('hi 4'),
        structuredContent: { doubled: 4 },
      });
      // Refused by the core against the converted JSON Schema.
      assert.deepEqual(await callTool(m.server, 'double', { n: 0, word: 'hi' }), {
        content: [{ type: 'text', text: 'Invalid arguments for tool double: /n: 0 is less than the minimum of 1' }],
        isError: true,
      });
      assert.deepEqual(await callTool(m.server, 'double', { n: 'two', word: 'hi' }), {
        content: [{ type: 'text', text: 'Invalid arguments for tool double: /n: "two" is not of type "integer"' }],
        isError: true,
      });
      // Refused by the library's own check (no JSON Schema for it).
      const refused = await callTool(m.server, 'double', { n: 1, word: 'no' });
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /^Invalid arguments for tool double: word: .*"no"/);
      // Output schemas are enforced by default, as in the TypeScript SDK.
      const bad = await rpc(m.server, 'tools/call', { name: 'double', arguments: { n: 1, word: 'bad-output' } });
      assert.deepEqual(bad.error, {
        code: -32603,
        message: 'tool double returned structuredContent that violates its outputSchema: /doubled: "many" is not of type "number"',
      });
      const none = await rpc(m.server, 'tools/call', { name: 'double', arguments: { n: 1, word: 'no-output' } });
      assert.deepEqual(none.error, { code: -32603, message: 'tool double declares an outputSchema but returned no structuredContent' });
    } finally {
      await m.close();
    }
  });
}

test('a raw shape mixing libraries works field by field', async () => {
  const m = new McpServer({ name: 'schemas', version: '1.0.0' });
  try {
    m.registerTool('mix', { inputSchema: { a: z.string(), b: v.number(), c: type('boolean') } }, ({ a, b, c }) => text(`${a} ${b} ${c}`));
    const [tool] = (await rpc(m.server, 'tools/list', {})).result.tools;
    assert.deepEqual(tool.inputSchema.properties, { a: { type: 'string' }, b: { type: 'number' }, c: { type: 'boolean' } });
    assert.equal((await callTool(m.server, 'mix', { a: 'x', b: 1, c: true })).content[0].text, 'x 1 true');
    assert.deepEqual(await callTool(m.server, 'mix', { a: 'x', b: 1 }), {
      content: [{ type: 'text', text: 'Invalid arguments for tool mix: "c" is a required property' }],
      isError: true,
    });
  } finally {
    await m.close();
  }
});

test('a Standard Schema with no JSON Schema converter is refused at registration, naming where', () => {
  const m = new McpServer({ name: 'schemas', version: '1.0.0' });
  const custom = { '~standard': { version: 1, vendor: 'homemade', validate: (value) => ({ value }) } };
  assert.throws(() => m.registerTool('t', { inputSchema: custom }, () => text('x')), {
    name: 'TypeError',
    message:
      'tool t: inputSchema: the homemade schema has no JSON Schema converter (it implements neither ~standard.jsonSchema nor a known converter); give JSON Schema instead',
  });
  assert.throws(() => m.registerTool('t', { inputSchema: { x: custom } }, () => text('x')), {
    name: 'TypeError',
    message:
      'tool t: inputSchema.x: the homemade schema has no JSON Schema converter (it implements neither ~standard.jsonSchema nor a known converter); give JSON Schema instead',
  });
});
