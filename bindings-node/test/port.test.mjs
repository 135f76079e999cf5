// The port test: a server written as the TypeScript SDK's documentation writes one
// (fixtures/ported-from-ts-sdk.mjs: `new McpServer`, `registerTool` with zod input and output
// schemas, a `ResourceTemplate` resource, `registerPrompt`, `await server.connect(new
// StdioServerTransport())`), with only its imports changed to ferrite-mcp, driven over stdio
// by the official TypeScript SDK client: everything listed and called, a validation failure,
// an output-schema-enforced structured result, and completion of the template variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { fixtures } from './helpers.mjs';

test('a TypeScript SDK server ported by its imports passes the official SDK client', async () => {
  const client = new Client({ name: 'port-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [`${fixtures}ported-from-ts-sdk.mjs`], stderr: 'pipe' }),
  );
  try {
    assert.deepEqual(client.getServerVersion(), { name: 'demo-server', version: '1.0.0' });

    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.title, t.description]),
      [
        ['add', 'Addition Tool', 'Add two numbers'],
        ['broken-average', 'Average (broken)', 'Average of numbers, returning the wrong shape'],
      ],
    );
    const add = tools[0];
    assert.deepEqual(add.inputSchema.required, ['a', 'b']);
    assert.deepEqual(add.outputSchema, { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] });

    // A passing call: the SDK client checks structuredContent against the listed outputSchema.
    assert.deepEqual(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }), {
      content: [{ type: 'text', text: '{"result":42}' }],
      structuredContent: { result: 42 },
    });
    // A validation failure: an isError result naming the field.
    assert.deepEqual(await client.callTool({ name: 'add', arguments: { a: 'two', b: 40 } }), {
      content: [{ type: 'text', text: 'Invalid arguments for tool add: /a: "two" is not of type "number"' }],
      isError: true,
    });
    // The output schema is enforced by the server: the non-conforming result never reaches the client.
    await assert.rejects(client.callTool({ name: 'broken-average', arguments: { values: [1, 2] } }), {
      code: -32603,
      message: 'MCP error -32603: tool broken-average returned structuredContent that violates its outputSchema: /average: "not a number" is not of type "number"',
    });

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates, [
      { uriTemplate: 'greeting://{name}', name: 'greeting', title: 'Greeting Resource', description: 'Dynamic greeting generator' },
    ]);
    assert.deepEqual((await client.readResource({ uri: 'greeting://Ada' })).contents, [{ uri: 'greeting://Ada', text: 'Hello, Ada!' }]);
    const completed = await client.complete({ ref: { type: 'ref/resource', uri: 'greeting://{name}' }, argument: { name: 'name', value: 'A' } });
    assert.deepEqual(completed.completion.values, ['Ada', 'Alan']);

    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts, [
      {
        name: 'review-code',
        title: 'Code Review',
        description: 'Review code for best practices and potential issues',
        arguments: [{ name: 'code', required: true }],
      },
    ]);
    const prompt = await client.getPrompt({ name: 'review-code', arguments: { code: 'let x = 1' } });
    assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Please review this code:\n\nlet x = 1' } }]);
  } finally {
    await client.close();
  }
});
