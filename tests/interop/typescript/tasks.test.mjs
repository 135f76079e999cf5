// The official MCP TypeScript SDK client's experimental tasks (2025-11-25) against the
// everything servers that serve tasks (FERRITE_TASK_SERVERS, the same `name=command line;...`
// form as FERRITE_HTTP_SERVERS; unset: no server serves tasks yet and this file has no tests).
//
// Through `client.experimental.tasks`: a task created, polled to its result and listed; a task
// cancelled mid-run; a task that asks the user to confirm, answered through the client's
// elicitation handler while the SDK waits in tasks/result. Fixtures: examples/SURFACE.md
// (slow_compute, confirm_delete).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { parseServers, startServer } from './servers.mjs';

const TEST_TIMEOUT_MS = 30_000;
const servers = parseServers(process.env.FERRITE_TASK_SERVERS ?? '');

/** A connected client that answers elicitations with `answer` and records their params. */
async function connect(t, url, answer, seen) {
    const client = new Client({ name: 'ferrite-tasks-interop', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
        seen.push(request.params);
        return answer;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.after(() => client.close());
    // The SDK learns from tools/list which tools run as tasks.
    await client.listTools();
    return client;
}

/** Every message of a task-augmented call, until the stream ends. */
async function drain(stream) {
    const messages = [];
    for await (const m of stream) messages.push(m);
    return messages;
}

for (const server of servers) {
    describe(`${server.name} (tasks, 2025-11-25)`, () => {
        let running;
        before(async () => {
            running = await startServer(server);
        });
        after(async () => {
            await running?.stop();
        });

        test('a task is created, polled to its result and listed', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const client = await connect(t, running.url, { action: 'decline' }, []);
            const messages = await drain(client.experimental.tasks.callToolStream(
                { name: 'slow_compute', arguments: { seconds: 1, label: 'ts-sdk' } },
                CallToolResultSchema,
                { task: { ttl: 60_000 } },
            ));
            assert.equal(messages[0].type, 'taskCreated', JSON.stringify(messages));
            const taskId = messages[0].task.taskId;
            assert.equal(messages[0].task.status, 'working');
            assert.equal(messages[0].task.ttl, 60_000);
            assert.ok(messages.some((m) => m.type === 'taskStatus' && m.task.status === 'completed'), JSON.stringify(messages));
            const last = messages.at(-1);
            assert.equal(last.type, 'result', JSON.stringify(last));
            assert.equal(last.result.content[0].text, 'ts-sdk: computed for 1 s');
            assert.deepEqual(last.result._meta?.['io.modelcontextprotocol/related-task'], { taskId });
            assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
            const listed = await client.experimental.tasks.listTasks();
            assert.ok(listed.tasks.some((task) => task.taskId === taskId), JSON.stringify(listed));
        });

        test('a running task is cancelled', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const client = await connect(t, running.url, { action: 'decline' }, []);
            const stream = client.experimental.tasks.callToolStream(
                { name: 'slow_compute', arguments: { seconds: 60, label: 'to-cancel' } },
                CallToolResultSchema,
                { task: {} },
            );
            const first = await stream.next();
            assert.equal(first.value.type, 'taskCreated', JSON.stringify(first.value));
            const taskId = first.value.task.taskId;
            await stream.return(undefined);
            const cancelled = await client.experimental.tasks.cancelTask(taskId);
            assert.equal(cancelled.status, 'cancelled');
            assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
        });

        test('a task asks the user and the answer reaches it', { timeout: TEST_TIMEOUT_MS }, async (t) => {
            const seen = [];
            const client = await connect(t, running.url, { action: 'accept', content: { confirm: true } }, seen);
            const messages = await drain(client.experimental.tasks.callToolStream(
                { name: 'confirm_delete', arguments: { filename: 'report.txt' } },
                CallToolResultSchema,
                { task: {} },
            ));
            const taskId = messages[0].task.taskId;
            assert.ok(messages.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required'), JSON.stringify(messages));
            const last = messages.at(-1);
            assert.equal(last.type, 'result', JSON.stringify(last));
            assert.equal(last.result.content[0].text, 'Deleted report.txt');
            assert.equal(seen.length, 1);
            assert.equal(seen[0].message, 'Delete report.txt?');
            assert.deepEqual(seen[0]._meta?.['io.modelcontextprotocol/related-task'], { taskId });
        });
    });
}
