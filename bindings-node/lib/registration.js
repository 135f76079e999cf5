'use strict';
/**
 * Registration: what a server serves (tools, resources, templates, prompts, completions,
 * custom methods, skills), turned into the core's descriptors and the one native handler
 * shape `(slot, payloadJson) => envelope | Promise<envelope>`.
 *
 * A user handler (sync or async, any of the shorthand return values) never throws into
 * native code: a throw or rejection is encoded as an error envelope, and an `McpError`
 * keeps its JSON-RPC code. A tool, prompt or resource handler may return an
 * `InputRequired` (MRTR), which crosses in its own envelope (see `mrtr.js`).
 */

const { Context } = require('./context.js');
const { InvalidArgumentsError, encodeError } = require('./errors.js');
const { InputRequired } = require('./mrtr.js');
const { toSchema } = require('./schema.js');

// ----- result shorthands -----

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function toBase64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function toolResult(v) {
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (v === undefined) return { content: [] };
  if (isPlainObject(v)) {
    if (Array.isArray(v.content)) return v;
    if (v.structuredContent !== undefined) {
      return { ...v, content: [{ type: 'text', text: JSON.stringify(v.structuredContent) }] };
    }
  }
  throw new TypeError('a tool handler must return a string, a CallToolResult ({ content: [...] }) or an InputRequired');
}

function resourceResult(v, uri, mimeType) {
  if (typeof v === 'string') return { contents: [{ uri, mimeType, text: v }] };
  if (v instanceof Uint8Array) return { contents: [{ uri, mimeType, blob: toBase64(v) }] };
  if (isPlainObject(v) && Array.isArray(v.contents)) return v;
  throw new TypeError('a resource handler must return a string, a Uint8Array, { contents: [...] } or an InputRequired');
}

