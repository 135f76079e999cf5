"""Every everything server answers what the Rust one answers.

The five everything servers (Rust, C, Go, Python, Node) implement one surface
(examples/SURFACE.md) by hand, five times; left alone they drift (a schema keyword lost in one
language, an integer that overflows in another). This test drives each of them over stdio with
the official MCP Python SDK client, in both protocol eras (the initialize handshake and
2026-07-28), records the exact wire answers (the JSON-RPC result or error, and the log and
progress notifications a call produced) and compares them with the Rust server's, which is the
reference. Any difference fails the test, named by surface, era, request and JSON path.

It also starts each server with bad command lines: an unknown flag and a flag without its
value must exit with status 2 within 5 s with the usage on stderr; `--help` exits 0 with the
usage on stdout.

    FERRITE_STDIO_SERVERS="rust=cmd;c=cmd;..." python compare.py

The entry named `rust` (or FERRITE_REFERENCE) is the reference; it must be listed.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from surfaces_calls import ERAS, Op, ops_for

TIMEOUT = 10.0
FLAG_TIMEOUT = 5.0

# Tools a surface documents on top of the shared surface, and why; every other extra or
# missing name is drift. A server named `c-static` (or `go-installed`) is its surface's.
SURFACE_EXTRAS: dict[str, set[str]] = {
    # The C and Go servers show the C ABI's request-info getters (ffi/README.md); the Rust,
    # Python and Node servers show theirs under --mount only.
    "c": {"test_request_info"},
    "go": {"test_request_info"},
}


@dataclass
class Wire:
    """What crossed the stdio pipes: requests sent, answers and notifications received."""

    sent: list[tuple[Any, str]] = field(default_factory=list)  # (id, method), in order
    answers: dict[Any, dict[str, Any]] = field(default_factory=dict)
    notes: list[dict[str, Any]] = field(default_factory=list)


async def tap_in(src: Any, dst: Any, wire: Wire) -> None:
    async with dst:
        async for item in src:
            if isinstance(item, SessionMessage):
                m = item.message
                if isinstance(m, JSONRPCResponse):
                    wire.answers[m.id] = {"result": m.result}
                elif isinstance(m, JSONRPCError):
                    wire.answers[m.id] = {"error": m.error.model_dump(by_alias=True, mode="json", exclude_unset=True)}
                elif isinstance(m, JSONRPCNotification):
                    wire.notes.append({"method": m.method, "params": m.params})
            await dst.send(item)


async def tap_out(src: Any, dst: Any, wire: Wire) -> None:
    async with dst:
        async for item in src:
            if isinstance(item.message, JSONRPCRequest):
                wire.sent.append((item.message.id, item.message.method))
            await dst.send(item)


# What the client's callbacks answer, by the message the server shows.
ELICIT_ANSWERS = {
    "Please review and update the form fields with defaults": {"name": "Ada", "age": 36},
    "Please select options from the enum fields": {"untitledSingle": "option2", "untitledMulti": ["option1"]},
    "What is your name?": {"name": "Ada"},
    "What context should the prompt use?": {"context": "a test run"},
}
DEFAULT_ELICIT_ANSWER = {"username": "octocat", "email": "octocat@example.com"}
SAMPLING_ANSWER = "Paris is the capital of France."


async def on_sampling(_ctx: Any, _params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=SAMPLING_ANSWER),
        model="surfaces-test-model",
        stop_reason="endTurn",
    )


async def on_elicitation(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    content = ELICIT_ANSWERS.get(params.message, DEFAULT_ELICIT_ANSWER)
    return types.ElicitResult(action="accept", content=dict(content))


async def on_log(_params: Any) -> None:
    pass


async def observe(argv: list[str], era: str) -> dict[str, Any]:
    """Run every operation of the era against one server; the wire outcome of each, by label."""
    wire = Wire()
    seen: dict[str, Any] = {}
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    with open(os.devnull, "w") as devnull:
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(stdio_client(params, errlog=devnull))
            in_send, in_recv = anyio.create_memory_object_stream[Any](100)
            out_send, out_recv = anyio.create_memory_object_stream[Any](100)
            tg = await stack.enter_async_context(anyio.create_task_group())
            tg.start_soon(tap_in, read, in_send, wire)
            tg.start_soon(tap_out, out_recv, write, wire)
            session = await stack.enter_async_context(
                ClientSession(
                    in_recv,
                    out_send,
                    read_timeout_seconds=TIMEOUT,
                    sampling_callback=on_sampling,
                    elicitation_callback=on_elicitation,
                    logging_callback=on_log,
                    client_info=types.Implementation(name="ferrite-surfaces-test", version="0.1.0"),
                )
            )
            for op in ops_for(era):
                seen[op.label] = await outcome(session, wire, op)
                if len(seen) == 1 and "no answer" in seen[op.label]:
                    break  # it did not start: one failure, not one per request
            tg.cancel_scope.cancel()
    return seen


async def outcome(session: ClientSession, wire: Wire, op: Op) -> Any:
    """The answer to the op's request as it crossed the wire, with the log and progress
    notifications that arrived while it ran."""
    first = len(wire.sent)
    wire.notes.clear()
    sdk_error = None
    try:
        with anyio.fail_after(TIMEOUT + 2):
            await op.run(session)
    except Exception as e:  # the SDK's verdict is not compared; the wire answer is
        sdk_error = f"{type(e).__name__}: {e}"
    ids = [i for i, method in wire.sent[first:] if method == op.method]
    if not ids or ids[-1] not in wire.answers:
        return {"no answer": sdk_error or "no request sent"}
    out: dict[str, Any] = dict(wire.answers[ids[-1]])
    notes = [n for n in wire.notes if n["method"] in ("notifications/message", "notifications/progress")]
    if notes:
        out["notifications"] = notes
    return out


# ------------------------------------------------------------------------------- comparison


def short(v: Any) -> str:
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 160 else s[:157] + "..."


def keyed(items: list[Any]) -> str | None:
    """The key that names each element of a list of descriptors, if there is one."""
    for key in ("name", "uriTemplate", "uri"):
        if items and all(isinstance(i, dict) and isinstance(i.get(key), str) for i in items):
            if len({i[key] for i in items}) == len(items):
                return key
    return None


def diff(ref: Any, got: Any, path: str, out: list[str], extras: set[str]) -> None:
    if isinstance(ref, dict) and isinstance(got, dict):
        for k in sorted(set(ref) | set(got)):
            p = f"{path}.{k}"
            if k not in got:
                out.append(f"{p}: missing (rust: {short(ref[k])})")
            elif k not in ref:
                out.append(f"{p}: not in rust ({short(got[k])})")
            else:
                diff(ref[k], got[k], p, out, extras)
        return
    if isinstance(ref, list) and isinstance(got, list):
        key = keyed(ref) if keyed(ref) == keyed(got) else None
        if key is not None:
            got_by = {i[key]: i for i in got if i[key] not in extras}
            ref_by = {i[key]: i for i in ref}
            ref_order = [i[key] for i in ref]
            got_order = [i[key] for i in got if i[key] not in extras]
            for name in ref_order:
                if name not in got_by:
                    out.append(f"{path}[{key}={name}]: missing")
                else:
                    diff(ref_by[name], got_by[name], f"{path}[{key}={name}]", out, extras)
            for name in got_order:
                if name not in ref_by:
                    out.append(f"{path}[{key}={name}]: not in rust")
            if set(ref_order) == set(got_order) and ref_order != got_order:
                out.append(f"{path}: order {got_order} (rust: {ref_order})")
            return
        if len(ref) != len(got):
            out.append(f"{path}: {len(got)} items (rust: {len(ref)}): {short(got)} (rust: {short(ref)})")
            return
        for i, (a, b) in enumerate(zip(ref, got)):
            diff(a, b, f"{path}[{i}]", out, extras)
        return
    # Scalars and mismatched kinds: equal only as the same JSON (1, 1.0 and true differ).
    if json.dumps(ref) != json.dumps(got):
        out.append(f"{path}: {short(got)} (rust: {short(ref)})")


# ------------------------------------------------------------------------------- command lines


def check_command_line(name: str, argv: list[str]) -> list[str]:
    """An unknown flag and a flag without its value: status 2, usage on stderr, within 5 s;
    `--help`: status 0, usage on stdout."""
    failures = []
    cases = [(["--no-such-flag"], 2, "stderr"), (["--port"], 2, "stderr"), (["--help"], 0, "stdout")]
    for extra, want, stream in cases:
        try:
            p = subprocess.run(
                argv + extra, stdin=subprocess.DEVNULL, capture_output=True, timeout=FLAG_TIMEOUT, text=True
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{name} {' '.join(extra)}: still running after {FLAG_TIMEOUT} s")
            continue
        text = p.stderr if stream == "stderr" else p.stdout
        if p.returncode != want:
            failures.append(f"{name} {' '.join(extra)}: exit status {p.returncode}, want {want} ({p.stderr[-300:]!r})")
        elif "usage:" not in text:
            failures.append(f"{name} {' '.join(extra)}: no usage on {stream} ({text[-300:]!r})")
    return failures


# ------------------------------------------------------------------------------- main


def dump(name: str, era: str, seen: dict[str, Any]) -> None:
    """With FERRITE_SURFACES_DUMP=dir, each server's answers as JSON (to read a failure)."""
    if out := os.environ.get("FERRITE_SURFACES_DUMP"):
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{name}-{era}.json"), "w") as f:
            json.dump(seen, f, indent=1, sort_keys=True)


