"""The Python everything server: the whole conformance fixture surface (see
``examples/SURFACE.md``), plus the ``add`` and ``echo`` tools the benchmarks call. Both eras
are served: the handshake revisions and 2026-07-28 (fixtures in ``everything_modern.py``), and
tasks in both generations (the task fixtures in ``everything_tasks.py``); the fault tools are in
``everything_faults.py``.

Run it with ``python examples/python/everything.py`` (stdio; needs ``pip install
./bindings-python``); ``--port N`` serves Streamable HTTP on 127.0.0.1:N at ``/mcp``;
``--stateless`` builds a stateless server. ``--auth`` (with ``--port``) protects it as an
OAuth resource server: tokens are JWTs of ``FERRITE_AUTH_ISSUER`` for the audience
``FERRITE_AUTH_AUDIENCE`` (the server's URL), keys from ``FERRITE_AUTH_JWKS_URL``; every MCP
request needs one, and the ``whoami`` tool (scope ``mcp:whoami``) answers the token's subject.
``--mount`` (with ``--port``) serves the endpoint the way an application embeds it:
``server.asgi_app()`` mounted in a Starlette app under uvicorn, beside the app's own
``GET /health`` route and behind its middleware, which turns an ``x-user`` header into
``request.state.user``; the ``test_host_value`` tool answers that value and the
``test_request_info`` tool the request's ``x-tenant`` header, path and method.
``--redis URL`` makes it one instance of a fleet: tasks are kept in Redis at URL, under keys
starting with ``FERRITE_REDIS_PREFIX`` (default ``ferrite:``); ``FERRITE_REQUEST_STATE_KEYS``
(``current[,previous...]``, 64 hex characters or base64 each) are the fleet's requestState keys.
Any other argument, or a flag without its value, prints the usage on stderr and exits with
status 2; ``--help`` prints it on stdout and exits 0. ``FERRITE_ADD_ASYNC=1`` registers ``add``
as an ``async def`` (for the benchmark's second row). ``FERRITE_HTTP_OPTIONS`` (a JSON object of
the core's HTTP options, e.g. ``{"session_idle_timeout_ms": 5000}``) is applied to its own
listener.

The tools list exactly the schemas of the other surfaces (examples/SURFACE.md): text tools pass
``structured_output=False`` (the binding would otherwise derive an ``outputSchema`` wrapping a
``str`` return in ``{"result": ...}``, as the official SDK does), and tools with arguments give
their ``input_schema`` (the derived one carries pydantic's titles).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import sys
import threading
from typing import Any, Dict, List, NamedTuple, Optional

from ferrite_mcp import (
    ConfigError,
    Context,
    EmbeddedResource,
    ImageContent,
    AudioContent,
    Message,
    Server,
    TextContent,
    ToolResult,
    BlobResourceContents,
    error,
)

import everything_faults
import everything_modern
import everything_tasks

# A 1x1 PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def wav_base64() -> str:
    """A short silent 8 kHz mono 16-bit WAV."""
    samples = 800
    data_len = samples * 2
    header = b"RIFF" + struct.pack("<I", 36 + data_len) + b"WAVEfmt "
    header += struct.pack("<IHHIIHH", 16, 1, 1, 8000, 16000, 2, 16)
    header += b"data" + struct.pack("<I", data_len)
    return base64.b64encode(header + bytes(data_len)).decode("ascii")


ADD_INPUT_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}
ADD_OUTPUT_SCHEMA = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
NO_ARGS = {"type": "object", "additionalProperties": False}

# The largest integer magnitude add takes or answers: 2^53 - 1, what every JSON peer
# (JavaScript's numbers included) reads exactly (RFC 7493).
MAX_EXACT = 2**53 - 1


def exact_sum(a: Any, b: Any) -> ToolResult:
    """The sum, or the overflow error every surface answers for an operand or a sum beyond
    MAX_EXACT."""
    if not all(isinstance(n, int) and abs(n) <= MAX_EXACT for n in (a, b, a + b)):
        return error("integer overflow")
    return ToolResult([str(a + b)], structured_content={"sum": a + b})


def build(stateless: bool, auth: Optional[Dict[str, Any]] = None) -> Server:
    server = Server(
        "ferrite-everything",
        "0.1.0",
        instructions="Ferrite's everything server: the MCP conformance fixture surface.",
        stateless=stateless,
        auth=auth,
    )

    # ----- tools (test_simple_text first: clients may call the first tool without arguments) -----

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_simple_text() -> str:
        """Returns a simple text response"""
        return "This is a simple text response for testing."

    # The arguments as the core checked them against the schema (ints, or a float for an
    # integer beyond 64 bits), not converted by pydantic: add answers its own overflow error.
    def add(**arguments: Any) -> ToolResult:
        """Add two integers and return their sum"""
        return exact_sum(arguments["a"], arguments["b"])

    async def add_async(**arguments: Any) -> ToolResult:
        """Add two integers and return their sum"""
        return exact_sum(arguments["a"], arguments["b"])

    use_async = os.environ.get("FERRITE_ADD_ASYNC") == "1"
    server.add_tool(
        add_async if use_async else add, name="add", input_schema=ADD_INPUT_SCHEMA, output_schema=ADD_OUTPUT_SCHEMA
    )

    @server.tool(
        structured_output=False,
        input_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "The arguments of echo.",
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to echo back."}},
            "required": ["text"],
        },
    )
    def echo(text: str) -> str:
        """Echo the text back"""
        return text

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_image_content() -> ImageContent:
        """Returns an image (PNG)"""
        return ImageContent(PNG, "image/png")

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_audio_content() -> AudioContent:
        """Returns audio (WAV)"""
        return AudioContent(wav_base64(), "audio/wav")

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_embedded_resource() -> EmbeddedResource:
        """Returns an embedded resource"""
        return EmbeddedResource("test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain")

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_multiple_content_types() -> list:
        """Returns text, an image and a resource"""
        return [
            TextContent("Multiple content types test:"),
            ImageContent(PNG, "image/png"),
            EmbeddedResource(
                "test://mixed-content-resource", text='{"test":"data","value":123}', mime_type="application/json"
            ),
        ]

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    async def test_tool_with_logging(ctx: Context) -> str:
        """Logs three messages while it runs"""
        for i, message in enumerate(["Tool execution started", "Tool processing data", "Tool execution completed"]):
            if i:
                await asyncio.sleep(0.05)
            ctx.info(message)
        return "Tool with logging executed successfully"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    async def test_tool_with_progress(ctx: Context) -> str:
        """Reports progress 0, 50, 100 of 100"""
        for i, progress in enumerate([0, 50, 100]):
            if i:
                await asyncio.sleep(0.05)
            ctx.report_progress(progress, 100)
        return "Tool with progress executed successfully"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_error_handling() -> ToolResult:
        """Always fails with isError"""
        return error("This tool intentionally returns an error for testing")

    @server.tool(
        structured_output=False,
        input_schema={
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "The prompt to send"}},
            "required": ["prompt"],
        },
    )
    async def test_sampling(prompt: str, ctx: Context) -> str:
        """Asks the client's LLM to answer a prompt"""
        reply = await ctx.sample(prompt, max_tokens=100)
        return f"LLM response: {reply.text or ''}"

    @server.tool(
        structured_output=False,
        input_schema={
            "type": "object",
            "properties": {"message": {"type": "string", "description": "The message to show the user"}},
            "required": ["message"],
        },
    )
    async def test_elicitation(message: str, ctx: Context) -> str:
        """Asks the user for a username and an email"""
        schema = {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        }
        r = await ctx.elicit(message, schema)
        return f"User response: {r.action} {json.dumps(r.content, separators=(',', ':'))}"

    def elicit_form(message: str, schema: Dict[str, Any]):
        async def run(ctx: Context) -> str:
            r = await ctx.elicit(message, schema)
            content = json.dumps(r.content or {}, separators=(",", ":"))
            return f"Elicitation completed: action={r.action}, content={content}"

        return run

    server.add_tool(
        elicit_form(
            "Please review and update the form fields with defaults",
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {
                        "type": "string",
                        "description": "User status",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active",
                    },
                    "verified": {"type": "boolean", "description": "Verification status", "default": True},
                },
                "required": [],
            },
        ),
        name="test_elicitation_sep1034_defaults",
        description="Elicits fields with default values (SEP-1034)",
        input_schema=NO_ARGS,
        structured_output=False,
    )
    titled = lambda prefix, word: [  # noqa: E731
        {"const": f"{prefix}{i}", "title": f"{n} {word}"} for i, n in ((1, "First"), (2, "Second"), (3, "Third"))
    ]
    server.add_tool(
        elicit_form(
            "Please select options from the enum fields",
            {
                "type": "object",
                "properties": {
                    "untitledSingle": {
                        "type": "string",
                        "description": "Select one option",
                        "enum": ["option1", "option2", "option3"],
                    },
                    "titledSingle": {
                        "type": "string",
                        "description": "Select one option with titles",
                        "oneOf": titled("value", "Option"),
                    },
                    "legacyEnum": {
                        "type": "string",
                        "description": "Select one option (legacy)",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"],
                    },
                    "untitledMulti": {
                        "type": "array",
                        "description": "Select multiple options",
                        "minItems": 1,
                        "maxItems": 3,
                        "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    },
                    "titledMulti": {
                        "type": "array",
                        "description": "Select multiple options with titles",
                        "minItems": 1,
                        "maxItems": 3,
                        "items": {"anyOf": titled("value", "Choice")},
                    },
                },
                "required": [],
            },
        ),
        name="test_elicitation_sep1330_enums",
        description="Elicits every enum schema variant (SEP-1330)",
        input_schema=NO_ARGS,
        structured_output=False,
    )

    @server.tool(
        structured_output=False,
        input_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"},
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": False,
        }
    )
    def json_schema_2020_12_tool(**arguments: Any) -> str:
        """A tool whose input schema uses JSON Schema 2020-12 features"""
        return f"JSON Schema 2020-12 tool called with: {json.dumps(arguments, separators=(',', ':'))}"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    async def test_reconnection(ctx: Context) -> str:
        """Closes the SSE stream mid-call (HTTP); the result arrives after the client reconnects"""
        if ctx.close_sse_stream(retry=0.2):
            await asyncio.sleep(0.3)  # time for the client to notice and reconnect
        return "Reconnection test completed"

    cancelled = {"count": 0}
    lock = threading.Lock()

    @server.tool(
        structured_output=False,
        input_schema={"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]},
    )
    async def test_slow(ms: int, ctx: Context) -> str:
        """Waits ms milliseconds, stopping early when cancelled"""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ms / 1000
        while loop.time() < deadline:
            if ctx.is_cancelled():
                with lock:
                    cancelled["count"] += 1
                return "cancelled"
            await asyncio.sleep(0.01)
        return f"completed after {ms} ms"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_cancellation_count() -> str:
        """How many test_slow and test_fault_hang calls observed cancellation"""
        with lock:
            return str(cancelled["count"])

    def count_cancellation() -> None:
        with lock:
            cancelled["count"] += 1

    everything_faults.register(server, count_cancellation)

    # ----- resources -----

    @server.resource("test://static-text", name="static-text", description="A static text resource", mime_type="text/plain")
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource("test://static-binary", name="static-binary", description="A static PNG image", mime_type="image/png")
    def static_binary() -> BlobResourceContents:
        return BlobResourceContents(PNG)

    @server.resource(
        "test://watched-resource",
        name="watched-resource",
        description="A resource clients can subscribe to",
        mime_type="text/plain",
    )
    def watched_resource() -> str:
        return "Watched resource content"

    @server.resource("test://template/{id}/data", name="template", description="Data for an id", mime_type="application/json")
    def template(id: str) -> str:  # noqa: A002 (the template's variable)
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))

    # ----- prompts -----

    @server.prompt(description="A simple prompt without arguments")
    def test_simple_prompt() -> str:
        return "This is a simple prompt for testing."

    @server.prompt(description="A prompt with two arguments")
    def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
        """A prompt with two arguments

        Args:
            arg1: First test argument
            arg2: Second test argument
        """
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @server.prompt(description="A prompt that embeds a resource")
    def test_prompt_with_embedded_resource(resourceUri: str) -> list:  # noqa: N803 (the wire name)
        """A prompt that embeds a resource

        Args:
            resourceUri: URI of the resource to embed
        """
        return [
            Message("user", EmbeddedResource(resourceUri, text="Embedded resource content for testing.", mime_type="text/plain")),
            "Please process the embedded resource above.",
        ]

    @server.prompt(description="A prompt with an image")
    def test_prompt_with_image() -> list:
        return [Message("user", ImageContent(PNG, "image/png")), "Please analyze the image above."]

    server.completion_values(
        ["paris", "park", "party", "pasta", "zebra"], prompt="test_prompt_with_arguments", argument="arg1"
    )

    # ----- 2026-07-28 -----

    everything_modern.register(server)
    everything_modern.register_cache_hints(server)

    # ----- tasks (both generations) -----

    everything_tasks.register(server)
    # Handshake-era sessions subscribe with resources/subscribe; 2026-07-28 clients (either
    # mode) through listen streams.
    server.enable_resource_subscriptions()

    if auth is not None:

        @server.tool(structured_output=False, input_schema=NO_ARGS)
        def whoami(ctx: Context) -> str:
            """Answers the subject of the caller's access token (needs scope mcp:whoami)"""
            return ctx.subject or ""

    return server


