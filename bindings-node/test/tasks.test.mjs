// Tasks (both generations) from the Node surface: a tool declares `execution.taskSupport` at
// registration (Server.tool, McpServer.registerTool, experimental.tasks.registerToolTask) and
// its ordinary handler (Promise or sync) is the task's body: `ctx.isTask` says so, tasks/cancel
// aborts `ctx.signal`, a throw fails the task with -32603 while the server keeps serving, and
// `ctx.elicit` waits in the task until tasks/update (2026-07-28) or tasks/result (2025-11-25)
// brings the answer. The 2026-07-28 calls run in-process (`handleRaw`); the 2025-11-25 ones on
// a held connection (`server.connection({ onMessage })`), whose session owns the tasks and
// whose channel carries the elicitation tied to the task.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { McpServer, RequestCancelledError, Server } from 'ferrite-mcp';
import { z } from 'zod';

import { modern, modernOk } from './helpers.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
/** The client capabilities of a 2026-07-28 request that declares the tasks extension. */
const EXT = { extensions: { [TASKS]: {} } };
const V2025 = '2025-11-25';
const NO_ARGS = { type: 'object', additionalProperties: false };

/** A 2025-11-25 session on a held connection; its elicitations are answered by `answer(params)`. */
async function session(server, answer = () => ({ action: 'decline' })) {
  const sent = [];
  const conn = server.connection({
    onMessage: (text) => {
      const msg = JSON.parse(text);
      sent.push(msg);
      if (msg.id !== undefined && msg.method === 'elicitation/create') {
        setImmediate(() => conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: answer(msg.params) })));
      }
    },
  });
  let id = 0;
  const send = async (method, params) => JSON.parse(await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })));
  const ok = async (method, params) => {
    const r = await send(method, params);
    if (r.error) throw Object.assign(new Error(`${method}: ${r.error.message}`), { rpc: r.error });
    return r.result;
  };
  await ok('initialize', { protocolVersion: V2025, capabilities: { elicitation: {} }, clientInfo: { name: 'tasks-test', version: '1' } });
  await conn.handleRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  /** A task-augmented tools/call; the task id. */
  const start = async (name, args = {}) => (await ok('tools/call', { name, arguments: args, task: { ttl: 60_000 } })).task.taskId;
  return { conn, sent, send, ok, start };
}

/** Poll 2026-07-28 tasks/get until the status is `status`; the last result. */
async function waitFor(server, taskId, status, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await modernOk(server, 'tasks/get', { taskId }, EXT);
    if (r.status === status) return r;
    if (Date.now() > deadline) throw new Error(`task ${taskId} is ${r.status}, not ${status}: ${JSON.stringify(r)}`);
    await sleep(20);
  }
}

/** A 2026-07-28 tools/call that declares the tasks extension; its result. */
const callWithTasks = (server, name, args = {}) => modernOk(server, 'tools/call', { name, arguments: args }, EXT);

// ----- registration -----

test('Server.tool: execution.taskSupport reaches tools/list and turns on the tasks capability', async () => {
  const server = new Server({ name: 't', version: '1' });
  try {
    server.tool('plain', { inputSchema: NO_ARGS }, () => 'plain');
    assert.equal(server.capabilities.tasks, undefined, 'no task tool: no tasks capability');
    server.tool('job', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, () => 'job');
    server.tool('only', { inputSchema: NO_ARGS, execution: { taskSupport: 'required', other: 1 } }, () => 'only');
    assert.ok(server.capabilities.tasks !== undefined, JSON.stringify(server.capabilities));
    const s = await session(server);
    const tools = Object.fromEntries((await s.ok('tools/list', {})).tools.map((t) => [t.name, t]));
    assert.equal(tools.plain.execution, undefined);
    assert.deepEqual(tools.job.execution, { taskSupport: 'optional' });
    assert.deepEqual(tools.only.execution, { taskSupport: 'required', other: 1 });
    s.conn.close();
  } finally {
    await server.close();
  }
});

test('an execution.taskSupport that is not forbidden, optional or required is the core\'s ConfigError, a TypeError at registration', async () => {
  const server = new Server({ name: 't', version: '1' });
  try {
    assert.throws(() => server.tool('bad', { execution: { taskSupport: 'sometimes' } }, () => 'x'), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
      // The core's ConfigError::InvalidTaskSupport, word for word.
      message: 'tool "bad": execution.taskSupport must be one of "forbidden", "optional", "required", not "sometimes"',
    });
    assert.throws(() => server.tool('caps', { execution: { taskSupport: 'Optional' } }, () => 'x'), { name: 'TypeError' });
    assert.throws(() => server.tool('str', { execution: 'optional' }, () => 'x'), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
      message: 'tool "str": execution.taskSupport must be one of "forbidden", "optional", "required", not "optional"',
    });
    assert.deepEqual(server.tools, [], 'nothing was registered');
  } finally {
    await server.close();
  }
});

