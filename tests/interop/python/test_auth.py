"""A protected everything server (`--auth`) and the official Python SDK client.

The authorization server here is a small one the test runs on loopback: it signs RS256 JWTs
with a key generated per run, publishes the JWK Set, and implements discovery, dynamic client
registration and the authorization-code grant with PKCE, so that the SDK's own
`OAuthClientProvider` can find it only through the server's 401 and its Protected Resource
Metadata. Servers come from FERRITE_AUTH_SERVERS (`name=command line;...`); each command line
gets `--port N --auth` appended and the FERRITE_AUTH_* variables in its environment.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import socket
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import jwt
import mcp.types as types
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from conftest import parse_servers

AUTH_ENV_VAR = "FERRITE_AUTH_SERVERS"
pytestmark = pytest.mark.anyio


def b64url_uint(n: int) -> str:
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class AuthorizationServer:
    """The test's authorization server and what it saw."""

    url: str = ""
    key: rsa.RSAPrivateKey = field(default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048))
    kid: str = field(default_factory=lambda: secrets.token_hex(4))
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    registrations: int = 0

    def jwks(self) -> dict:
        pub = self.key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "kid": self.kid, "alg": "RS256", "use": "sig", "n": b64url_uint(pub.n), "e": b64url_uint(pub.e)}]}

    def mint(self, audience: str, subject: str, scope: str, lifetime: int = 600) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "aud": audience, "sub": subject, "scope": scope, "iat": now, "exp": now + lifetime, "client_id": "test"}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})

    def metadata(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "registration_endpoint": f"{self.url}/register",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
        }


def serve_authorization_server() -> tuple[AuthorizationServer, ThreadingHTTPServer]:
    state = AuthorizationServer()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def reply(self, status: int, body: object | None = None, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            if body is not None:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/.well-known/oauth-authorization-server":
                self.reply(200, state.metadata())
            elif url.path == "/jwks":
                self.reply(200, state.jwks())
            elif url.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(url.query))
                code = secrets.token_urlsafe(16)
                state.codes[code] = q
                back = {"code": code, "state": q.get("state", ""), "iss": state.url}
                self.reply(302, headers={"location": f"{q['redirect_uri']}?{urllib.parse.urlencode(back)}"})
            else:
                self.reply(404, {"error": "not_found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length).decode()
            if self.path == "/register":
                state.registrations += 1
                meta = json.loads(body)
                self.reply(201, {**meta, "client_id": f"client-{state.registrations}", "token_endpoint_auth_method": "none"})
            elif self.path == "/token":
                form = dict(urllib.parse.parse_qsl(body))
                state.token_requests.append(form)
                asked = state.codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "").encode()
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
                if asked is None or asked.get("code_challenge") != challenge:
                    self.reply(400, {"error": "invalid_grant"})
                    return
                token = state.mint(form["resource"], "sdk-user", asked.get("scope", ""))
                self.reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": 600, "scope": asked.get("scope", "")})
            else:
                self.reply(404, {"error": "not_found"})

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return state, httpd


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Protected:
    url: str
    authorization_server: AuthorizationServer


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "protected" in metafunc.fixturenames:
        servers = parse_servers(os.environ.get(AUTH_ENV_VAR, ""), AUTH_ENV_VAR)
        params = [pytest.param(s, id=s.name) for s in servers] or [
            pytest.param(None, id="no-server", marks=pytest.mark.skip(reason=f"{AUTH_ENV_VAR} is not set"))
        ]
        metafunc.parametrize("protected_server", params)


@pytest.fixture
def protected(protected_server) -> Iterator[Protected]:
    auth, httpd = serve_authorization_server()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**os.environ, "FERRITE_AUTH_ISSUER": auth.url, "FERRITE_AUTH_AUDIENCE": url, "FERRITE_AUTH_JWKS_URL": f"{auth.url}/jwks"}
    proc = subprocess.Popen([*protected_server.argv, "--port", str(port), "--auth"], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{protected_server.name} exited: {proc.stderr.read().decode()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"{protected_server.name} did not listen on {port}")
        yield Protected(url, auth)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        httpd.shutdown()


async def whoami(url: str, client: httpx2.AsyncClient) -> tuple[list[str], str]:
    async with streamable_http_client(url, http_client=client) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            result = await session.call_tool("whoami", {})
            assert not result.is_error, result
            assert isinstance(result.content[0], types.TextContent)
            return tools, result.content[0].text


async def test_a_bearer_token_reaches_whoami(protected: Protected) -> None:
    token = protected.authorization_server.mint(protected.url, "alice", "mcp:whoami")
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=10) as client:
        tools, subject = await whoami(protected.url, client)
    assert "whoami" in tools
    assert subject == "alice"


