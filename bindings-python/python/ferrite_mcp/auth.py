"""Authorization: the server as an OAuth 2.1 resource server (MCP authorization), configured
the way the official SDK is, ``MCPServer(..., auth=AuthSettings(...), token_verifier=...)``.

The core does the work: it reads the configuration (the core's ``AuthConfig``; a bad option
raises :class:`~ferrite_mcp.ConfigError` with the core's text), verifies every Streamable HTTP
request's bearer token (JWTs against a JWKS URL or static keys, RFC 7662 introspection, or the
``token_verifier`` given here), answers 401/400/403/503 with RFC 6750 challenges, serves the
RFC 9728 metadata and binds sessions to their subject. This module only adapts:

- the official SDK's ``AuthSettings`` (its own class, duck-typed by attribute names, or this
  module's :class:`AuthSettings`, or a dict of the core's keys) to the core's configuration;
- a Python verifier (the official ``TokenVerifier`` protocol, ``async verify_token(token) ->
  AccessToken | None``, or a plain callable answering a claims dict; ``def`` or ``async def``)
  to the claims the core reads;
- the core's verified identity to :class:`Identity` (``ctx.identity``) and to the official
  SDK's ``get_access_token()``.

The token itself is never kept, logged or handed to handlers: ``get_access_token().token`` is
``None``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import inspect
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Protocol, Tuple

from .errors import ConfigError, VerifierUnavailableError

if TYPE_CHECKING:
    from . import _ferrite

__all__ = [
    "AuthSettings",
    "AccessToken",
    "Identity",
    "TokenVerifier",
    "get_access_token",
    "REFUSED",
]

#: The ``error_description`` of a token the verifier answered ``None`` for (401).
REFUSED = "the token verifier did not accept the token"


@dataclasses.dataclass(frozen=True)
class AuthSettings:
    """The resource server's settings: the official SDK's ``AuthSettings`` field names
    (``issuer_url``, ``resource_server_url``, ``required_scopes``,
    ``service_documentation_url``, ``validate_token_resource``) and the core's own keys.

    ``issuer_url`` is the authorization server (``authorization_servers=[issuer_url]``),
    ``resource_server_url`` this server's canonical URI (``resource``: the audience tokens
    must name, and where the metadata URL comes from), ``service_documentation_url`` the
    metadata's ``resource_documentation``. The rest are the core's keys: ``tool_scopes``,
    ``prompt_scopes``, ``resource_scopes`` (name or URI -> scopes), ``hide_unauthorized``
    (leave what the caller lacks a scope for out of the lists; default False: listed, and a
    call answers 403 with the scopes to ask for), ``require_audience`` (with a
    ``token_verifier``: the core also requires the verified token's ``resource``, its ``aud``,
    to name ``resource``; ``validate_token_resource=True`` says the same in the official SDK's
    words), ``scopes_supported``, ``resource_name``, and
    ``jwt`` or ``introspection`` (dicts of the core's ``JwtConfig``/``IntrospectionConfig``)
    when no ``token_verifier`` is given. Every value is checked by the core.

    The official SDK's authorization-server settings (``client_registration_options``,
    ``revocation_options``, ``identity_assertion_enabled``) are accepted when disabled:
    Ferrite is a resource server only."""

    issuer_url: Optional[str] = None
    resource_server_url: Optional[str] = None
    required_scopes: Optional[List[str]] = None
    service_documentation_url: Optional[str] = None
    validate_token_resource: Optional[bool] = None
    client_registration_options: Any = None
    revocation_options: Any = None
    identity_assertion_enabled: bool = False
    resource: Optional[str] = None
    authorization_servers: Optional[List[str]] = None
    scopes_supported: Optional[List[str]] = None
    tool_scopes: Optional[Dict[str, List[str]]] = None
    prompt_scopes: Optional[Dict[str, List[str]]] = None
    resource_scopes: Optional[Dict[str, List[str]]] = None
    hide_unauthorized: Optional[bool] = None
    require_audience: Optional[bool] = None
    resource_name: Optional[str] = None
    resource_documentation: Optional[str] = None
    jwt: Optional[Dict[str, Any]] = None
    introspection: Optional[Dict[str, Any]] = None


@dataclasses.dataclass
class AccessToken:
    """The official SDK's ``AccessToken`` (``mcp.server.auth.provider``): what a
    ``verify_token`` may return, and what :func:`get_access_token` gives. There ``token`` is
    always ``None``: Ferrite never keeps a token past its verification."""

    token: Optional[str] = None
    client_id: str = ""
    scopes: List[str] = dataclasses.field(default_factory=list)
    expires_at: Optional[int] = None
    resource: Optional[str] = None
    subject: Optional[str] = None
    claims: Optional[Dict[str, Any]] = None


@dataclasses.dataclass(frozen=True, eq=True)
class Identity:
    """The verified caller behind a request (the core's ``Identity``); never the token.
    ``repr`` hides the subject and the claims' values (they are personal data), as the core's
    ``Debug`` does."""

    #: ``sub``, or the client id of a token without one.
    subject: str
    #: ``client_id`` (or ``azp``).
    client_id: Optional[str]
    #: From ``scope`` (space-separated) or ``scp``.
    scopes: Tuple[str, ...]
    #: ``exp``, seconds since the epoch.
    expires_at: Optional[int]
    #: ``iss``.
    issuer: Optional[str]
    #: Every claim of the token (or of the verifier's answer).
    claims: Dict[str, Any]

    def has_scope(self, scope: str) -> bool:
        """Whether the token grants ``scope``."""
        return scope in self.scopes

    def __repr__(self) -> str:
        return (
            f"Identity(subject=<redacted>, client_id={self.client_id!r}, scopes={list(self.scopes)!r}, "
            f"expires_at={self.expires_at!r}, issuer={self.issuer!r}, claims={sorted(self.claims)!r})"
        )

    @classmethod
    def _from_core(cls, raw: Optional[Dict[str, Any]]) -> Optional["Identity"]:
        if raw is None:
            return None
        return cls(
            subject=raw["subject"],
            client_id=raw.get("clientId"),
            scopes=tuple(raw.get("scopes") or ()),
            expires_at=raw.get("expiresAt"),
            issuer=raw.get("issuer"),
            claims=dict(raw.get("claims") or {}),
        )


class TokenVerifier(Protocol):
    """The official SDK's ``TokenVerifier`` protocol: the claims of a valid token as an
    :class:`AccessToken` (the official one or this module's), or ``None`` to refuse it (401).
    ``verify_token`` may be ``def`` or ``async def``; raising refuses the token with the
    exception's message, :class:`~ferrite_mcp.VerifierUnavailableError` answers 503."""

    async def verify_token(self, token: str) -> Optional[Any]: ...


# ----- the current request's identity (get_access_token) -----

_CURRENT: "contextvars.ContextVar[Optional[_ferrite.RequestContext]]" = contextvars.ContextVar(
    "ferrite_mcp_request", default=None
)


def get_access_token() -> Optional[AccessToken]:
    """The verified access token of the request being handled (the official SDK's
    ``mcp.server.auth.middleware.auth_context.get_access_token``), or ``None`` outside a
    handler or on an unauthenticated request. ``token`` is ``None`` (Ferrite never keeps
    tokens); ``resource`` is the token's ``aud`` (the first, for a list); ``subject`` and
    ``claims`` are the identity's. ``ctx.identity`` gives the same as :class:`Identity`."""
    ctx = _CURRENT.get()
    identity = Identity._from_core(ctx.identity) if ctx is not None else None
    if identity is None:
        return None
    aud = identity.claims.get("aud")
    if isinstance(aud, list):
        aud = aud[0] if aud else None
    return AccessToken(
        token=None,
        client_id=identity.client_id or "",
        scopes=list(identity.scopes),
        expires_at=identity.expires_at,
        resource=aud if isinstance(aud, str) else None,
        subject=identity.subject,
        claims=dict(identity.claims),
    )


def _with_request(wrapper: Callable[..., Any], is_async: bool, wants_context: bool) -> Tuple[Callable[..., Any], bool, bool]:
    """A handler wrapper of a protected server: it gets the request context always (to make
    :func:`get_access_token` answer inside the handler) and passes it on only when asked."""
    if is_async:

        async def call_async(inp: Any, ctx: Any) -> Any:
            _CURRENT.set(ctx)  # the handler's own task: its context ends with it
            return await wrapper(inp, ctx if wants_context else None)

        return call_async, True, True

    def call(inp: Any, ctx: Any) -> Any:
        token = _CURRENT.set(ctx)
        try:
            return wrapper(inp, ctx if wants_context else None)
        finally:
            _CURRENT.reset(token)

    return call, False, True


# ----- settings -> the core's configuration -----

# The official SDK's names, each with the core key it sets.
_RENAMED = {
    "issuer_url": "authorization_servers",
    "resource_server_url": "resource",
    "service_documentation_url": "resource_documentation",
}
# The official SDK's authorization-server settings: Ferrite is a resource server only.
_AS_ONLY = ("client_registration_options", "revocation_options", "identity_assertion_enabled")
_CORE_KEYS = (
    "resource",
    "authorization_servers",
    "scopes_supported",
    "required_scopes",
    "tool_scopes",
    "prompt_scopes",
    "resource_scopes",
    "hide_unauthorized",
    "require_audience",
    "resource_name",
    "resource_documentation",
    "jwt",
    "introspection",
)


def _plain(value: Any) -> Any:
    """JSON values as they are; URLs (pydantic's ``AnyHttpUrl``, ``yarl``...) as text."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def _enabled(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    enabled = value.get("enabled") if isinstance(value, Mapping) else getattr(value, "enabled", True)
    return bool(enabled)


def _config(auth: Any, has_verifier: bool) -> Dict[str, Any]:
    """The core's ``AuthConfig`` (snake_case keys) of ``auth``: a dict of the core's keys (the
    official names are read too), :class:`AuthSettings`, or any object with the official
    ``AuthSettings`` attributes. Values are checked by the core, not here."""
    if isinstance(auth, Mapping):
        fields = dict(auth)
    else:
        names = tuple(_RENAMED) + _AS_ONLY + ("validate_token_resource",) + _CORE_KEYS
        fields = {n: getattr(auth, n) for n in names if hasattr(auth, n)}
        if not fields:
            raise ConfigError(
                f"invalid auth option auth: expected AuthSettings or a dict of options, not {type(auth).__name__}"
            )
    out: Dict[str, Any] = {}
    given: Dict[str, str] = {}

    def put(key: str, value: Any, spelling: str) -> None:
        if key in out and out[key] != value:
            raise ConfigError(f"invalid auth option {key}: also given as {given.get(key, key)}; pass one of them")
        out[key] = value
        given[key] = spelling

    for name, value in fields.items():
        if value is None:
            continue
        if name in _AS_ONLY:
            if _enabled(value):
                raise ConfigError(
                    f"invalid auth option {name}: Ferrite is a resource server only; "
                    "this is the authorization server's setting"
                )
            continue
        if name == "validate_token_resource":
            # The official SDK's switch for checking a verified token's resource: with a
            # token_verifier, the core's require_audience (the AccessToken's `resource`, its
            # `aud`, must name `resource`); the jwt and introspection verifiers always check it.
            if value and has_verifier:
                put("require_audience", True, name)
            continue
        if name == "issuer_url":
            put("authorization_servers", [_plain(value)], name)
        elif name in _RENAMED:
            put(_RENAMED[name], _plain(value), name)
        else:
            put(name, _plain(value), name)
    return out


# ----- a Python verifier -> the envelope the compiled module reads -----


def _message(e: BaseException) -> str:
    return str(e) or type(e).__name__


def _refusal(e: BaseException) -> Dict[str, Any]:
    return {"error": {"message": _message(e), "unavailable": isinstance(e, VerifierUnavailableError)}}


def _claims_of_token(t: Any) -> Dict[str, Any]:
    """The claims the core reads from an ``AccessToken`` (the official one or ours):
    ``claims`` first, then ``sub``, ``client_id``, ``scope``, ``exp`` and ``aud``."""
    claims: Dict[str, Any] = dict(getattr(t, "claims", None) or {})
    subject = getattr(t, "subject", None)
    if subject:
        claims["sub"] = str(subject)
    if t.client_id is not None:
        claims["client_id"] = str(t.client_id)
    claims["scope"] = " ".join(str(s) for s in t.scopes)
    expires_at = getattr(t, "expires_at", None)
    if expires_at is not None:
        claims["exp"] = expires_at
    resource = getattr(t, "resource", None)
    if resource is not None:
        claims["aud"] = str(resource)
    return claims


def _answer(value: Any) -> Dict[str, Any]:
    if value is None:
        return {"error": {"message": REFUSED}}
    if isinstance(value, Mapping):
        return {"ok": _plain(value)}
    if hasattr(value, "client_id") and hasattr(value, "scopes"):
        return {"ok": _plain(_claims_of_token(value))}
    return {"error": {"message": "the token verifier returned neither claims nor an AccessToken"}}


def _verifier(token_verifier: Any) -> Tuple[Callable[[str, Any], Any], bool]:
    """The wrapper the compiled module calls as ``wrapper(token, None)``, and whether it is
    ``async def``. It never raises: it answers ``{"ok": claims}`` or ``{"error": {"message",
    "unavailable"}}``."""
    from ._handlers import _is_async

    fn = getattr(token_verifier, "verify_token", None)
    if not callable(fn):
        if not callable(token_verifier):
            raise TypeError(
                "token_verifier must be a TokenVerifier (an object with verify_token(token)) or a callable "
                f"answering the token's claims, not {type(token_verifier).__name__}"
            )
        fn = token_verifier
    verify: Callable[[str], Any] = fn
    if _is_async(verify):

        async def call_async(token: str, _ctx: Any) -> Dict[str, Any]:
            try:
                return _answer(await verify(token))
            except Exception as e:  # a refusal (401), or 503 for VerifierUnavailableError
                return _refusal(e)

        return call_async, True

    def call(token: str, _ctx: Any) -> Dict[str, Any]:
        try:
            value = verify(token)
            if inspect.isawaitable(value):
                close = getattr(value, "close", None)
                if close:
                    close()
                raise TypeError("the token verifier returned an awaitable: declare it `async def`")
            return _answer(value)
        except Exception as e:
            return _refusal(e)

    return call, False


def _settings(auth: Any, token_verifier: Any) -> Tuple[Optional[Dict[str, Any]], Optional[Callable[..., Any]], bool]:
    """The ``Core`` arguments of a server's ``auth`` and ``token_verifier``."""
    if auth is None:
        if token_verifier is not None:
            raise ConfigError("invalid auth option token_verifier: a token_verifier needs the auth settings")
        return None, None, False
    config = _config(auth, token_verifier is not None)
    if token_verifier is None:
        return config, None, False
    wrapper, is_async = _verifier(token_verifier)
    return config, wrapper, is_async
