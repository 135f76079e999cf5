'use strict';
/**
 * The `Server`: options, registration (delegated to `registration.js`), notifications,
 * the 2026-07-28 settings, and serving (delegated to `transports.js`). Every protocol
 * decision is the Rust core's; this class converts and forwards.
 */

const { NativeServer } = require('../index.js');
const { RequestCancelledError, clientRequestResult, errorMessage } = require('./errors.js');
const register = require('./registration.js');
const transports = require('./transports.js');

const { definedOnly } = register;

/** An MCP server: register tools, resources, prompts and completions, then serve. */
class Server {
  #native;
  /** What the registration helpers need: the native server and this. */
  #host;
  #watched = new Map();
  #listeners = new Set();
  #observing = false;
  #closed;

  constructor(options) {
    if (options === null || typeof options !== 'object') throw new TypeError('new Server(options): options must be an object');
    if (typeof options.name !== 'string' || typeof options.version !== 'string') {
      throw new TypeError('new Server(options): name and version must be strings');
    }
    const { name, version, title, description, websiteUrl, icons, instructions, stateful, workerThreads } = options;
    this.#native = new NativeServer(
      JSON.stringify(definedOnly({ name, version, title, description, websiteUrl, icons, instructions, stateful, workerThreads })),
    );
    this.#host = { native: this.#native, server: this };
    const n = this.#native;
    if (options.logging) n.enableLogging();
    if (options.subscriptions) n.enableResourceSubscriptions();
    const lc = options.listChanged;
    for (const kind of ['tools', 'resources', 'prompts']) {
      if (lc === true || (lc && lc[kind])) n.enableListChanged(kind);
    }
    if (options.pageSize !== undefined) n.setPageSize(options.pageSize);
    if (options.requireInitialized) n.requireInitialized();
    if (options.validateInput === false) n.setInputValidation(false);
    if (options.validateOutput) n.enableOutputValidation();
    n.setCancelCallback((slot) => {
      const controller = this.#watched.get(slot);
      if (controller !== undefined) controller.abort(new RequestCancelledError());
    });
  }

  /** @internal */
  _watch(slot, controller) {
    this.#watched.set(slot, controller);
  }
  /** @internal */
  _unwatch(slot) {
    this.#watched.delete(slot);
  }

  // ----- registration -----

  /**
   * Register (or replace) a tool. `config.inputSchema`/`outputSchema` take JSON Schema, a
   * zod schema or a zod raw shape; with zod the handler receives the parsed arguments.
   */
  tool(name, config, handler) {
    register.tool(this.#host, name, config, handler);
  }
  /** Remove a tool; whether it existed. */
  removeTool(name) {
    return this.#native.removeTool(name);
  }

  /** Register (or replace) a resource at a fixed URI. */
  resource(name, uri, metadata, handler) {
    register.resource(this.#host, name, uri, metadata, handler);
  }
  /** Remove a resource; whether it existed. */
  removeResource(uri) {
    return this.#native.removeResource(uri);
  }

  /**
   * Register a resource template (RFC 6570). The handler gets the URI and the captured
   * variables; `metadata.complete` maps a variable to its completion values or function.
   */
  resourceTemplate(name, uriTemplate, metadata, handler) {
    register.resourceTemplate(this.#host, name, uriTemplate, metadata, handler);
  }
  /** Remove a resource template; whether it existed. */
  removeResourceTemplate(uriTemplate) {
    return this.#native.removeResourceTemplate(uriTemplate);
  }

  /**
   * Register (or replace) a prompt. `config.argsSchema` (zod or JSON Schema) or
   * `config.arguments` (MCP PromptArgument list) declares its arguments; `config.complete`
   * maps an argument to its completion values or function.
   */
  prompt(name, config, handler) {
    register.prompt(this.#host, name, config, handler);
  }
  /** Remove a prompt; whether it existed. */
  removePrompt(name) {
    return this.#native.removePrompt(name);
  }

  /**
   * Completion for one argument of a prompt (`{type: "ref/prompt", name}`) or resource
   * template (`{type: "ref/resource", uri}`): a list of candidates (prefix-matched by the
   * core) or a function `(value, { arguments }, ctx) => string[] | { values, total?, hasMore? }`.
   */
  completion(ref, argument, values) {
    register.completion(this.#host, ref, argument, values);
  }
  /** The global completion handler, tried before per-argument completions. */
  completionHandler(handler) {
    register.completionHandler(this.#host, handler);
  }

  /**
   * Serve a custom request method (both eras): `handler(params, ctx)` gets the params object
   * without `_meta` and returns an object (or a Promise of one). The core's own methods
   * cannot be replaced (a TypeError).
   */
  addMethod(name, handler) {
    register.method(this.#host, name, handler);
  }
  /** Stop serving a custom method; whether it was served. */
  removeMethod(name) {
    return this.#native.removeMethod(name);
  }

  /**
   * Serve a skill (the `io.modelcontextprotocol/skills` extension) at `root`
   * (`skill://name`) made of `files` (relative path -> text or bytes); the core computes
   * digests and sizes, serves `skills/list`, `skills/get`, `resources/directory/read` and the
   * files as resources, and advertises the extension.
   */
  addSkill(root, files) {
    register.skill(this.#host, root, files);
  }
  /** Serve a skill at `root` made of every file under directory `dir`. */
  addSkillDir(root, dir) {
    if (typeof root !== 'string' || typeof dir !== 'string') throw new TypeError('addSkillDir(root, dir): root and dir must be strings');
    this.#native.addSkillDir(root, dir);
  }

  // ----- 2026-07-28 settings -----

  /**
   * Seal MRTR request state with `current` (64 hex characters, or base64 of 32 bytes; the
   * same on every instance behind one URL) and still accept states sealed with `previous`.
   */
  setRequestStateKeys(current, previous = []) {
    if (typeof current !== 'string' || !Array.isArray(previous) || previous.some((k) => typeof k !== 'string')) {
      throw new TypeError('setRequestStateKeys(current, previous?): a key string and an array of key strings');
    }
    this.#native.setRequestStateKeys(current, previous);
  }
  /** How long a sealed request state stays valid, in milliseconds (default 15 minutes). */
  setRequestStateTtl(ms) {
    if (typeof ms !== 'number') throw new TypeError('setRequestStateTtl(ms): ms must be a number');
    this.#native.setRequestStateTtl(ms);
  }
  /** The id of the current sealing key (not secret). */
  get requestStateKeyId() {
    return this.#native.requestStateKeyId();
  }

  /** Advertise extension `id` (`"com.example/name"`) with `settings` to 2026-07-28 clients. */
  addExtension(id, settings = {}) {
    if (typeof id !== 'string') throw new TypeError('addExtension(id, settings?): id must be a string');
    this.#native.addExtension(id, JSON.stringify(settings));
  }
  /** Stop advertising extension `id`; whether it was advertised. */
  removeExtension(id) {
    return this.#native.removeExtension(id);
  }

  /** The cache hints (2026-07-28 `ttlMs`/`cacheScope`) of `server/discover`, the lists and resource reads. */
  get cacheHints() {
    return JSON.parse(this.#native.cacheHints());
  }
  /**
   * Set the cache hints named in `hints` (`discover`, `toolsList`, `promptsList`,
   * `resourcesList`, `templatesList`, `resourceRead`, each `{ ttlMs, cacheScope }`); the
   * others keep their value. The core checks the shape (a TypeError names what is wrong).
   */
  setCacheHints(hints) {
    if (hints === null || typeof hints !== 'object' || Array.isArray(hints)) {
      throw new TypeError('setCacheHints(hints): hints must be an object');
    }
    this.#native.setCacheHints(JSON.stringify(hints));
  }
  /** The cache hint of reads of one registered resource or resource template (by URI or URI template). */
  setResourceCacheHint(uri, hint) {
    if (typeof uri !== 'string') throw new TypeError('setResourceCacheHint(uri, hint): uri must be a string');
    this.#native.setResourceCacheHint(uri, JSON.stringify(hint ?? null));
  }

  // ----- notifications -----

  /** Observe client notifications (`method`, `params`). Returns a function that unsubscribes. */
  onNotification(listener) {
    if (typeof listener !== 'function') throw new TypeError('onNotification: the listener must be a function');
    this.#listeners.add(listener);
    if (!this.#observing) {
      this.#observing = true;
      this.#native.setNotificationObserver((method, paramsJson) => {
        const params = JSON.parse(paramsJson) ?? undefined;
        for (const l of this.#listeners) {
          try {
            l(method, params);
          } catch (e) {
            process.emitWarning(`ferrite-mcp: a notification listener threw: ${errorMessage(e)}`);
          }
        }
      });
    }
    return () => this.#listeners.delete(listener);
  }

  /** Call `listener` on `notifications/roots/list_changed`. */
  onRootsListChanged(listener) {
    return this.onNotification((method) => {
      if (method === 'notifications/roots/list_changed') listener();
    });
  }

  /**
   * Send a notification to every handshake-era connected client; how many were reached.
   * (2026-07-28 listen streams receive only the kinds they asked for: use the methods below.)
   */
  notify(method, params) {
    return this.#native.notify(method, params === undefined ? undefined : JSON.stringify(params));
  }
  /** `notifications/tools/list_changed`, also to the 2026-07-28 listen streams that asked for it; how many were reached. */
  notifyToolsListChanged() {
    return this.#native.notifyListChanged('tools');
  }
  /** `notifications/resources/list_changed`, also to the listen streams that asked for it. */
  notifyResourcesListChanged() {
    return this.#native.notifyListChanged('resources');
  }
  /** `notifications/prompts/list_changed`, also to the listen streams that asked for it. */
  notifyPromptsListChanged() {
    return this.#native.notifyListChanged('prompts');
  }
  /** `notifications/resources/updated` to the clients subscribed to `uri` and the listen streams watching it. */
  notifyResourceUpdated(uri) {
    return this.#native.notifyResourceUpdated(uri);
  }

  // ----- introspection -----

  /** The capabilities the server declares to handshake-era clients. */
  get capabilities() {
    return JSON.parse(this.#native.capabilities());
  }
  /** The registered tools' descriptors. */
  get tools() {
    return JSON.parse(this.#native.tools());
  }
  /** Whether the server is stateless. */
  get isStateless() {
    return this.#native.isStateless();
  }
  /** Send `ping` to a connected client (by connection or session id); rejects with a ClientRequestError. */
  async pingClient(connectionId, timeoutMs = 10_000) {
    clientRequestResult(await this.#native.pingClient(connectionId, timeoutMs));
  }
  /** Ids of the connections currently listening. */
  get connectedSessions() {
    return this.#native.connectedSessions();
  }

  // ----- serving -----

  /** Handle raw JSON-RPC text in-process; resolves to the response text ("" for none). */
  handleRaw(text) {
    return transports.handleRaw(this.#native, text);
  }

  /**
   * Serve on stdin/stdout. Resolves when stdin ends or `close()` is called; until then it
   * keeps the process alive. Write logs to stderr: stdout carries the protocol.
   */
  connectStdio(options) {
    return transports.connectStdio(this.#native, options);
  }

  /**
   * Serve Streamable HTTP on `host:port` at `path` (defaults 127.0.0.1, a free port, /mcp).
   * Resolves once bound to `{ host, port, url }`; serving goes on (keeping the process
   * alive) until `close()`.
   */
  listen(options) {
    return transports.listen(this.#native, options);
  }

  /** Stop serving (stdio and HTTP) and release the runtime; in-flight requests finish first. Idempotent. */
  close() {
    this.#closed ??= this.#native.close();
    return this.#closed;
  }

  [Symbol.asyncDispose]() {
    return this.close();
  }
}

module.exports = { Server };
