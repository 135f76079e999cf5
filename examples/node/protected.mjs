// A protected MCP server: an OAuth 2.1 resource server with one scoped tool, written as with
// the TypeScript SDK's McpServer.
//
//   FERRITE_AUTH_ISSUER=https://as.example FERRITE_AUTH_AUDIENCE=http://127.0.0.1:8000/mcp \
//   FERRITE_AUTH_JWKS_URL=https://as.example/jwks node examples/node/protected.mjs --port 8000
//
// Every request to http://127.0.0.1:N/mcp needs a bearer JWT signed by a key of the JWK Set,
// issued by FERRITE_AUTH_ISSUER for the audience FERRITE_AUTH_AUDIENCE (this server's URL).
// Without one the answer is 401 naming the Protected Resource Metadata, which tells the client
// where to get a token. `whoami` needs the scope mcp:whoami (403 naming it otherwise) and
// answers the token's subject (`extra.authInfo` as the SDK gives it, without the token).
// (`--auth` is accepted and changes nothing: the tests start every protected server the same
// way.) It imports the package from bindings-node/ (run `npm install` there first).
import { McpServer } from '../../bindings-node/lib/index.mjs';

const USAGE = 'usage: protected.mjs --port N [--auth] (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)';

function fail(why) {
  process.stderr.write(`protected.mjs: ${why}\n${USAGE}\n`);
  process.exit(2);
}

let port;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--port') port = Number(args[++i]);
  else if (args[i] !== '--auth') fail(`unknown argument ${JSON.stringify(args[i])}`);
}
if (!Number.isInteger(port) || port <= 0) fail('--port is required');
const [issuer, resource, jwksUrl] = ['FERRITE_AUTH_ISSUER', 'FERRITE_AUTH_AUDIENCE', 'FERRITE_AUTH_JWKS_URL'].map(
  (name) => process.env[name] || fail(`${name} is not set`),
);

const mcp = new McpServer(
  { name: 'ferrite-protected', version: '0.1.0' },
  {
    auth: {
      resource,
      authorizationServers: [issuer],
      toolScopes: { whoami: ['mcp:whoami'] },
      jwt: { issuer, jwksUrl },
    },
  },
);
mcp.registerTool('whoami', { description: 'The subject of your access token' }, (extra) => ({
  content: [{ type: 'text', text: extra.authInfo?.extra?.sub ?? '' }],
}));
const { url } = await mcp.server.listen({ port });
process.stderr.write(`protected.mjs: ${url}\n`);