def register_request_tools(server: Server) -> None:
    """The tools of ``--mount``: what the host app attached, and the HTTP request."""

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_host_value(ctx: Context) -> str:
        """Reads the user the host app's middleware attached"""
        request = ctx.request
        user = request.host_values.get("user") if request is not None else None
        return f"user: {user if isinstance(user, str) else 'nobody'}"

    @server.tool(input_schema=NO_ARGS)
    def test_request_info(ctx: Context) -> Dict[str, Any]:
        """Answers the x-tenant header, the path and the method of the HTTP request"""
        request = ctx.request
        if request is None:
            return {"transport": "not http"}
        return {"tenant": request.headers.get("x-tenant"), "path": request.path, "method": request.method}


class HostIdentity:
    """The host application's middleware (plain ASGI): who the caller is, for handlers to
    read; Starlette's ``request.state.user`` is ``scope["state"]["user"]``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name == b"x-user":
                    scope.setdefault("state", {})["user"] = value.decode("latin-1")
        await self.app(scope, receive, send)


def serve_mounted(server: Server, port: int) -> None:
    """Serve the endpoint mounted in a Starlette app of the host's, beside a route of its
    own, under uvicorn."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    mcp = server.asgi_app()

    async def health(_request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[Route("/health", health), Mount("/", app=mcp)],
        middleware=[Middleware(HostIdentity)],
        lifespan=mcp.lifespan,
    )
    print(f"everything: mounted in a Starlette app on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


USAGE = (
    "usage: everything.py [--port N [--mount]] [--stateless] [--auth] [--redis URL] [--help]\n"
    "  no --port: serve stdio; --port N: Streamable HTTP on 127.0.0.1:N at /mcp;\n"
    "  --mount: server.asgi_app() in a Starlette app under uvicorn (GET /health, an x-user middleware);\n"
    "  --auth: require bearer JWTs (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL);\n"
    "  --redis URL: keep shared state (tasks) in Redis, keys under FERRITE_REDIS_PREFIX (default ferrite:);\n"
    "  FERRITE_REQUEST_STATE_KEYS=current[,previous...]: the fleet's requestState keys (64 hex or base64)"
)


class Args(NamedTuple):
    port: Optional[int]
    stateless: bool
    auth: bool
    mount: bool
    redis: Optional[str] = None
    help: bool = False


def join_fleet(server: Server, redis: Optional[str]) -> None:
    """What every instance of a fleet shares: the requestState keys of
    ``FERRITE_REQUEST_STATE_KEYS`` (rotation: the new key in front, the oldest dropped after
    the state lifetime), and with ``--redis`` the tasks, in Redis under ``FERRITE_REDIS_PREFIX``.
    A bad key or URL raises ``ConfigError``."""
    keys = os.environ.get("FERRITE_REQUEST_STATE_KEYS")
    if keys is not None:
        current, *previous = keys.split(",")
        server.set_request_state_keys(current, previous)
    if redis is not None:
        server.use_redis(redis, os.environ.get("FERRITE_REDIS_PREFIX", "ferrite:"))


def auth_from_env() -> Dict[str, Any]:
    """The resource-server configuration of ``--auth``, from the environment."""
    names = ("FERRITE_AUTH_ISSUER", "FERRITE_AUTH_AUDIENCE", "FERRITE_AUTH_JWKS_URL")
    for name in names:
        if not os.environ.get(name):
            raise ValueError(f"--auth needs {name} in the environment")
    issuer, audience, jwks = (os.environ[n] for n in names)
    return {
        "resource": audience,
        "authorization_servers": [issuer],
        "tool_scopes": {"whoami": ["mcp:whoami"]},
        "jwt": {"issuer": issuer, "jwks_url": jwks},
    }


def parse_args(argv: List[str]) -> Args:
    """The command line; ``ValueError`` naming what is wrong."""
    port: Optional[int] = None
    redis: Optional[str] = None
    stateless = auth = mount = False
    it = iter(argv)
    for arg in it:
        if arg in ("--help", "-h"):
            return Args(None, False, False, False, help=True)
        if arg == "--stateless":
            stateless = True
        elif arg == "--auth":
            auth = True
        elif arg == "--mount":
            mount = True
        elif arg == "--redis":
            redis = next(it, None)
            if not redis:
                raise ValueError("--redis needs a URL")
        elif arg == "--port":
            value = next(it, "")
            if not value.isdigit() or not 0 <= int(value) <= 65535:
                raise ValueError("--port needs a port number")
            port = int(value)
        else:
            raise ValueError(f"unknown argument {arg!r}")
    if auth and port is None:
        raise ValueError("--auth needs --port (tokens travel in HTTP headers)")
    if mount and port is None:
        raise ValueError("--mount needs --port")
    return Args(port, stateless, auth, mount, redis)


def main() -> None:
    try:
        args = parse_args(sys.argv[1:])
    except ValueError as e:
        print(f"everything: {e}\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    if args.help:
        print(USAGE)
        return
    try:
        auth = auth_from_env() if args.auth else None
    except ValueError as e:
        print(f"everything: {e}", file=sys.stderr)
        sys.exit(2)
    server = build(args.stateless, auth)
    try:
        join_fleet(server, args.redis)
    except ConfigError as e:
        print(f"everything: {e}", file=sys.stderr)
        sys.exit(2)
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        # Spans and metrics over OTLP/HTTP (the OTEL_* variables); exported at exit too.
        server.enable_telemetry()
    if args.port is not None and args.mount:
        register_request_tools(server)
        serve_mounted(server, args.port)
        server.close()
    elif args.port is not None:
        # FERRITE_HTTP_OPTIONS: more of the core's HTTP options as JSON (the soak's expiry run).
        options = json.loads(os.environ.get("FERRITE_HTTP_OPTIONS", "{}"))
        server.run(transport="http", host="127.0.0.1", port=args.port, path="/mcp", **options)
    else:
        server.run()


if __name__ == "__main__":
    main()
