"""Authorization: a protected server (``auth=``) over Streamable HTTP with real signed JWTs.

Keys are generated here (RSA, P-256, Ed25519) and their JWK Set, and an RFC 7662
introspection endpoint, are served on loopback by the test; every refusal is checked for its exact status and ``WWW-Authenticate`` header (the
core's formats, as ``core/tests/auth.rs`` pins them), followed by a request that shows the
server still serving. Also: a verifier written in Python (the official ``TokenVerifier``
protocol, or a callable answering claims; ``def`` or ``async def``), the identity handlers
see (``ctx.identity``, ``ctx.subject``, ``get_access_token()``), and the configuration's
errors (the core's text)."""

from __future__ import annotations

import base64
import http.client
import json
import queue
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List, Optional, Tuple

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from ferrite_mcp import (
    AccessToken,
    AuthSettings,
    ConfigError,
    Context,
    MCPServer,
    Server,
    VerifierUnavailableError,
    get_access_token,
)
from ferrite_mcp.auth import REFUSED

ISSUER = "https://as.example.test"
V = "2025-11-25"


# ----- the issuer: signing keys and a JWK Set on loopback -----


@dataclass
class Key:
    alg: str
    kid: str
    private: Any

    @staticmethod
    def rsa(kid: str) -> "Key":
        return Key("RS256", kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @staticmethod
    def p256(kid: str) -> "Key":
        return Key("ES256", kid, ec.generate_private_key(ec.SECP256R1()))

    @staticmethod
    def ed25519(kid: str) -> "Key":
        return Key("EdDSA", kid, ed25519.Ed25519PrivateKey.generate())

    def jwk(self) -> Dict[str, Any]:
        algorithm = {"RS256": RSAAlgorithm, "ES256": ECAlgorithm, "EdDSA": OKPAlgorithm}[self.alg]
        jwk: Dict[str, Any] = algorithm.to_jwk(self.private.public_key(), as_dict=True)  # type: ignore[attr-defined]
        jwk.update({"kid": self.kid, "alg": self.alg, "use": "sig"})
        return jwk

    def sign(self, claims: Dict[str, Any], kid: Optional[str] = None) -> str:
        return jwt.encode(claims, self.private, algorithm=self.alg, headers={"kid": kid or self.kid})


@dataclass
class Issuer:
    """A JWK Set endpoint whose keys the test replaces, counting its fetches."""

    keys: List[Key] = field(default_factory=list)
    fetches: int = 0
    url: str = ""
    #: RFC 7662: the answers of the introspection endpoint, by token.
    active: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    introspections: int = 0

    @property
    def jwks_url(self) -> str:
        return f"{self.url}/jwks"


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    state = Issuer()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:
            state.fetches += 1
            body = json.dumps({"keys": [k.jwk() for k in state.keys]}).encode()
            self.send_response(200 if self.path == "/jwks" else 404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # /introspect, with HTTP Basic client credentials
            state.introspections += 1
            form = dict(urllib.parse.parse_qsl(self.rfile.read(int(self.headers.get("content-length", "0"))).decode()))
            basic = base64.b64encode(b"rs-client:rs-secret").decode()
            if self.path != "/introspect" or self.headers.get("authorization") != f"Basic {basic}":
                self.send_response(401)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            body = json.dumps(state.active.get(form.get("token", ""), {"active": False})).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def claims(resource: str, sub: str, scope: str = "", **extra: Any) -> Dict[str, Any]:
    now = int(time.time())
    c = {"iss": ISSUER, "aud": resource, "sub": sub, "scope": scope, "iat": now, "exp": now + 600, "client_id": "app"}
    c.update(extra)
    return c


# ----- a protected server on a port of its own -----


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Reply:
    status: int
    challenge: Optional[str]
    headers: Dict[str, str]
    body: Any


class Protected:
    """``server.run(transport="http")`` on a thread, at the port its resource URI names."""

    def __init__(self, server: Server, port: int) -> None:
        self.server = server
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.resource = f"{self.base}/mcp"
        self.metadata_url = f"{self.base}/.well-known/oauth-protected-resource/mcp"
        ready: "queue.Queue[int]" = queue.Queue()
        self.errors: List[BaseException] = []

        def run() -> None:
            try:
                server.run(transport="http", port=port, on_ready=ready.put)
            except BaseException as e:  # reported by the test
                self.errors.append(e)
                ready.put(-1)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.get(timeout=10) == port, self.errors

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": V}
            h.update(headers or {})
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=h)
            resp = conn.getresponse()
            raw = resp.read()
            hs = {k.lower(): v for k, v in resp.getheaders()}
            parsed = json.loads(raw) if raw and hs.get("content-type", "").startswith("application/json") else raw
            return Reply(resp.status, hs.get("www-authenticate"), hs, parsed)
        finally:
            conn.close()

    def call(self, token: Optional[str], body: Any, session: Optional[str] = None, authorization: Optional[str] = None) -> Reply:
        h: Dict[str, str] = {}
        if authorization is not None:
            h["Authorization"] = authorization
        elif token is not None:
            h["Authorization"] = f"Bearer {token}"
        if session is not None:
            h["Mcp-Session-Id"] = session
        return self.request("POST", "/mcp", body, h)

    def session(self, token: str) -> str:
        r = self.call(token, INIT)
        assert r.status == 200, (r.status, r.challenge, r.body)
        sid = r.headers["mcp-session-id"]
        assert self.call(token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid).status == 202
        return sid

    def tool(self, token: str, name: str, session: Optional[str] = None) -> Reply:
        sid = session or self.session(token)
        return self.call(token, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}}, sid)

    def invalid(self, why: str) -> str:
        return f'Bearer error="invalid_token", error_description="{why}", resource_metadata="{self.metadata_url}"'

    def close(self) -> None:
        self.server.stop()
        self.thread.join(timeout=10)


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": V, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def text_of(r: Reply) -> str:
    assert r.status == 200, (r.status, r.challenge, r.body)
    return str(r.body["result"]["content"][0]["text"])


