// The Node everything server's task fixtures (examples/SURFACE.md, "Task fixtures"): ordinary
// tool handlers whose registrations declare `execution.taskSupport`; the core decides per call
// whether a handler runs inline or as a task (2025-11-25 `params.task`, the 2026-07-28 tasks
// extension).
//
// | tool | task support | does |
// |---|---|---|
// | greet | forbidden | answers "Hello, <name>!" at once |
// | slow_compute | optional | waits `seconds`, then answers; ends early when cancelled (ctx.signal) |
// | failing_job | required | a tool error (isError) after a second |
// | protocol_error_job | required | a JSON-RPC error (-32603) after 300 ms |
// | confirm_delete | required | asks to confirm with ctx.elicit (the request waits in the task) |
// | multi_input | required | asks two questions at once with ctx.elicit |
// | test_tool_with_task | required | asks for a name before the task exists (MRTR), then greets |

import { setTimeout as sleep } from 'node:timers/promises';

import { InputRequest, InputRequired, InternalError } from '../../bindings-node/lib/index.mjs';

const NO_ARGS = { type: 'object', additionalProperties: false };

/** Wait `ms`, unless the call (or its task) is cancelled first; a cancellation throws. */
async function pause(ctx, ms) {
  try {
    await sleep(ms, undefined, { signal: ctx.signal });
  } catch (e) {
    if (ctx.signal.aborted) throw new Error('cancelled');
    throw e;
  }
}

const confirmForm = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
const questionForm = { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } };
const nameForm = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/** Register the seven task fixtures on `server` (a ferrite-mcp `Server`). */
export function register(server) {
  const tool = (name, taskSupport, config, handler) =>
    server.tool(name, { inputSchema: NO_ARGS, ...config, execution: { taskSupport } }, handler);

  tool(
    'greet',
    'forbidden',
    {
      description: 'Greets someone at once (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    ({ name }) => `Hello, ${name}!`,
  );

  tool(
    'slow_compute',
    'optional',
    {
      description: 'Works for `seconds` seconds, then answers (a task when the client can take one)',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
      },
    },
    async ({ seconds = 1, label = 'slow_compute' }, ctx) => {
      const s = Math.min(seconds, 3600);
      await pause(ctx, s * 1000);
      return `${label}: computed for ${s} s`;
    },
  );

  tool('failing_job', 'required', { description: 'Fails as a tool (isError) after a second; only as a task' }, async (_args, ctx) => {
    await pause(ctx, 1000);
    return { content: [{ type: 'text', text: 'failing_job failed, as it always does' }], isError: true };
  });

  tool(
    'protocol_error_job',
    'required',
    { description: 'Fails with a JSON-RPC error after 300 ms; only as a task' },
    async (_args, ctx) => {
      await pause(ctx, 300);
      throw new InternalError('protocol_error_job failed with a protocol error');
    },
  );

  tool(
    'confirm_delete',
    'required',
    {
      description: 'Asks the user to confirm deleting a file; only as a task',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    },
    // Asked in the task (not as an MRTR reply): the call becomes a task at once and waits in
    // input_required until the client answers.
    async ({ filename }, ctx) => {
      const r = await ctx.elicit(`Delete ${filename}?`, confirmForm);
      return r.action === 'accept' ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );

  tool('multi_input', 'required', { description: 'Asks two questions at once; only as a task' }, async (_args, ctx) => {
    const [a, b] = await Promise.all([ctx.elicit('First question', questionForm), ctx.elicit('Second question', questionForm)]);
    return `first accepted: ${a.action === 'accept'}, second accepted: ${b.action === 'accept'}`;
  });

  tool(
    'test_tool_with_task',
    'required',
    { description: 'Asks for a name (before the task exists), then greets as a task' },
    async (_args, ctx) => {
      const r = ctx.inputResponse('user_name', 'elicit');
      if (r === undefined) return new InputRequired().ask('user_name', InputRequest.elicit('What is your name?', nameForm));
      const name = typeof r.content?.name === 'string' ? r.content.name : 'stranger';
      await pause(ctx, 200);
      return `Hello, ${name}!`;
    },
  );
}