test('McpServer.registerTool takes execution; experimental.tasks.registerToolTask defaults to required', async () => {
  const mcp = new McpServer({ name: 't', version: '1' });
  try {
    const handle = mcp.registerTool('opt', { inputSchema: { n: z.number() }, execution: { taskSupport: 'optional' } }, ({ n }) => ({
      content: [{ type: 'text', text: String(n) }],
    }));
    assert.deepEqual(handle.execution, { taskSupport: 'optional' });
    mcp.experimental.tasks.registerToolTask('req', { description: 'a task' }, (extra) => ({
      content: [{ type: 'text', text: String(extra.isTask) }],
    }));
    mcp.experimental.tasks.registerToolTask('opt2', { execution: { taskSupport: 'optional' } }, () => ({ content: [] }));
    const byName = Object.fromEntries(mcp.server.tools.map((t) => [t.name, t.execution]));
    assert.deepEqual(byName, { opt: { taskSupport: 'optional' }, req: { taskSupport: 'required' }, opt2: { taskSupport: 'optional' } });
    assert.throws(() => mcp.experimental.tasks.registerToolTask('no', { execution: { taskSupport: 'forbidden' } }, () => ({ content: [] })), {
      message: "Cannot register task-based tool 'no' with taskSupport 'forbidden'. Use registerTool() instead.",
    });
    assert.throws(
      () => mcp.experimental.tasks.registerToolTask('sdk', {}, { createTask() {}, getTask() {}, getTaskResult() {} }),
      { name: 'TypeError', message: /pass an ordinary tool callback/ },
    );
    assert.throws(() => mcp.registerTool('bad', { execution: { taskSupport: 'yes' } }, () => ({ content: [] })), { name: 'TypeError' });
    // A required tool runs as a task; its callback sees extra.isTask.
    const created = await callWithTasks(mcp.server, 'req');
    assert.equal(created.resultType, 'task');
    const done = await waitFor(mcp.server, created.taskId, 'completed');
    assert.equal(done.result.content[0].text, 'true');
  } finally {
    await mcp.close();
  }
});

test('the tasks option sets the ttl, polling interval and promotion window; a bad one is a TypeError', async () => {
  const server = new Server({ name: 't', version: '1', tasks: { defaultTtlMs: 4_000, pollIntervalMs: 250, promoteAfterMs: 2_000 } });
  const work = async () => {
    await sleep(300);
    return 'worked';
  };
  try {
    server.tool('opt', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, work);
    server.tool('req', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, work);
    // 300 ms is inside the 2 s window: inline for an optional tool (the default 100 ms would make it a task)...
    const inline = await callWithTasks(server, 'opt');
    assert.equal(inline.resultType, 'complete', JSON.stringify(inline));
    assert.equal(inline.content[0].text, 'worked');
    // ...and a task born finished for a required one, with the configured ttl and interval.
    const created = await callWithTasks(server, 'req');
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    assert.equal(created.status, 'completed');
    assert.equal(created.ttlMs, 4_000);
    assert.equal(created.pollIntervalMs, 250);
  } finally {
    await server.close();
  }
  assert.throws(() => new Server({ name: 't', version: '1', tasks: { defaultTtl: 5 } }), {
    name: 'TypeError',
    message: /^new Server\(options\): tasks: unknown field `defaultTtl`/,
  });
  assert.throws(() => new Server({ name: 't', version: '1', tasks: { maxTtlMs: -1 } }), { name: 'TypeError', message: /tasks: / });
});

// ----- handler styles -----

test('a Promise handler and a sync handler each complete as a task (2025-11-25), seeing ctx.isTask', async () => {
  const server = new Server({ name: 't', version: '1' });
  const seen = [];
  server.tool('async_job', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await sleep(100);
    seen.push(['async', ctx.isTask]);
    return 'async done';
  });
  server.tool('sync_job', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, (_args, ctx) => {
    seen.push(['sync', ctx.isTask]);
    return { content: [{ type: 'text', text: 'sync done' }] };
  });
  const s = await session(server);
  try {
    for (const [name, text] of [['async_job', 'async done'], ['sync_job', 'sync done']]) {
      const id = await s.start(name);
      const result = await s.ok('tasks/result', { taskId: id });
      assert.equal(result.content[0].text, text);
      assert.deepEqual(result._meta['io.modelcontextprotocol/related-task'], { taskId: id });
      assert.equal((await s.ok('tasks/get', { taskId: id })).status, 'completed');
    }
    // The same optional tool called without params.task runs inline.
    assert.equal((await s.ok('tools/call', { name: 'async_job', arguments: {} })).content[0].text, 'async done');
    assert.deepEqual(seen, [['async', true], ['sync', true], ['async', false]]);
  } finally {
    s.conn.close();
    await server.close();
  }
});