def add_tools(server: Server) -> None:
    """``whoami`` (scope ``mcp:whoami``), ``me`` (what a handler sees of the caller) and its
    ``async def`` twin."""

    @server.tool()
    def whoami(ctx: Context) -> str:
        return ctx.subject or "nobody"

    def seen(ctx: Optional[Context]) -> str:
        tok = get_access_token()
        ident = ctx.identity if ctx is not None else None
        return json.dumps(
            {
                "identity": None if ident is None else {
                    "subject": ident.subject, "client_id": ident.client_id, "scopes": list(ident.scopes),
                    "expires_at": ident.expires_at, "issuer": ident.issuer, "claims": ident.claims,
                    "repr": repr(ident),
                },
                "access_token": None if tok is None else {
                    "token": tok.token, "client_id": tok.client_id, "scopes": tok.scopes, "expires_at": tok.expires_at,
                    "resource": tok.resource, "subject": tok.subject,
                },
            }
        )

    @server.tool()
    def me(ctx: Context) -> str:
        return seen(ctx)

    @server.tool()
    async def me_async() -> str:  # no Context parameter: get_access_token() still answers
        return seen(None)


@pytest.fixture
def protect(issuer: Issuer) -> Iterator[Any]:
    """Start a protected server: ``protect(jwt={...}, **config)`` (JWKS of the ``issuer``
    fixture), or ``protect(token_verifier=..., **config)``."""
    running: List[Protected] = []

    def start(token_verifier: Any = None, jwt_options: Optional[Dict[str, Any]] = None, introspection: bool = False, **config: Any) -> Protected:
        port = free_port()
        auth: Dict[str, Any] = {
            "resource": f"http://127.0.0.1:{port}/mcp",
            "authorization_servers": [ISSUER],
            "tool_scopes": {"whoami": ["mcp:whoami"]},
        }
        if introspection:
            auth["introspection"] = {"url": f"{issuer.url}/introspect", "client_id": "rs-client", "client_secret": "rs-secret"}
        elif token_verifier is None:
            auth["jwt"] = {"issuer": ISSUER, "jwks_url": issuer.jwks_url, "jwks_min_refresh_ms": 200, **(jwt_options or {})}
        auth.update(config)
        server = Server("protected", "1", auth=auth, token_verifier=token_verifier)
        add_tools(server)
        p = Protected(server, port)
        running.append(p)
        return p

    yield start
    for p in running:
        p.close()


# ----- JWTs against a JWKS -----


