// Authorization (MCP's OAuth 2.1 resource server) from Node, over Streamable HTTP with real
// signed JWTs: the keys are generated here with node:crypto (RSA and P-256), the JWK Set is
// served on loopback by the test (so is an RFC 7662 introspection endpoint), and every refusal is checked for its exact status and
// `WWW-Authenticate` header (the core's formats, as core/tests/auth.rs pins them), followed
// by a request that shows the server still serving. Also: the identity handlers see
// (`ctx.identity`, `ctx.subject`, the SDK's `extra.authInfo`, never the token), a token
// verifier written in JavaScript (`verifyAccessToken`, plain or the SDK's
// `OAuthTokenVerifier`), and configuration errors in the core's words.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

import { InvalidTokenError, McpServer, Server, VerifierUnavailableError } from '../lib/index.mjs';

const ISSUER = 'https://as.example.test';
const VERSION = '2025-11-25';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION };

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** A signing key (RS256 or ES256) with its public JWK under `kid`. */
function signingKey(alg, kid) {
  const { publicKey, privateKey } =
    alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    alg,
    kid,
    jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
    /** A JWT of `claims`, its header naming `headerKid` (default: this key's). */
    sign(claims, headerKid = kid) {
      const input = `${b64url({ alg, typ: 'JWT', kid: headerKid })}.${b64url(claims)}`;
      const options = alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey;
      return `${input}.${sign('sha256', Buffer.from(input), options).toString('base64url')}`;
    },
  };
}

/** The issuer's JWK Set on loopback: its keys replaceable, its fetches counted. */
async function jwksServer(keys) {
  const state = { keys, fetches: 0 };
  const http = createServer((req, res) => {
    state.fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  state.url = `http://127.0.0.1:${http.address().port}/jwks`;
  state.close = () => new Promise((resolve) => http.close(resolve));
  return state;
}

async function freePort() {
  const s = createNetServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Register `whoami` (scope mcp:whoami) and `me` (what a handler sees of the caller). */
function registerTools(server) {
  server.tool('whoami', (_args, ctx) => ctx.subject ?? 'nobody');
  server.tool('me', (_args, ctx) => {
    const info = ctx.authInfo;
    return JSON.stringify({
      identity: ctx.identity ?? null,
      subject: ctx.subject ?? null,
      authInfo: info === undefined ? null : { ...info, hasToken: 'token' in info && info.token !== undefined, resource: info.resource?.href },
      authorization: ctx.header('authorization') === undefined ? 'absent' : 'present',
    });
  });
}

/**
 * A protected server listening on loopback: `auth` is the configuration without `resource`
 * (this server's URL), `options` more server options. Returns `{ base, resource, server }`.
 */
async function protectedServer(auth, options = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const resource = `${base}/mcp`;
  const server = new Server({ name: 'protected', version: '1', auth: { resource, ...auth }, ...options });
  registerTools(server);
  await server.listen({ port });
  return { base, resource, server, meta: `${base}/.well-known/oauth-protected-resource/mcp` };
}

function jwtAuth(jwks, jwt = {}) {
  return {
    authorizationServers: [ISSUER],
    toolScopes: { whoami: ['mcp:whoami'] },
    jwt: { issuer: ISSUER, jwksUrl: jwks.url, ...jwt },
  };
}

function claims(resource, sub, scope, extra = {}) {
  return { iss: ISSUER, aud: resource, sub, scope, exp: now() + 600, iat: now(), client_id: 'app', ...extra };
}

const init = () => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const toolCall = (name) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } });

/** POST `body` to `/mcp` with `authorization` (a header value) and `session`. */
async function post(base, authorization, session, body) {
  const headers = { ...HEADERS };
  if (authorization !== undefined) headers.authorization = authorization;
  if (session !== undefined) headers['mcp-session-id'] = session;
  const r = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  let text = await r.text();
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    text = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('');
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: r.status, challenge: r.headers.get('www-authenticate'), session: r.headers.get('mcp-session-id'), body: parsed };
}
const call = (base, token, session, body) => post(base, token === undefined ? undefined : `Bearer ${token}`, session, body);

