"""stdio served from the event loop's thread: a server whose request handlers are all
``async def`` (or any server, with ``FERRITE_PY_STDIO=loop``) reads stdin, dispatches and
writes its answers on the asyncio loop's thread, so an ``async def`` call crosses no thread.
Checked from the outside: which thread of the server process read the requests (each
thread's ``rchar`` in ``/proc``), where handlers run, that a blocking ``def`` call goes to the
pool and leaves the loop serving, that cancellation and a server-to-client request work, and
how serving ends (EOF, SIGINT, ``stop()``, a cancelled ``run_async``, a stdin the loop cannot
watch)."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import answer, call, text_of

SCRIPT = """
import asyncio
import json
import os
import sys
import threading
from ferrite_mcp import Context, Server

if len(sys.argv) > 1:
    os.environ["FERRITE_PY_STDIO"] = sys.argv[1]
server = Server("stdio-loop")
go = threading.Event()
cancelled = threading.Event()


def os_name(tid: int) -> str:
    with open(f"/proc/self/task/{tid}/comm") as f:
        return f.read().strip()


def thread_name(tid: int = 0) -> str:
    # Python's name for the threads Python started (the event loop's `ferrite-asyncio`), else
    # the OS name the runtime gave its own (`ferrite-worker`, the pool's `ferrite-py-work`).
    tid = tid or threading.get_native_id()
    named = {t.native_id: t.name for t in threading.enumerate() if not isinstance(t, threading._DummyThread)}
    return named.get(tid) or os_name(tid)


@server.tool()
async def where_async() -> str:
    return thread_name()


@server.tool()
def where() -> str:
    return thread_name()


@server.tool()
def hold() -> str:
    name = thread_name()
    return name if go.wait(30) else "never released"


@server.tool()
async def release() -> str:
    go.set()
    return thread_name()


@server.tool()
async def until_cancelled(ctx: Context) -> str:
    await asyncio.wait_for(ctx.cancelled(), 30)
    cancelled.set()
    return "cancelled"


@server.tool()
async def saw_cancel() -> str:
    return "seen" if await asyncio.to_thread(cancelled.wait, 10) else "not seen"


@server.tool()
async def roots(ctx: Context) -> str:
    return ",".join(str(r.uri) for r in await ctx.list_roots())


@server.tool()
def reads() -> str:
    # Bytes each thread of this process read with read(2), by thread name.
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            name = thread_name(int(tid))
            with open(f"/proc/self/task/{tid}/io") as f:
                rchar = int(f.read().split("rchar:")[1].split()[0])
        except OSError:
            continue
        out[name] = out.get(name, 0) + rchar
    return json.dumps(out)


server.run()
"""

LOOP = "ferrite-asyncio"
RUNTIME = "ferrite-worker"
POOL = "ferrite-py-work"


# A request padded to 64 KiB: reading a few of them stands out from every other read (the wake
# sockets' bytes, the handlers' own reads of /proc).
PAD = "x" * (64 * 1024)


def read_by_thread(c: Any) -> Dict[str, int]:
    for _ in range(4):
        assert answer(c, call(c, "where_async", {"pad": PAD})) == LOOP
    return json.loads(answer(c, call(c, "reads")))


def test_loop_mode_reads_stdin_on_the_event_loop_thread(stdio: Any) -> None:
    reads = read_by_thread(stdio(SCRIPT, args=["loop"]))
    assert reads[LOOP] >= 4 * len(PAD), reads
    assert reads.get(RUNTIME, 0) < len(PAD), reads


# What the two all-`async def` servers below have in common: the thread a handler runs on, and
# the bytes that thread read with read(2) so far.
ASYNC_TOOLS = """
@server.tool()
async def where_async() -> str:
    return threading.current_thread().name


@server.tool()
async def reads() -> str:
    with open(f"/proc/self/task/{threading.get_native_id()}/io") as f:
        return f.read().split("rchar:")[1].split()[0]
"""

ALL_ASYNC = """
import threading
from ferrite_mcp import Server

