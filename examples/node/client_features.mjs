// What a server asks of its client, from Node (issue 12): a typed form (a zod schema, the
// answer decoded into it), URL elicitation (the completion notification and the -32042
// error), sampling with the client's context, and the roots list-changed observer. A stdio
// server: `node examples/node/client_features.mjs`.
//
// | tool | does |
// |---|---|
// | signup | asks a form made from a zod schema (an enum, an optional field, descriptions); answers with the decoded values |
// | login | sends the user to a URL (elicitation.url), then tells the client it completed |
// | export | refuses with -32042 (UrlElicitationRequiredError) until `login` ran on this connection |
// | summarize | asks the client's LLM with includeContext "thisServer" (needs sampling.context) |
// | roots_changes | how many notifications/roots/list_changed the server has seen |
//
// zod is a dev dependency of bindings-node (installed by its `npm install`); loaded from there.

import { createRequire } from 'node:module';

import { Server, UrlElicitationRequiredError } from '../../bindings-node/lib/index.mjs';

const require = createRequire(new URL('../../bindings-node/package.json', import.meta.url));
const { z } = require('zod');

const NO_ARGS = { type: 'object', additionalProperties: false };

const Signup = z.object({
  name: z.string().describe('Your name'),
  plan: z.enum(['basic', 'pro']).describe('Which plan'),
  age: z.number().int().optional().describe('Your age, if you like'),
});

const server = new Server({ name: 'client-features', version: '1.0.0' });
const signedIn = new Set();
let rootsChanges = 0;

server.tool('signup', { description: 'Asks who you are (a typed form)', inputSchema: NO_ARGS }, async (_args, ctx) => {
  const r = await ctx.elicit('Sign up', Signup);
  if (r.action !== 'accept' || r.content === undefined) return `no signup (${r.action})`;
  const { name, plan, age } = r.content;
  return `welcome ${name} on ${plan}${age === undefined ? '' : `, aged ${age}`}`;
});

server.tool('login', { description: 'Sends you to a sign-in page', inputSchema: NO_ARGS }, async (_args, ctx) => {
  const id = `login-${ctx.connectionId}`;
  const r = await ctx.elicitUrl('Sign in to continue', 'https://example.com/login', id);
  if (r.action !== 'accept') return `not signed in (${r.action})`;
  // Here the sign-in happened out of band; tell the client it is done.
  signedIn.add(ctx.connectionId);
  ctx.notifyElicitationComplete(id);
  return 'signed in';
});

server.tool('export', { description: 'Needs a signed-in user', inputSchema: NO_ARGS }, (_args, ctx) => {
  if (!signedIn.has(ctx.connectionId)) {
    throw new UrlElicitationRequiredError([
      { message: 'Sign in to export', url: 'https://example.com/login', elicitationId: `login-${ctx.connectionId}` },
    ]);
  }
  return 'exported';
});

server.tool('summarize', { description: 'Asks your LLM, with this server as context', inputSchema: NO_ARGS }, async (_args, ctx) => {
  const r = await ctx.sample('Summarize what this server offers', { maxTokens: 100, includeContext: 'thisServer' });
  return r.content.type === 'text' ? r.content.text : `(${r.content.type})`;
});

server.tool('roots_changes', { description: 'How many roots changes were seen', inputSchema: NO_ARGS }, () => String(rootsChanges));
server.onRootsListChanged(() => rootsChanges++);

await server.connectStdio();