test('a Promise handler and a sync handler each complete as a task (2026-07-28 tasks extension)', async () => {
  const server = new Server({ name: 't', version: '1' });
  server.tool('async_job', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await sleep(300); // past the 100 ms the core waits before it makes the call a task
    return `async done, isTask ${ctx.isTask}`;
  });
  server.tool('sync_job', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, (_args, ctx) => `sync done, isTask ${ctx.isTask}`);
  try {
    const a = await callWithTasks(server, 'async_job');
    assert.equal(a.resultType, 'task');
    assert.equal(a.status, 'working');
    assert.equal((await waitFor(server, a.taskId, 'completed')).result.content[0].text, 'async done, isTask true');
    // A required tool's handler that answers at once: a task born finished.
    const b = await callWithTasks(server, 'sync_job');
    assert.equal(b.resultType, 'task');
    assert.equal((await waitFor(server, b.taskId, 'completed')).result.content[0].text, 'sync done, isTask true');
    // Without the extension the optional tool runs inline, the required one is refused.
    const inline = await modernOk(server, 'tools/call', { name: 'async_job', arguments: {} }, {});
    assert.equal(inline.content[0].text, 'async done, isTask false');
    assert.equal((await modern(server, 'tools/call', { name: 'sync_job', arguments: {} }, {})).error.code, -32021);
  } finally {
    await server.close();
  }
});

// ----- cancellation -----

test("tasks/cancel aborts the task handler's signal and ctx.cancelled turns true (2026-07-28)", async () => {
  const server = new Server({ name: 't', version: '1' });
  const observed = [];
  server.tool('wait_signal', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, (_args, ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        observed.push({ how: 'signal', reason: ctx.signal.reason instanceof RequestCancelledError, cancelled: ctx.cancelled });
        resolve('stopped');
      });
    }),
  );
  server.tool('poll_cancelled', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    while (!ctx.cancelled) await sleep(5);
    observed.push({ how: 'poll', aborted: ctx.signal.aborted });
    return 'stopped';
  });
  try {
    for (const name of ['wait_signal', 'poll_cancelled', 'wait_signal', 'poll_cancelled']) {
      const { taskId } = await callWithTasks(server, name);
      await waitFor(server, taskId, 'working');
      assert.equal((await modernOk(server, 'tasks/cancel', { taskId }, EXT)).resultType, 'complete');
      assert.equal((await waitFor(server, taskId, 'cancelled')).status, 'cancelled');
    }
    for (let i = 0; i < 100 && observed.length < 4; i++) await sleep(10);
    assert.deepEqual(observed, [
      { how: 'signal', reason: true, cancelled: true },
      { how: 'poll', aborted: true },
      { how: 'signal', reason: true, cancelled: true },
      { how: 'poll', aborted: true },
    ]);
  } finally {
    await server.close();
  }
});

test("tasks/cancel aborts the task handler's signal (2025-11-25)", async () => {
  const server = new Server({ name: 't', version: '1' });
  let aborted;
  const stopped = new Promise((resolve) => (aborted = resolve));
  server.tool('wait', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    aborted(ctx.signal.reason);
    return 'stopped';
  });
  const s = await session(server);
  // The abort comes from the native side through a weak callback, which (like a held
  // connection) does not keep Node's event loop alive: without a timer, a slow delivery lets
  // the loop empty while `stopped` is awaited and the runner cancels the file.
  const keepAlive = setInterval(() => {}, 1_000);
  try {
    const id = await s.start('wait');
    assert.equal((await s.ok('tasks/get', { taskId: id })).status, 'working');
    assert.equal((await s.ok('tasks/cancel', { taskId: id })).status, 'cancelled');
    assert.ok((await stopped) instanceof RequestCancelledError);
    assert.equal((await s.ok('tasks/get', { taskId: id })).status, 'cancelled');
  } finally {
    clearInterval(keepAlive);
    s.conn.close();
    await server.close();
  }
});

// ----- failures -----

