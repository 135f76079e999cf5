// Packaging: ESM and CommonJS consumers get the same classes, and the TypeScript types
// (with no `any`) check the README quick-start and a typed usage file.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import * as esm from 'ferrite-mcp';

import { StdioClient, fixtures } from './helpers.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

test('ESM and CommonJS entry points export the same objects', () => {
  const cjs = createRequire(import.meta.url)('ferrite-mcp');
  assert.equal(esm.Server, cjs.Server);
  assert.equal(esm.McpError, cjs.McpError);
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).filter((k) => k !== 'default').sort());
});

test('a CommonJS script serves stdio and exits after Symbol.asyncDispose', async () => {
  const client = new StdioClient(`${fixtures}dispose.cjs`);
  const r = await client.request('tools/call', { name: 'hello', arguments: {} });
  assert.equal(r.result.content[0].text, 'hello from CommonJS (function)');
  const code = await new Promise((resolve) => client.child.on('exit', resolve));
  assert.equal(code, 0, client.stderr);
});

test('the public type declarations contain no `any`', () => {
  const files = readdirSync(`${root}lib`).filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.mts'));
  assert.ok(files.length >= 7, `the typings are split along lib/*.js: ${files}`);
  for (const f of files.map((name) => `lib/${name}`)) {
    const text = readFileSync(`${root}${f}`, 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    assert.doesNotMatch(text, /\bany\b/, `${f} mentions any`);
  }
});

test('TypeScript type-checks the typed usage files and every ```ts block of the README', { timeout: 120_000 }, async () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 2, 'README.md has the quick-start and MRTR ```ts blocks');
  for (const f of readdirSync(`${root}test/types`).filter((name) => /^readme.*\.generated\.mts$/.test(name))) {
    rmSync(`${root}test/types/${f}`);
  }
  blocks.forEach((code, i) => {
    const name = i === 0 ? 'readme.generated.mts' : `readme-${i + 1}.generated.mts`;
    writeFileSync(`${root}test/types/${name}`, `// Generated from README.md by modules.test.mjs.\n${code}`);
  });
  const tsc = `${root}node_modules/typescript/bin/tsc`;
  try {
    await run(process.execPath, [tsc, '-p', `${root}test/types/tsconfig.json`], { cwd: root });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
