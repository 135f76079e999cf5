// Judge one conformance-suite run from the per-scenario checks.json files it wrote.
//
// usage: node summarize.mjs --label LABEL --out DIR --scored a,b,c [--unscored x,y] [--exit-code N]
//
// The suite writes DIR/server-<scenario>-<ISO timestamp>/checks.json, a JSON array of
// checks {id, name, description, status, errorMessage?, details?, ...} where status is one of
// SUCCESS, FAILURE, WARNING, INFO, SKIPPED. A scenario passes when its checks.json exists, is an
// array, and none of its checks has status FAILURE (the suite's own rule; WARNING, INFO and
// SKIPPED never fail). A scenario with zero SUCCESS/FAILURE checks passes too, but is flagged
// "0 scored checks" so it is not mistaken for coverage. A scenario that was expected and wrote no
// checks.json (the suite crashed, hung, or was killed by the timeout) fails.
//
// Prints one line per scored scenario (PASS name / FAIL name: check: message), one INFO line per
// unscored scenario, and finally "LABEL: X passed, Y failed". Writes X and Y as JSON to stdout's
// last line prefixed by "#counts " for run.sh to add up. Exit status: 0.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const label = opt('label', 'conformance');
const out = opt('out');
const list = (s) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : []);
const scored = list(opt('scored'));
const unscored = list(opt('unscored'));
const suiteExit = opt('exit-code', '?');

// server-<scenario>-2026-01-02T03-04-05-678Z
const DIR_RE = /^server-(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/;
const found = new Map(); // scenario -> {dir, ts}
let entries = [];
try {
  entries = readdirSync(out);
} catch {
  entries = [];
}
for (const e of entries) {
  const m = DIR_RE.exec(e);
  if (!m) continue;
  const full = path.join(out, e);
  try {
    if (!statSync(full).isDirectory()) continue;
  } catch {
    continue;
  }
  const prev = found.get(m[1]);
  if (!prev || prev.ts < m[2]) found.set(m[1], { dir: full, ts: m[2] });
}

const oneLine = (s) =>
  String(s ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 400);

function judge(name) {
  const hit = found.get(name);
  if (!hit) {
    const why =
      suiteExit === '124' || suiteExit === '137'
        ? 'the suite run hit its time limit (CONFORMANCE_SUITE_TIMEOUT) before this scenario finished'
        : `scenario did not complete; suite exit code ${suiteExit}; see suite.log`;
    return { pass: false, reason: `no checks.json written (${why})` };
  }
  let checks;
  try {
    checks = JSON.parse(readFileSync(path.join(hit.dir, 'checks.json'), 'utf8'));
  } catch (err) {
    return { pass: false, reason: `unreadable checks.json in ${hit.dir}: ${err.message}` };
  }
  if (!Array.isArray(checks)) {
    return { pass: false, reason: `checks.json in ${hit.dir} is not an array` };
  }
  const failures = checks.filter((c) => c && c.status === 'FAILURE');
  const scoredChecks = checks.filter(
    (c) => c && (c.status === 'SUCCESS' || c.status === 'FAILURE')
  );
  const warnings = checks.filter((c) => c && c.status === 'WARNING');
  if (failures.length > 0) {
    const f = failures[0];
    const more = failures.length > 1 ? ` (+${failures.length - 1} more failing)` : '';
    return {
      pass: false,
      reason: `${f.id ?? f.name ?? 'check'}: ${oneLine(f.errorMessage ?? f.description ?? 'FAILURE')}${more}`
    };
  }
  const notes = [];
  if (scoredChecks.length === 0) notes.push('0 scored checks');
  if (warnings.length > 0) {
    notes.push(`warnings: ${[...new Set(warnings.map((w) => w.id ?? w.name))].join(', ')}`);
  }
  return { pass: true, note: notes.length ? ` (${notes.join('; ')})` : '' };
}

let passed = 0;
let failed = 0;
for (const name of scored) {
  const r = judge(name);
  if (r.pass) {
    passed++;
    console.log(`PASS ${name}${r.note}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: ${r.reason}`);
  }
}
for (const name of unscored) {
  const r = judge(name);
  console.log(
    `INFO not scored by this requirement set: ${name}: ${r.pass ? `pass${r.note}` : `fail: ${r.reason}`}`
  );
}
// Results for scenarios nobody asked about (a newer suite build adding scenarios) are reported too.
for (const name of [...found.keys()].sort()) {
  if (scored.includes(name) || unscored.includes(name)) continue;
  const r = judge(name);
  console.log(`INFO unexpected scenario ${name}: ${r.pass ? 'pass' : `fail: ${r.reason}`}`);
}
console.log(`${label}: ${passed} passed, ${failed} failed`);
console.log(`#counts ${JSON.stringify({ passed, failed })}`);