def test_rs256_es256_and_eddsa_tokens_reach_whoami(issuer: Issuer, protect: Any) -> None:
    keys = [Key.rsa("r1"), Key.p256("e1"), Key.ed25519("d1")]
    issuer.keys = keys
    p = protect()
    for key in keys:
        token = key.sign(claims(p.resource, "alice", "mcp:whoami"))
        assert text_of(p.tool(token, "whoami")) == "alice", key.alg
    assert issuer.fetches == 1, "the JWK Set is fetched once and cached"


def test_the_identity_reaches_handlers_without_the_token(issuer: Issuer, protect: Any) -> None:
    key = Key.p256("e1")
    issuer.keys = [key]
    p = protect()
    c = claims(p.resource, "alice", "mcp:whoami extra", tenant="acme")
    token = key.sign(c)
    sid = p.session(token)
    for tool in ("me", "me_async"):
        r = p.tool(token, tool, sid)
        assert token not in json.dumps(r.body), "the token never reaches handlers"
        seen = json.loads(text_of(r))
        assert seen["access_token"] == {
            "token": None, "client_id": "app", "scopes": ["mcp:whoami", "extra"], "expires_at": c["exp"],
            "resource": p.resource, "subject": "alice",
        }, tool
        if tool == "me":
            ident = seen["identity"]
            assert (ident["subject"], ident["client_id"], ident["scopes"], ident["expires_at"], ident["issuer"]) == (
                "alice", "app", ["mcp:whoami", "extra"], c["exp"], ISSUER
            )
            assert ident["claims"]["tenant"] == "acme"
            assert ident["claims"]["aud"] == p.resource
            assert "alice" not in ident["repr"] and "acme" not in ident["repr"], ident["repr"]
    # Outside a request: no access token.
    assert get_access_token() is None
    # In-process (no HTTP, so no token): no identity either.
    raw = json.loads(p.server.handle_raw(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "me", "arguments": {}}})))
    assert json.loads(raw["result"]["content"][0]["text"]) == {"identity": None, "access_token": None}


def test_without_a_token_the_401_names_the_metadata_served_at_both_paths(issuer: Issuer, protect: Any) -> None:
    key = Key.rsa("r1")
    issuer.keys = [key]
    p = protect(required_scopes=["mcp"])
    r = p.call(None, INIT)
    assert (r.status, r.challenge) == (401, f'Bearer scope="mcp", resource_metadata="{p.metadata_url}"')
    assert r.body["error"]["code"] == -32001
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        r = p.request("GET", path)
        assert r.status == 200, path
        assert r.body == {
            "resource": p.resource,
            "authorization_servers": [ISSUER],
            "scopes_supported": ["mcp", "mcp:whoami"],
            "bearer_methods_supported": ["header"],
        }, path
    # A token without the scope every request needs: 403 naming it.
    r = p.call(key.sign(claims(p.resource, "a", "other")), INIT)
    assert (r.status, r.challenge) == (
        403,
        f'Bearer error="insufficient_scope", error_description="the request needs the scopes: mcp", scope="mcp", resource_metadata="{p.metadata_url}"',
    )
    assert p.call(key.sign(claims(p.resource, "a", "mcp")), INIT).status == 200


def test_invalid_tokens_are_401_with_the_reason_and_the_server_keeps_serving(issuer: Issuer, protect: Any) -> None:
    key, stranger = Key.rsa("r1"), Key.rsa("r1")
    issuer.keys = [key]
    p = protect()
    good = claims(p.resource, "alice")
    now = int(time.time())

    def b64(v: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(v).encode()).rstrip(b"=").decode()

    cases: List[Tuple[str, str]] = [
        (key.sign({**good, "exp": now - 600}), "the token has expired"),
        (key.sign({**good, "nbf": now + 600}), "the token is not valid yet (nbf)"),
        (key.sign({**good, "aud": "https://other.example/mcp"}), "the token is for another audience"),
        (key.sign({**good, "iss": "https://evil.example"}), "the token's issuer is not trusted"),
        (stranger.sign(good), "the token's signature does not verify"),
        (f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(good)}.", "the token is not a well-formed signed JWT"),
        (jwt.encode(good, "a-shared-secret-of-at-least-32-bytes!", algorithm="HS256"), "the token's algorithm HS256 is not accepted"),
    ]
    for token, why in cases:
        r = p.call(token, INIT)
        assert (r.status, r.challenge) == (401, p.invalid(why)), why
        assert p.call(key.sign(good), INIT).status == 200, f"still serving after: {why}"


