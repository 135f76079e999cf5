/**
 * `StdioServerTransport`: the TypeScript SDK's stdio transport
 * (`@modelcontextprotocol/sdk/server/stdio.js`), so `await server.connect(new
 * StdioServerTransport())` ports as it is. The transport itself is the core's (line-delimited
 * JSON-RPC on the process's stdin and stdout): this class only names it.
 */

import type { McpServer, ServerTransport } from './mcp.js';

/** Serve an `McpServer` on the process's stdin and stdout. */
export class StdioServerTransport implements ServerTransport {
  #server: McpServer | undefined;
  /** Called once serving ended (stdin closed, or `close()`). */
  onclose?: () => void;
  /** Called when the transport failed. */
  onerror?: (error: Error) => void;

  /**
   * The TypeScript SDK's transport takes optional streams; Ferrite's core reads the
   * process's own stdin and writes its stdout, so streams are refused.
   */
  constructor(stdin?: unknown, stdout?: unknown) {
    if (stdin !== undefined || stdout !== undefined) {
      throw new TypeError(
        "new StdioServerTransport(): ferrite-mcp serves the process's own stdin and stdout; custom streams are not supported (use server.connection() to carry messages yourself)",
      );
    }
  }

  /** @internal Called by `McpServer.connect`. */
  _serve(server: McpServer): Promise<void> {
    if (this.#server !== undefined) throw new Error('StdioServerTransport already started');
    this.#server = server;
    return server.server.connectStdio();
  }

  /** Stop serving (closes the server). */
  async close(): Promise<void> {
    await this.#server?.close();
  }
}