function promptResult(v) {
  if (typeof v === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
  if (Array.isArray(v)) return { messages: v };
  if (isPlainObject(v) && Array.isArray(v.messages)) return v;
  throw new TypeError('a prompt handler must return a string, an array of messages, { messages: [...] } or an InputRequired');
}

function completionResult(v) {
  if (Array.isArray(v)) {
    const values = v.slice(0, 100).map(String);
    return { completion: { values, total: v.length, hasMore: v.length > 100 } };
  }
  if (isPlainObject(v)) {
    if (v.completion !== undefined) return v;
    if (Array.isArray(v.values)) return { completion: v };
  }
  throw new TypeError('a completion handler must return an array of strings or { values: [...] }');
}

function methodResult(v) {
  if (v === undefined) return {};
  if (isPlainObject(v)) return v;
  throw new TypeError('a method handler must return an object');
}

// ----- the native handler shape -----

/**
 * Adapt a user handler to the native shape. `decode` turns the payload into the handler's
 * arguments, `encode` turns its return value into the core's result object; `mrtr` says
 * whether the handler may return an `InputRequired`.
 */
function adapt(host, decode, call, encode, mrtr = false) {
  const { native, server } = host;
  return (slot, payload) => {
    let ctx;
    let args;
    let out;
    try {
      ctx = new Context(native, server, slot);
      args = decode(payload);
      out = call(args, ctx);
    } catch (e) {
      ctx?._done();
      return encodeError(e);
    }
    if (isThenable(out)) {
      return Promise.resolve(out).then(
        (v) => {
          ctx._done();
          return encodeOk(encode, v, args, mrtr);
        },
        (e) => {
          ctx._done();
          return encodeError(e);
        },
      );
    }
    ctx._done();
    return encodeOk(encode, out, args, mrtr);
  };
}

/** A success (or input-required) envelope, or the error envelope of a value that cannot be encoded. */
function encodeOk(encode, value, args, mrtr) {
  try {
    if (value instanceof InputRequired) {
      if (!mrtr) throw new TypeError('only tool, prompt and resource handlers may return an InputRequired');
      return value._envelope();
    }
    return '{"ok":' + JSON.stringify(encode(value, args)) + '}';
  } catch (e) {
    return encodeError(e);
  }
}

function parseArgs(zod) {
  if (zod === undefined) return JSON.parse;
  return (payload) => {
    const r = zod.safeParse(JSON.parse(payload));
    if (!r.success) throw new InvalidArgumentsError(r.error.message);
    return r.data;
  };
}

function promptArguments(schema) {
  const { json, zod } = toSchema(schema, 'input', 'argsSchema');
  const props = json?.properties ?? {};
  const required = new Set(json?.required ?? []);
  const args = Object.entries(props).map(([name, p]) => {
    const a = { name, required: required.has(name) };
    if (typeof p?.description === 'string') a.description = p.description;
    if (typeof p?.title === 'string') a.title = p.title;
    return a;
  });
  return { args, zod };
}

function definedOnly(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** `(first, handler)` or `(first, config, handler)`: the config (default `{}`) and the handler. */
function configAndHandler(config, handler, what) {
  if (typeof config === 'function') return [{}, config];
  if (typeof handler !== 'function') throw new TypeError(`${what}: the handler must be a function`);
  return [config ?? {}, handler];
}

// ----- what a server serves -----

function tool(host, name, config, handler) {
  if (typeof name !== 'string') throw new TypeError('tool(name, ...): name must be a string');
  [config, handler] = configAndHandler(config, handler, `tool ${name}`);
  const input = toSchema(config.inputSchema, 'input', `tool ${name}: inputSchema`);
  const output = toSchema(config.outputSchema, 'output', `tool ${name}: outputSchema`);
  const descriptor = definedOnly({
    name,
    title: config.title,
    description: config.description,
    inputSchema: input.json ?? { type: 'object' },
    outputSchema: output.json,
    annotations: config.annotations,
    icons: config.icons,
    execution: config.execution,
    _meta: config._meta,
  });
  const { native } = host;
  native.addTool(JSON.stringify(descriptor), adapt(host, parseArgs(input.zod), handler, toolResult, true));
  if (config.requiredClientCapabilities !== undefined) {
    native.setToolRequiredClientCapabilities(name, JSON.stringify(config.requiredClientCapabilities));
  }
}

function resource(host, name, uri, metadata, handler) {
  [metadata, handler] = configAndHandler(metadata, handler, `resource ${uri}`);
  const descriptor = definedOnly({ ...metadata, uri, name });
  const mime = metadata.mimeType;
  host.native.addResource(
    JSON.stringify(descriptor),
    adapt(
      host,
      JSON.parse,
      (p, ctx) => handler(p.uri, ctx),
      (v) => resourceResult(v, uri, mime),
      true,
    ),
  );
}

function resourceTemplate(host, name, uriTemplate, metadata, handler) {
  [metadata, handler] = configAndHandler(metadata, handler, `resource template ${uriTemplate}`);
  const { complete, ...rest } = metadata;
  const descriptor = definedOnly({ ...rest, uriTemplate, name });
  const mime = metadata.mimeType;
  host.native.addResourceTemplate(
    JSON.stringify(descriptor),
    adapt(
      host,
      JSON.parse,
      (p, ctx) => handler(p.uri, p.variables, ctx),
      (v, p) => resourceResult(v, p.uri, mime),
      true,
    ),
  );
  for (const [argument, values] of Object.entries(complete ?? {})) {
    completion(host, { type: 'ref/resource', uri: uriTemplate }, argument, values);
  }
}

function prompt(host, name, config, handler) {
  [config, handler] = configAndHandler(config, handler, `prompt ${name}`);
  let args = config.arguments;
  let zod;
  if (config.argsSchema !== undefined) ({ args, zod } = promptArguments(config.argsSchema));
  const descriptor = definedOnly({
    name,
    title: config.title,
    description: config.description,
    arguments: args,
    icons: config.icons,
    _meta: config._meta,
  });
  host.native.addPrompt(JSON.stringify(descriptor), adapt(host, parseArgs(zod), handler, promptResult, true));
  for (const [argument, values] of Object.entries(config.complete ?? {})) {
    completion(host, { type: 'ref/prompt', name }, argument, values);
  }
}

function completion(host, ref, argument, values) {
  const refJson = JSON.stringify(ref);
  if (Array.isArray(values)) {
    host.native.setArgumentCandidates(refJson, argument, values.map(String));
    return;
  }
  if (typeof values !== 'function') throw new TypeError('completion values must be an array or a function');
  host.native.setArgumentCompleter(
    refJson,
    argument,
    adapt(
      host,
      JSON.parse,
      (req, ctx) => values(req.argument.value, { arguments: req.context.arguments }, ctx),
      completionResult,
    ),
  );
}

function completionHandler(host, handler) {
  if (typeof handler !== 'function') throw new TypeError('completionHandler: the handler must be a function');
  host.native.setCompletionHandler(adapt(host, JSON.parse, handler, completionResult));
}

function method(host, name, handler) {
  if (typeof name !== 'string') throw new TypeError('addMethod(name, handler): name must be a string');
  if (typeof handler !== 'function') throw new TypeError(`method ${name}: the handler must be a function`);
  host.native.addMethod(name, adapt(host, JSON.parse, handler, methodResult));
}

function skill(host, root, files) {
  if (typeof root !== 'string') throw new TypeError('addSkill(root, files): root must be a string');
  if (!isPlainObject(files)) throw new TypeError('addSkill(root, files): files must be an object of path -> contents');
  for (const [path, contents] of Object.entries(files)) {
    if (typeof contents !== 'string' && !(contents instanceof Uint8Array)) {
      throw new TypeError(`skill file ${JSON.stringify(path)}: the contents must be a string or a Uint8Array`);
    }
  }
  host.native.addSkill(root, files);
}

module.exports = {
  tool,
  resource,
  resourceTemplate,
  prompt,
  completion,
  completionHandler,
  method,
  skill,
  definedOnly,
};
