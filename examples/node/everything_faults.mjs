// The fault tools (examples/SURFACE.md, "Fault tools"; tests/faults): handlers that fail the
// ways a JavaScript handler can, so a test can show the server keeps serving, answers each
// failure the same way every time, and leaks nothing (file descriptors, memory, JS handles).
import { setTimeout as sleep } from 'node:timers/promises';

const NO_ARGS = { type: 'object', additionalProperties: false };
const CRASH_MESSAGE = 'test_fault_crash: the handler crashed';
const REJECT_MESSAGE = 'test_fault_reject: the handler failed after it returned';

// Registers the four fault tools, listed after test_cancellation_count; countCancellation adds
// one to that tool's counter.
export function register(server, countCancellation) {
  server.tool(
    'test_fault_crash',
    { description: 'Fails the worst way the language allows inside the handler', inputSchema: NO_ARGS },
    () => {
      throw new Error(CRASH_MESSAGE);
    },
  );
  server.tool(
    'test_fault_reject',
    { description: 'Fails asynchronously, after the handler has returned', inputSchema: NO_ARGS },
    () => sleep(1).then(() => Promise.reject(new Error(REJECT_MESSAGE))),
  );
  server.tool(
    'test_fault_bad_result',
    { description: 'Returns a result that is not a valid tool result', inputSchema: NO_ARGS },
    // JSON.stringify cannot encode a BigInt.
    () => ({ content: [{ type: 'text', text: 'not a valid tool result' }], structuredContent: { n: 1n } }),
  );
  server.tool(
    'test_fault_hang',
    { description: 'Never returns unless the request is cancelled', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      while (!ctx.cancelled) await sleep(10);
      countCancellation();
      return 'cancelled';
    },
  );
}
