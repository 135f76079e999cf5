/**
 * Authorization (MCP's OAuth 2.1 resource server): the `auth` option of `new Server(...)` and
 * `new McpServer(...)`, the token verifier written in JavaScript (`verifyAccessToken`, the
 * TypeScript SDK's `OAuthTokenVerifier`), and what handlers see of the caller (`ctx.identity`,
 * `ctx.subject`, the SDK's `extra.authInfo`).
 *
 * The configuration is the core's `AuthConfig` as it is (camelCase keys here; snake_case is
 * read too): the core checks it and refuses a bad option with the same text on every surface.
 * The HTTP transport verifies every request's bearer token, answers 401/400/403/503 with
 * RFC 6750 challenges, serves the RFC 9728 metadata and binds sessions to their subject; this
 * file only adapts the verifier's answer to the claims the core reads, and the core's
 * identity to the SDK's `AuthInfo`.
 */

import { errorMessage } from './errors.js';
import type { JsonObject, JsonValue } from './model.js';

/** JWT verification (the core's `JwtConfig`). */
export interface JwtOptions {
  /** The `iss` every token must carry. */
  issuer: string;
  /** The `aud` every token must carry (default: `resource`, as RFC 8707 asks). */
  audience?: string;
  /** Where the issuer publishes its keys (a JWK Set). One of `jwksUrl` and `keys`. */
  jwksUrl?: string;
  /** Static keys: JWK objects, or PEM public keys. */
  keys?: (JsonObject | string)[];
  /** Accepted algorithms (default `["RS256", "ES256", "EdDSA"]`; HMAC and `none` are refused). */
  algorithms?: string[];
  /** Clock skew tolerated on `exp` and `nbf`, seconds (default 60). */
  leewaySecs?: number;
  /** How long a fetched JWK Set is used, seconds (default 300). */
  jwksCacheSecs?: number;
  /** The least time between two fetches caused by unknown `kid`s, milliseconds (default 10000). */
  jwksMinRefreshMs?: number;
  /** How long a verified token is remembered (by its SHA-256), seconds (default 60; never past `exp`). */
  cacheSecs?: number;
  /** How many verified tokens are remembered (default 10000). */
  cacheCapacity?: number;
}

/** RFC 7662 token introspection (the core's `IntrospectionConfig`). */
export interface IntrospectionOptions {
  /** The introspection endpoint. */
  url: string;
  /** This resource server's client id at the authorization server (HTTP Basic). */
  clientId: string;
  clientSecret?: string;
  /** How long an answer is reused, seconds (default 60; never past the token's `exp`). */
  cacheSecs?: number;
  /** How many answers are kept (default 10000; 0 turns the cache off). */
  cacheCapacity?: number;
}

/**
 * The resource server's configuration (the core's `AuthConfig`): the server then requires
 * `Authorization: Bearer <token>` on every Streamable HTTP request. Give `jwt` or
 * `introspection`, or neither and a `verifyAccessToken`.
 */
export interface AuthOptions {
  /** The canonical URI of this server (`https://mcp.example.com/mcp`; `http` only on loopback): the audience tokens must name. */
  resource: string | URL;
  /** The authorization servers that issue tokens for it (at least one). */
  authorizationServers: (string | URL)[];
  /** The scopes the metadata advertises (default: every scope named below). */
  scopesSupported?: string[];
  /** Scopes every request needs. */
  requiredScopes?: string[];
  /** Scopes per tool name. */
  toolScopes?: { [tool: string]: string[] };
  /** Scopes per prompt name. */
  promptScopes?: { [prompt: string]: string[] };
  /** Scopes per resource URI. */
  resourceScopes?: { [uri: string]: string[] };
  /** Leave what the caller lacks a scope for out of the lists (default false: listed, and a call gets 403 naming the scopes). */
  hideUnauthorized?: boolean;
  /**
   * With a `verifyAccessToken` verifier: the core also requires the `AuthInfo`'s `resource`
   * (its `aud`) to name `resource`, else 401 `invalid_token` (default false: the verifier
   * decides). The `jwt` and `introspection` verifiers always check it; naming it with them is an error.
   */
  requireAudience?: boolean;
  /** `resource_name` of the metadata. */
  resourceName?: string;
  /** `resource_documentation` of the metadata. */
  resourceDocumentation?: string;
  jwt?: JwtOptions;
  introspection?: IntrospectionOptions;
}

/**
 * The TypeScript SDK's `AuthInfo` (a verified access token). What a `verifyAccessToken`
 * may return, and what handlers get as `extra.authInfo`. There `token` is always
 * undefined: Ferrite never keeps a token past its verification.
 */
export interface AuthInfo {
  /** The token: read by nothing when a verifier returns it, undefined in `extra.authInfo`. */
  token?: string;
  /** The client the token was issued to ('' when the token names none). */
  clientId: string;
  scopes: string[];
  /** When the token expires, seconds since the epoch. */
  expiresAt?: number;
  /** The resource (audience) the token is for. */
  resource?: URL;
  /** In `extra.authInfo`: every claim of the token (`sub`, `iss`, custom ones). From a verifier: claims merged into the identity's. */
  extra?: { [key: string]: unknown };
}

/** The verified caller behind a request (the core's `Identity`); never the token. */
export interface Identity {
  /** `sub`, or the client id of a token without one. */
  subject: string;
  /** `client_id` (or `azp`). */
  clientId?: string;
  /** From `scope` (space-separated) or `scp`. */
  scopes: string[];
  /** `exp`, seconds since the epoch. */
  expiresAt?: number;
  /** `iss`. */
  issuer?: string;
  /** Every claim of the token (or of the verifier's answer). */
  claims: JsonObject;
}

