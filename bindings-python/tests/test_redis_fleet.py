"""Two servers sharing one Redis (``server.use_redis``), against a real ``redis-server``
(``scripts/redis.sh install``; ``run-tests.sh`` installs it): a 2026-07-28 task created through
one is read and cancelled through the other, and the handler running it on the first observes
the cancellation (``await ctx.cancelled()`` and ``ctx.is_cancelled()``); the round trips are
counted; a bad Redis URL and a call after the first task are ``ConfigError`` with the core's
message. The everything server's ``--redis`` and ``FERRITE_REQUEST_STATE_KEYS`` are checked
through its command line."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest

from conftest import modern_ok
from ferrite_mcp import ConfigError, Context, Server

EXT = "io.modelcontextprotocol/tasks"
TASK_CAPS = {"extensions": {EXT: {}}}
NO_ARGS = {"type": "object"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"

_prefixes = itertools.count(1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A throwaway redis-server on a free loopback port, with no persistence, killed at the end."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not on PATH: run scripts/redis.sh install")
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, "redis-server exited"
                assert time.monotonic() < deadline, f"redis-server did not start on port {port}"
                time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/"
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def prefix() -> str:
    """A key prefix of its own for each test (one fleet per test)."""
    return f"py-fleet-{os.getpid()}-{next(_prefixes)}:"


def until(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def instance(seen: Dict[str, threading.Event]) -> Server:
    """One instance of the fleet: two task tools (required and optional) that run until
    cancelled, one per handler style; ``seen[style]`` is set when the handler observes it."""
    s = Server("fleet", "1.0.0", task_poll_interval=0.1)

    @s.tool(input_schema=NO_ARGS, task_support="required")
    async def awaits_cancel(ctx: Context) -> str:
        try:
            await asyncio.wait_for(ctx.cancelled(), timeout=30)
        except asyncio.TimeoutError:
            return "never cancelled"
        seen["async"].set()
        return "cancelled"

    @s.tool(input_schema=NO_ARGS, task_support="optional")
    def polls_cancel(ctx: Context) -> str:
        if until(ctx.is_cancelled, timeout=30):
            seen["def"].set()
            return "cancelled"
        return "never cancelled"

    return s


@pytest.fixture
def fleet(redis_url: str, prefix: str) -> Iterator[List[Any]]:
    """Servers A and B sharing one Redis and one key prefix, and what each one's handlers saw."""
    made: List[Any] = []
    for _ in range(2):
        seen = {"async": threading.Event(), "def": threading.Event()}
        s = instance(seen)
        s.use_redis(redis_url, prefix)
        made.append((s, seen))
    yield made
    for s, _ in made:
        s.close()


@pytest.mark.parametrize("style, tool", [("async", "awaits_cancel"), ("def", "polls_cancel")])
def test_a_task_created_on_one_server_is_read_and_cancelled_on_the_other(fleet: List[Any], style: str, tool: str) -> None:
    (a, seen_a), (b, seen_b) = fleet
    created = modern_ok(a, "tools/call", {"name": tool, "arguments": {}}, TASK_CAPS)
    assert created["resultType"] == "task", created
    task_id = created["taskId"]

    time.sleep(0.15)  # it runs longer than 100 ms
    got = modern_ok(b, "tasks/get", {"taskId": task_id}, TASK_CAPS)
    assert got["status"] == "working", got
    modern_ok(b, "tasks/cancel", {"taskId": task_id}, TASK_CAPS)

    assert seen_a[style].wait(10), f"A's {style} handler did not observe the cancellation made on B"
    assert not seen_b[style].is_set(), "B never ran the task"
    assert until(lambda: modern_ok(a, "tasks/get", {"taskId": task_id}, TASK_CAPS)["status"] == "cancelled")
    assert a.redis_round_trips and a.redis_round_trips > 0
    assert b.redis_round_trips and b.redis_round_trips > 0


def test_requests_that_touch_no_task_make_no_round_trip(fleet: List[Any]) -> None:
    (a, _), _ = fleet
    before = a.redis_round_trips
    modern_ok(a, "tools/list", {}, TASK_CAPS)
    assert a.redis_round_trips == before
    with Server("alone") as alone:
        assert alone.redis_round_trips is None, "no Redis, no count"


@pytest.mark.parametrize("url", ["not a url", "http://127.0.0.1:6379/", "redis://127.0.0.1:notaport/"])
def test_a_bad_redis_url_is_a_config_error_with_the_core_message(url: str) -> None:
    with Server("bad") as s:
        with pytest.raises(ConfigError) as e:
            s.use_redis(url)
        assert f'redis URL "{url}": ' in str(e.value), str(e.value)


def test_use_redis_after_the_first_task_is_a_config_error(redis_url: str, prefix: str) -> None:
    seen = {"async": threading.Event(), "def": threading.Event()}
    with instance(seen) as s:
        created = modern_ok(s, "tools/call", {"name": "polls_cancel", "arguments": {}}, TASK_CAPS)
        modern_ok(s, "tasks/cancel", {"taskId": created["taskId"]}, TASK_CAPS)
        with pytest.raises(ConfigError, match="^the task options cannot change after the first task was created$"):
            s.use_redis(redis_url, prefix)
        assert s.redis_round_trips is None


def test_the_everything_server_refuses_a_bad_redis_url_or_state_key() -> None:
    env = dict(os.environ, FERRITE_REQUEST_STATE_KEYS="not-a-key")
    r = subprocess.run([sys.executable, str(EXAMPLES / "everything.py")], capture_output=True, text=True, timeout=30, env=env)
    assert r.returncode == 2 and r.stderr.startswith("everything: "), r.stderr
    env = {k: v for k, v in os.environ.items() if k != "FERRITE_REQUEST_STATE_KEYS"}
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "everything.py"), "--redis", "nope"], capture_output=True, text=True, timeout=30, env=env
    )
    assert r.returncode == 2 and r.stderr.startswith("everything: ") and 'redis URL "nope": ' in r.stderr, r.stderr
    r = subprocess.run([sys.executable, str(EXAMPLES / "everything.py"), "--redis"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "everything: --redis needs a URL\nusage:" in r.stderr, r.stderr
