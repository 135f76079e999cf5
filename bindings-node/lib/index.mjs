// The ES module entry point: the same objects as the CommonJS entry (one copy of each class,
// so `instanceof McpError` holds whichever way a module imported the package).
import cjs from './index.js';

export const {
  Server,
  Context,
  InputRequest,
  InputRequired,
  DEFAULT_MAX_TOKENS,
  McpError,
  InvalidParamsError,
  MethodNotFoundError,
  InternalError,
  ResourceNotFoundError,
  ClientRequestError,
  RequestCancelledError,
  InvalidArgumentsError,
  ErrorCode,
} = cjs;

export default cjs;