/** A token's claims, as a verifier may return them: `sub`, `client_id`, `scope` or `scp`, `exp`, `iss`, anything else. */
export type TokenClaims = { [claim: string]: JsonValue | undefined };

/**
 * A token verifier written in JavaScript: the claims of a valid token, or an `AuthInfo`
 * (what the TypeScript SDK's `OAuthTokenVerifier.verifyAccessToken` returns). `null` or
 * `undefined`, or a throw, refuses the token with 401 (the error's message is the
 * challenge's `error_description`); a `VerifierUnavailableError` answers 503 (retry later).
 */
export type VerifyAccessToken = (
  token: string,
) => AuthInfo | TokenClaims | null | undefined | Promise<AuthInfo | TokenClaims | null | undefined>;

/** The TypeScript SDK's `OAuthTokenVerifier`. */
export interface OAuthTokenVerifier {
  verifyAccessToken(token: string): Promise<AuthInfo> | AuthInfo;
}

/**
 * Thrown by a token verifier that cannot decide now (its own backend is down): the request
 * gets 503 with `Retry-After`, not 401, so the client retries instead of re-authorizing.
 */
export class VerifierUnavailableError extends Error {
  constructor(message = 'the token verifier is unavailable') {
    super(message);
    this.name = 'VerifierUnavailableError';
  }
}

/**
 * The TypeScript SDK's `InvalidTokenError`: thrown by a verifier, 401 with its message. (Any
 * other error does the same; this class is here so that verifiers port unchanged.)
 */
export class InvalidTokenError extends Error {
  readonly errorCode = 'invalid_token';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** The `error_description` of a token a verifier answered `null` or `undefined` for. */
export const REFUSED = 'the token verifier did not accept the token';

function isAuthInfo(v: object): v is AuthInfo {
  const o = v as { clientId?: unknown; scopes?: unknown };
  return typeof o.clientId === 'string' && Array.isArray(o.scopes);
}

/** The claims the core reads from an `AuthInfo` (`client_id`, `scope`, `exp`, `aud`, then `extra`'s own). */
function claimsOf(info: AuthInfo): TokenClaims {
  const claims: TokenClaims = {};
  if (info.extra !== null && typeof info.extra === 'object') Object.assign(claims, info.extra);
  claims.client_id = info.clientId;
  claims.scope = info.scopes.join(' ');
  if (info.expiresAt !== undefined && info.expiresAt !== null) claims.exp = info.expiresAt;
  if (info.resource !== undefined && info.resource !== null) claims.aud = String(info.resource);
  return claims;
}

function refusal(message: string, unavailable = false): string {
  return JSON.stringify({ error: unavailable ? { message, unavailable } : { message } });
}

/** @internal Whether an error means "cannot decide now" (503) rather than "invalid" (401). */
function isUnavailable(e: unknown): boolean {
  if (e instanceof VerifierUnavailableError) return true;
  // The TypeScript SDK's OAuth errors carry an `errorCode`.
  const code = (e as { errorCode?: unknown } | null)?.errorCode;
  return code === 'temporarily_unavailable' || code === 'server_error';
}

/** @internal The function a `verifyAccessToken` option is. */
export function verifierFunction(v: unknown): ((token: string) => unknown) | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'function') return v as (token: string) => unknown;
  const method = (v as { verifyAccessToken?: unknown }).verifyAccessToken;
  if (typeof v === 'object' && typeof method === 'function') return (token) => method.call(v, token);
  throw new TypeError('new Server(options): verifyAccessToken must be a function or an OAuthTokenVerifier ({ verifyAccessToken })');
}

/**
 * @internal A user verifier adapted to the native shape `(token) => Promise<envelope>`:
 * `{"ok": claims}`, or `{"error": {"message", "unavailable"?}}`. Never rejects.
 */
export function nativeVerifier(verify: (token: string) => unknown): (token: string) => Promise<string> {
  return async (token) => {
    try {
      const answer = await verify(token);
      if (answer === null || answer === undefined) return refusal(REFUSED);
      if (typeof answer !== 'object' || Array.isArray(answer)) {
        return refusal('the token verifier returned neither claims nor an AuthInfo');
      }
      return JSON.stringify({ ok: isAuthInfo(answer) ? claimsOf(answer) : answer });
    } catch (e) {
      try {
        return refusal(errorMessage(e), isUnavailable(e));
      } catch {
        return refusal('the token verifier failed');
      }
    }
  };
}

/** @internal The SDK's `AuthInfo` of an identity (no token). */
export function authInfoOf(id: Identity): AuthInfo {
  const info: AuthInfo = { token: undefined, clientId: id.clientId ?? '', scopes: id.scopes, extra: id.claims };
  if (id.expiresAt !== undefined) info.expiresAt = id.expiresAt;
  const aud = id.claims.aud;
  const resource = typeof aud === 'string' ? aud : Array.isArray(aud) && typeof aud[0] === 'string' ? aud[0] : undefined;
  if (resource !== undefined) {
    try {
      info.resource = new URL(resource);
    } catch {
      // An audience that is no URL: no resource.
    }
  }
  return info;
}

/** @internal The core's identity JSON (nulls for absent values) as an `Identity`. */
export function identityOf(json: string): Identity {
  const raw = JSON.parse(json) as {
    subject: string;
    clientId: string | null;
    scopes: string[];
    expiresAt: number | null;
    issuer: string | null;
    claims: JsonObject;
  };
  const id: Identity = { subject: raw.subject, scopes: raw.scopes, claims: raw.claims };
  if (raw.clientId !== null) id.clientId = raw.clientId;
  if (raw.expiresAt !== null) id.expiresAt = raw.expiresAt;
  if (raw.issuer !== null) id.issuer = raw.issuer;
  return Object.freeze(id);
}