test('a task whose handler throws (or rejects) ends failed with -32603 and the server keeps serving', async () => {
  const server = new Server({ name: 't', version: '1' });
  server.tool('throws', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, () => {
    throw new Error('the handler blew up');
  });
  server.tool('rejects', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, async () => {
    await sleep(150);
    throw new TypeError('a late failure');
  });
  server.tool('fine', { inputSchema: NO_ARGS, execution: { taskSupport: 'optional' } }, () => 'still serving');
  try {
    for (const [name, message] of [['throws', 'the handler blew up'], ['rejects', 'a late failure']]) {
      const { taskId } = await callWithTasks(server, name);
      const failed = await waitFor(server, taskId, 'failed');
      assert.equal(failed.error.code, -32603);
      assert.match(failed.error.message, new RegExp(message));
      assert.equal(failed.result, undefined);
    }
    assert.equal((await callWithTasks(server, 'fine')).content[0].text, 'still serving');
    // 2025-11-25: tasks/result answers the task's error.
    const s = await session(server);
    try {
      const id = await s.start('rejects');
      const r = await s.send('tasks/result', { taskId: id });
      assert.equal(r.error.code, -32603, JSON.stringify(r));
      assert.match(r.error.message, /a late failure/);
      assert.equal((await s.ok('tasks/get', { taskId: id })).status, 'failed');
      assert.equal((await s.ok('tools/call', { name: 'fine', arguments: {} })).content[0].text, 'still serving');
    } finally {
      s.conn.close();
    }
  } finally {
    await server.close();
  }
});

// ----- input inside a task -----

const CONFIRM = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

function confirmTool(server) {
  server.tool(
    'confirm_delete',
    {
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      execution: { taskSupport: 'required' },
    },
    async ({ filename }, ctx) => {
      const r = await ctx.elicit(`Delete ${filename}?`, CONFIRM);
      return r.action === 'accept' && r.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );
}

test('ctx.elicit inside a task waits in input_required and tasks/update answers it (2026-07-28)', async () => {
  const server = new Server({ name: 't', version: '1' });
  confirmTool(server);
  try {
    // The client declares elicitation (the core checks it before the request waits in the task).
    const caps = { ...EXT, elicitation: {} };
    const { taskId } = await modernOk(server, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } }, caps);
    const parked = await waitFor(server, taskId, 'input_required');
    const entries = Object.entries(parked.inputRequests);
    assert.equal(entries.length, 1);
    const [key, request] = entries[0];
    assert.equal(request.method, 'elicitation/create');
    assert.equal(request.params.message, 'Delete a.txt?');
    assert.deepEqual(request.params.requestedSchema, CONFIRM);
    await modernOk(server, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } }, EXT);
    assert.equal((await waitFor(server, taskId, 'completed')).result.content[0].text, 'Deleted a.txt');
  } finally {
    await server.close();
  }
});

test('ctx.elicit inside a task reaches the client tied to the task while it waits in tasks/result (2025-11-25)', async () => {
  const server = new Server({ name: 't', version: '1' });
  confirmTool(server);
  const s = await session(server, () => ({ action: 'accept', content: { confirm: true } }));
  try {
    const id = await s.start('confirm_delete', { filename: 'b.txt' });
    const result = await s.ok('tasks/result', { taskId: id });
    assert.equal(result.content[0].text, 'Deleted b.txt');
    const asked = s.sent.filter((m) => m.method === 'elicitation/create');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].params.message, 'Delete b.txt?');
    assert.deepEqual(asked[0].params._meta['io.modelcontextprotocol/related-task'], { taskId: id });
  } finally {
    s.conn.close();
    await server.close();
  }
});

test('server.stats() counts the tasks created and running (the core counters telemetry exports)', async () => {
  const server = new Server({ name: 't', version: '1' });
  try {
    server.tool('slow', { inputSchema: NO_ARGS, execution: { taskSupport: 'required' } }, async () => {
      await sleep(300);
      return 'slow done';
    });
    assert.deepEqual(server.stats(), { sseStreams: 0, tasksRunning: 0, tasksCreated: 0, storeRoundTrips: 0 });
    const created = await callWithTasks(server, 'slow');
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const first = server.stats();
    assert.deepEqual([first.tasksCreated, first.tasksRunning], [1, 1]);
    await waitFor(server, created.taskId, 'completed');
    const deadline = Date.now() + 5000;
    while (server.stats().tasksRunning !== 0 && Date.now() < deadline) await sleep(20);
    assert.deepEqual(server.stats(), { sseStreams: 0, tasksRunning: 0, tasksCreated: 1, storeRoundTrips: 0 });
  } finally {
    await server.close();
  }
});
