// The Node everything server (examples/node/everything.mjs) against examples/SURFACE.md: its
// command line, the order and capabilities it lists, and the 2026-07-28 fixtures' exact
// texts, driven in-process through handleRaw (the shared harnesses drive it over stdio and
// HTTP).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { SKILL_EXAMPLES, SKILL_MD } from '../../examples/node/everything_modern.mjs';
import { build } from '../../examples/node/everything.mjs';
import { modern, modernOk, rpc, textOf } from './helpers.mjs';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../examples/node/everything.mjs', import.meta.url));
const surface = readFileSync(fileURLToPath(new URL('../../examples/SURFACE.md', import.meta.url)), 'utf8');
const ALL = { elicitation: {}, sampling: {}, roots: {} };

test('unknown arguments are refused with a usage line on stderr and exit status 2', async () => {
  for (const args of [['--bogus'], ['--port'], ['--port', 'x'], ['--stateless', 'extra'], ['--mount', 'express'], ['--port', '0', '--mount', 'koa']]) {
    const e = await run(process.execPath, [script, ...args], { timeout: 10_000 }).then(
      () => assert.fail(`${args.join(' ')} was accepted`),
      (err) => err,
    );
    assert.equal(e.code, 2, args.join(' '));
    assert.match(e.stderr, /^usage: everything\.mjs \[--port N\] \[--stateless\]/m);
    assert.equal(e.stdout, '');
  }
});

test('test_simple_text is the first tool listed, in both modes and both eras', async () => {
  for (const stateless of [false, true]) {
    const s = build({ stateless });
    assert.equal((await modernOk(s, 'tools/list')).tools[0].name, 'test_simple_text');
    assert.equal((await rpc(s, 'tools/list', {})).result.tools[0].name, 'test_simple_text');
    await s.close();
  }
});

test('capabilities: listChanged and subscriptions in both modes on 2026-07-28; handshake-era as the mode allows', async () => {
  const full = {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    logging: {},
    completions: {},
    extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true }, 'io.modelcontextprotocol/tasks': {} },
  };
  // The task fixtures: 2025-11-25 tasks (list, cancel, task-augmented tools/call) in both modes.
  const tasks = { cancel: {}, list: {}, requests: { tools: { call: {} } } };
  for (const stateless of [false, true]) {
    const s = build({ stateless });
    assert.deepEqual((await modernOk(s, 'server/discover')).capabilities, full);
    const { extensions, ...handshake } = full;
    const expected = stateless ? { tools: {}, resources: {}, prompts: {}, completions: {}, tasks } : { ...handshake, tasks };
    assert.deepEqual(s.capabilities, expected, stateless ? 'stateless' : 'stateful');
    await s.close();
  }
});

test('json_schema_2020_12_tool lists the input schema of SURFACE.md verbatim', async () => {
  const block = /## The `json_schema_2020_12_tool` input schema[^\n]*\n```json\n([\s\S]*?)```/.exec(surface);
  assert.ok(block, 'SURFACE.md has the schema block');
  const s = build();
  const tool = (await modernOk(s, 'tools/list')).tools.find((t) => t.name === 'json_schema_2020_12_tool');
  assert.deepEqual(tool.inputSchema, JSON.parse(block[1]));
  await s.close();
});

const call = (s, name, extra = {}, caps = ALL) => modern(s, 'tools/call', { name, arguments: {}, ...extra }, caps);
const callOk = async (s, name, extra, caps) => {
  const r = await call(s, name, extra, caps);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result;
};
const NAME = (name) => ({ action: 'accept', content: { name } });
const SAMPLE = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' };
const ROOTS = { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] };

