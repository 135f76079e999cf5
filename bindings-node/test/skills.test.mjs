// Skills (the io.modelcontextprotocol/skills extension): addSkill with text and bytes, and
// addSkillDir, are served by the core (skills/list with digests and sizes, skills/get,
// resources/directory/read, the files as resources) and advertised; a bad skill is a
// TypeError, an unreadable directory an Error with code ERR_FERRITE_IO.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { Server } from '../lib/index.mjs';
import { modern, modernOk } from './helpers.mjs';

const SKILL_MD = '---\nname: add-numbers\ndescription: Add two integers\n---\n\n# Add\n';
const EXAMPLES = '# Examples\n';
const BYTES = new Uint8Array([0, 159, 146, 150]);
const sha256 = (data) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

function server() {
  const s = new Server({ name: 'skills', version: '1.0.0' });
  s.addSkill('skill://add-numbers', { 'SKILL.md': SKILL_MD, 'references/EXAMPLES.md': EXAMPLES, 'scripts/run.bin': BYTES });
  return s;
}

test('addSkill: advertised, listed with digests and sizes of the exact bytes, and got by URI', async () => {
  const s = server();
  const discovered = await modernOk(s, 'server/discover');
  assert.deepEqual(discovered.capabilities.extensions['io.modelcontextprotocol/skills'], { directoryRead: true });
  const list = await modernOk(s, 'skills/list');
  const [entry] = list.skills;
  assert.equal(entry.uri, 'skill://add-numbers/SKILL.md');
  assert.deepEqual(entry.frontmatter, { name: 'add-numbers', description: 'Add two integers' });
  assert.deepEqual(
    entry.resources.map((r) => [r.uri, r.size, r.digest]),
    [
      ['skill://add-numbers/SKILL.md', Buffer.byteLength(SKILL_MD), sha256(SKILL_MD)],
      ['skill://add-numbers/references/EXAMPLES.md', Buffer.byteLength(EXAMPLES), sha256(EXAMPLES)],
      ['skill://add-numbers/scripts/run.bin', 4, sha256(BYTES)],
    ],
  );
  const got = await modernOk(s, 'skills/get', { uri: 'skill://add-numbers/SKILL.md' });
  assert.deepEqual(got.skill, entry);
  assert.equal((await modern(s, 'skills/get', { uri: 'skill://nope/SKILL.md' })).error.code, -32602);
  await s.close();
});

test('the files are resources (text as text, bytes as a blob) and the root is a directory', async () => {
  const s = server();
  const text = await modernOk(s, 'resources/read', { uri: 'skill://add-numbers/references/EXAMPLES.md' });
  assert.equal(text.contents[0].text, EXAMPLES);
  const blob = await modernOk(s, 'resources/read', { uri: 'skill://add-numbers/scripts/run.bin' });
  assert.equal(blob.contents[0].blob, Buffer.from(BYTES).toString('base64'));
  const dir = await modernOk(s, 'resources/directory/read', { uri: 'skill://add-numbers' });
  assert.deepEqual(
    dir.resources.map((r) => [r.uri, r.mimeType]),
    [
      ['skill://add-numbers/SKILL.md', 'text/markdown'],
      ['skill://add-numbers/references', 'inode/directory'],
      ['skill://add-numbers/scripts', 'inode/directory'],
    ],
  );
  await s.close();
});

test('addSkillDir serves every file under a directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferrite-skill-'));
  try {
    mkdirSync(join(dir, 'references'));
    writeFileSync(join(dir, 'SKILL.md'), SKILL_MD);
    writeFileSync(join(dir, 'references', 'EXAMPLES.md'), EXAMPLES);
    const s = new Server({ name: 'skills-dir', version: '1.0.0' });
    s.addSkillDir('skill://add-numbers', dir);
    const [entry] = (await modernOk(s, 'skills/list')).skills;
    assert.deepEqual(
      entry.resources.map((r) => [r.uri, r.size]),
      [
        ['skill://add-numbers/SKILL.md', Buffer.byteLength(SKILL_MD)],
        ['skill://add-numbers/references/EXAMPLES.md', Buffer.byteLength(EXAMPLES)],
      ],
    );
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a skill the core refuses is a TypeError; an unreadable directory an Error with ERR_FERRITE_IO', async () => {
  const s = new Server({ name: 'bad-skills', version: '1.0.0' });
  const invalid = { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' };
  assert.throws(() => s.addSkill('skill://add-numbers', { 'README.md': 'x' }), { ...invalid, message: /SKILL.md/ });
  assert.throws(() => s.addSkill('skill://other-name', { 'SKILL.md': SKILL_MD }), { ...invalid, message: /last segment/ });
  assert.throws(() => s.addSkill('skill://add-numbers/', { 'SKILL.md': SKILL_MD }), invalid);
  assert.throws(() => s.addSkill('skill://add-numbers', { 'SKILL.md': SKILL_MD, '../x': 'y' }), { ...invalid, message: /relative/ });
  assert.throws(() => s.addSkill('skill://add-numbers', { 'SKILL.md': 42 }), TypeError);
  assert.throws(() => s.addSkillDir('skill://add-numbers', join(tmpdir(), 'ferrite-no-such-dir')), (e) => {
    assert.equal(e.constructor, Error);
    assert.equal(e.code, 'ERR_FERRITE_IO');
    return true;
  });
  assert.equal((await modern(s, 'skills/list')).error?.code, -32601, 'nothing was served');
  await s.close();
});
