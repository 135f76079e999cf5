"""Where ``def`` handlers run when served over stdio: a call that is alone runs on the runtime
thread that read its request (no hand-off to a pool worker and back); while it runs, the
server goes on reading and answering (other ``def`` calls go to the pool), the call can still
wait on the server (``ctx.read_resource``) and see its own cancellation, and the process
exits cleanly after it."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import answer, call

SCRIPT = """
import threading
from ferrite_mcp import Context, Server

import sys
server = Server("in-place", worker_threads=int(sys.argv[1]) if len(sys.argv) > 1 else None)
go = threading.Event()
seen_cancel = threading.Event()


def thread_name() -> str:
    # The OS name of the calling thread: the runtime's are `ferrite-worker`, the pool's
    # `ferrite-py-worker` cut to 15 characters.
    with open(f"/proc/self/task/{threading.get_native_id()}/comm") as f:
        return f.read().strip()


@server.tool()
def where() -> str:
    return thread_name()


@server.tool()
def hold() -> str:
    name = thread_name()
    return name if go.wait(30) else "never released"


@server.tool()
def release() -> str:
    go.set()
    return thread_name()


@server.resource("res://name")
def name() -> str:
    return thread_name()


@server.tool()
def read_back(ctx: Context) -> str:
    contents = ctx.read_resource("res://name")
    return thread_name() + " read " + str(contents[0].content)


@server.tool()
def until_cancelled(ctx: Context) -> str:
    for _ in range(3000):
        if ctx.is_cancelled():
            seen_cancel.set()
            return "cancelled"
        go.wait(0.01)
    return "never cancelled"


@server.tool()
def saw_cancel() -> str:
    return "seen" if seen_cancel.wait(10) else "not seen"


server.run()
"""

RUNTIME = "ferrite-worker"
POOL = "ferrite-py-work"


def test_a_def_call_alone_runs_on_the_runtime_thread_that_read_it(stdio: Any) -> None:
    c = stdio(SCRIPT)
    for _ in range(3):
        assert answer(c, call(c, "where")) == RUNTIME
    assert c.close() == 0
    err = c.proc.stderr.read().decode()
    assert "Fatal Python error" not in err and "panicked" not in err, err


@pytest.mark.parametrize("workers", [None, 1])
def test_the_server_answers_while_a_def_call_runs_in_place(stdio: Any, workers: Any) -> None:
    # With one runtime worker too: the call hands the worker's scheduler to another thread.
    c = stdio(SCRIPT, args=[str(workers)] if workers else [])
    held = call(c, "hold")
    # Read and answered while `hold` blocks: the loop is not blocked, and the second `def`
    # call goes to the pool (one call runs in place at a time).
    where = call(c, "where")
    assert answer(c, where) == POOL
    ping = c.start("ping")
    assert "result" in c.wait(ping)
    assert answer(c, call(c, "release")) == POOL
    assert answer(c, held) == RUNTIME
    ids = [r.get("id") for r in c.responses]
    assert ids.index(held) > max(ids.index(where), ids.index(ping)), ids


def test_a_def_call_in_place_can_wait_on_the_server(stdio: Any) -> None:
    c = stdio(SCRIPT)
    # The tool blocks its thread on a read the server answers; the resource's `def` handler
    # runs on the pool meanwhile.
    assert answer(c, call(c, "read_back")) == f"{RUNTIME} read {POOL}"


def test_a_def_call_in_place_sees_its_cancellation(stdio: Any) -> None:
    c = stdio(SCRIPT)
    rid = call(c, "until_cancelled")
    c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    assert answer(c, call(c, "saw_cancel")) == "seen"