def test_an_unknown_kid_refetches_the_rotated_jwks(issuer: Issuer, protect: Any) -> None:
    old = Key.rsa("old")
    issuer.keys = [old]
    # No verified-token cache: every request checks its signature against the set.
    p = protect(jwt_options={"cache_secs": 0, "jwks_min_refresh_ms": 1000})
    c = claims(p.resource, "alice")
    assert p.call(old.sign(c), INIT).status == 200
    assert issuer.fetches == 1
    new = Key.p256("new")
    issuer.keys = [new]
    time.sleep(1.1)
    assert p.call(new.sign(c), INIT).status == 200, "a token naming the new kid refetches the set"
    assert issuer.fetches == 2
    # Made-up kids within the interval cost no further fetch.
    for i in range(5):
        r = p.call(new.sign(c, kid=f"made-up-{i}"), INIT)
        assert (r.status, r.challenge) == (401, p.invalid("no key of the issuer verifies this token"))
    assert issuer.fetches == 2
    # The old key left the set, its tokens with it.
    assert p.call(old.sign(c), INIT).status == 401
    assert p.call(new.sign(c), INIT).status == 200


def test_a_missing_tool_scope_is_403_with_the_step_up_challenge(issuer: Issuer, protect: Any) -> None:
    key = Key.rsa("r1")
    issuer.keys = [key]
    p = protect()
    token = key.sign(claims(p.resource, "bob", "other"))
    sid = p.session(token)
    r = p.tool(token, "whoami", sid)
    assert (r.status, r.challenge) == (
        403,
        'Bearer error="insufficient_scope", error_description="the request needs the scopes: mcp:whoami", '
        f'scope="mcp:whoami", resource_metadata="{p.metadata_url}"',
    )
    assert text_of(p.tool(token, "me", sid))  # other tools still answer on the session
    assert text_of(p.tool(key.sign(claims(p.resource, "bob", "mcp:whoami")), "whoami")) == "bob"


def test_hide_unauthorized_leaves_the_tool_out_of_the_list(issuer: Issuer, protect: Any) -> None:
    key = Key.rsa("r1")
    issuer.keys = [key]
    p = protect(hide_unauthorized=True)
    listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    for scope, listed in (("other", False), ("mcp:whoami", True)):
        token = key.sign(claims(p.resource, "bob", scope))
        r = p.call(token, listing, p.session(token))
        assert ("whoami" in [t["name"] for t in r.body["result"]["tools"]]) is listed, scope


def test_a_malformed_authorization_header_is_400(issuer: Issuer, protect: Any) -> None:
    key = Key.rsa("r1")
    issuer.keys = [key]
    p = protect()
    for header, why in (
        ("Bearer", "the Bearer credentials carry no token"),
        ("Bearer a b", "the bearer token has characters RFC 6750 does not allow (b64token)"),
    ):
        r = p.call(None, INIT, authorization=header)
        assert (r.status, r.challenge) == (
            400,
            f'Bearer error="invalid_request", error_description="{why}", resource_metadata="{p.metadata_url}"',
        ), header
    # Another scheme is no bearer token at all: the bare challenge.
    r = p.call(None, INIT, authorization="Basic dXNlcjpwdw==")
    assert (r.status, r.challenge) == (401, f'Bearer resource_metadata="{p.metadata_url}"')
    assert p.call(key.sign(claims(p.resource, "a")), INIT).status == 200


def test_another_subjects_token_on_a_session_is_404(issuer: Issuer, protect: Any) -> None:
    key = Key.ed25519("d1")
    issuer.keys = [key]
    p = protect()
    alice = key.sign(claims(p.resource, "alice", "mcp:whoami"))
    mallory = key.sign(claims(p.resource, "mallory", "mcp:whoami"))
    sid = p.session(alice)
    r = p.tool(mallory, "whoami", sid)
    assert r.status == 404
    assert r.body["error"]["message"] == "Session not found: it expired or was terminated; initialize a new one"
    assert text_of(p.tool(alice, "whoami", sid)) == "alice", "the owner keeps its session"


