/**
 * Schemas: what a user gives as an input or output schema becomes JSON Schema for the core
 * (which validates against it), and the values a handler reads are checked with the schema
 * it gave. Accepted: plain JSON Schema; any Standard Schema (`~standard`: zod 4, zod 3.25
 * through `zod/v4`, valibot, arktype, ...); and a "raw shape" of them (`{ a: z.number() }`),
 * as the TypeScript SDK accepts.
 *
 * JSON Schema comes from the schema itself where it can give it (`~standard.jsonSchema`, the
 * Standard JSON Schema interface of zod >= 4.2 and arktype), else from the library's own
 * converter, loaded only when such a schema is given: zod's `toJSONSchema` (`zod/v4/core`),
 * valibot's `@valibot/to-json-schema`, arktype's `toJsonSchema()`, and
 * `zod-to-json-schema` for zod 3 schemas. A schema no converter fits is refused, naming
 * where it was given.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';

import { InvalidParamsError } from './errors.js';
import type { JsonSchema, JsonValue } from './model.js';

/** Which side of a schema is converted: what a caller sends, or what a handler returns. */
export type SchemaIo = 'input' | 'output';

/** @internal A normalized schema: JSON Schema for the core, and a check of values for JS. */
export interface Normalized {
  /** JSON Schema for the core; undefined when no schema was given. */
  json: JsonSchema | undefined;
  /** Parses a value (sync or async); undefined for plain JSON Schema (the core checks it). */
  parse?: (value: unknown) => Parsed | Promise<Parsed>;
}

/** @internal The result of parsing: the value, or the issues (paths from the top). */
export type Parsed = { ok: true; value: unknown } | { ok: false; issues: ReadonlyArray<StandardSchemaV1.Issue> };

type StandardProps = StandardSchemaV1.Props & {
  jsonSchema?: { input(o: { target: string }): JsonSchema; output(o: { target: string }): JsonSchema };
};

/** Whether `s` is a Standard Schema (arktype's types are functions, so functions count). */
export function isStandardSchema(s: unknown): s is StandardSchemaV1 {
  if (s === null || (typeof s !== 'object' && typeof s !== 'function')) return false;
  const std = (s as { '~standard'?: unknown })['~standard'];
  return std !== null && typeof std === 'object' && typeof (std as { validate?: unknown }).validate === 'function';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Whether `s` is a raw shape: a plain object whose values are all Standard Schemas (`{}` counts: no arguments). */
export function isRawShape(s: unknown): s is Record<string, StandardSchemaV1> {
  if (!isPlainObject(s) || isStandardSchema(s)) return false;
  return Object.values(s).every(isStandardSchema);
}

function load<T>(name: string, what: string, where: string): T {
  try {
    return require(name) as T;
  } catch {
    throw new TypeError(`${where}: ${what} need the ${name} package: install it`);
  }
}

/** The JSON Schema of one Standard Schema, for `io`. */
function jsonOf(schema: StandardSchemaV1, io: SchemaIo, where: string): JsonSchema {
  const std = schema['~standard'] as StandardProps;
  const convert = (f: () => unknown): JsonSchema => {
    let json: unknown;
    try {
      json = f();
    } catch (e) {
      throw new TypeError(`${where}: the ${std.vendor} schema cannot be converted to JSON Schema: ${(e as Error)?.message ?? e}`);
    }
    if (!isPlainObject(json)) throw new TypeError(`${where}: the ${std.vendor} schema did not convert to a JSON Schema object`);
    return json;
  };
  // The Standard JSON Schema interface (zod >= 4.2, arktype).
  if (std.jsonSchema !== undefined && typeof std.jsonSchema[io] === 'function') {
    return convert(() => std.jsonSchema![io]({ target: 'draft-2020-12' }));
  }
  const s = schema as unknown as Record<string, unknown>;
  if (std.vendor === 'zod') {
    if (s._zod !== undefined) {
      // zod 4 before the Standard JSON Schema interface, and zod 3.25's `zod/v4`.
      const core = load<{ toJSONSchema(s: unknown, o: { io: SchemaIo }): unknown }>('zod/v4/core', 'zod 4 schemas', where);
      return convert(() => core.toJSONSchema(schema, { io }));
    }
    // A zod 3 schema.
    const z2j = load<{ zodToJsonSchema(s: unknown, o: object): unknown }>(
      'zod-to-json-schema',
      'zod 3 schemas (or use zod 4, or zod 3.25 through zod/v4)',
      where,
    );
    return convert(() => {
      const { $schema: _dialect, ...rest } = z2j.zodToJsonSchema(schema, { target: 'jsonSchema7', $refStrategy: 'none' }) as JsonSchema;
      return rest;
    });
  }
  if (std.vendor === 'valibot') {
    const v = load<{ toJsonSchema(s: unknown, o: object): unknown }>('@valibot/to-json-schema', 'valibot schemas', where);
    // Checks JSON Schema cannot say (`v.check`, `v.custom` refinements) are left to
    // valibot's own validation, as zod's converter leaves refinements to zod.
    return convert(() => v.toJsonSchema(schema, { target: 'draft-2020-12', typeMode: io, errorMode: 'ignore' }));
  }
  if (typeof s.toJsonSchema === 'function') {
    return convert(() => (s.toJsonSchema as () => unknown).call(schema));
  }
  throw new TypeError(
    `${where}: the ${std.vendor} schema has no JSON Schema converter (it implements neither ~standard.jsonSchema nor a known converter); give JSON Schema instead`,
  );
}

/** One readable line of Standard Schema issues: `a.b: message; c: message`. */
export function describeIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((i) => {
      const path = (i.path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p));
      return path.length > 0 ? `${path.join('.')}: ${i.message}` : i.message;
    })
    .join('; ');
}