server = Server("all-async")
""" + ASYNC_TOOLS + """
server.run()
"""


def read_by_the_handlers_thread(c: Any, thread: str) -> int:
    """Bytes the thread running the handlers (which must be ``thread``) read while four padded
    requests were served."""
    assert answer(c, call(c, "where_async")) == thread
    before = int(answer(c, call(c, "reads")))
    for _ in range(4):
        assert answer(c, call(c, "where_async", {"pad": PAD})) == thread
    return int(answer(c, call(c, "reads"))) - before


def test_a_server_whose_handlers_are_all_async_reads_stdin_on_its_loop_by_default(stdio: Any) -> None:
    assert read_by_the_handlers_thread(stdio(ALL_ASYNC), LOOP) >= 4 * len(PAD)


@pytest.mark.parametrize("mode", [[], ["runtime"]], ids=["mixed-default", "runtime"])
def test_a_server_with_def_handlers_reads_stdin_on_a_runtime_thread(stdio: Any, mode: List[str]) -> None:
    # `where`, `hold` and `reads` are `def`s: by default such a server is served from the
    # runtime, where a `def` call alone runs in place.
    reads = read_by_thread(stdio(SCRIPT, args=mode))
    assert reads[RUNTIME] >= 4 * len(PAD), reads
    assert reads[LOOP] < len(PAD), reads


def test_a_def_call_runs_on_the_pool_and_the_loop_goes_on_serving(stdio: Any) -> None:
    c = stdio(SCRIPT, args=["loop"])
    assert answer(c, call(c, "where")) == POOL
    held = call(c, "hold")
    # The held call blocks a pool thread, not the loop: these are answered meanwhile.
    assert answer(c, call(c, "where_async")) == LOOP
    assert "result" in c.request("ping")
    assert answer(c, call(c, "where")) == POOL
    assert answer(c, call(c, "release")) == LOOP
    assert answer(c, held) == POOL


@pytest.mark.parametrize("mode", ["loop", "runtime"])
def test_a_cancelled_async_call_sees_its_cancellation_and_is_not_answered(stdio: Any, mode: str) -> None:
    c = stdio(SCRIPT, args=[mode])
    rid = call(c, "until_cancelled")
    time.sleep(0.2)
    c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    assert answer(c, call(c, "saw_cancel")) == "seen"
    with pytest.raises((TimeoutError, queue.Empty)):
        c.wait(rid, timeout=0.5)


def test_a_server_to_client_request_is_answered_through_the_loop(stdio: Any) -> None:
    c = stdio(SCRIPT, args=["loop"], capabilities={"roots": {}})
    c.responders["roots/list"] = lambda _params: {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}
    assert answer(c, call(c, "roots")) == "file:///a,file:///b"


def test_eof_ends_serving_and_the_process_exits_cleanly(stdio: Any) -> None:
    c = stdio(SCRIPT, args=["loop"])
    assert answer(c, call(c, "where_async")) == LOOP
    assert c.close() == 0
    err = c.proc.stderr.read().decode()
    assert "Traceback" not in err and "panicked" not in err, err


def test_sigint_stops_serving_cleanly(stdio: Any) -> None:
    c = stdio(SCRIPT, args=["loop"])
    assert answer(c, call(c, "where_async")) == LOOP
    c.proc.send_signal(signal.SIGINT)
    assert c.proc.wait(timeout=10) == 0
    err = c.proc.stderr.read().decode()
    assert "Traceback" not in err and "panicked" not in err, err


def test_a_stdin_the_loop_cannot_watch_is_served_from_the_runtime(tmp_path: Path) -> None:
    # A regular file cannot be watched by the event loop (epoll refuses it): even asked for the
    # loop, the runtime reads it, as before, and answers every request in it.
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(SCRIPT))
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "where_async", "arguments": {}}},
    ]
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(m) + "\n" for m in lines))
    with requests.open("rb") as stdin:
        done = subprocess.run([sys.executable, str(script), "loop"], stdin=stdin, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    answers = {m["id"]: m for m in map(json.loads, done.stdout.decode().splitlines())}
    assert text_of(answers[2]["result"]) == LOOP


LIFESPAN = """
import contextlib
import sys
from ferrite_mcp import Context, Server


@contextlib.asynccontextmanager
async def lifespan(server):
    print("entered", file=sys.stderr, flush=True)
    yield {"greeting": "hello"}
    print("exited", file=sys.stderr, flush=True)


server = Server("stdio-loop-lifespan", lifespan=lifespan)


@server.tool()
async def greet(ctx: Context) -> str:
    return ctx.request_context.lifespan_context["greeting"]


@server.tool()
async def stop() -> str:
    server.stop()
    return "stopping"


server.run()
print("run returned", file=sys.stderr, flush=True)
"""


def test_stop_from_a_handler_ends_serving_and_the_lifespan(stdio: Any) -> None:
    c = stdio(LIFESPAN)
    assert answer(c, call(c, "greet")) == "hello"
    assert answer(c, call(c, "stop")) == "stopping"
    # stdin stays open: serving ended because of `stop()`.
    assert c.proc.wait(timeout=10) == 0
    err = c.proc.stderr.read().decode()
    assert err.split() == ["entered", "exited", "run", "returned"], err


RUN_ASYNC = """
import asyncio
import sys
import threading
from ferrite_mcp import Server

server = Server("stdio-loop-run-async")
serving = None
""" + ASYNC_TOOLS + """

@server.tool()
async def cancel_serving() -> str:
    asyncio.get_running_loop().call_later(0.1, serving.cancel)
    return "cancelling"


async def main() -> None:
    global serving
    serving = asyncio.ensure_future(server.run_async())
    try:
        await serving
    except asyncio.CancelledError:
        print("serving cancelled", file=sys.stderr, flush=True)


asyncio.run(main())
server.close()
"""


def test_run_async_serves_stdio_from_the_callers_loop(stdio: Any) -> None:
    c = stdio(RUN_ASYNC)
    # The caller's loop thread read the requests itself.
    assert read_by_the_handlers_thread(c, "MainThread") >= 4 * len(PAD)
    assert answer(c, call(c, "cancel_serving")) == "cancelling"
    # stdin stays open: serving ended because its task was cancelled.
    assert c.proc.wait(timeout=10) == 0
    err = c.proc.stderr.read().decode()
    assert err.strip() == "serving cancelled", err
