'use strict';
/**
 * Transports: how a server is reached. All of the protocol runs in the core's transports
 * (stdio, Streamable HTTP, in-process); this module only starts them and shapes what they
 * report back.
 */

/** Handle raw JSON-RPC text in-process; resolves to the response text ("" for none). */
function handleRaw(native, text) {
  return native.handleRaw(String(text));
}

/** Serve on stdin/stdout until stdin ends or the server closes. */
function connectStdio(native, options) {
  return native.connectStdio(options?.maxLineBytes);
}

/**
 * Serve Streamable HTTP; resolves once bound to `{ host, port, url }`. Every option goes to
 * the native side, which checks types and values and rejects unknown names, so a misspelt
 * option is an error rather than a silent default.
 */
function listen(native, options) {
  const path = options?.path;
  const json = JSON.stringify(options ?? {});
  return new Promise((resolve, reject) => {
    const done = native.listen(json, (addressJson) => {
      const address = JSON.parse(addressJson);
      const h = address.host.includes(':') ? `[${address.host}]` : address.host;
      resolve({ host: address.host, port: address.port, url: `http://${h}:${address.port}${path ?? '/mcp'}` });
    });
    // Before `listening` this is a bind failure; afterwards the settled listen() ignores it.
    done.catch(reject);
  });
}

module.exports = { handleRaw, connectStdio, listen };