def parse_servers(spec: str) -> dict[str, list[str]]:
    servers: dict[str, list[str]] = {}
    for entry in filter(None, (e.strip() for e in spec.split(";"))):
        name, sep, command = entry.partition("=")
        if not sep or not name.strip() or not shlex.split(command):
            sys.exit(f"FERRITE_STDIO_SERVERS: entry {entry!r} is not name=command line")
        servers[name.strip()] = shlex.split(command)
    return servers


async def main() -> int:
    servers = parse_servers(os.environ.get("FERRITE_STDIO_SERVERS", ""))
    reference = os.environ.get("FERRITE_REFERENCE", "rust")
    if reference not in servers:
        sys.exit(f"FERRITE_STDIO_SERVERS must name the reference server {reference!r}")
    failures: list[str] = []
    for name, argv in servers.items():
        failures += check_command_line(name, argv)
    for era in ERAS:
        ref = await observe(servers[reference], era)
        dump(reference, era, ref)
        for name, argv in servers.items():
            if name == reference:
                continue
            started = time.monotonic()
            got = await observe(argv, era)
            dump(name, era, got)
            first = next(iter(ref))
            if "no answer" in got.get(first, {}):
                failures.append(f"{name} [{era}] {first}: no answer ({got[first]['no answer']})")
                continue
            found: list[str] = []
            for label in ref:
                diff(ref[label], got.get(label), "", found, SURFACE_EXTRAS.get(name.split("-")[0], set()))
                failures += [f"{name} [{era}] {label}: {d}" for d in found]
                found.clear()
            took = time.monotonic() - started
            print(f"{name} [{era}]: {len(got)} requests compared with {reference} ({took:.1f} s)", file=sys.stderr)
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(failures)} differences" if failures else "no differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