async def test_without_a_token_the_401_names_the_metadata(protected: Protected) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.post(protected.url, json=init, headers=headers)
        assert r.status_code == 401
        origin = protected.url.removesuffix("/mcp")
        meta_url = f"{origin}/.well-known/oauth-protected-resource/mcp"
        assert r.headers["www-authenticate"] == f'Bearer resource_metadata="{meta_url}"'
        meta = (await client.get(meta_url)).json()
        assert meta["resource"] == protected.url
        assert meta["authorization_servers"] == [protected.authorization_server.url]
        assert meta["scopes_supported"] == ["mcp:whoami"]
        # A token lacking the tool's scope: 403 with the step-up challenge.
        token = protected.authorization_server.mint(protected.url, "alice", "")
        r = await client.post(protected.url, json=init, headers={**headers, "authorization": f"Bearer {token}"})
        assert r.status_code == 200
        session = {"mcp-session-id": r.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
        r = await client.post(protected.url, json=call, headers={**headers, **session, "authorization": f"Bearer {token}"})
        assert r.status_code == 403
        assert r.headers["www-authenticate"] == (
            'Bearer error="insufficient_scope", error_description="the request needs the scopes: mcp:whoami", '
            f'scope="mcp:whoami", resource_metadata="{meta_url}"'
        )


async def test_a_2025_03_26_client_finds_the_authorization_servers_metadata_at_the_base(protected: Protected) -> None:
    # A 2025-03-26 client knows no Protected Resource Metadata: it reads RFC 8414 metadata at
    # the MCP server's base URL, which answers the authorization server's own document.
    origin = protected.url.removesuffix("/mcp")
    async with httpx2.AsyncClient(timeout=10) as client:
        r = await client.get(f"{origin}/.well-known/oauth-authorization-server", headers={"mcp-protocol-version": "2025-03-26"})
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    assert r.json() == protected.authorization_server.metadata()


async def rpc(client: httpx2.AsyncClient, url: str, headers: dict[str, str], body: dict) -> tuple[httpx2.Response, dict | None]:
    """POST one JSON-RPC message; the response and its JSON-RPC answer (a JSON body or the SSE
    event that carries it)."""
    r = await client.post(url, json=body, headers={"accept": "application/json, text/event-stream", "content-type": "application/json", **headers})
    if not r.text.strip():
        return r, None
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        for line in r.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                msg = json.loads(line[5:])
                if "id" in msg and "method" not in msg:
                    return r, msg
        return r, None
    return r, r.json()


async def open_session(client: httpx2.AsyncClient, url: str, token: str) -> dict[str, str]:
    """A 2025-11-25 session for `token`; the headers of its later requests."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    r, _ = await rpc(client, url, {"authorization": f"Bearer {token}"}, init)
    assert r.status_code == 200, r.text
    headers = {"authorization": f"Bearer {token}", "mcp-session-id": r.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    await rpc(client, url, headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


async def test_a_task_belongs_to_the_subject_that_created_it(protected: Protected) -> None:
    asa = protected.authorization_server
    alice_token, mallory_token = asa.mint(protected.url, "alice", "mcp:whoami"), asa.mint(protected.url, "mallory", "mcp:whoami")
    async with httpx2.AsyncClient(timeout=10) as client:
        alice = await open_session(client, protected.url, alice_token)
        _, tools = await rpc(client, protected.url, alice, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert tools is not None
        if not any(t["name"] == "slow_compute" for t in tools["result"]["tools"]):
            pytest.skip("this server has no task tool (slow_compute)")
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "slow_compute", "arguments": {"seconds": 0.2}, "task": {"ttl": 60000}}}
        _, created = await rpc(client, protected.url, alice, call)
        assert created is not None and created["result"]["task"]["status"] == "working", created
        task_id = created["result"]["task"]["taskId"]
        mallory = await open_session(client, protected.url, mallory_token)
        get = {"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": task_id}}
        _, theirs = await rpc(client, protected.url, mallory, get)
        assert theirs is not None and theirs["error"]["code"] == -32602, f"another subject reads the task: {theirs}"
        _, mine = await rpc(client, protected.url, alice, get)
        assert mine is not None and mine["result"]["taskId"] == task_id, mine


async def test_a_sealed_request_state_belongs_to_the_subject_it_was_issued_to(protected: Protected) -> None:
    # 2026-07-28: a tool answers input_required with a sealed requestState; the same state
    # echoed with another subject's token is refused (-32602), its own subject's retry completes.
    asa = protected.authorization_server
    alice_token, mallory_token = asa.mint(protected.url, "alice", "mcp:whoami"), asa.mint(protected.url, "mallory", "mcp:whoami")
    name = "test_input_required_result_request_state"
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}

    def modern(token: str) -> dict[str, str]:
        return {"authorization": f"Bearer {token}", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name}

    async with httpx2.AsyncClient(timeout=10) as client:
        first = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}, "_meta": meta}}
        r, asked = await rpc(client, protected.url, modern(alice_token), first)
        if asked is not None and asked.get("error", {}).get("code") == -32602 and "Unknown tool" in asked["error"].get("message", ""):
            pytest.skip(f"this server has no {name}")
        assert asked is not None and asked["result"].get("resultType") == "input_required", (r.status_code, asked)
        state = asked["result"]["requestState"]
        retry = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": name, "arguments": {}, "_meta": meta, "requestState": state,
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}}}}
        r, theirs = await rpc(client, protected.url, modern(mallory_token), retry)
        assert theirs is not None and theirs["error"]["code"] == -32602, f"another subject's retry: {r.status_code} {theirs}"
        _, mine = await rpc(client, protected.url, modern(alice_token), retry)
        assert mine is not None and mine["result"]["content"][0]["text"] == "state-ok: confirmed=true", mine


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def test_the_sdk_discovers_the_authorization_server_from_the_401(protected: Protected) -> None:
    redirect_uri = "http://127.0.0.1:1/callback"
    landed: dict[str, str] = {}

    async def redirect_handler(authorization_url: str) -> None:
        # The user agent: follow the authorization URL to the redirect back to the client.
        async with httpx2.AsyncClient(follow_redirects=False) as ua:
            r = await ua.get(authorization_url)
            assert r.status_code == 302
            landed.update(urllib.parse.parse_qsl(urllib.parse.urlsplit(r.headers["location"]).query))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=landed["code"], state=landed.get("state"), iss=landed.get("iss"))

    provider = OAuthClientProvider(
        server_url=protected.url,
        client_metadata=OAuthClientMetadata(client_name="ferrite-interop", redirect_uris=[redirect_uri]),
        storage=MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=10) as client:
        tools, subject = await whoami(protected.url, client)
    assert subject == "sdk-user"
    assert "whoami" in tools
    # The client learned the resource and its scope from the server's metadata (RFC 8707/9728).
    (token_request,) = protected.authorization_server.token_requests
    assert token_request["resource"] == protected.url
    assert protected.authorization_server.registrations == 1
