// The Node everything server's 2026-07-28 fixtures (see examples/SURFACE.md): multi round-trip
// tools and prompt, a tool needing a client capability, a logging tool, list change
// triggers, a tool with an `x-mcp-header` argument, a skill, and a cache hint.
//
// The MRTR handlers are written once: on a 2026-07-28 request the client gets the input
// requests and retries; on a handshake-era session the core asks the client itself and calls
// them again. Each reads its answers with `ctx.inputResponse(key, kind)`, which the core
// decodes and which throws InvalidParamsError (-32602) for an answer of the wrong shape.

import { InputRequest, InputRequired, InvalidParamsError } from '../../bindings-node/lib/index.mjs';

const NO_ARGS = { type: 'object', additionalProperties: false };

export const SKILL_MD =
  '---\nname: add-numbers\ndescription: Add two integers with the add tool and report the sum\n---\n\n' +
  '# Add numbers\n\nCall the add tool with integer arguments a and b, then report the sum.\n' +
  'Worked examples are in references/EXAMPLES.md.\n';
export const SKILL_EXAMPLES = '# Examples\n\n- add(a=2, b=3) returns 5\n- add(a=-4, b=10) returns 6\n';

const CONFIRM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

/** A one-field form. */
const form = (field) => ({ type: 'object', properties: { [field]: { type: 'string' } }, required: [field] });
const askName = () => InputRequest.elicit('What is your name?', form('name'));
const askCapital = () => InputRequest.sample('What is the capital of France?', { maxTokens: 100 });
const askConfirm = () => InputRequest.elicit('Please confirm', CONFIRM_SCHEMA);

