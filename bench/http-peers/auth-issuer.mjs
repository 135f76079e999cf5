// The authorization server side of the `ferrite (rust, auth)` benchmark row: an RSA key made
// at start, its JWK Set served on loopback, and one RS256 access token for the audience
// given as the first argument. Prints {"jwks_url", "issuer", "token"} as one JSON line, then
// serves until killed. Only node:crypto and node:http (no dependencies).
import { createServer } from 'node:http';
import { generateKeyPairSync, sign } from 'node:crypto';

const audience = process.argv[2];
if (!audience) {
  console.error('usage: auth-issuer.mjs AUDIENCE');
  process.exit(2);
}
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' };
const b64 = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

const server = createServer((req, res) => {
  if (req.url === '/jwks') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  } else {
    res.writeHead(404).end();
  }
});
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: issuer, aud: audience, sub: 'bench', scope: 'mcp:whoami', iat: now, exp: now + 24 * 3600 };
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'bench' })}.${b64(claims)}`;
  const token = `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  process.stdout.write(`${JSON.stringify({ jwks_url: `${issuer}/jwks`, issuer, token })}\n`);
});
