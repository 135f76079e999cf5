// Types of ferrite-mcp's public surface (hand-written over the generated native `index.d.ts`,
// which stays internal), split like lib/*.js: the model and schema types (model.d.ts), the
// errors, the request context, MRTR and the server. No `any`: unknown input is `unknown` or
// `JsonValue`.

export * from './model.js';
export * from './errors.js';
export * from './context.js';
export * from './mrtr.js';
export * from './server.js';