test('the single-request MRTR tools: asked by key, then their final texts', async () => {
  const s = build({ stateless: true });
  const cases = [
    ['test_input_required_result_elicitation', 'user_name', 'elicitation/create', NAME('Ada'), 'Hello, Ada!'],
    ['test_input_required_result_elicitation', 'user_name', 'elicitation/create', { action: 'decline' }, 'Hello, the user chose "decline"!'],
    ['test_input_required_result_sampling', 'capital_question', 'sampling/createMessage', SAMPLE, 'The model answered: Paris'],
    ['test_input_required_result_list_roots', 'client_roots', 'roots/list', ROOTS, 'Roots: file:///a, file:///b'],
    ['test_streaming_elicitation', 'user_name', 'elicitation/create', NAME('Bo'), 'Hello, Bo!'],
  ];
  for (const [name, key, method, answer, final] of cases) {
    const first = await callOk(s, name);
    assert.equal(first.resultType, 'input_required', name);
    assert.deepEqual(Object.keys(first.inputRequests), [key], name);
    assert.equal(first.inputRequests[key].method, method, name);
    assert.equal(textOf(await callOk(s, name, { inputResponses: { [key]: answer } })), final, name);
  }
  const asked = (await callOk(s, 'test_input_required_result_sampling')).inputRequests.capital_question.params;
  assert.deepEqual(asked, { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 });
  const bad = await call(s, 'test_input_required_result_elicitation', { inputResponses: { user_name: { action: 'maybe' } } });
  assert.equal(bad.error.code, -32602);
  await s.close();
});

test('request state, multiple inputs, multi round and the tampered-state fixtures', async () => {
  const s = build({ stateless: true });
  const first = await callOk(s, 'test_input_required_result_request_state');
  assert.equal(first.inputRequests.confirm.params.message, 'Please confirm');
  const confirmed = { action: 'accept', content: { ok: true } };
  const done = await callOk(s, 'test_input_required_result_request_state', { inputResponses: { confirm: confirmed }, requestState: first.requestState });
  assert.equal(textOf(done), 'state-ok: confirmed=true');

  const multi = await callOk(s, 'test_input_required_result_multiple_inputs');
  assert.deepEqual(Object.keys(multi.inputRequests).sort(), ['client_roots', 'greeting', 'user_name']);
  assert.equal(multi.inputRequests.greeting.params.maxTokens, 50);
  const answers = { user_name: NAME('Ada'), greeting: SAMPLE, client_roots: ROOTS };
  const all = await callOk(s, 'test_input_required_result_multiple_inputs', { inputResponses: answers, requestState: multi.requestState });
  assert.equal(textOf(all), 'name=Ada; greeting=Paris; roots=file:///a, file:///b');

  const r1 = await callOk(s, 'test_input_required_result_multi_round');
  assert.equal(r1.inputRequests.step1.params.message, 'Step 1: What is your name?');
  const r2 = await callOk(s, 'test_input_required_result_multi_round', { inputResponses: { step1: NAME('Ada') }, requestState: r1.requestState });
  assert.equal(r2.resultType, 'input_required');
  assert.equal(r2.inputRequests.step2.params.message, 'Step 2: What is your favorite color?');
  const color = { action: 'accept', content: { color: 'blue' } };
  const r3 = await callOk(s, 'test_input_required_result_multi_round', { inputResponses: { step2: color }, requestState: r2.requestState });
  assert.equal(textOf(r3), 'Ada likes blue');

  const t = await callOk(s, 'test_input_required_result_tampered_state');
  const ok = await callOk(s, 'test_input_required_result_tampered_state', { inputResponses: { confirm: confirmed }, requestState: t.requestState });
  assert.equal(textOf(ok), 'state verified');
  const flipped = t.requestState.slice(0, -3) + (t.requestState.at(-3) === 'A' ? 'B' : 'A') + t.requestState.slice(-2);
  const tampered = await call(s, 'test_input_required_result_tampered_state', { inputResponses: { confirm: confirmed }, requestState: flipped });
  assert.equal(tampered.error.code, -32602);
  await s.close();
});

test('test_input_required_result_capabilities asks only with what the request declared', async () => {
  const s = build({ stateless: true });
  assert.equal(textOf(await callOk(s, 'test_input_required_result_capabilities', {}, {})), 'the client declared no capability to ask with');
  const both = await callOk(s, 'test_input_required_result_capabilities', {}, { sampling: {}, roots: {} });
  assert.deepEqual(Object.keys(both.inputRequests).sort(), ['capital_question', 'client_roots']);
  const answered = await callOk(s, 'test_input_required_result_capabilities', { inputResponses: { capital_question: SAMPLE, client_roots: ROOTS } });
  assert.equal(textOf(answered), 'answered: ["capital_question", "client_roots"]');
  await s.close();
});

