// The one set of defaults (the core's, the same on every Ferrite surface): a server built
// with no options is stateful on stdio and HTTP (a server-to-client request works out of the
// box), advertises `logging` and serves `logging/setLevel`, validates tool arguments against
// the input schema, and (as the TypeScript SDK) enforces output schemas. Driven by the
// official TypeScript SDK client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { McpServer, Server } from 'ferrite-mcp';
import { callTool, fixtures, rpc } from './helpers.mjs';

const server = `${fixtures}defaults-server.mjs`;

/** An SDK client with elicitation, recording log messages. */
function client() {
  const c = new Client({ name: 'defaults-test', version: '0.0.0' }, { capabilities: { elicitation: {} } });
  c.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
  const logs = [];
  c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  return { c, logs };
}

async function checkDefaults(c, logs) {
  assert.deepEqual(c.getServerCapabilities().logging, {});
  // Below the default level (info), debug lines are dropped; after setLevel they are sent.
  assert.equal((await c.callTool({ name: 'log', arguments: {} })).content[0].text, 'false');
  await c.setLoggingLevel('debug');
  assert.equal((await c.callTool({ name: 'log', arguments: {} })).content[0].text, 'true');
  assert.deepEqual(logs.at(-1), { level: 'debug', data: 'a debug line' });
  const bad = await c.callTool({ name: 'add', arguments: { a: 'one', b: 2 } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^Invalid arguments for tool add: .*a/);
  assert.equal((await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).content[0].text, '3');
  // Stateful: the server can ask the client.
  assert.equal((await c.callTool({ name: 'ask', arguments: {} })).content[0].text, 'accept: Ada');
}

test('defaults over stdio: stateful (elicitation works), logging on, input validated', async () => {
  const { c, logs } = client();
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [server], stderr: 'inherit' }));
  try {
    await checkDefaults(c, logs);
  } finally {
    await c.close();
  }
});

test('defaults over Streamable HTTP: stateful sessions (elicitation works), logging on, input validated', async () => {
  const child = spawn(process.execPath, [server, '--http'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const [url] = await once(createInterface({ input: child.stdout }), 'line');
    const { c, logs } = client();
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await c.connect(transport);
    try {
      assert.match(transport.sessionId, /\S/, 'a session id: the server is stateful');
      await checkDefaults(c, logs);
    } finally {
      await c.close();
    }
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  }
});

test('defaults in-process: new Server and new McpServer are stateful with logging, validation and output enforcement', async () => {
  for (const s of [new Server({ name: 'd', version: '1' }), new McpServer({ name: 'd', version: '1' }).server]) {
    assert.equal(s.isStateless, false);
    assert.deepEqual(s.capabilities.logging, {});
    s.tool(
      'typed',
      { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
      ({ n }) => (n === 0 ? 'no structured content' : { structuredContent: { n: String(n) } }),
    );
    const bad = await callTool(s, 'typed', { n: 'x' });
    assert.equal(bad.isError, true);
    const none = await rpc(s, 'tools/call', { name: 'typed', arguments: { n: 0 } });
    assert.deepEqual(none.error, { code: -32603, message: 'tool typed declares an outputSchema but returned no structuredContent' });
    const wrong = await rpc(s, 'tools/call', { name: 'typed', arguments: { n: 1 } });
    assert.equal(wrong.error.code, -32603);
    assert.match(wrong.error.message, /^tool typed returned structuredContent that violates its outputSchema: /);
  }
  const off = new Server({ name: 'd', version: '1', validateOutput: false, validateInput: false, logging: false, stateless: true });
  assert.equal(off.isStateless, true);
  assert.equal(off.capabilities.logging, undefined);
  off.tool('typed', { outputSchema: { type: 'object', required: ['n'] } }, () => 'plain');
  assert.equal((await callTool(off, 'typed')).content[0].text, 'plain');
});