def test_introspected_tokens_are_checked_and_cached(issuer: Issuer, protect: Any) -> None:
    p = protect(introspection=True)
    issuer.active = {
        "opaque-good": {"active": True, "sub": "carol", "scope": "mcp:whoami", "aud": p.resource, "exp": int(time.time()) + 600},
        "opaque-other-aud": {"active": True, "sub": "carol", "aud": "https://other.example/mcp"},
    }
    assert text_of(p.tool("opaque-good", "whoami")) == "carol"
    assert issuer.introspections == 1, "three requests, one introspection (cached)"
    for token, why in (("opaque-revoked", "the token is not active"), ("opaque-other-aud", "the token is for another audience")):
        r = p.call(token, INIT)
        assert (r.status, r.challenge) == (401, p.invalid(why)), token
    assert p.call("opaque-good", INIT).status == 200


# ----- a verifier written in Python -----


class TableVerifier:
    """The official SDK's ``TokenVerifier`` protocol (``async def verify_token``)."""

    def __init__(self, resource: str) -> None:
        self.resource = resource
        self.calls = 0

    async def verify_token(self, token: str) -> Optional[AccessToken]:
        self.calls += 1
        return answer(token, self.resource)


def answer(token: str, resource: str) -> Any:
    if token == "good-alice":
        return AccessToken(
            token=token, client_id="app", scopes=["mcp:whoami"], expires_at=int(time.time()) + 600,
            resource=resource, subject="alice", claims={"tenant": "acme"},
        )
    if token == "claims-bob":
        return {"sub": "bob", "scope": "mcp:whoami", "team": "blue"}
    if token == "boom":
        raise RuntimeError("the token is revoked")
    if token == "down":
        raise VerifierUnavailableError("the introspection backend is down")
    return None


@pytest.mark.parametrize("kind", ["async TokenVerifier", "def callable"])
def test_a_python_verifier_accepts_refuses_fails_or_is_unavailable(protect: Any, kind: str) -> None:
    port_holder: Dict[str, str] = {}
    if kind == "async TokenVerifier":
        verifier: Any = TableVerifier("")
    else:

        def verifier(token: str) -> Any:
            return answer(token, port_holder.get("resource", ""))

    p = protect(token_verifier=verifier)
    if isinstance(verifier, TableVerifier):
        verifier.resource = p.resource
    port_holder["resource"] = p.resource
    # Accepted: the AccessToken's fields and claims, or the claims dict, are the identity.
    seen = json.loads(text_of(p.tool("good-alice", "me")))
    assert seen["identity"]["subject"] == "alice"
    assert seen["identity"]["claims"]["tenant"] == "acme"
    assert seen["access_token"]["resource"] == p.resource
    assert seen["access_token"]["token"] is None
    assert text_of(p.tool("good-alice", "whoami")) == "alice"
    seen = json.loads(text_of(p.tool("claims-bob", "me")))
    assert (seen["identity"]["subject"], seen["identity"]["scopes"], seen["identity"]["claims"]["team"]) == (
        "bob", ["mcp:whoami"], "blue"
    )
    # None: 401 with the package's reason; raising: 401 with the exception's message.
    for token, why in (("nobody-knows", REFUSED), ("boom", "the token is revoked")):
        r = p.call(token, INIT)
        assert (r.status, r.challenge) == (401, p.invalid(why)), token
        assert p.call("good-alice", INIT).status == 200, f"still serving after {token}"
    # VerifierUnavailableError: 503 with Retry-After and no challenge (retry, do not re-authorize).
    r = p.call("down", INIT)
    assert (r.status, r.challenge) == (503, None)
    assert "retry-after" in r.headers
    assert r.body["error"]["message"] == "the token could not be verified: the introspection backend is down"
    assert text_of(p.tool("good-alice", "whoami")) == "alice"


def test_validate_token_resource_makes_the_core_check_the_verifiers_resource(protect: Any) -> None:
    # The official SDK's switch, with a token_verifier: the core's require_audience (the
    # AccessToken's resource is its aud, which must name this server's resource).
    verifier = TableVerifier("")
    p = protect(token_verifier=verifier, validate_token_resource=True)
    verifier.resource = p.resource
    assert p.call("good-alice", INIT).status == 200
    verifier.resource = "https://other.example/mcp"
    r = p.call("good-alice", INIT)
    assert (r.status, r.challenge) == (401, p.invalid("the token is for another audience"))
    r = p.call("claims-bob", INIT)  # a claims dict without aud
    assert (r.status, r.challenge) == (401, p.invalid("the token names no audience (aud)"))


