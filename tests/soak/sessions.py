"""The `sessions` soak: S sessions made (initialize + notifications/initialized), all alive at
once, then ended, in rounds; the server's RSS at a baseline, with all S alive, and after all
ended.

The everything servers take no idle-timeout flag, so sessions end by DELETE, not by expiry.
A second round tells memory that the allocator keeps for reuse (round 2 peaks and ends where
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


def one_round(server: Server, count: int, slots: int, settle: float, heap: bool) -> Round:
    r = Round()
    start = time.monotonic()
    sessions = in_slots(server, list(range(count)), slots, lambda conn, _: initialize(conn))
    r.create_seconds = time.monotonic() - start
    if len(set(sessions)) != count:
        raise SoakError(f"{count} initialize gave {len(set(sessions))} distinct session ids")
    conn = server.connect()
    ping(conn, sessions[0])  # the oldest is still alive with all of them made
    r.created_kb = server.rss()
    in_slots(server, sessions, slots, end)
    status, _, body = post(conn, {"jsonrpc": "2.0", "id": 8, "method": "ping"}, sessions[0])
    if status != 404:
        raise SoakError(f"a request on a deleted session: HTTP {status} (404 expected): {body[:200]!r}")
    conn.close()
    time.sleep(settle)
    r.ended_kb = server.rss()
    if heap:
        r.in_use, r.trimmed_kb = heap_figures(server)
    return r


def run(server: Server, count: int, warm: int, rounds: int, slots: int, settle: float,
        heap: bool) -> SessionsResult:
    result = SessionsResult()
    if warm:
        one_round(server, warm, slots, 0, False)
    time.sleep(settle)
    result.baseline_kb = server.rss()
    if heap:
        result.baseline_in_use, result.trimmed_baseline_kb = heap_figures(server)
    for _ in range(rounds):
        result.rounds.append(one_round(server, count, slots, settle, heap))
    conn = server.connect()
    ping(conn, initialize(conn))  # and it still serves a new session
    conn.close()
    return result
