// The everything server the way an application embeds it (`everything.mjs --mount express`
// or `--mount hono`): mounted at /mcp in an express app, or in a Hono app under
// @hono/node-server, beside a route of the app's own (GET /health) and after an auth-like
// middleware of the app's (an `x-user` header becomes the host value `user`, which the
// `test_host_value` tool reads).
//
// express, hono and @hono/node-server are dev dependencies of bindings-node (installed by
// its `npm install`); they are loaded from there.

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../bindings-node/package.json', import.meta.url));

/** The tool that shows what a handler sees of the host app's request. */
export function addHostValueTool(server) {
  server.tool(
    'test_host_value',
    {
      description: "Reads the user the host app's middleware attached, and the x-user header",
      inputSchema: { type: 'object', additionalProperties: false },
    },
    (_args, ctx) => {
      const info = ctx.requestInfo;
      const user = info?.hostValues.user ?? 'nobody';
      return `user: ${user}; x-user header: ${info?.headers['x-user'] ?? 'none'}`;
    },
  );
}

/** Serve `server` mounted in an express app on 127.0.0.1:`port`; resolves to the node:http server. */
export async function serveExpress(server, port) {
  const express = require('express');
  const app = express();
  // The app's own middleware: who the caller is, for handlers to read (res.locals).
  app.use((req, res, next) => {
    const user = req.get('x-user');
    if (user !== undefined) res.locals.user = user;
    next();
  });
  app.get('/health', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.all('/mcp', server.nodeHandler());
  return listening(app.listen(port, '127.0.0.1'));
}

/** Serve `server` mounted in a Hono app (under @hono/node-server) on 127.0.0.1:`port`. */
export async function serveHono(server, port) {
  const { Hono } = require('hono');
  const { serve } = require('@hono/node-server');
  const app = new Hono();
  app.use('*', async (c, next) => {
    const user = c.req.header('x-user');
    if (user !== undefined) c.set('user', user);
    await next();
  });
  app.get('/health', (c) => c.text('ok'));
  app.all('/mcp', (c) =>
    server.fetch(c.req.raw, {
      hostValues: { user: c.get('user') },
      remoteAddress: c.env.incoming.socket.remoteAddress,
    }),
  );
  return listening(serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }));
}

function listening(httpServer) {
  return new Promise((resolve, reject) => {
    if (httpServer.listening) return resolve(httpServer);
    httpServer.once('listening', () => resolve(httpServer));
    httpServer.once('error', reject);
  });
}
