// The HTTP benchmark's `add` server on the official TypeScript MCP SDK (@modelcontextprotocol/sdk,
// pinned in package.json), written the way the SDK documents Streamable HTTP servers: an Express
// app from `createMcpExpressApp()` (which parses JSON bodies and validates Host for localhost),
// `McpServer.registerTool`, and `StreamableHTTPServerTransport`.
//
//   node server.mjs --port N               stateful: one transport per session, answers as SSE
//   node server.mjs --port N --stateless   stateless: a new server and transport per request
//                                          (the SDK's stateless pattern), answers as JSON
//
// The tool returns what examples/SURFACE.md specifies: text "<sum>" and structuredContent
// {"sum": <sum>}, with an output schema.

import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const { values: options } = parseArgs({
  options: { port: { type: "string" }, stateless: { type: "boolean", default: false } },
});
const port = Number(options.port);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error("usage: node server.mjs --port N [--stateless]");
  process.exit(2);
}

function newServer() {
  const server = new McpServer({ name: "ts-sdk-bench", version: "0.0.0" });
  server.registerTool(
    "add",
    {
      description: "Add two integers.",
      inputSchema: { a: z.number().int(), b: z.number().int() },
      outputSchema: { sum: z.number().int() },
    },
    async ({ a, b }) => {
      const sum = a + b;
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    },
  );
  return server;
}

const jsonRpcError = (code, message) => ({ jsonrpc: "2.0", error: { code, message }, id: null });

const app = createMcpExpressApp();

if (options.stateless) {
  app.post("/mcp", async (req, res) => {
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      console.error("ts-sdk server:", error);
      if (!res.headersSent) res.status(500).json(jsonRpcError(-32603, "Internal server error"));
    }
  });
  const notAllowed = (_req, res) => res.status(405).json(jsonRpcError(-32000, "Method not allowed."));
  app.get("/mcp", notAllowed);
  app.delete("/mcp", notAllowed);
} else {
  const transports = new Map();
  const existing = (req) => transports.get(req.headers["mcp-session-id"]);

  app.post("/mcp", async (req, res) => {
    try {
      let transport = existing(req);
      if (!transport) {
        if (req.headers["mcp-session-id"] !== undefined || !isInitializeRequest(req.body)) {
          res.status(400).json(jsonRpcError(-32000, "Bad Request: no valid session ID"));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      console.error("ts-sdk server:", error);
      if (!res.headersSent) res.status(500).json(jsonRpcError(-32603, "Internal server error"));
    }
  });
  const bySession = async (req, res) => {
    const transport = existing(req);
    if (!transport) {
      res.status(400).send("Invalid or missing session ID");
      return;
    }
    await transport.handleRequest(req, res);
  };
  app.get("/mcp", bySession);
  app.delete("/mcp", bySession);
}

const listener = app.listen(port, "127.0.0.1", (error) => {
  if (error) {
    console.error("ts-sdk server:", error);
    process.exit(1);
  }
});
// Small SSE writes must not wait for delayed ACKs.
listener.on("connection", (socket) => socket.setNoDelay(true));
process.on("SIGTERM", () => process.exit(0));