test('required client capabilities: -32021 on 2026-07-28, -32602 before, with data.requiredCapabilities', async () => {
  const s = build();
  const modernErr = await call(s, 'test_missing_capability', {}, {});
  assert.equal(modernErr.error.code, -32021);
  assert.deepEqual(modernErr.error.data.requiredCapabilities, { sampling: {} });
  assert.equal(textOf(await callOk(s, 'test_missing_capability', {}, { sampling: {} })), 'the client declared sampling');
  assert.equal((await call(s, 'test_streaming_elicitation', {}, {})).error.code, -32021);
  await rpc(s, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
  const old = await rpc(s, 'tools/call', { name: 'test_missing_capability', arguments: {} });
  assert.equal(old.error.code, -32602);
  assert.deepEqual(old.error.data.requiredCapabilities, { sampling: {} });
  await s.close();
});

test('the logging tool, the x-mcp-header tool and the MRTR prompt', async () => {
  const s = build({ stateless: true });
  assert.equal(textOf(await callOk(s, 'test_logging_tool')), 'Logging tool executed');
  assert.equal(textOf(await callOk(s, 'test_x_mcp_header', { arguments: { region: 'eu-west' } })), 'region: eu-west');
  const tool = (await modernOk(s, 'tools/list')).tools.find((t) => t.name === 'test_x_mcp_header');
  assert.equal(tool.inputSchema.properties.region['x-mcp-header'], 'Region');
  const p = await modernOk(s, 'prompts/get', { name: 'test_input_required_result_prompt' }, ALL);
  assert.equal(p.inputRequests.user_context.params.message, 'What context should the prompt use?');
  const answer = { user_context: { action: 'accept', content: { context: 'tests' } } };
  const done = await modernOk(s, 'prompts/get', { name: 'test_input_required_result_prompt', inputResponses: answer }, ALL);
  assert.deepEqual(done.messages, [{ role: 'user', content: { type: 'text', text: 'Context: tests' } }]);
  await s.close();
});

test('the triggers replace the dynamic tool and prompt with a shared, growing version', async () => {
  const s = build();
  const description = async () => (await modernOk(s, 'tools/list')).tools.find((t) => t.name === 'test_dynamic_tool').description;
  assert.equal(textOf(await callOk(s, 'test_dynamic_tool')), 'dynamic tool version 0');
  assert.equal(await description(), 'A tool test_trigger_tool_change replaces (version 0)');
  assert.equal(textOf(await callOk(s, 'test_trigger_tool_change')), 'tools list changed (version 1, 0 listeners)');
  assert.equal(textOf(await callOk(s, 'test_dynamic_tool')), 'dynamic tool version 1');
  assert.equal(await description(), 'A tool test_trigger_tool_change replaces (version 1)');
  assert.equal(textOf(await callOk(s, 'test_trigger_prompt_change')), 'prompts list changed (version 2, 0 listeners)');
  const p = await modernOk(s, 'prompts/get', { name: 'test_dynamic_prompt' });
  assert.deepEqual(p.messages, [{ role: 'user', content: { type: 'text', text: 'dynamic prompt version 2' } }]);
  await s.close();
});

test('the skill has the exact bytes of SURFACE.md and static-text carries its cache hint', async () => {
  assert.equal(Buffer.byteLength(SKILL_MD), 227);
  assert.equal(Buffer.byteLength(SKILL_EXAMPLES), 66);
  const s = build({ stateless: true });
  const [entry] = (await modernOk(s, 'skills/list')).skills;
  assert.deepEqual(
    entry.resources.map((r) => [r.uri, r.size]),
    [
      ['skill://add-numbers/SKILL.md', 227],
      ['skill://add-numbers/references/EXAMPLES.md', 66],
    ],
  );
  assert.equal((await modernOk(s, 'resources/read', { uri: 'skill://add-numbers/SKILL.md' })).contents[0].text, SKILL_MD);
  const read = await modernOk(s, 'resources/read', { uri: 'test://static-text' });
  assert.deepEqual([read.ttlMs, read.cacheScope], [60_000, 'public']);
  const other = await modernOk(s, 'resources/read', { uri: 'test://watched-resource' });
  assert.deepEqual([other.ttlMs, other.cacheScope], [0, 'private']);
  const list = await modernOk(s, 'tools/list');
  assert.deepEqual([list.ttlMs, list.cacheScope], [0, 'private']);
  await s.close();
});

test('the task fixtures: support per tool, texts, MRTR before the task, input inside it (2026-07-28)', async () => {
  const s = build({ stateless: true });
  const EXT = { ...ALL, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const get = (taskId) => modernOk(s, 'tasks/get', { taskId }, EXT);
  const until = async (taskId, status) => {
    for (let i = 0; i < 500; i++) {
      const r = await get(taskId);
      if (r.status === status) return r;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`task ${taskId} never became ${status}`);
  };
  const legacy = (await rpc(s, 'tools/list', {})).result.tools;
  const support = Object.fromEntries(legacy.filter((t) => t.execution !== undefined).map((t) => [t.name, t.execution.taskSupport]));
  assert.deepEqual(support, {
    greet: 'forbidden',
    slow_compute: 'optional',
    failing_job: 'required',
    protocol_error_job: 'required',
    confirm_delete: 'required',
    multi_input: 'required',
    test_tool_with_task: 'required',
  });
  assert.equal(textOf(await callOk(s, 'greet', { arguments: { name: 'Ada' } }, EXT)), 'Hello, Ada!');
  // Without the extension slow_compute runs inline; the seconds print as JavaScript prints them.
  assert.equal(textOf(await callOk(s, 'slow_compute', { arguments: { seconds: 0.15 } })), 'slow_compute: computed for 0.15 s');
  const slow = await callOk(s, 'slow_compute', { arguments: { seconds: 0.3, label: 'x' } }, EXT);
  assert.equal(slow.resultType, 'task');
  assert.equal(textOf((await until(slow.taskId, 'completed')).result), 'x: computed for 0.3 s');
  const failing = await callOk(s, 'failing_job', {}, EXT);
  const failed = (await until(failing.taskId, 'completed')).result;
  assert.deepEqual([failed.isError, textOf(failed)], [true, 'failing_job failed, as it always does']);
  const protocol = await callOk(s, 'protocol_error_job', {}, EXT);
  assert.deepEqual((await until(protocol.taskId, 'failed')).error, { code: -32603, message: 'protocol_error_job failed with a protocol error' });

  const multi = await callOk(s, 'multi_input', {}, EXT);
  const parked = await until(multi.taskId, 'input_required');
  const asked = Object.entries(parked.inputRequests).map(([key, r]) => [key, r.params.message]);
  assert.deepEqual(asked.map(([, m]) => m).sort(), ['First question', 'Second question']);
  const first = asked.find(([, m]) => m === 'First question')[0];
  const second = asked.find(([, m]) => m === 'Second question')[0];
  const inputResponses = { [first]: { action: 'accept', content: { name: 'Ada' } }, [second]: { action: 'decline' } };
  await modernOk(s, 'tasks/update', { taskId: multi.taskId, inputResponses }, EXT);
  assert.equal(textOf((await until(multi.taskId, 'completed')).result), 'first accepted: true, second accepted: false');

  const mrtr = await callOk(s, 'test_tool_with_task', {}, EXT);
  assert.equal(mrtr.resultType, 'input_required', 'MRTR before any task exists');
  assert.equal(mrtr.inputRequests.user_name.params.message, 'What is your name?');
  const task = await callOk(s, 'test_tool_with_task', { inputResponses: { user_name: NAME('Ada') } }, EXT);
  assert.equal(task.resultType, 'task');
  assert.equal(textOf((await until(task.taskId, 'completed')).result), 'Hello, Ada!');
  await s.close();
});
