"""Serving and shutting down: stdio until EOF, Ctrl-C stops cleanly, close() and context
managers, and registered handlers never keep the process alive."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ferrite_mcp import Server, ServerClosedError

from conftest import call_tool, default_sigint, text_of


def run_script(tmp_path: Path, script: str, **kwargs: object) -> subprocess.Popen:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    return subprocess.Popen(
        [sys.executable, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
        **kwargs,  # type: ignore[call-overload]
    )


SERVING = """
import asyncio
from ferrite_mcp import Server
server = Server("s")
@server.tool()
async def hello() -> str:
    return "hi"
@server.tool()
def sync_hello() -> str:
    return "hi"
server.run()
print("run returned", flush=True)
"""


def test_stdio_stops_at_eof(tmp_path: Path) -> None:
    proc = run_script(tmp_path, SERVING)
    out, err = proc.communicate(b"", timeout=10)
    assert proc.returncode == 0, err
    assert out == b"run returned\n"


def test_ctrl_c_stops_a_running_server_cleanly(tmp_path: Path) -> None:
    proc = run_script(tmp_path, SERVING)
    time.sleep(1.0)  # serving, stdin open
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err
    assert out == b"run returned\n"


def test_handlers_do_not_keep_the_process_alive(tmp_path: Path) -> None:
    proc = run_script(
        tmp_path,
        """
        import json
        from ferrite_mcp import Server
        server = Server("s")
        @server.tool()
        async def a() -> str:
            return "a"
        @server.tool()
        def b() -> str:
            return "b"
        print(server.handle_raw(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}})), flush=True)
        # no close(): the interpreter must still exit
        """,
    )
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert b'"text":"a"' in out


def test_close_and_context_manager() -> None:
    with Server("s") as s:

        @s.tool()
        async def f() -> str:
            return "ok"

        assert text_of(call_tool(s, "f")) == "ok"
    assert s.closed
    with pytest.raises(ServerClosedError):
        call_tool(s, "f")


def test_close_from_another_thread_ends_an_http_run_without_an_error() -> None:
    # A server serving HTTP in one thread, closed from another (how a test or a host stops
    # it): run() returns; it used to raise "the HTTP loop stopped: task N was cancelled"
    # when the runtime went down before the listener's task ended.
    ready = threading.Event()
    outcome: list = []

    def serve() -> None:
        try:
            server.run(transport="http", port=0, on_ready=lambda port: ready.set())
            outcome.append("returned")
        except BaseException as e:  # noqa: BLE001 - the test reports what was raised
            outcome.append(e)

    for _ in range(5):  # the race it fixes was lost about half the time
        server = Server("s")
        ready.clear()
        outcome.clear()
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        assert ready.wait(10), "run did not start listening"
        server.close()
        thread.join(10)
        assert outcome == ["returned"], outcome


def test_def_workers_keep_no_thread_state_past_close_or_exit(tmp_path: Path) -> None:
    # `def` handlers run on worker threads that keep one Python thread state for their life.
    # close() returns once they have let it go; servers left open are closed at exit, and one
    # collected during finalization parks its workers: the process exits cleanly (status 0,
    # no fatal error) with servers in all three states.
    proc = run_script(
        tmp_path,
        """
        import json
        from ferrite_mcp import Server
        init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})

        def server():
            s = Server("s")
            @s.tool()
            def add(a: int, b: int) -> int:
                return a + b
            s.handle_raw(init)
            assert json.loads(s.handle_raw(call))["result"]["structuredContent"] == {"result": 5}
            return s

        closed = server()
        closed.close()
        left_open = server()                # closed by the atexit hook
        cycle = [server()]; cycle.append(cycle)  # collected (if at all) during finalization
        del cycle
        print("exiting", flush=True)
        """,
    )
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()
    assert out.decode().splitlines() == ["exiting"], (out, err)
    assert b"Fatal Python error" not in err, err.decode()


def test_run_rejects_unknown_transport() -> None:
    with Server("s") as s:
        with pytest.raises(NotImplementedError):
            s.run(transport="carrier-pigeon")


def test_run_async_serves_on_the_callers_loop(tmp_path: Path) -> None:
    proc = run_script(
        tmp_path,
        """
        import asyncio, threading
        from ferrite_mcp import Server
        server = Server("s")
        @server.tool()
        async def where() -> str:
            return threading.current_thread().name
        asyncio.run(server.run_async())
        """,
    )
    msgs = [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"where"}}',
    ]
    proc.stdin.write(("\n".join(msgs) + "\n").encode())
    proc.stdin.flush()
    time.sleep(1.0)
    out, err = proc.communicate(b"", timeout=10)
    assert proc.returncode == 0, err
    assert '"text":"MainThread"' in out.decode()


def test_handle_raw_from_an_async_handler_is_refused_not_deadlocked() -> None:
    with Server("s") as s:

        @s.tool()
        async def nested() -> str:
            return s.handle_raw('{"jsonrpc":"2.0","id":9,"method":"ping"}')

        @s.tool()
        async def nested_async() -> str:
            return await s.handle_raw_async('{"jsonrpc":"2.0","id":9,"method":"ping"}')

        result = call_tool(s, "nested")
        assert result["isError"] is True
        assert "handle_raw_async" in text_of(result)
        assert text_of(call_tool(s, "nested_async")) == '{"jsonrpc":"2.0","id":9,"result":{}}'
