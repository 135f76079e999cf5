// The CommonJS typing path: `require` resolves the `require` condition's declarations.
import ferrite = require('ferrite-mcp');

const server = new ferrite.Server({ name: 'cjs-types', version: '1.0.0' });
server.tool('hello', () => 'hi');
const e: ferrite.McpError = new ferrite.InvalidParamsError('x');
void e;
