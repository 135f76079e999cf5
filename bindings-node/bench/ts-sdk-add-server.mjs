// The official TypeScript SDK serving the same `add` tool as the everything servers, over
// stdio: the comparison row of the stdio benchmark. Install with `npm install` in this
// directory, then:
//   EXTRA_SERVERS="ts-sdk=node bindings-node/bench/ts-sdk-add-server.mjs" bench/stdio.sh
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'ts-sdk-add', version: '0.1.0' });
server.registerTool(
  'add',
  {
    description: 'Add two integers and return their sum',
    inputSchema: { a: z.number().int(), b: z.number().int() },
    outputSchema: { sum: z.number().int() },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
);
await server.connect(new StdioServerTransport());
