// The official TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in package.json:
// the SDK's release line for the 2026-07-28 revision) against every everything server over
// Streamable HTTP, at 2026-07-28: `server/discover` instead of `initialize`, no session, the
// per-request `_meta` envelope, and the multi round-trip results (`input_required`) that the
// client fulfils through its own elicitation and sampling handlers and retries with the
// `requestState` echoed. What each tool must do is in examples/SURFACE.md.
//
// The v2 client does not drive the tasks extension (`io.modelcontextprotocol/tasks`): it
// refuses a `resultType: "task"` as UNSUPPORTED_RESULT_TYPE, so tasks at 2026-07-28 are not
// tested here (see issue 12).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { ENV_VAR, parseServers, startServer } from './servers.mjs';

const MODERN = '2026-07-28';
/** Every SDK request fails after this long instead of hanging the suite. */
const REQUEST_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 20_000;

/**
 * A v2 client connected to `url` with `mode` negotiation, declaring elicitation and sampling; it
 * answers each elicitation with `answers(params)` and each sampling request with a fixed text,
 * and records what it was asked and every HTTP exchange. Closed when the test ends.
 */
async function connect(t, url, { mode = { pin: MODERN }, answers = () => ({ name: 'octocat' }) } = {}) {
    const exchanges = [];
    const asked = { elicitation: [], sampling: [] };
    const recording = async (input, init = {}) => {
        const response = await fetch(input, init);
        const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
        exchanges.push({ method: init.method ?? 'GET', headers: new Headers(init.headers), body, status: response.status, responseHeaders: response.headers });
        return response;
    };
    const client = new Client(
        { name: 'ferrite-interop-v2', version: '0.1.0' },
        { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
        asked.elicitation.push(request.params);
        return { action: 'accept', content: answers(request.params) };
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
        asked.sampling.push(request.params);
        return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'interop-model', stopReason: 'endTurn' };
    });
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording });
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    t.after(() => client.close());
    return { client, exchanges, asked };
}

const call = (client, name, args = {}) => client.callTool({ name, arguments: args }, { timeout: REQUEST_TIMEOUT_MS });
const text = (result) => result.content.find((b) => b.type === 'text')?.text;

const servers = parseServers(process.env[ENV_VAR]);

if (servers.length === 0) {
    test(`${ENV_VAR} lists no server`, { skip: `${ENV_VAR} is not set (or empty)` });
}

for (const server of servers) {
    describe(`${server.name} (TypeScript SDK v2 client, ${MODERN})`, () => {
        let running;
        before(async () => {
            running = await startServer(server);
        });
        after(async () => {
            await running?.stop();
        });

        test('pinned to 2026-07-28: server/discover, no initialize, no session; tools listed and add called', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const { client, exchanges } = await connect(t, running.url);
            assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
            const tools = await client.listTools({}, { timeout: REQUEST_TIMEOUT_MS });
            assert.ok(tools.tools.some((tool) => tool.name === 'add'), 'add is listed');
            const sum = await call(client, 'add', { a: 2, b: 3 });
            assert.deepEqual(sum.structuredContent, { sum: 5 });
            assert.equal(text(sum), '5');
            const methods = exchanges.filter((e) => e.body !== undefined).map((e) => e.body.method);
            assert.ok(methods.includes('server/discover'), `the client discovered the server: ${methods}`);
            assert.ok(!methods.includes('initialize'), `no initialize at 2026-07-28: ${methods}`);
            for (const e of exchanges) {
                assert.equal(e.responseHeaders.get('mcp-session-id'), null, `no session id on ${e.body?.method}`);
                assert.equal(e.status, 200, `${e.body?.method}: HTTP ${e.status}`);
            }
            // Every request carried the envelope in params._meta, and its version header.
            const posted = exchanges.filter((e) => e.body?.method === 'tools/call');
            assert.equal(posted[0].body.params._meta['io.modelcontextprotocol/protocolVersion'], MODERN);
            assert.equal(posted[0].headers.get('mcp-protocol-version'), MODERN);
        });

        test("auto negotiation picks 2026-07-28 from the server's discover answer", { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const { client } = await connect(t, running.url, { mode: 'auto' });
            assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
            assert.equal(text(await call(client, 'add', { a: 40, b: 2 })), '42');
        });

        test('an input_required result is fulfilled by the elicitation handler and the call retried', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const { client, asked } = await connect(t, running.url);
            const result = await call(client, 'test_input_required_result_elicitation');
            assert.equal(text(result), 'Hello, octocat!');
            assert.equal(asked.elicitation.length, 1);
            assert.equal(asked.elicitation[0].message, 'What is your name?');
        });

        test('two rounds with requestState carried between them', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const { client, asked } = await connect(t, running.url, {
                answers: (params) => (params.message.startsWith('Step 1') ? { name: 'Ada' } : { color: 'green' }),
            });
            const result = await call(client, 'test_input_required_result_multi_round');
            assert.equal(text(result), 'Ada likes green');
            assert.deepEqual(asked.elicitation.map((p) => p.message), ['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
        });

        test('a sampling input request is answered by the sampling handler', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const { client, asked } = await connect(t, running.url);
            const result = await call(client, 'test_input_required_result_sampling');
            assert.equal(text(result), 'The model answered: Paris');
            assert.equal(asked.sampling.length, 1);
        });

        test('an unknown tool is the JSON-RPC error -32602', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const { client } = await connect(t, running.url);
            await assert.rejects(call(client, 'no_such_tool'), (e) => e.code === -32602);
        });
    });
}
