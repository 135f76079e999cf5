"""The `sessions` soak: S sessions made (initialize + notifications/initialized), all alive at
once, then ended, in rounds; the server's RSS at a baseline, with all S alive, and after all
ended.

Sessions end by DELETE, or with `expire_ms` by expiry: the server then runs with that idle
timeout (`FERRITE_HTTP_OPTIONS`, which every everything server applies to its listener), the
client sends nothing more, and after the timeout and one sweep both the oldest and the newest
session answer 404. A second round tells memory that the allocator keeps for reuse (round 2 peaks and ends where
round 1 did) from memory that sessions leak (each round ends higher).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import List

from server import Server, SoakError, delete_session, heap_figures, initialize, ping, post


@dataclass
class Round:
    created_kb: int = 0
    ended_kb: int = 0
    in_use: int = 0  # glibc heap bytes in use, when --heap
    trimmed_kb: int = 0  # RSS after malloc_trim(0), when --heap
    create_seconds: float = 0.0


@dataclass
class SessionsResult:
    baseline_kb: int = 0
    baseline_in_use: int = 0
    trimmed_baseline_kb: int = 0
    rounds: List[Round] = field(default_factory=list)


def in_slots(server: Server, items: list, slots: int, work) -> list:
    """Runs `work(conn, item)` over `items` on `slots` threads, each with its own connection;
    the answers in order."""
    out = [None] * len(items)
    lock = threading.Lock()
    state = {"next": 0}
    errors: List[BaseException] = []

    def slot() -> None:
        conn = server.connect()
        try:
            while not errors:
                with lock:
                    i = state["next"]
                    if i >= len(items):
                        return
                    state["next"] = i + 1
                out[i] = work(conn, items[i])
        except BaseException as e:
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=slot, daemon=True) for _ in range(slots)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SoakError(f"{type(errors[0]).__name__}: {errors[0]}; {server.log_tail()}")
    return out


def end(conn, session: str) -> None:
    status = delete_session(conn, session)
    if status not in (200, 202, 204):
        raise SoakError(f"DELETE of a session: HTTP {status}")


def sweep_seconds(expire_ms: int) -> float:
    """How long after its last request a session is surely gone: the idle timeout, plus the
    sweeper's period (a quarter of the timeout, between 0.1 and 30 s), plus a second."""
    return expire_ms / 1000 + min(max(expire_ms / 4000, 0.1), 30.0) + 1.0


def one_round(server: Server, count: int, slots: int, settle: float, heap: bool, expire_ms: int = 0) -> Round:
    r = Round()
    start = time.monotonic()
    sessions = in_slots(server, list(range(count)), slots, lambda conn, _: initialize(conn))
    r.create_seconds = time.monotonic() - start
    if len(set(sessions)) != count:
        raise SoakError(f"{count} initialize gave {len(set(sessions))} distinct session ids")
    conn = server.connect()
    # With all of them made the oldest is still alive (by expiry: the newest, since making them
    # may take longer than the timeout on a slow machine).
    ping(conn, sessions[-1] if expire_ms else sessions[0])
    r.created_kb = server.rss()
    if expire_ms:
        conn.close()  # the server closes a keep-alive connection idle past its head timeout
        time.sleep(sweep_seconds(expire_ms))
        conn = server.connect()
    else:
        in_slots(server, sessions, slots, end)
    for session in (sessions[0], sessions[-1]):
        status, _, body = post(conn, {"jsonrpc": "2.0", "id": 8, "method": "ping"}, session)
        if status != 404:
            how = "expired" if expire_ms else "deleted"
            raise SoakError(f"a request on an {how} session: HTTP {status} (404 expected): {body[:200]!r}")
    conn.close()
    time.sleep(settle)
    r.ended_kb = server.rss()
    if heap:
        r.in_use, r.trimmed_kb = heap_figures(server)
    return r


def run(server: Server, count: int, warm: int, rounds: int, slots: int, settle: float,
        heap: bool, expire_ms: int = 0) -> SessionsResult:
    result = SessionsResult()
    if warm:
        one_round(server, warm, slots, 0, False)  # by DELETE: the baseline needs no expiry
    time.sleep(settle)
    result.baseline_kb = server.rss()
    if heap:
        result.baseline_in_use, result.trimmed_baseline_kb = heap_figures(server)
    for _ in range(rounds):
        result.rounds.append(one_round(server, count, slots, settle, heap, expire_ms))
    conn = server.connect()
    ping(conn, initialize(conn))  # and it still serves a new session
    conn.close()
    return result