function isThenable<T>(v: unknown): v is PromiseLike<T> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

function toParsed(r: StandardSchemaV1.Result<unknown>): Parsed {
  return r.issues !== undefined ? { ok: false, issues: r.issues } : { ok: true, value: r.value };
}

function validate(schema: StandardSchemaV1, value: unknown): Parsed | Promise<Parsed> {
  const r = schema['~standard'].validate(value);
  return isThenable<StandardSchemaV1.Result<unknown>>(r) ? Promise.resolve(r).then(toParsed) : toParsed(r);
}

/** Whether a field of a raw shape may be left out: its schema accepts `undefined` (optional or defaulted). */
function optional(field: StandardSchemaV1): boolean {
  try {
    const r = field['~standard'].validate(undefined);
    return !isThenable(r) && r.issues === undefined;
  } catch {
    return false;
  }
}

function withoutDialect(json: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = json;
  return rest;
}

/** A raw shape's parser: each field by its schema, issues under the field's name. */
function shapeParser(shape: Record<string, StandardSchemaV1>): (value: unknown) => Parsed | Promise<Parsed> {
  const fields = Object.entries(shape);
  return (value) => {
    if (!isPlainObject(value)) return { ok: false, issues: [{ message: 'expected an object' }] };
    const results = fields.map(([key, field]) => validate(field, value[key]));
    const assemble = (done: Parsed[]): Parsed => {
      const out: Record<string, unknown> = {};
      const issues: StandardSchemaV1.Issue[] = [];
      done.forEach((r, i) => {
        const key = fields[i][0];
        if (r.ok) {
          if (r.value !== undefined || Object.hasOwn(value, key)) out[key] = r.value;
        } else {
          for (const issue of r.issues) issues.push({ message: issue.message, path: [key, ...(issue.path ?? [])] });
        }
      });
      return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
    };
    return results.some((r) => isThenable(r)) ? Promise.all(results).then(assemble) : assemble(results as Parsed[]);
  };
}

/** A raw shape as an object schema: JSON Schema built from its fields, values parsed field by field. */
function fromShape(shape: Record<string, StandardSchemaV1>, io: SchemaIo, where: string): Normalized {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    properties[key] = withoutDialect(jsonOf(field, io, `${where}.${key}`));
    if (!optional(field)) required.push(key);
  }
  const json: JsonSchema = { type: 'object', properties };
  if (required.length > 0) json.required = required;
  return { json, parse: shapeParser(shape) };
}

/**
 * @internal Normalize a schema given by the user (`where` names it in errors): JSON Schema
 * for the core, and a parser for a Standard Schema or raw shape.
 */
export function toSchema(schema: unknown, io: SchemaIo, where: string): Normalized {
  if (schema === undefined || schema === null) return { json: undefined };
  if (isStandardSchema(schema)) {
    return { json: jsonOf(schema, io, where), parse: (v) => validate(schema, v) };
  }
  if (isRawShape(schema)) return fromShape(schema, io, where);
  if (typeof schema !== 'object' || Array.isArray(schema)) {
    throw new TypeError(`${where} must be a JSON Schema object, a Standard Schema (zod, valibot, arktype, ...) or a raw shape of them`);
  }
  return { json: schema as JsonSchema };
}

/**
 * @internal An elicitation form: its JSON Schema (plain JSON Schema as given; a schema or raw
 * shape converted like tool input schemas) and, for a schema or raw shape, the parser its
 * answer goes through. The JSON Schema is sent as the converter wrote it: the core spells a
 * generated schema the restricted way (`$schema`, a root title, enums lifted into `$defs`,
 * `[T, "null"]`) and checks it against the spec's restrictions before anything is sent.
 */
export function elicitationForm(schema: unknown): Normalized & { json: JsonSchema } {
  const { json, parse } = toSchema(schema ?? { type: 'object', properties: {} }, 'input', 'requestedSchema');
  return { json: json ?? { type: 'object', properties: {} }, parse };
}

/** @internal The JSON Schema of an elicitation form (see `elicitationForm`). */
export function elicitationSchema(schema: unknown): JsonSchema {
  return elicitationForm(schema).json;
}

/**
 * @internal `value` parsed by `schema` (a Standard Schema or raw shape), synchronously; a
 * value of another shape throws an `InvalidParamsError` (-32602) naming `what`.
 */
export function parseWith(schema: unknown, value: unknown, what: string): JsonValue {
  let parse: (v: unknown) => Parsed | Promise<Parsed>;
  if (isStandardSchema(schema)) parse = (v) => validate(schema, v);
  else if (isRawShape(schema)) parse = shapeParser(schema);
  else throw new TypeError(`${what}: the schema must be a Standard Schema (zod, valibot, arktype, ...) or a raw shape of them`);
  const r = parse(value);
  if (isThenable(r)) throw new TypeError(`${what}: the schema validates asynchronously; use a synchronous schema here`);
  if (!r.ok) throw new InvalidParamsError(`${what}: ${describeIssues(r.issues)}`);
  return r.value as JsonValue;
}

export { isThenable };
