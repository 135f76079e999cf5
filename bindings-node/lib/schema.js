'use strict';
/**
 * Schemas: a zod schema (or a zod "raw shape") becomes JSON Schema, because the TypeScript
 * SDK's users write zod while the core validates against JSON Schema; and values a handler
 * reads (arguments, input responses, request state) are checked with the zod schema it gave.
 * zod is an optional peer dependency, loaded only when a zod schema is given.
 */

const { InvalidParamsError } = require('./errors.js');

function isZodSchema(s) {
  return s !== null && typeof s === 'object' && typeof s.safeParse === 'function' && (s._zod || s._def) !== undefined;
}

function isZodShape(s) {
  if (s === null || typeof s !== 'object' || Array.isArray(s) || isZodSchema(s)) return false;
  const values = Object.values(s);
  return values.length > 0 && values.every(isZodSchema);
}

function requireZod() {
  try {
    return require('zod');
  } catch {
    throw new TypeError('a zod schema was given but the zod package cannot be loaded: install zod');
  }
}

/** The zod schema of a zod schema or raw shape, or undefined for anything else. */
function zodOf(schema) {
  if (isZodShape(schema)) return requireZod().z.object(schema);
  if (isZodSchema(schema)) return schema;
  return undefined;
}

/**
 * Normalize a schema given by the user: returns `{ json, zod }` where `json` is JSON Schema
 * for the core and `zod` (or undefined) parses arguments for the handler.
 */
function toSchema(schema, io, where) {
  if (schema === undefined || schema === null) return { json: undefined, zod: undefined };
  const zod = zodOf(schema);
  if (zod === undefined) {
    if (typeof schema !== 'object' || Array.isArray(schema)) {
      throw new TypeError(`${where} must be a JSON Schema object or a zod schema`);
    }
    return { json: schema, zod: undefined };
  }
  if (zod._zod !== undefined) {
    const json = requireZod().toJSONSchema(zod, { io });
    return { json, zod };
  }
  // A zod 3 schema: convert with zod-to-json-schema when the user has it.
  let convert;
  try {
    convert = require('zod-to-json-schema').zodToJsonSchema;
  } catch {
    throw new TypeError(`${where}: zod 3 schemas need the zod-to-json-schema package (or use zod 4)`);
  }
  return { json: convert(zod, { target: 'jsonSchema7', $refStrategy: 'none' }), zod };
}

/**
 * The JSON Schema of an elicitation form: JSON Schema as given, or a zod object (schema or
 * raw shape) converted like tool input schemas, without the dialect marker zod adds
 * (elicitation schemas are a restricted, flat subset).
 */
function elicitationSchema(schema) {
  const { json, zod } = toSchema(schema ?? { type: 'object', properties: {} }, 'input', 'requestedSchema');
  if (zod === undefined) return json;
  const { $schema, ...rest } = json;
  return rest;
}

/**
 * `value` parsed by the zod schema (or raw shape) `schema`; a value of another shape throws
 * an `InvalidParamsError` (-32602) naming `what`.
 */
function parseWith(schema, value, what) {
  const zod = zodOf(schema);
  if (zod === undefined) throw new TypeError(`${what}: the schema must be a zod schema or a zod raw shape`);
  const r = zod.safeParse(value);
  if (!r.success) throw new InvalidParamsError(`${what}: ${r.error.message}`);
  return r.data;
}

module.exports = { isZodSchema, isZodShape, requireZod, toSchema, elicitationSchema, parseWith };
