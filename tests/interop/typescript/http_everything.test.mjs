// The official MCP TypeScript SDK client against every everything server, over Streamable HTTP
// in stateful mode.
//
// Each server in FERRITE_HTTP_SERVERS (see servers.mjs) is started once, on a free port, for its
// suite; every test opens a session of its own through the SDK's StreamableHTTPClientTransport,
// so no test depends on another's state. Every HTTP request the transport makes goes through a
// recording fetch, so that tests can check what went over the wire (session ids, resumption).
// What each tool must do is in examples/SURFACE.md.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CallToolResultSchema,
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { ENV_VAR, parseServers, startServer } from './servers.mjs';

const PROTOCOL_VERSION = '2025-11-25';
/** Every SDK request fails after this long instead of hanging the suite. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Upper bound for one test, session setup and teardown included. */
const TEST_TIMEOUT_MS = 20_000;

// What the client's sampling and elicitation handlers answer.
const SAMPLING_ANSWER = 'Paris is the capital of France.';
const ELICITATION_CONTENT = { username: 'octocat', email: 'octocat@example.com' };

/**
 * Records the SSE events of `stream` into `events` as they arrive: {id, event, data}, where data
 * is the parsed JSON-RPC message (or undefined for an event without data, e.g. a priming event).
 */
async function recordSseEvents(stream, events) {
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const flush = (block) => {
        const event = { id: undefined, event: undefined, data: undefined };
        const data = [];
        for (const line of block.split(/\r\n|\r|\n/)) {
            const colon = line.indexOf(':');
            if (colon === 0) continue; // comment
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') event.id = value;
            else if (field === 'event') event.event = value;
            else if (field === 'data') data.push(value);
        }
        const text = data.join('\n');
        if (text.trim() !== '') event.data = JSON.parse(text);
        if (event.id !== undefined || event.data !== undefined) events.push(event);
    };
    try {
        for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let end;
            while ((end = buffer.search(/\r\n\r\n|\n\n|\r\r/)) >= 0) {
                const separator = buffer.slice(end).match(/^(\r\n\r\n|\n\n|\r\r)/)[0];
                flush(buffer.slice(0, end));
                buffer = buffer.slice(end + separator.length);
            }
        }
    } catch {
        // the transport aborted the stream (client closed)
    }
}

/**
 * A fetch that records every request the transport makes, in the order it makes them, with the
 * response's status and headers and, for an SSE response, the events it carried (a tee of the
 * body, so the transport reads the stream as usual).
 */
function recordingFetch(requests) {
    return async (url, init = {}) => {
        const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
        const entry = { method: init.method ?? 'GET', headers: new Headers(init.headers), body, status: undefined, responseHeaders: undefined, events: [] };
        requests.push(entry);
        const response = await fetch(url, init);
        entry.status = response.status;
        entry.responseHeaders = response.headers;
        if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
            return response;
        }
        const [forTransport, forRecord] = response.body.tee();
        void recordSseEvents(forRecord, entry.events);
        return new Response(forTransport, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
}

/**
 * A new session with the server at `url` through the SDK client, initialized. The client declares
 * sampling and elicitation, answers sampling with SAMPLING_ANSWER and accepts elicitation with
 * ELICITATION_CONTENT, and records every such request, every log message, every transport
 * request and every client error. The session's client is closed when the test ends.
 */
async function openSession(t, url) {
    const requests = [];
    const logs = [];
    const sampling = [];
    const elicitation = [];
    const errors = [];

    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(requests) });
    const client = new Client(
        { name: 'ferrite-interop-tests', version: '0.1.0' },
        { capabilities: { sampling: {}, elicitation: { form: {} } } },
    );
    client.onerror = (error) => errors.push(error);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        logs.push(notification.params);
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        sampling.push(request.params);
        return {
            role: 'assistant',
            content: { type: 'text', text: SAMPLING_ANSWER },
            model: 'ferrite-interop-test-model',
            stopReason: 'endTurn',
        };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicitation.push(request.params);
        return { action: 'accept', content: { ...ELICITATION_CONTENT } };
    });

    t.after(() => client.close());
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    return { client, transport, requests, logs, sampling, elicitation, errors };
}

/** Calls a tool through the SDK with the suite's request timeout. */
function callTool(session, name, args, options = {}) {
    return session.client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: REQUEST_TIMEOUT_MS, ...options });
}

/** The text of a tool result that must consist of exactly one text block. */
function onlyText(result) {
    assert.notEqual(result.isError, true, `tool reported an error: ${JSON.stringify(result)}`);
    assert.equal(result.content.length, 1, `expected one content block: ${JSON.stringify(result.content)}`);
    const [block] = result.content;
    assert.equal(block.type, 'text', `expected a text block: ${JSON.stringify(block)}`);
    return block.text;
}

/** The recorded POSTs whose body is the JSON-RPC request or notification `method`. */
function postsOf(session, method) {
    return session.requests.filter((r) => r.method === 'POST' && r.body?.method === method);
}

