// The Node everything server: the whole conformance fixture surface (examples/SURFACE.md)
// over stdio or Streamable HTTP, plus the `add` and `echo` tools the benchmarks call. Both
// protocol eras are served: the handshake revisions and 2026-07-28 (its fixtures are in
// everything_modern.mjs), and both generations of tasks (the task fixtures are in
// everything_tasks.mjs); the fault tools are in everything_faults.mjs.
//
//   node examples/node/everything.mjs             # stateful, stdio
//   node examples/node/everything.mjs --stateless # stateless
//   node examples/node/everything.mjs --port 3000 # Streamable HTTP on 127.0.0.1:3000/mcp
//   node examples/node/everything.mjs --port 3000 --mount express
//   node examples/node/everything.mjs --port 3000 --mount hono
//       # mounted at /mcp in an express app (server.nodeHandler()), or in a Hono app under
//       # @hono/node-server (server.fetch()), beside the app's GET /health; the app's
//       # middleware turns an x-user header into the host value `user`, which the tool
//       # test_host_value reads (see mounted.mjs)
//   node examples/node/everything.mjs --port 3000 --auth
//       # an OAuth resource server: bearer JWTs of FERRITE_AUTH_ISSUER for the audience
//       # FERRITE_AUTH_AUDIENCE (the server's URL), keys from FERRITE_AUTH_JWKS_URL; adds the
//       # tool whoami (scope mcp:whoami), answering the token's subject
//
//   node examples/node/everything.mjs --port 3000 --redis redis://127.0.0.1:6379/
//     # one instance of a fleet: tasks in Redis, keys under FERRITE_REDIS_PREFIX (default
//     # ferrite:); FERRITE_REQUEST_STATE_KEYS=current[,previous...] (64 hex or base64 each)
//     # are the fleet's requestState keys
// Any other argument, or a flag without its value, prints the usage on stderr and exits with
// status 2; --help prints it on stdout and exits 0. FERRITE_ADD_ASYNC=1 registers `add` as an
// async function (a Promise handler, for the benchmark's second Node row). FERRITE_HTTP_OPTIONS
// (a JSON object of the core's HTTP options, e.g. {"session_idle_timeout_ms": 5000}) is
// applied to its own listener.
// It imports the package from bindings-node/ (run `npm install` there first to build it).
// Logs go to stderr (on stdio, stdout carries the protocol).

import { realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import { Server } from '../../bindings-node/lib/index.mjs';
import * as faults from './everything_faults.mjs';
import * as modern from './everything_modern.mjs';
import * as tasks from './everything_tasks.mjs';
import { addHostValueTool, serveExpress, serveHono } from './mounted.mjs';

/** The benchmarks' tool. Every surface adds the integers any JSON peer reads exactly (RFC
 * 7493: magnitude at most 2^53 - 1); an operand or a sum beyond them is the same tool error
 * everywhere. */
function add({ a, b }) {
  const sum = a + b;
  if (![a, b, sum].every(Number.isSafeInteger)) throw new Error('integer overflow');
  return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
}

/** A 1x1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A short silent 8 kHz mono 16-bit WAV (0.1 s), base64. */
function wavBase64() {
  const samples = 800;
  const dataLen = samples * 2;
  const b = Buffer.alloc(44 + dataLen);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + dataLen, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(dataLen, 40);
  return b.toString('base64');
}

const NO_ARGS = { type: 'object', additionalProperties: false };

function registerTools(server) {
  // test_simple_text first: clients may call the first tool listed without arguments.
  server.tool(
    'test_simple_text',
    { description: 'Returns a simple text response', inputSchema: NO_ARGS },
    () => 'This is a simple text response for testing.',
  );
  server.tool(
    'add',
    {
      description: 'Add two integers and return their sum',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        required: ['a', 'b'],
      },
      outputSchema: { type: 'object', properties: { sum: { type: 'integer' } }, required: ['sum'] },
    },
    process.env.FERRITE_ADD_ASYNC === '1' ? async (args) => add(args) : add,
  );
  server.tool(
    'echo',
    {
      description: 'Echo the text back',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        description: 'The arguments of echo.',
        type: 'object',
        properties: { text: { type: 'string', description: 'The text to echo back.' } },
        required: ['text'],
      },
    },
    ({ text }) => text,
  );
  server.tool('test_image_content', { description: 'Returns an image (PNG)', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  const wav = wavBase64();
  server.tool('test_audio_content', { description: 'Returns audio (WAV)', inputSchema: NO_ARGS }, () => ({
    content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }],
  }));
  server.tool('test_embedded_resource', { description: 'Returns an embedded resource', inputSchema: NO_ARGS }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  server.tool(
    'test_multiple_content_types',
    { description: 'Returns text, an image and a resource', inputSchema: NO_ARGS },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  server.tool(
    'test_tool_with_logging',
    { description: 'Logs three messages while it runs', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const messages = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
      for (const [i, message] of messages.entries()) {
        if (i > 0) await sleep(50);
        ctx.info(message);
      }
      return 'Tool with logging executed successfully';
    },
  );
  server.tool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50, 100 of 100', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      for (const [i, p] of [0, 50, 100].entries()) {
        if (i > 0) await sleep(50);
        ctx.reportProgress(p, 100);
      }
      return 'Tool with progress executed successfully';
    },
  );
  server.tool('test_error_handling', { description: 'Always fails with isError', inputSchema: NO_ARGS }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.tool(
    'test_sampling',
    {
      description: "Asks the client's LLM to answer a prompt",
      inputSchema: {
        type: 'object',
        properties: { prompt: { type: 'string', description: 'The prompt to send' } },
        required: ['prompt'],
      },
    },
    async ({ prompt }, ctx) => {
      const reply = await ctx.sample(prompt, { maxTokens: 100 });
      const text = reply.content !== null && typeof reply.content === 'object' && !Array.isArray(reply.content)
        ? reply.content.text ?? ''
        : '';
      return `LLM response: ${text}`;
    },
  );
  server.tool(
    'test_elicitation',
    {
      description: 'Asks the user for a username and an email',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'The message to show the user' } },
        required: ['message'],
      },
    },
    async ({ message }, ctx) => {
      const r = await ctx.elicit(message, {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      });
      return `User response: ${r.action} ${JSON.stringify(r.content ?? null)}`;
    },
  );
  const elicitForm = (message, requestedSchema) => async (_args, ctx) => {
    const r = await ctx.elicit(message, requestedSchema);
    return `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
  };
  server.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits fields with default values (SEP-1034)', inputSchema: NO_ARGS },
    elicitForm('Please review and update the form fields with defaults', {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: {
          type: 'string',
          description: 'User status',
          enum: ['active', 'inactive', 'pending'],
          default: 'active',
        },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    }),
  );
  server.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits every enum schema variant (SEP-1330)', inputSchema: NO_ARGS },
    elicitForm('Please select options from the enum fields', {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string',
          description: 'Select one option with titles',
          oneOf: [
            { const: 'value1', title: 'First Option' },
            { const: 'value2', title: 'Second Option' },
            { const: 'value3', title: 'Third Option' },
          ],
        },
        legacyEnum: {
          type: 'string',
          description: 'Select one option (legacy)',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          description: 'Select multiple options',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: {
            anyOf: [
              { const: 'value1', title: 'First Choice' },
              { const: 'value2', title: 'Second Choice' },
              { const: 'value3', title: 'Third Choice' },
            ],
          },
        },
      },
      required: [],
    }),
  );
  server.tool(
    'json_schema_2020_12_tool',
    {
      description: 'A tool whose input schema uses JSON Schema 2020-12 features',
      // Verbatim from examples/SURFACE.md (the conformance fixture).
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  );
  server.tool(
    'test_reconnection',
    { description: 'Closes the SSE stream mid-call (HTTP); the result arrives after the client reconnects', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      // Over HTTP: give the client time to notice the closed stream and reconnect.
      if (ctx.closeSseStream(200)) await sleep(300);
      return 'Reconnection test completed';
    },
  );
  let cancelled = 0;
  server.tool(
    'test_slow',
    {
      description: 'Waits ms milliseconds, stopping early when cancelled',
      inputSchema: {
        type: 'object',
        properties: { ms: { type: 'integer', minimum: 0 } },
        required: ['ms'],
      },
    },
    async ({ ms }, ctx) => {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        if (ctx.cancelled) {
          cancelled += 1;
          return 'cancelled';
        }
        await sleep(10);
      }
      return `completed after ${ms} ms`;
    },
  );
  server.tool(
    'test_cancellation_count',
    { description: 'How many test_slow and test_fault_hang calls observed cancellation', inputSchema: NO_ARGS },
    () => String(cancelled),
  );
  faults.register(server, () => {
    cancelled += 1;
  });
}

function registerResources(server) {
  server.resource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );
  const png = Buffer.from(PNG, 'base64');
  server.resource(
    'static-binary',
    'test://static-binary',
    { description: 'A static PNG image', mimeType: 'image/png' },
    () => png,
  );
  server.resource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource clients can subscribe to', mimeType: 'text/plain' },
    () => 'Watched resource content',
  );
  server.resourceTemplate(
    'template',
    'test://template/{id}/data',
    { description: 'Data for an id', mimeType: 'application/json' },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );
}

function registerPrompts(server) {
  server.prompt(
    'test_simple_prompt',
    { description: 'A simple prompt without arguments' },
    () => 'This is a simple prompt for testing.',
  );
  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: { arg1: ['paris', 'park', 'party', 'pasta', 'zebra'] },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );
  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: String(resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  );
  server.prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => [
    { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ]);
}

/** The `auth` option of `--auth`, from the environment (throws naming a missing variable). */
export function authFromEnv(env = process.env) {
  const need = (name) => {
    const value = env[name];
    if (value === undefined || value === '') throw new Error(`--auth needs ${name} in the environment`);
    return value;
  };
  const issuer = need('FERRITE_AUTH_ISSUER');
  const audience = need('FERRITE_AUTH_AUDIENCE');
  const jwksUrl = need('FERRITE_AUTH_JWKS_URL');
  return {
    resource: audience,
    authorizationServers: [issuer],
    toolScopes: { whoami: ['mcp:whoami'] },
    jwt: { issuer, jwksUrl },
  };
}

/** Build the everything server (`auth`: the resource-server configuration of `--auth`). */
export function build({ stateless = false, auth } = {}) {
  const server = new Server({
    auth,
    name: 'ferrite-everything',
    version: '0.1.0',
    instructions: "Ferrite's everything server: the MCP conformance fixture surface.",
    stateful: !stateless,
    logging: true,
    // Both modes: handshake-era sessions of the stateful server subscribe with
    // resources/subscribe and hear list changes; 2026-07-28 clients (either mode) through
    // subscriptions/listen streams.
    subscriptions: true,
    listChanged: true,
  });
  registerTools(server);
  registerResources(server);
  registerPrompts(server);
  modern.register(server);
  modern.registerCacheHints(server);
  tasks.register(server);
  if (auth !== undefined) {
    server.tool(
      'whoami',
      { description: "Answers the subject of the caller's access token (needs scope mcp:whoami)", inputSchema: NO_ARGS },
      (_args, ctx) => ctx.subject ?? '',
    );
  }
  return server;
}

export const USAGE =
  'usage: everything.mjs [--port N] [--stateless] [--auth] [--mount express|hono] [--redis URL] [--help]\n  no --port: serve stdio; --port N: Streamable HTTP on 127.0.0.1:N at /mcp;\n' +
  '  --mount express|hono: mounted at /mcp in an express or Hono app beside GET /health;\n' +
  '  --auth: require bearer JWTs (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL);\n' +
  '  --redis URL: keep shared state (tasks) in Redis, keys under FERRITE_REDIS_PREFIX (default ferrite:);\n' +
  "  FERRITE_REQUEST_STATE_KEYS=current[,previous...]: the fleet's requestState keys (64 hex or base64)";

/**
 * What every instance of a fleet shares: the requestState keys of FERRITE_REQUEST_STATE_KEYS
 * (rotation: the new key in front, the oldest dropped after the state lifetime), and with
 * `--redis` the tasks, in Redis under FERRITE_REDIS_PREFIX. Throws on a bad key or URL.
 */
export function joinFleet(server, redis, env = process.env) {
  const keys = env.FERRITE_REQUEST_STATE_KEYS;
  if (keys !== undefined) {
    const [current, ...previous] = keys.split(',');
    server.setRequestStateKeys(current, previous);
  }
  if (redis !== undefined) server.useRedis(redis, { keyPrefix: env.FERRITE_REDIS_PREFIX ?? 'ferrite:' });
}

/**
 * The command line as `{ port, stateless, auth, mount, redis }` (`{ help: true }` for `--help`);
 * throws naming what is wrong.
 */
export function parseArgs(argv) {
  let port;
  let redis;
  let stateless = false;
  let auth = false;
  let mount;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      return { help: true };
    } else if (arg === '--stateless') {
      stateless = true;
    } else if (arg === '--auth') {
      auth = true;
    } else if (arg === '--mount') {
      mount = argv[++i] ?? '';
      if (mount !== 'express' && mount !== 'hono') throw new Error(`--mount needs express or hono, got ${JSON.stringify(mount)}`);
    } else if (arg === '--redis') {
      redis = argv[++i] ?? '';
      if (redis === '') throw new Error('--redis needs a URL');
    } else if (arg === '--port') {
      const value = argv[++i] ?? '';
      if (!/^\d+$/.test(value) || Number(value) > 65535) throw new Error(`--port needs a port number, got ${JSON.stringify(value)}`);
      port = Number(value);
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  if (auth && port === undefined) throw new Error('--auth needs --port (tokens travel in HTTP headers)');
  if (mount !== undefined && port === undefined) throw new Error('--mount needs --port');
  return { port, stateless, auth, mount, redis };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  let args;
  let auth;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`everything: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    console.log(USAGE);
    process.exit(0);
  }
  try {
    if (args.auth) auth = authFromEnv();
  } catch (e) {
    console.error(`everything: ${e.message}`);
    process.exit(2);
  }
  const server = build({ stateless: args.stateless, auth });
  try {
    joinFleet(server, args.redis);
  } catch (e) {
    console.error(`everything: ${e.message}`);
    process.exit(2);
  }
  // Spans and metrics over OTLP/HTTP when a collector is named (the OTEL_* variables).
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) server.enableTelemetry();
  if (args.mount !== undefined) {
    addHostValueTool(server);
    const http = await (args.mount === 'express' ? serveExpress : serveHono)(server, args.port);
    const { port } = http.address();
    console.error(`everything: mounted in ${args.mount === 'express' ? 'an' : 'a'} ${args.mount} app on http://127.0.0.1:${port}/mcp`);
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, async () => {
        await server.close();
        http.close();
        http.closeAllConnections?.();
      });
    }
  } else if (args.port !== undefined) {
    // FERRITE_HTTP_OPTIONS: more of the core's HTTP options as JSON (the soak's expiry run).
    const options = JSON.parse(process.env.FERRITE_HTTP_OPTIONS ?? '{}');
    const { url } = await server.listen({ ...options, port: args.port });
    console.error(`everything: Streamable HTTP on ${url}`);
    for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close());
  } else {
    await server.connectStdio();
    await server.close();
  }
}
