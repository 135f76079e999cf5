// The TypeScript SDK's `McpServer` API over the core: registerTool / registerResource (a URI
// or a ResourceTemplate with `list` and `complete`) / registerPrompt, the handles they return
// (enable, disable, update, remove: what is listed changes and list_changed is sent), the
// callbacks' arguments (a URL for resources, the template variables, `extra`), and the
// errors of bad registrations.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { z } from 'zod';

import { McpServer, ResourceTemplate, StdioServerTransport, completable } from 'ferrite-mcp';
import { callTool, rpc } from './helpers.mjs';

/** A handshake-era connection to `m` that records what the server sends on it. */
async function connect(m) {
  const sent = [];
  const conn = m.server.connection({ onMessage: (t) => sent.push(JSON.parse(t)) });
  let id = 0;
  const send = async (method, params) => {
    const text = await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
    return JSON.parse(text);
  };
  const init = await send('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } });
  await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { conn, sent, send, init: init.result };
}

const methods = (sent) => sent.map((m) => m.method);

function everything() {
  const m = new McpServer({ name: 'mcp', version: '1.0.0' });
  const seen = {};
  const tool = m.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
      annotations: { readOnlyHint: true },
      _meta: { 'example.com/x': 1 },
    },
    async ({ a, b }, extra) => {
      // What `extra` holds, read while the request runs.
      seen.extra = {
        requestId: extra.requestId,
        signal: extra.signal,
        aborted: extra.signal.aborted,
        sendNotification: extra.sendNotification,
        sendRequest: extra.sendRequest,
        authInfo: extra.authInfo,
        sessionId: extra.sessionId,
      };
      return { content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } };
    },
  );
  const readme = m.registerResource('readme', 'file:///readme.md', { title: 'Read me', mimeType: 'text/markdown' }, (uri) => {
    seen.readmeUri = uri;
    return { contents: [{ uri: uri.href, text: '# hi' }] };
  });
  const items = m.registerResource(
    'item',
    new ResourceTemplate('test://items/{id}', {
      list: () => ({ resources: [{ uri: 'test://items/1', name: 'Item one' }, { uri: 'test://items/2', name: 'Item two' }] }),
      complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) },
    }),
    { title: 'Item', mimeType: 'text/plain' },
    (uri, variables, extra) => {
      seen.itemUri = uri;
      seen.itemRequestId = extra.requestId;
      return { contents: [{ uri: uri.href, text: `item ${variables.id}` }] };
    },
  );
  const review = m.registerPrompt(
    'review',
    {
      title: 'Review',
      description: 'Review code',
      argsSchema: { code: z.string(), language: completable(z.string(), (value) => ['rust', 'ts'].filter((l) => l.startsWith(value))) },
    },
    ({ code, language }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Review this ${language}: ${code}` } }] }),
  );
  return { m, seen, tool, readme, items, review };
}

test('registerTool, registerResource and registerPrompt are listed as configured and called with parsed values', async () => {
  const { m, seen } = everything();
  try {
    const { send, init } = await connect(m);
    assert.deepEqual(init.capabilities, {
      logging: {},
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    assert.deepEqual((await send('tools/list')).result.tools, [
      {
        name: 'add',
        title: 'Add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        annotations: { readOnlyHint: true },
        _meta: { 'example.com/x': 1 },
      },
    ]);
    assert.deepEqual((await send('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).result, {
      content: [{ type: 'text', text: '5' }],
      structuredContent: { sum: 5 },
    });
    // `extra` carries the SDK's names.
    assert.equal(typeof seen.extra.requestId, 'number');
    assert.ok(seen.extra.signal instanceof AbortSignal);
    assert.equal(seen.extra.aborted, false);
    assert.equal(typeof seen.extra.sendNotification, 'function');
    assert.equal(typeof seen.extra.sendRequest, 'function');
    assert.equal(seen.extra.authInfo, undefined);
    // A schema-violating argument is an isError result naming the field.
    assert.deepEqual((await send('tools/call', { name: 'add', arguments: { a: 'two', b: 3 } })).result, {
      content: [{ type: 'text', text: 'Invalid arguments for tool add: /a: "two" is not of type "number"' }],
      isError: true,
    });

    // The template's `list` feeds resources/list; fixed resources are listed too.
    const listed = (await send('resources/list')).result.resources.map((r) => [r.uri, r.name]).sort();
    assert.deepEqual(listed, [
      ['file:///readme.md', 'readme'],
      ['test://items/1', 'Item one'],
      ['test://items/2', 'Item two'],
    ]);
    assert.deepEqual((await send('resources/templates/list')).result.resourceTemplates, [
      { uriTemplate: 'test://items/{id}', name: 'item', title: 'Item', mimeType: 'text/plain' },
    ]);
    // Resource callbacks get a URL, and the template variables.
    assert.deepEqual((await send('resources/read', { uri: 'file:///readme.md' })).result.contents, [
      { uri: 'file:///readme.md', text: '# hi' },
    ]);
    assert.ok(seen.readmeUri instanceof URL);
    assert.equal(seen.readmeUri.protocol, 'file:');
    assert.deepEqual((await send('resources/read', { uri: 'test://items/42' })).result.contents, [
      { uri: 'test://items/42', text: 'item 42' },
    ]);
    assert.ok(seen.itemUri instanceof URL);
    assert.equal(seen.itemUri.href, 'test://items/42');
    assert.equal(typeof seen.itemRequestId, 'number');
    // A listed resource reads through the template callback with its variables.
    assert.deepEqual((await send('resources/read', { uri: 'test://items/2' })).result.contents, [
      { uri: 'test://items/2', text: 'item 2' },
    ]);

    // The template's `complete` and a completable() prompt argument feed completion/complete.
    const complete = (ref, name, value) => send('completion/complete', { ref, argument: { name, value } });
    assert.deepEqual((await complete({ type: 'ref/resource', uri: 'test://items/{id}' }, 'id', '1')).result.completion, {
      values: ['1', '10'],
      total: 2,
      hasMore: false,
    });
    assert.deepEqual((await complete({ type: 'ref/prompt', name: 'review' }, 'language', 'r')).result.completion, {
      values: ['rust'],
      total: 1,
      hasMore: false,
    });

    assert.deepEqual((await send('prompts/list')).result.prompts, [
      {
        name: 'review',
        title: 'Review',
        description: 'Review code',
        arguments: [
          { name: 'code', required: true },
          { name: 'language', required: true },
        ],
      },
    ]);
    assert.deepEqual((await send('prompts/get', { name: 'review', arguments: { code: 'x = 1', language: 'ts' } })).result.messages, [
      { role: 'user', content: { type: 'text', text: 'Review this ts: x = 1' } },
    ]);
  } finally {
    await m.close();
  }
});

test('tool handles: disable, enable, update and remove change tools/list and send list_changed', async () => {
  const { m, tool } = everything();
  try {
    const { send, sent } = await connect(m);
    const names = async () => (await send('tools/list')).result.tools.map((t) => [t.name, t.description]);
    sent.length = 0;
    tool.disable();
    assert.equal(tool.enabled, false);
    assert.deepEqual(await names(), []);
    assert.deepEqual((await send('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).error, {
      code: -32602,
      message: 'Unknown tool: add',
    });
    tool.enable();
    assert.deepEqual(await names(), [['add', 'Adds two numbers']]);
    tool.update({ description: 'Sums', callback: ({ a, b }) => ({ content: [{ type: 'text', text: `${a}+${b}` }], structuredContent: { sum: a + b } }) });
    assert.deepEqual(await names(), [['add', 'Sums']]);
    assert.equal((await send('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).result.content[0].text, '1+2');
    assert.equal(tool.handler, tool.callback);
    tool.update({ name: 'plus' });
    assert.equal(tool.name, 'plus');
    assert.deepEqual(await names(), [['plus', 'Sums']]);
    tool.remove();
    assert.deepEqual(await names(), []);
    assert.deepEqual(methods(sent), Array(5).fill('notifications/tools/list_changed'));
    // A removed name can be registered again.
    m.registerTool('plus', {}, () => ({ content: [{ type: 'text', text: 'again' }] }));
    assert.equal((await send('tools/call', { name: 'plus', arguments: {} })).result.content[0].text, 'again');
  } finally {
    await m.close();
  }
});

test('resource, template and prompt handles change their lists and send list_changed', async () => {
  const { m, readme, items, review } = everything();
  try {
    const { send, sent } = await connect(m);
    const uris = async () => (await send('resources/list')).result.resources.map((r) => r.uri).sort();
    sent.length = 0;
    readme.disable();
    assert.deepEqual(await uris(), ['test://items/1', 'test://items/2']);
    readme.enable();
    readme.update({ uri: 'file:///README' });
    assert.deepEqual(await uris(), ['file:///README', 'test://items/1', 'test://items/2']);
    assert.equal((await send('resources/read', { uri: 'file:///README' })).result.contents[0].uri, 'file:///README');
    readme.remove();
    assert.deepEqual(await uris(), ['test://items/1', 'test://items/2']);

    // Disabling a template takes its listed resources and its reads away.
    items.disable();
    assert.deepEqual(await uris(), []);
    assert.deepEqual((await send('resources/templates/list')).result.resourceTemplates, []);
    assert.equal((await send('resources/read', { uri: 'test://items/9' })).error.code, -32002);
    items.enable();
    assert.deepEqual(await uris(), ['test://items/1', 'test://items/2']);
    items.update({ title: 'Thing' });
    assert.equal((await send('resources/templates/list')).result.resourceTemplates[0].title, 'Thing');
    items.remove();
    assert.deepEqual(await uris(), []);
    assert.ok(methods(sent).length >= 8);
    assert.ok(methods(sent).every((x) => x === 'notifications/resources/list_changed'), methods(sent).join());

    sent.length = 0;
    review.disable();
    assert.deepEqual((await send('prompts/list')).result.prompts, []);
    review.enable();
    review.update({ description: 'Look at code' });
    assert.equal((await send('prompts/list')).result.prompts[0].description, 'Look at code');
    review.remove();
    assert.equal((await send('prompts/get', { name: 'review', arguments: {} })).error.code, -32602);
    assert.deepEqual(methods(sent), Array(4).fill('notifications/prompts/list_changed'));
  } finally {
    await m.close();
  }
});

test('a template without list or complete still reads; an async list is served once it settles', async () => {
  const m = new McpServer({ name: 'mcp', version: '1.0.0' });
  try {
    m.registerResource('bare', new ResourceTemplate('bare://{a}/{b}', { list: undefined }), {}, (uri, { a, b }) => ({
      contents: [{ uri: uri.href, text: `${a}/${b}` }],
    }));
    let resolveList;
    const listed = new Promise((r) => (resolveList = r));
    m.registerResource(
      'later',
      new ResourceTemplate('later://{n}', { list: async () => { const out = { resources: [{ uri: 'later://1', name: 'one' }] }; resolveList(); return out; } }),
      {},
      (uri, { n }) => ({ contents: [{ uri: uri.href, text: n }] }),
    );
    await listed;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual((await rpc(m.server, 'resources/read', { uri: 'bare://x/y' })).result.contents, [{ uri: 'bare://x/y', text: 'x/y' }]);
    assert.deepEqual((await rpc(m.server, 'resources/list', {})).result.resources, [{ uri: 'later://1', name: 'one' }]);
  } finally {
    await m.close();
  }
});

test('bad registrations are clear errors', () => {
  const m = new McpServer({ name: 'mcp', version: '1.0.0' });
  m.registerTool('t', {}, () => ({ content: [] }));
  assert.throws(() => m.registerTool('t', {}, () => ({ content: [] })), { name: 'Error', message: 'Tool t is already registered' });
  assert.throws(() => m.registerTool('u', {}, 'nope'), { name: 'TypeError', message: 'tool u: the callback must be a function' });
  assert.throws(() => m.registerTool('u', { inputSchema: 'nope' }, () => ({ content: [] })), {
    name: 'TypeError',
    message: 'tool u: inputSchema must be a JSON Schema object, a Standard Schema (zod, valibot, arktype, ...) or a raw shape of them',
  });
  assert.throws(() => m.registerTool('u', { inputSchema: { when: z.custom(() => true) } }, () => ({ content: [] })), {
    name: 'TypeError',
    message: 'tool u: inputSchema.when: the zod schema cannot be converted to JSON Schema: Custom types cannot be represented in JSON Schema',
  });
  m.registerResource('r', 'file:///r', {}, () => ({ contents: [] }));
  assert.throws(() => m.registerResource('r2', 'file:///r', {}, () => ({ contents: [] })), { message: 'Resource file:///r is already registered' });
  assert.throws(() => m.registerResource('r3', 42, {}, () => ({ contents: [] })), {
    name: 'TypeError',
    message: 'resource r3: the second argument must be a URI string or a ResourceTemplate',
  });
  assert.throws(() => new ResourceTemplate('test://{unclosed', { list: undefined }), { name: 'TypeError' });
  assert.throws(() => new ResourceTemplate('test://{a}', { list: 'nope' }), {
    name: 'TypeError',
    message: 'ResourceTemplate test://{a}: list must be a function or undefined',
  });
  assert.throws(() => new ResourceTemplate('test://{a}', { list: undefined, complete: { a: 1 } }), {
    name: 'TypeError',
    message: 'ResourceTemplate test://{a}: complete.a must be a function',
  });
  m.registerPrompt('p', {}, () => ({ messages: [] }));
  assert.throws(() => m.registerPrompt('p', {}, () => ({ messages: [] })), { message: 'Prompt p is already registered' });
  assert.throws(() => new StdioServerTransport(process.stdin, process.stdout), { name: 'TypeError', message: /custom streams are not supported/ });
  assert.throws(() => new McpServer(undefined), { name: 'TypeError', message: 'new McpServer(serverInfo, options?): serverInfo must be { name, version }' });
});

test('connect() refuses what is not a Ferrite transport, naming listen() for HTTP', async () => {
  const m = new McpServer({ name: 'mcp', version: '1.0.0' });
  try {
    await assert.rejects(m.connect({ start() {}, send() {} }), {
      name: 'TypeError',
      message: 'connect(transport): ferrite-mcp serves stdio through a StdioServerTransport; for Streamable HTTP call mcpServer.listen({ port })',
    });
    assert.equal(m.isConnected(), false);
  } finally {
    await m.close();
  }
});

test('the older tool(), resource() and prompt() forms register too', async () => {
  const m = new McpServer({ name: 'mcp', version: '1.0.0' });
  try {
    m.tool('echo', 'Echoes', { text: z.string() }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    m.resource('r', 'file:///r', (uri) => ({ contents: [{ uri: uri.href, text: String(uri instanceof URL) }] }));
    m.prompt('hello', { who: z.string() }, ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hi ${who}` } }] }));
    assert.equal((await callTool(m.server, 'echo', { text: 'yo' })).content[0].text, 'yo');
    assert.equal((await rpc(m.server, 'resources/read', { uri: 'file:///r' })).result.contents[0].text, 'true');
    assert.equal((await rpc(m.server, 'prompts/get', { name: 'hello', arguments: { who: 'Ada' } })).result.messages[0].content.text, 'hi Ada');
  } finally {
    await m.close();
  }
});