/** The `field` of an accepted elicitation, or why there is none. */
function accepted(r, field) {
  if (r.action !== 'accept') return `the user chose ${JSON.stringify(r.action)}`;
  const content = r.content ?? {};
  if (!Object.hasOwn(content, field)) return `the form has no ${field}`;
  const value = content[field];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The text of a sampling answer. */
function sampled(r) {
  const c = r.content;
  const block = Array.isArray(c) ? c.find((b) => b?.type === 'text') : c;
  return block !== null && typeof block === 'object' && typeof block.text === 'string' ? block.text : '';
}

const roots = (r) => r.roots.map((root) => root.uri).join(', ');

function registerMrtrTools(server) {
  const tool = (name, description, handler, extra = {}) =>
    server.tool(name, { description, inputSchema: NO_ARGS, ...extra }, (_args, ctx) => handler(ctx));

  tool('test_input_required_result_elicitation', "Asks for the user's name, then greets them (MRTR)", (ctx) => {
    const r = ctx.inputResponse('user_name', 'elicit');
    if (r === undefined) return new InputRequired().ask('user_name', askName());
    return `Hello, ${accepted(r, 'name')}!`;
  });

  // Async on purpose: an InputRequired from a Promise works as one returned directly.
  tool('test_input_required_result_sampling', "Asks the client's LLM a question (MRTR)", async (ctx) => {
    const r = ctx.inputResponse('capital_question', 'sample');
    if (r === undefined) return new InputRequired().ask('capital_question', askCapital());
    return `The model answered: ${sampled(r)}`;
  });

  tool('test_input_required_result_list_roots', "Asks for the client's roots (MRTR)", (ctx) => {
    const r = ctx.inputResponse('client_roots', 'roots');
    if (r === undefined) return new InputRequired().ask('client_roots', InputRequest.listRoots());
    return `Roots: ${roots(r)}`;
  });

  tool('test_input_required_result_request_state', 'Asks for a confirmation and carries state (MRTR)', (ctx) => {
    const expected = 'awaiting-confirmation';
    if (ctx.requestState !== undefined && ctx.requestState !== expected) {
      throw new InvalidParamsError(`unexpected request state ${JSON.stringify(ctx.requestState)}`);
    }
    const r = ctx.inputResponse('confirm', 'elicit');
    if (ctx.requestState === expected && r !== undefined) return `state-ok: confirmed=${accepted(r, 'ok')}`;
    return new InputRequired({ inputRequests: { confirm: askConfirm() }, requestState: expected });
  });

  tool('test_input_required_result_multiple_inputs', 'Asks for a name, a greeting and the roots at once (MRTR)', (ctx) => {
    const name = ctx.inputResponse('user_name', 'elicit');
    const greeting = ctx.inputResponse('greeting', 'sample');
    const clientRoots = ctx.inputResponse('client_roots', 'roots');
    if (name !== undefined && greeting !== undefined && clientRoots !== undefined) {
      return `name=${accepted(name, 'name')}; greeting=${sampled(greeting)}; roots=${roots(clientRoots)}`;
    }
    return new InputRequired()
      .ask('user_name', askName())
      .ask('greeting', InputRequest.sample('Generate a greeting', { maxTokens: 50 }))
      .ask('client_roots', InputRequest.listRoots())
      .withState('multiple-inputs');
  });

  tool('test_input_required_result_multi_round', 'Asks two questions in two rounds (MRTR)', (ctx) => {
    const step1 = InputRequest.elicit('Step 1: What is your name?', form('name'));
    const step2 = InputRequest.elicit('Step 2: What is your favorite color?', form('color'));
    const state = ctx.requestStateAs() ?? { step: 1, name: null };
    if (state === null || typeof state !== 'object' || Array.isArray(state) || ![1, 2].includes(state.step)) {
      throw new InvalidParamsError(`unexpected request state ${ctx.requestState}`);
    }
    if (state.step === 1) {
      const r = ctx.inputResponse('step1', 'elicit');
      if (r === undefined) return new InputRequired().ask('step1', step1).withState(state);
      return new InputRequired().ask('step2', step2).withState({ step: 2, name: accepted(r, 'name') });
    }
    const r = ctx.inputResponse('step2', 'elicit');
    if (r === undefined) return new InputRequired().ask('step2', step2).withState(state);
    return `${state.name ?? ''} likes ${accepted(r, 'color')}`;
  });

  tool('test_input_required_result_tampered_state', 'Carries sealed state; an altered one is refused (MRTR)', (ctx) => {
    const r = ctx.inputResponse('confirm', 'elicit');
    if (ctx.requestState === 'tamper-check' && r !== undefined) return 'state verified';
    return new InputRequired().ask('confirm', askConfirm()).withState('tamper-check');
  });

  tool(
    'test_input_required_result_capabilities',
    'Asks only with what the client declared: elicitation, sampling, roots (MRTR)',
    (ctx) => {
      if (ctx.isResubmission) {
        return `answered: [${Object.keys(ctx.inputResponses).map((k) => JSON.stringify(k)).join(', ')}]`;
      }
      const ir = new InputRequired();
      let asked = 0;
      if (ctx.clientSupports('elicitation')) (ir.ask('user_name', askName()), asked++);
      if (ctx.clientSupports('sampling')) (ir.ask('capital_question', askCapital()), asked++);
      if (ctx.clientSupports('roots')) (ir.ask('client_roots', InputRequest.listRoots()), asked++);
      return asked === 0 ? 'the client declared no capability to ask with' : ir;
    },
  );

  tool(
    'test_streaming_elicitation',
    'Needs elicitation; asks the MRTR way, never with a request',
    async (ctx) => {
      const r = ctx.inputResponse('user_name', 'elicit');
      if (r === undefined) return new InputRequired().ask('user_name', askName());
      return `Hello, ${accepted(r, 'name')}!`;
    },
    { requiredClientCapabilities: { elicitation: {} } },
  );
}

function registerOtherTools(server) {
  server.tool(
    'test_missing_capability',
    { description: "Needs the client's sampling capability", inputSchema: NO_ARGS, requiredClientCapabilities: { sampling: {} } },
    () => 'the client declared sampling',
  );
  server.tool(
    'test_logging_tool',
    { description: 'Logs two messages (sent only when the request asked for a log level)', inputSchema: NO_ARGS },
    (_args, ctx) => {
      ctx.info('Logging tool started');
      ctx.info('Logging tool finished');
      return 'Logging tool executed';
    },
  );

  const addDynamicTool = (version) =>
    server.tool(
      'test_dynamic_tool',
      { description: `A tool test_trigger_tool_change replaces (version ${version})`, inputSchema: NO_ARGS },
      () => `dynamic tool version ${version}`,
    );
  const addDynamicPrompt = (version) =>
    server.prompt(
      'test_dynamic_prompt',
      { description: `A prompt test_trigger_prompt_change replaces (version ${version})` },
      () => `dynamic prompt version ${version}`,
    );
  addDynamicTool(0);
  addDynamicPrompt(0);
  // The triggers change their own server. They close over the JS server, not a native one:
  // the native server holds no reference back to itself through them.
  let version = 0;
  server.tool(
    'test_trigger_tool_change',
    { description: 'Replaces test_dynamic_tool and announces the tools list changed', inputSchema: NO_ARGS },
    () => {
      version += 1;
      addDynamicTool(version);
      const reached = server.notifyToolsListChanged();
      return `tools list changed (version ${version}, ${reached} listeners)`;
    },
  );
  server.tool(
    'test_trigger_prompt_change',
    { description: 'Replaces test_dynamic_prompt and announces the prompts list changed', inputSchema: NO_ARGS },
    () => {
      version += 1;
      addDynamicPrompt(version);
      const reached = server.notifyPromptsListChanged();
      return `prompts list changed (version ${version}, ${reached} listeners)`;
    },
  );
  // With a fleet the update reaches the uri's subscribers on every instance; the text counts the
  // listeners reached on this one.
  server.tool(
    'test_trigger_resource_update',
    {
      description: 'Announces that the resource uri was updated (to its subscribers on every instance)',
      inputSchema: {
        type: 'object',
        properties: { uri: { type: 'string', description: 'The resource that changed' } },
        required: ['uri'],
      },
    },
    ({ uri }) => `resource ${uri} updated (${server.notifyResourceUpdated(uri)} listeners)`,
  );

  server.tool(
    'test_x_mcp_header',
    {
      description: 'Echoes a region that HTTP clients mirror into the Mcp-Param-Region header',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', description: 'A region name', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    },
    ({ region }) => `region: ${region}`,
  );
}

function registerPrompt(server) {
  server.prompt('test_input_required_result_prompt', { description: 'Asks for context before it is built (MRTR)' }, (_args, ctx) => {
    const r = ctx.inputResponse('user_context', 'elicit');
    if (r === undefined) {
      return new InputRequired().ask('user_context', InputRequest.elicit('What context should the prompt use?', form('context')));
    }
    return `Context: ${accepted(r, 'context')}`;
  });
}

/** Register the 2026-07-28 fixtures. */
export function register(server) {
  registerMrtrTools(server);
  registerOtherTools(server);
  registerPrompt(server);
  server.addSkill('skill://add-numbers', { 'SKILL.md': SKILL_MD, 'references/EXAMPLES.md': SKILL_EXAMPLES });
}

/** A static resource may be cached by anyone for a minute (after it is registered). */
export function registerCacheHints(server) {
  server.setResourceCacheHint('test://static-text', { ttlMs: 60_000, cacheScope: 'public' });
}