/** One JSON-RPC request POSTed with plain fetch (no SDK), with the given session id. */
async function rawPost(url, sessionId, message) {
    return fetch(url, {
        method: 'POST',
        headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': PROTOCOL_VERSION,
        },
        body: JSON.stringify(message),
    });
}

/** The JSON-RPC messages in a response body, be it application/json or a (finished) SSE stream. */
async function jsonRpcMessages(response) {
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        const events = [];
        await recordSseEvents(response.body, events);
        return events.filter((e) => e.data !== undefined).map((e) => e.data);
    }
    const parsed = await response.json();
    return Array.isArray(parsed) ? parsed : [parsed];
}

/** Waits until `condition()` holds, for at most `ms` milliseconds; returns whether it held. */
async function eventually(condition, ms = 1_000) {
    const deadline = Date.now() + ms;
    while (!condition()) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return true;
}

const servers = parseServers(process.env[ENV_VAR]);

if (servers.length === 0) {
    test(`${ENV_VAR} lists no server`, {
        skip: `${ENV_VAR} is not set (or empty): set it to 'name=command line;...', e.g. ${ENV_VAR}='rust=target/debug/examples/everything'`,
    });
}

for (const server of servers) {
    describe(server.name, () => {
        let running;
        before(async () => {
            running = await startServer(server);
        });
        after(async () => {
            await running?.stop();
        });

        test('initialize: serverInfo ferrite-everything, protocol 2025-11-25 negotiated, Mcp-Session-Id in use', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);

            assert.equal(session.client.getServerVersion()?.name, 'ferrite-everything');
            // The SDK offers its newest revision and sets what the server answered on the transport.
            const [initialize] = postsOf(session, 'initialize');
            assert.equal(initialize.body.params.protocolVersion, PROTOCOL_VERSION);
            assert.equal(session.transport.protocolVersion, PROTOCOL_VERSION);

            // The server assigned a session id on the initialize response, and the SDK adopted it.
            const sessionId = session.transport.sessionId;
            assert.equal(typeof sessionId, 'string', 'the transport has no session id');
            assert.match(sessionId, /^[\x21-\x7e]+$/, 'a session id is visible ASCII only');
            assert.equal(initialize.headers.get('mcp-session-id'), null, 'initialize must not carry a session id');
            assert.equal(initialize.responseHeaders.get('mcp-session-id'), sessionId);

            // ... and every request after initialize carries it, and the server accepts it.
            await session.client.ping({ timeout: REQUEST_TIMEOUT_MS });
            const [initialized] = postsOf(session, 'notifications/initialized');
            const [ping] = postsOf(session, 'ping');
            for (const [what, request] of [['notifications/initialized', initialized], ['ping', ping]]) {
                assert.equal(request.headers.get('mcp-session-id'), sessionId, `${what} session id`);
                assert.equal(request.headers.get('mcp-protocol-version'), PROTOCOL_VERSION, `${what} protocol version`);
                assert.ok(request.status >= 200 && request.status < 300, `${what} got HTTP ${request.status}`);
            }
        });

        test('test_elicitation: the client accepts with username and email, which the result reports', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);
            const message = 'Please tell us who you are';

            const text = onlyText(await callTool(session, 'test_elicitation', { message }));

            const [request] = session.elicitation;
            assert.equal(session.elicitation.length, 1, 'exactly one elicitation/create');
            assert.equal(request.message, message);
            assert.deepEqual(request.requestedSchema.required.toSorted(), ['email', 'username']);
            const prefix = 'User response: accept ';
            assert.ok(text.startsWith(prefix), `result text ${JSON.stringify(text)} does not start with ${JSON.stringify(prefix)}`);
            assert.deepEqual(JSON.parse(text.slice(prefix.length)), ELICITATION_CONTENT);
        });

        test('test_sampling: the client answers sampling/createMessage, the result is "LLM response: <answer>"', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);
            const prompt = 'What is the capital of France?';

            const text = onlyText(await callTool(session, 'test_sampling', { prompt }));

            assert.equal(session.sampling.length, 1, 'exactly one sampling/createMessage');
            const [request] = session.sampling;
            assert.equal(request.maxTokens, 100);
            assert.equal(request.messages.length, 1, `expected one message: ${JSON.stringify(request.messages)}`);
            const [message] = request.messages;
            assert.equal(message.role, 'user');
            assert.equal(message.content.type, 'text');
            assert.equal(message.content.text, prompt);
            assert.equal(text, `LLM response: ${SAMPLING_ANSWER}`);
        });

        test('test_tool_with_progress: onprogress gets 0, 50, 100 of 100 before the result', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);
            const progress = [];

            const result = await callTool(session, 'test_tool_with_progress', {}, {
                onprogress: ({ progress: value, total }) => progress.push({ progress: value, total }),
            });

            // Taken right as the result arrives: progress after it would be missing here (the SDK
            // drops the request's progress handler with the response and reports an error).
            const seen = [...progress];
            assert.deepEqual(seen, [
                { progress: 0, total: 100 },
                { progress: 50, total: 100 },
                { progress: 100, total: 100 },
            ]);
            assert.equal(onlyText(result), 'Tool with progress executed successfully');
            const strays = session.errors.filter((e) => /progress notification/.test(String(e?.message)));
            assert.deepEqual(strays.map(String), [], 'progress notifications after the result');
        });

        test('test_tool_with_logging: three info notifications/message arrive before the result', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);

            const result = await callTool(session, 'test_tool_with_logging', {});

            // The SDK runs notification handlers one microtask after the message arrives, well
            // before a response that came after them resolves the call.
            const seen = session.logs.map(({ level, data }) => ({ level, data }));
            assert.deepEqual(seen, [
                { level: 'info', data: 'Tool execution started' },
                { level: 'info', data: 'Tool processing data' },
                { level: 'info', data: 'Tool execution completed' },
            ]);
            assert.equal(onlyText(result), 'Tool with logging executed successfully');
        });

        test('test_reconnection: the server closes the POST stream mid-call, the result arrives over a GET with Last-Event-ID', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);

            const result = await callTool(session, 'test_reconnection', {});

            assert.equal(onlyText(result), 'Reconnection test completed');
            // The call went out once, answered with an SSE stream; the client did not re-send it.
            const calls = postsOf(session, 'tools/call');
            assert.equal(calls.length, 1, `tools/call POSTed ${calls.length} times`);
            const [call] = calls;
            assert.equal(call.responseHeaders.get('content-type')?.split(';')[0].trim(), 'text/event-stream',
                'the call must be answered with an SSE stream for the server to close it');
            const isAnswer = (event) => event.data?.id === call.body.id && ('result' in event.data || 'error' in event.data);

            // The SDK resumed exactly once, in the same session, from the POST stream's last event id ...
            const resumes = session.requests.filter((r) => r.method === 'GET' && r.headers.has('last-event-id'));
            assert.equal(resumes.length, 1, `expected one resuming GET, saw ${resumes.length}`);
            const [resume] = resumes;
            const postEventIds = call.events.map((e) => e.id).filter((id) => id !== undefined);
            assert.ok(postEventIds.length >= 1, 'the POST stream carried no event id: it is not resumable');
            assert.equal(resume.headers.get('last-event-id'), postEventIds.at(-1), "Last-Event-ID is the POST stream's last event id");
            assert.equal(resume.headers.get('mcp-session-id'), session.transport.sessionId);
            assert.equal(resume.status, 200, `resuming GET got HTTP ${resume.status}`);

            // ... and the result came over that GET, not over the closed POST stream.
            assert.ok(!call.events.some(isAnswer), 'the POST stream itself carried the result: the server never closed it mid-call');
            assert.ok(await eventually(() => resume.events.some(isAnswer)), `the resuming GET did not carry the result; its events: ${JSON.stringify(resume.events)}`);
        });

        test('add: 2 + 3 is text "5" with structuredContent {sum: 5}', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);

            const result = await callTool(session, 'add', { a: 2, b: 3 });

            assert.equal(onlyText(result), '5');
            assert.deepEqual(result.structuredContent, { sum: 5 });
        });

        test('resources/read test://static-text', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);

            const result = await session.client.readResource({ uri: 'test://static-text' }, { timeout: REQUEST_TIMEOUT_MS });

            assert.equal(result.contents.length, 1, `expected one contents entry: ${JSON.stringify(result.contents)}`);
            const [contents] = result.contents;
            assert.equal(contents.uri, 'test://static-text');
            assert.equal(contents.mimeType, 'text/plain');
            assert.equal(contents.text, 'This is the content of the static text resource.');
        });

        test('terminateSession: DELETE ends the session, a request on the old session id then gets 404', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const session = await openSession(t, running.url);
            const sessionId = session.transport.sessionId;
            assert.ok(sessionId, 'the transport has no session id');

            // Control: the same raw request is answered while the session is alive.
            const alive = await rawPost(running.url, sessionId, { jsonrpc: '2.0', id: 'raw-ping-1', method: 'ping' });
            assert.equal(alive.status, 200, `ping on the live session got HTTP ${alive.status}`);
            assert.deepEqual(await jsonRpcMessages(alive), [{ jsonrpc: '2.0', id: 'raw-ping-1', result: {} }]);

            await session.transport.terminateSession();

            const deletes = session.requests.filter((r) => r.method === 'DELETE');
            assert.equal(deletes.length, 1, 'terminateSession sends one DELETE');
            assert.equal(deletes[0].headers.get('mcp-session-id'), sessionId);
            // The SDK also treats 405 (termination not supported) as success: require a 2xx.
            assert.ok(deletes[0].status >= 200 && deletes[0].status < 300, `DELETE got HTTP ${deletes[0].status}`);
            assert.equal(session.transport.sessionId, undefined, 'the SDK forgets the terminated session id');

            const gone = await rawPost(running.url, sessionId, { jsonrpc: '2.0', id: 'raw-ping-2', method: 'ping' });
            await gone.body?.cancel();
            assert.equal(gone.status, 404, `ping on the terminated session got HTTP ${gone.status}`);
        });
    });
}
