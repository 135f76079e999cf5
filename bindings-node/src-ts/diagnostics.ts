/**
 * The core's diagnostics: what an operator may want to know (sessions created and expired,
 * requests refused with their status and reason, handler panics and results that are not
 * valid, shared-store errors), under the targets `ferrite::session`, `ferrite::http`,
 * `ferrite::handler` and `ferrite::store`. No record carries a bearer token, a session id,
 * request state, arguments or results. Off by default; `setDiagnostics(level, handler?)` turns
 * them on (without a handler they are written on stderr, never stdout), as does the
 * environment at load: `FERRITE_DIAGNOSTICS=<level>`, or `DEBUG` naming `ferrite` (`ferrite`,
 * `ferrite:*`, `*`) for `debug`. Not MCP logging (`ctx.log` sends `notifications/message` to
 * the client).
 */

import { setDiagnostics as nativeSetDiagnostics } from './native.js';

/** A record's severity, most severe first; also the threshold. */
export type DiagnosticLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** One record of the core's. */
export interface DiagnosticRecord {
  level: DiagnosticLevel;
  /** `ferrite::session`, `ferrite::http`, `ferrite::handler` or `ferrite::store`. */
  target: string;
  /** The text, then ` key=value` per field. */
  message: string;
}

/** Writes a record on stderr: `ferrite::http info: request refused: ...`. */
export function stderrDiagnostics(record: DiagnosticRecord): void {
  process.stderr.write(`${record.target} ${record.level}: ${record.message}\n`);
}

/**
 * Give the core's records at `level` or more severe to `handler` (default: stderr), on the
 * event loop, process-wide; `'off'` or `null` stops them. Throws a TypeError for another level.
 * A handler that throws loses that record only.
 */
export function setDiagnostics(
  level: DiagnosticLevel | 'warning' | 'off' | null,
  handler: (record: DiagnosticRecord) => void = stderrDiagnostics,
): void {
  if (level === null || level === 'off') {
    nativeSetDiagnostics(null, null);
    return;
  }
  nativeSetDiagnostics(level, (text: string) => {
    try {
      handler(JSON.parse(text) as DiagnosticRecord);
    } catch {
      // the record is lost; the process goes on
    }
  });
}

/** @internal The environment's choice at load (`FERRITE_DIAGNOSTICS`, `DEBUG`), if any. */
export function diagnosticsFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env.FERRITE_DIAGNOSTICS?.trim();
  if (explicit) return explicit;
  // The `debug` package's patterns: `*` a wildcard, a leading `-` excludes.
  const patterns = (env.DEBUG ?? '').split(/[\s,]+/).filter((n) => n !== '');
  const matches = (p: string) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*?')}$`).test('ferrite');
  const excluded = patterns.some((p) => p.startsWith('-') && matches(p.slice(1)));
  const included = patterns.some((p) => !p.startsWith('-') && (matches(p) || p.startsWith('ferrite:')));
  return included && !excluded ? 'debug' : undefined;
}

const fromEnvironment = diagnosticsFromEnvironment();
if (fromEnvironment !== undefined) {
  try {
    setDiagnostics(fromEnvironment as DiagnosticLevel);
  } catch (e) {
    process.stderr.write(`FERRITE_DIAGNOSTICS=${fromEnvironment} ignored: ${(e as Error).message}\n`);
  }
}