/** A session for `token`, initialized; its id. */
async function session(base, token) {
  const r = await call(base, token, undefined, init());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const n = await call(base, token, r.session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(n.status, 202);
  return r.session;
}

const textOf = (r) => r.body?.result?.content?.[0]?.text;
const invalid = (meta, why) => `Bearer error="invalid_token", error_description="${why}", resource_metadata="${meta}"`;

test('RS256 and ES256 tokens are verified and the identity reaches handlers without the token', async () => {
  const rsa = signingKey('RS256', 'r1');
  const ec = signingKey('ES256', 'e1');
  const jwks = await jwksServer([rsa, ec]);
  const { base, resource, server } = await protectedServer(jwtAuth(jwks));
  try {
    for (const key of [rsa, ec]) {
      const token = key.sign(claims(resource, 'alice', 'mcp:whoami'));
      const s = await session(base, token);
      const r = await call(base, token, s, toolCall('whoami'));
      assert.deepEqual([r.status, textOf(r)], [200, 'alice'], key.alg);
    }
    const exp = now() + 600;
    const token = ec.sign(claims(resource, 'alice', 'mcp:whoami extra', { exp, tenant: 'acme' }));
    const s = await session(base, token);
    const r = await call(base, token, s, toolCall('me'));
    assert.equal(r.status, 200);
    assert.ok(!textOf(r).includes(token), 'the token never reaches handlers');
    const seen = JSON.parse(textOf(r));
    assert.deepEqual(seen.identity, {
      subject: 'alice',
      clientId: 'app',
      scopes: ['mcp:whoami', 'extra'],
      expiresAt: exp,
      issuer: ISSUER,
      claims: { iss: ISSUER, aud: resource, sub: 'alice', scope: 'mcp:whoami extra', exp, iat: seen.identity.claims.iat, client_id: 'app', tenant: 'acme' },
    });
    assert.equal(seen.subject, 'alice');
    assert.equal(seen.authInfo.hasToken, false);
    assert.equal(seen.authInfo.clientId, 'app');
    assert.deepEqual(seen.authInfo.scopes, ['mcp:whoami', 'extra']);
    assert.equal(seen.authInfo.expiresAt, exp);
    assert.equal(seen.authInfo.resource, resource);
    assert.equal(seen.authInfo.extra.tenant, 'acme');
    assert.equal(jwks.fetches, 1, 'the JWK Set is fetched once and cached');
  } finally {
    await server.close();
    await jwks.close();
  }
});

test('without a token: 401 naming the metadata, which is served at the path-suffixed URL', async () => {
  const key = signingKey('RS256', 'r1');
  const jwks = await jwksServer([key]);
  const { base, resource, server, meta } = await protectedServer(jwtAuth(jwks));
  try {
    const r = await call(base, undefined, undefined, init());
    assert.equal(r.status, 401);
    assert.equal(r.challenge, `Bearer resource_metadata="${meta}"`);
    assert.equal(r.body.error.code, -32001);
    const m = await fetch(meta);
    assert.equal(m.status, 200);
    assert.deepEqual(await m.json(), {
      resource,
      authorization_servers: [ISSUER],
      scopes_supported: ['mcp:whoami'],
      bearer_methods_supported: ['header'],
    });
    assert.equal((await call(base, key.sign(claims(resource, 'a', '')), undefined, init())).status, 200);
  } finally {
    await server.close();
    await jwks.close();
  }
});

test('invalid tokens get 401 with the reason, and the server keeps serving', async () => {
  const key = signingKey('RS256', 'r1');
  const stranger = signingKey('RS256', 'r1');
  const jwks = await jwksServer([key]);
  const { base, resource, server, meta } = await protectedServer(jwtAuth(jwks));
  try {
    const good = claims(resource, 'alice', '');
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(good)}.`;
    const cases = [
      [key.sign({ ...good, exp: now() - 600 }), 'the token has expired'],
      [key.sign({ ...good, nbf: now() + 600 }), 'the token is not valid yet (nbf)'],
      [key.sign({ ...good, aud: 'https://other.example/mcp' }), 'the token is for another audience'],
      [key.sign({ ...good, iss: 'https://evil.example' }), "the token's issuer is not trusted"],
      [stranger.sign(good), "the token's signature does not verify"],
      [none, 'the token is not a well-formed signed JWT'],
    ];
    for (const [token, why] of cases) {
      const r = await call(base, token, undefined, init());
      assert.deepEqual([r.status, r.challenge], [401, invalid(meta, why)], why);
      assert.equal((await call(base, key.sign(good), undefined, init())).status, 200, `still serving after: ${why}`);
    }
  } finally {
    await server.close();
    await jwks.close();
  }
});

test('an unknown kid refetches the JWK Set, so a rotated key is accepted', async () => {
  const old = signingKey('RS256', 'old');
  const jwks = await jwksServer([old]);
  const { base, resource, server, meta } = await protectedServer(jwtAuth(jwks, { jwksMinRefreshMs: 200 }));
  try {
    const c = claims(resource, 'alice', '');
    assert.equal((await call(base, old.sign(c), undefined, init())).status, 200);
    assert.equal(jwks.fetches, 1);
    const fresh = signingKey('RS256', 'new');
    jwks.keys = [fresh];
    await sleep(250);
    assert.equal((await call(base, fresh.sign(c), undefined, init())).status, 200, 'the new kid is fetched');
    assert.equal(jwks.fetches, 2);
    // Made-up kids within the interval: refused, and no further fetch.
    for (let i = 0; i < 5; i++) {
      const r = await call(base, fresh.sign(c, `made-up-${i}`), undefined, init());
      assert.deepEqual([r.status, r.challenge], [401, invalid(meta, 'no key of the issuer verifies this token')]);
    }
    assert.equal(jwks.fetches, 2, 'unknown kids are rate-limited');
    assert.equal((await call(base, fresh.sign({ ...c, sub: 'bob' }), undefined, init())).status, 200);
  } finally {
    await server.close();
    await jwks.close();
  }
});

test('a missing tool scope is 403 with the step-up challenge; malformed headers are 400', async () => {
  const key = signingKey('ES256', 'e1');
  const jwks = await jwksServer([key]);
  const { base, resource, server, meta } = await protectedServer(jwtAuth(jwks));
  try {
    const token = key.sign(claims(resource, 'bob', 'other'));
    const s = await session(base, token);
    const r = await call(base, token, s, toolCall('whoami'));
    assert.equal(r.status, 403);
    assert.equal(
      r.challenge,
      `Bearer error="insufficient_scope", error_description="the request needs the scopes: mcp:whoami", scope="mcp:whoami", resource_metadata="${meta}"`,
    );
    for (const [header, why] of [
      ['Bearer', 'the Bearer credentials carry no token'],
      ['Bearer a b', 'the bearer token has characters RFC 6750 does not allow (b64token)'],
    ]) {
      const m = await post(base, header, undefined, init());
      assert.deepEqual(
        [m.status, m.challenge],
        [400, `Bearer error="invalid_request", error_description="${why}", resource_metadata="${meta}"`],
        header,
      );
    }
    const ok = key.sign(claims(resource, 'bob', 'mcp:whoami'));
    const s2 = await session(base, ok);
    const w = await call(base, ok, s2, toolCall('whoami'));
    assert.deepEqual([w.status, textOf(w)], [200, 'bob']);
  } finally {
    await server.close();
    await jwks.close();
  }
});

test("another subject's token on a session gets 404, and the owner keeps it", async () => {
  const key = signingKey('RS256', 'r1');
  const jwks = await jwksServer([key]);
  const { base, resource, server } = await protectedServer(jwtAuth(jwks));
  try {
    const alice = key.sign(claims(resource, 'alice', 'mcp:whoami'));
    const mallory = key.sign(claims(resource, 'mallory', 'mcp:whoami'));
    const s = await session(base, alice);
    const r = await call(base, mallory, s, toolCall('whoami'));
    assert.equal(r.status, 404);
    assert.equal(r.body.error.message, 'Session not found: it expired or was terminated; initialize a new one');
    const ok = await call(base, alice, s, toolCall('whoami'));
    assert.deepEqual([ok.status, textOf(ok)], [200, 'alice']);
  } finally {
    await server.close();
    await jwks.close();
  }
});

/** An RFC 7662 introspection endpoint on loopback: answers by token, Basic credentials checked, calls counted. */
async function introspectionServer(answers) {
  const state = { answers, calls: 0, seen: [] };
  const basic = `Basic ${Buffer.from('rs-client:rs-secret').toString('base64')}`;
  const http = createServer(async (req, res) => {
    state.calls++;
    let body = '';
    for await (const chunk of req) body += chunk;
    const token = new URLSearchParams(body).get('token');
    state.seen.push({ path: req.url, authorization: req.headers.authorization, contentType: req.headers['content-type'], token });
    if (req.url !== '/introspect' || req.headers.authorization !== basic) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(state.answers[token] ?? { active: false }));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  state.url = `http://127.0.0.1:${http.address().port}/introspect`;
  state.close = () => new Promise((resolve) => http.close(resolve));
  return state;
}

test('introspected tokens (RFC 7662) are checked, cached, and refused with the reason', async () => {
  const endpoint = await introspectionServer({});
  const { base, resource, server, meta } = await protectedServer({
    authorizationServers: [ISSUER],
    toolScopes: { whoami: ['mcp:whoami'] },
    introspection: { url: endpoint.url, clientId: 'rs-client', clientSecret: 'rs-secret' },
  });
  try {
    endpoint.answers = {
      'opaque-good': { active: true, sub: 'carol', scope: 'mcp:whoami', aud: resource, exp: now() + 600 },
      'opaque-other-aud': { active: true, sub: 'carol', aud: 'https://other.example/mcp' },
    };
    const s = await session(base, 'opaque-good');
    const r = await call(base, 'opaque-good', s, toolCall('whoami'));
    assert.deepEqual([r.status, textOf(r)], [200, 'carol']);
    assert.equal(endpoint.calls, 1, 'three requests with one token, one introspection (cached)');
    assert.deepEqual(endpoint.seen[0], {
      path: '/introspect',
      authorization: `Basic ${Buffer.from('rs-client:rs-secret').toString('base64')}`,
      contentType: 'application/x-www-form-urlencoded',
      token: 'opaque-good',
    });
    for (const [token, why] of [
      ['opaque-revoked', 'the token is not active'],
      ['opaque-other-aud', 'the token is for another audience'],
    ]) {
      const refused = await call(base, token, undefined, init());
      assert.deepEqual([refused.status, refused.challenge], [401, invalid(meta, why)], token);
      assert.equal((await call(base, 'opaque-good', undefined, init())).status, 200, `still serving after ${token}`);
    }
  } finally {
    await server.close();
    await endpoint.close();
  }
});

test("requireAudience: the core checks a JavaScript verifier's resource (aud)", async () => {
  let resource;
  const verifyAccessToken = async (token) => {
    switch (token) {
      case 'ours':
        return { token, clientId: 'svc', scopes: [], resource: new URL(resource), extra: { sub: 'dave' } };
      case 'theirs':
        return { sub: 'dave', aud: 'https://other.example/mcp' };
      default:
        return { sub: 'dave' };
    }
  };
  const p = await protectedServer({ authorizationServers: [ISSUER], requireAudience: true }, { verifyAccessToken });
  resource = p.resource;
  try {
    assert.equal((await call(p.base, 'ours', undefined, init())).status, 200);
    for (const [token, why] of [
      ['theirs', 'the token is for another audience'],
      ['none', 'the token names no audience (aud)'],
    ]) {
      const r = await call(p.base, token, undefined, init());
      assert.deepEqual([r.status, r.challenge], [401, invalid(p.meta, why)], token);
    }
  } finally {
    await p.server.close();
  }
  assert.throws(
    () => new Server({ name: 'bad', version: '1', auth: { resource, authorizationServers: [ISSUER], requireAudience: true, jwt: { issuer: ISSUER, jwksUrl: 'https://as.example/jwks' } } }),
    { message: 'invalid auth option requireAudience: the jwt and introspection verifiers always check the audience; this is for a verifier given in code' },
  );
});

test('a JavaScript verifier: claims or an AuthInfo accepted, null and throws 401, unavailable 503', async () => {
  const verified = [];
  const verifyAccessToken = async (token) => {
    verified.push(token);
    switch (token) {
      case 'claims-token':
        return { sub: 'carol', scope: 'mcp:whoami', client_id: 'app', tenant: 'acme' };
      case 'authinfo-token':
        return { token, clientId: 'svc', scopes: ['mcp:whoami'], expiresAt: now() + 60, extra: { sub: 'dave', tenant: 'initech' } };
      case 'null-token':
        return null;
      case 'throw-token':
        throw new Error('this token was revoked');
      case 'sdk-invalid-token':
        throw new InvalidTokenError('Token has expired');
      case 'down-token':
        throw new VerifierUnavailableError('the session store is down');
      case 'sdk-server-error-token':
        throw new ServerError('the upstream failed');
      case 'string-throw-token':
        throw 'not an Error';
      case 'nosub-token':
        return { scope: 'mcp:whoami' };
      default:
        return undefined;
    }
  };
  const { base, server, meta } = await protectedServer(
    { authorizationServers: [ISSUER], toolScopes: { whoami: ['mcp:whoami'] } },
    { verifyAccessToken },
  );
  try {
    const s = await session(base, 'claims-token');
    const me = JSON.parse(textOf(await call(base, 'claims-token', s, toolCall('me'))));
    assert.equal(me.identity.subject, 'carol');
    assert.equal(me.identity.claims.tenant, 'acme');
    assert.equal(me.authorization, 'present');
    const s2 = await session(base, 'authinfo-token');
    const me2 = JSON.parse(textOf(await call(base, 'authinfo-token', s2, toolCall('me'))));
    assert.deepEqual([me2.identity.subject, me2.identity.clientId, me2.identity.scopes], ['dave', 'svc', ['mcp:whoami']]);
    assert.equal(me2.authInfo.extra.tenant, 'initech');
    assert.equal(textOf(await call(base, 'authinfo-token', s2, toolCall('whoami'))), 'dave');

    for (const [token, why] of [
      ['null-token', 'the token verifier did not accept the token'],
      ['throw-token', 'this token was revoked'],
      ['sdk-invalid-token', 'Token has expired'],
      ['string-throw-token', 'not an Error'],
      ['nosub-token', 'the token names no subject (no sub or client_id claim)'],
    ]) {
      const r = await call(base, token, undefined, init());
      assert.deepEqual([r.status, r.challenge], [401, invalid(meta, why)], token);
      assert.equal((await call(base, 'claims-token', undefined, init())).status, 200, `still serving after ${token}`);
    }
    for (const [token, why] of [
      ['down-token', 'the session store is down'],
      ['sdk-server-error-token', 'the upstream failed'],
    ]) {
      const r = await call(base, token, undefined, init());
      assert.deepEqual([r.status, r.challenge, r.body.error.message], [503, null, `the token could not be verified: ${why}`], token);
      assert.equal((await call(base, 'claims-token', undefined, init())).status, 200, `still serving after ${token}`);
    }
    assert.ok(verified.includes('throw-token'));
  } finally {
    await server.close();
  }
});

test("McpServer takes auth and the SDK's OAuthTokenVerifier; extra.authInfo has no token", async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const verifier = {
    prefix: 'user-',
    async verifyAccessToken(token) {
      return { token, clientId: 'web', scopes: ['read'], expiresAt: now() + 60, resource: new URL(resource), extra: { sub: this.prefix + token } };
    },
  };
  const mcp = new McpServer({ name: 'p', version: '1' }, { auth: { resource, authorizationServers: [ISSUER] }, verifyAccessToken: verifier });
  mcp.registerTool('info', {}, (extra) => ({ content: [{ type: 'text', text: JSON.stringify(extra.authInfo) }] }));
  await mcp.server.listen({ port });
  try {
    const base = `http://127.0.0.1:${port}`;
    const s = await session(base, 'ada');
    const info = JSON.parse(textOf(await call(base, 'ada', s, toolCall('info'))));
    assert.equal(info.token, undefined);
    assert.deepEqual([info.clientId, info.scopes, info.resource, info.extra.sub], ['web', ['read'], resource, 'user-ada']);
  } finally {
    await mcp.close();
  }
});

test('a synchronous verifier works the same', async () => {
  const { base, server, meta } = await protectedServer(
    { authorizationServers: [ISSUER] },
    {
      verifyAccessToken: (token) => {
        if (token === 'bad') throw new Error('unknown token');
        return { sub: `u-${token}` };
      },
    },
  );
  try {
    const s = await session(base, 'x1');
    assert.equal(textOf(await call(base, 'x1', s, toolCall('whoami'))), 'u-x1');
    const r = await call(base, 'bad', undefined, init());
    assert.deepEqual([r.status, r.challenge], [401, invalid(meta, 'unknown token')]);
  } finally {
    await server.close();
  }
});

test('handlers of an unprotected server see no identity', async () => {
  const server = new Server({ name: 'open', version: '1' });
  registerTools(server);
  const { port } = await server.listen({ port: 0 });
  try {
    const base = `http://127.0.0.1:${port}`;
    const r = await post(base, undefined, undefined, init());
    const me = JSON.parse(textOf(await post(base, undefined, r.session, toolCall('me'))));
    assert.deepEqual([me.identity, me.subject, me.authInfo], [null, null, null]);
  } finally {
    await server.close();
  }
});

test('a bad auth option throws a TypeError with the core text, its key spelled camelCase', () => {
  const base = {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://as.example.com'],
    jwt: { issuer: 'https://as.example.com', jwksUrl: 'https://as.example.com/jwks' },
  };
  const refused = (auth, message, extra = {}) => {
    for (const make of [() => new Server({ name: 's', version: '1', auth, ...extra }), () => new McpServer({ name: 's', version: '1' }, { auth, ...extra })]) {
      assert.throws(make, (e) => {
        assert.ok(e instanceof TypeError, String(e));
        assert.equal(e.message, message);
        assert.equal(e.code, 'ERR_INVALID_ARG_VALUE');
        return true;
      });
    }
  };
  refused({ ...base, bogus: 1 }, 'invalid auth option bogus: unknown option');
  refused({ ...base, authorizationServers: [] }, 'invalid auth option authorizationServers: name at least one authorization server');
  refused(
    { ...base, resource: 'http://mcp.example.com/mcp' },
    'invalid auth option resource: "http://mcp.example.com/mcp" must use https (http only on a loopback host)',
  );
  refused(
    { ...base, jwt: { issuer: 'i', jwksUrl: 'http://as.example.com/jwks' } },
    'invalid auth option jwt.jwksUrl: "http://as.example.com/jwks" must use https (http only on a loopback host)',
  );
  refused({ ...base, jwt: { issuer: 'i' } }, 'invalid auth option jwt: exactly one of jwks_url and keys is required');
  refused({ ...base, jwt: undefined }, 'invalid auth option verifier: exactly one of jwt and introspection is required');
  refused(
    base,
    'invalid auth option verifier: a verifier given in code replaces jwt and introspection; name neither',
    { verifyAccessToken: () => ({ sub: 'x' }) },
  );
  refused('not an object', 'invalid auth option auth: expected an object of options');
  assert.throws(() => new Server({ name: 's', version: '1', verifyAccessToken: () => null }), {
    name: 'TypeError',
    message: 'new Server(options): verifyAccessToken needs the auth option',
  });
  assert.throws(() => new Server({ name: 's', version: '1', auth: base, verifyAccessToken: 42 }), {
    name: 'TypeError',
    message: 'new Server(options): verifyAccessToken must be a function or an OAuthTokenVerifier ({ verifyAccessToken })',
  });
});
