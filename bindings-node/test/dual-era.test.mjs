// Dual era: a JS MRTR tool, reached by a real handshake-era client (the official TypeScript
// SDK client that tests/interop/typescript installs), gets real server-to-client requests
// (elicitation/create, sampling/createMessage, roots/list) sent by the core, which calls the
// handler again with the answers. Over stdio (a spawned server) and over Streamable HTTP
// (this process's listen()); from a sync handler and from a Promise.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { FORM, build } from './fixtures/mrtr-server.mjs';
import { fixtures } from './helpers.mjs';

const sdkDir = fileURLToPath(new URL('../../tests/interop/typescript/node_modules/@modelcontextprotocol/sdk/', import.meta.url));
const skip = existsSync(`${sdkDir}package.json`)
  ? false
  : 'the official TypeScript SDK is not installed: run tests/interop/typescript/run.sh (or npm install there) first';
const sdk = (path) => import(pathToFileURL(`${sdkDir}dist/esm/${path}`).href);

/** A connected SDK client that answers the server's requests and records them. */
async function connect(transport) {
  const { Client } = await sdk('client/index.js');
  const { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } = await sdk('types.js');
  const asked = [];
  const client = new Client({ name: 'dual-era-test', version: '0.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, (req) => {
    asked.push(req);
    return { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'test-model' };
  });
  client.setRequestHandler(ListRootsRequestSchema, (req) => {
    asked.push(req);
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
  await client.connect(transport);
  return { client, asked };
}

const text = (r) => r.content[0].text;

function suite(name, open) {
  describe(name, { skip }, () => {
    let client;
    let asked;
    let close;
    before(async () => {
      ({ client, asked, close } = await open());
    });
    after(() => close());

    test('a sync MRTR tool gets a real elicitation/create and completes', async () => {
      asked.length = 0;
      const r = await client.callTool({ name: 'greet_sync', arguments: {} });
      assert.equal(text(r), 'sync: Hello, Ada! modern=false');
      assert.equal(asked.length, 1);
      assert.equal(asked[0].method, 'elicitation/create');
      assert.equal(asked[0].params.message, 'What is your name?');
      assert.deepEqual(asked[0].params.requestedSchema, FORM);
    });

    test('an MRTR tool returning its InputRequired from a Promise does the same', async () => {
      asked.length = 0;
      const r = await client.callTool({ name: 'greet_async', arguments: {} });
      assert.equal(text(r), 'async: Hello, Ada! modern=false');
      assert.deepEqual(asked.map((a) => a.method), ['elicitation/create']);
    });

    test('two rounds with state: an elicitation, then sampling and roots', async () => {
      asked.length = 0;
      const r = await client.callTool({ name: 'everything', arguments: {} });
      assert.equal(text(r), 'Ada: hi! file:///work');
      assert.deepEqual(asked.map((a) => a.method), ['elicitation/create', 'sampling/createMessage', 'roots/list']);
      assert.equal(asked[1].params.maxTokens, 5);
      assert.deepEqual(asked[1].params.messages, [{ role: 'user', content: { type: 'text', text: 'Say hi' } }]);
    });
  });
}

suite('over stdio', async () => {
  const { StdioClientTransport } = await sdk('client/stdio.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [`${fixtures}mrtr-server.mjs`], stderr: 'pipe' });
  const { client, asked } = await connect(transport);
  return { client, asked, close: () => client.close() };
});

suite('over Streamable HTTP', async () => {
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  const server = build();
  const { url } = await server.listen({ port: 0 });
  const { client, asked } = await connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    asked,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
});
