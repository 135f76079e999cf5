// Type-level tests of the public surface (checked by `tsc` in modules.test.mjs): argument
// types are inferred from zod schemas, results and context are typed, mistakes fail.
import { z } from 'zod';

import { ClientRequestError, McpError, Server, type CallToolResult, type Context } from 'ferrite-mcp';

const server = new Server({ name: 'types', version: '1.0.0', stateful: true, logging: true });

server.tool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => {
  const sum: number = a + b;
  // @ts-expect-error: c is not in the schema
  void (a + c);
  return String(sum);
});

server.tool('obj', { inputSchema: z.object({ name: z.string(), tags: z.array(z.string()) }) }, async ({ name, tags }, ctx) => {
  const n: string = name;
  const t: string[] = tags;
  ctx.info(`called by ${ctx.connectionId}`);
  ctx.reportProgress(1, 2, 'half');
  if (ctx.signal.aborted) return { content: [], isError: true };
  const reply = await ctx.sample('hello', { maxTokens: 10 });
  const model: string = reply.model;
  const answer = await ctx.elicit('ok?', { confirmed: z.boolean() });
  const action: 'accept' | 'decline' | 'cancel' = answer.action;
  const roots = await ctx.listRoots();
  const first: string | undefined = roots.roots[0]?.uri;
  const result: CallToolResult = { content: [{ type: 'text', text: `${n}${t.length}${model}${action}${first}` }] };
  return result;
});

server.tool('json', { inputSchema: { type: 'object', properties: { x: { type: 'number' } } } }, (args) => {
  const x: unknown = args.x;
  return { structuredContent: { x: typeof x === 'number' ? x : 0 } };
});

// @ts-expect-error: a tool must not return a number
server.tool('bad', () => 42);

server.resource('r', 'test://r', { mimeType: 'text/plain' }, (uri: string) => `text of ${uri}`);
server.resourceTemplate('t', 'test://t/{id}', { complete: { id: ['1', '2'] } }, (_uri, { id }) => new TextEncoder().encode(id));
server.prompt('p', { argsSchema: { topic: z.string() } }, ({ topic }) => `Tell me about ${topic}`);
server.completion({ type: 'ref/prompt', name: 'p' }, 'topic', async (value: string, _c, ctx: Context) => [value, ctx.connectionId]);
server.onNotification((method: string) => void method);

try {
  throw new McpError(-32602, 'bad');
} catch (e) {
  if (e instanceof ClientRequestError) {
    const kind: string = e.kind;
    void kind;
  }
}

async function main(): Promise<void> {
  const text: string = await server.handleRaw('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  void text;
  const { url }: { url: string } = await server.listen({
    allowedHosts: ['mcp.example.com', '[::1]'],
    allowedOrigins: ['https://app.example.com'],
    sseRetryMs: 500,
    resumable: false,
  });
  void url;
  // @ts-expect-error: allowedHosts is a list of names
  await server.listen({ allowedHosts: 'mcp.example.com' });
  await server.close();
  await server[Symbol.asyncDispose]();
}
void main;