def test_the_official_verifier_and_settings_shapes_port_unchanged() -> None:
    """``MCPServer(token_verifier=..., auth=AuthSettings(...))`` as the official SDK spells it,
    with its settings object duck-typed (here a stand-in with the same attribute names)."""

    class OfficialAuthSettings:  # mcp.server.auth.settings.AuthSettings' attributes
        issuer_url = "https://as.example.test"
        resource_server_url = "http://127.0.0.1:1/mcp"
        service_documentation_url = None
        client_registration_options = None
        revocation_options = None
        required_scopes = ["mcp"]
        identity_assertion_enabled = False
        validate_token_resource = False

    server = MCPServer("ported", token_verifier=TableVerifier(""), auth=OfficialAuthSettings())
    server.close()
    server = MCPServer(
        "ported",
        auth=AuthSettings(
            issuer_url=ISSUER,
            resource_server_url="http://127.0.0.1:1/mcp",
            tool_scopes={"whoami": ["mcp:whoami"]},
            jwt={"issuer": ISSUER, "jwks_url": "http://127.0.0.1:1/jwks"},
        ),
    )
    server.close()


# ----- configuration errors: the core's text -----


def base_config(**extra: Any) -> Dict[str, Any]:
    c: Dict[str, Any] = {
        "resource": "https://mcp.example.com/mcp",
        "authorization_servers": [ISSUER],
        "jwt": {"issuer": ISSUER, "jwks_url": "https://as.example.test/jwks"},
    }
    c.update(extra)
    return c


@pytest.mark.parametrize(
    "config, message",
    [
        (base_config(bogus=1), "invalid auth option bogus: unknown option"),
        (
            base_config(resource="http://mcp.example.com/mcp"),
            'invalid auth option resource: "http://mcp.example.com/mcp" must use https (http only on a loopback host)',
        ),
        (base_config(authorization_servers=[]), "invalid auth option authorization_servers: name at least one authorization server"),
        (
            base_config(tool_scopes={"t": ["a b"]}),
            'invalid auth option tool_scopes: "a b" is not a scope token (RFC 6749 §3.3)',
        ),
        (base_config(jwt={"issuer": ISSUER}), "invalid auth option jwt: exactly one of jwks_url and keys is required"),
        (
            base_config(jwt={"issuer": ISSUER, "jwks_url": "https://as/jwks", "algorithms": ["HS256"]}),
            "invalid auth option jwt.algorithms: HS256 is not accepted (use RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA)",
        ),
        (base_config(jwt=None), "invalid auth option verifier: exactly one of jwt and introspection is required"),
    ],
)
def test_a_bad_option_raises_config_error_with_the_cores_text(config: Dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as e:
        Server("bad", auth=config)
    assert str(e.value) == message


def test_settings_the_core_cannot_honour_are_refused_by_name() -> None:
    with pytest.raises(ConfigError) as e:
        Server("bad", token_verifier=lambda token: None)
    assert str(e.value) == "invalid auth option token_verifier: a token_verifier needs the auth settings"
    with pytest.raises(ConfigError) as e:
        Server("bad", auth=base_config(require_audience=True))
    assert str(e.value) == (
        "invalid auth option require_audience: the jwt and introspection verifiers always check the audience; "
        "this is for a verifier given in code"
    )
    with pytest.raises(ConfigError) as e:
        Server("bad", auth=base_config(), token_verifier=lambda token: None)
    assert str(e.value) == "invalid auth option verifier: a verifier given in code replaces jwt and introspection; name neither"
    with pytest.raises(ConfigError) as e:
        MCPServer("bad", auth_server_provider=object(), auth=base_config())
    assert str(e.value).startswith("invalid auth option auth_server_provider: Ferrite is a resource server only")
    with pytest.raises(ConfigError) as e:
        Server("bad", auth=AuthSettings(issuer_url=ISSUER, authorization_servers=["https://other.example"]))
    assert str(e.value) == "invalid auth option authorization_servers: also given as issuer_url; pass one of them"
    with pytest.raises(TypeError):
        Server("bad", auth=base_config(jwt=None), token_verifier=42)
