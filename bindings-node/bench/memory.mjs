// Memory of a stdio MCP server: resident set size idle (after initialize) and after 10,000
// `add` calls kept 32 in flight, read from /proc (Linux). Usage, from the repository root:
//   node bindings-node/bench/memory.mjs node examples/node/everything.mjs
//   node bindings-node/bench/memory.mjs node bindings-node/bench/ts-sdk-add-server.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node memory.mjs COMMAND [ARGS...]');
  process.exit(2);
}
const CALLS = 10_000;
const INFLIGHT = 32;

const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map();
createInterface({ input: child.stdout }).on('line', (line) => {
  const msg = JSON.parse(line);
  pending.get(msg.id)?.(msg);
  pending.delete(msg.id);
});
let nextId = 1;
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
const mib = (field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return Math.round((Number(m[1]) / 1024) * 10) / 10;
};

await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mem', version: '0' } });
child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
await sleep(500);
const idle = mib('VmRSS');
let sent = 0;
let bad = 0;
async function worker() {
  while (sent < CALLS) {
    sent += 1;
    const a = sent;
    const r = await request('tools/call', { name: 'add', arguments: { a, b: 1 } });
    if (r.result?.structuredContent?.sum !== a + 1) bad += 1;
  }
}
await Promise.all(Array.from({ length: INFLIGHT }, worker));
await sleep(200);
console.log(
  JSON.stringify({ command: [command, ...args].join(' '), idle_rss_mib: idle, rss_after_mib: mib('VmRSS'), peak_rss_mib: mib('VmHWM'), calls: CALLS, bad }),
);
child.stdin.end();
