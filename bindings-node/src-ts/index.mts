/**
 * The ES module entry point: the same objects as the CommonJS entry (one copy of each class,
 * so `instanceof McpError` holds whichever way a module imported the package). The values are
 * named one by one (a `*` re-export of a CommonJS module would also show its `__esModule`
 * marker); `test/modules.test.mjs` checks that both entries export the same names.
 */

import cjs from './index.js';

export type * from './index.js';
export {
  ClientRequestError,
  Connection,
  Context,
  DEFAULT_MAX_TOKENS,
  ErrorCode,
  InputRequest,
  InputRequired,
  InternalError,
  InvalidArgumentsError,
  InvalidParamsError,
  InvalidTokenError,
  McpError,
  McpServer,
  MethodNotFoundError,
  RequestCancelledError,
  ResourceNotFoundError,
  ResourceTemplate,
  Server,
  StdioServerTransport,
  UpstreamError,
  UrlElicitationRequiredError,
  VerifierUnavailableError,
  completable,
  flushTelemetry,
  setDiagnostics,
  stderrDiagnostics,
} from './index.js';
export default cjs;
