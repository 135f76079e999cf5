#!/usr/bin/env python3
"""Soak runs against one everything server, with its memory sampled (issue 15).

    soak.py calls    --transport stdio|http [--calls N] [--inflight K] [--threshold PCT] -- CMD...
    soak.py sessions [--sessions S] [--rounds R] [--threshold PCT] -- CMD...
    soak.py sse      [--streams C] [--hold SECONDS] -- CMD...

CMD is the server's command without transport flags: the driver adds `--port N` (a free port)
for HTTP and `--stateless` for `calls --transport http` unless `--session` is given. The RSS
is VmRSS of the process CMD starts, which is the process that serves on every surface.

`calls` fails when the RSS grows by more than the threshold between the warm-up mark (the
first `--warmup` percent of the calls) and the end (the lowest RSS of the last tenth of the
calls, so that a garbage-collected heap is not judged on the top of a tooth). `sessions` runs rounds and fails when the
RSS after the last round ended is more than the threshold above the RSS after the first round
ended: glibc keeps freed pages for reuse, so the RSS does not fall back to the baseline when
the sessions end (the distance is printed as "back to baseline within"), but memory that
sessions leak makes every round end higher. `--heap` adds, through gdb, the glibc heap in use
and the RSS after malloc_trim(0), which show what is still allocated. `sse` fails when a stream
is refused, misses the notification, closes early, or the server stops serving; its memory
figures are printed, not judged (the in-memory event store keeps the events of the last 4,096
streams by design, so a round ends higher than the one before until that store is full).
Every mode fails on a wrong answer.
Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import calls  # noqa: E402
import sessions  # noqa: E402
import sse  # noqa: E402
from server import Server, SoakError  # noqa: E402


def mib(kb: int) -> str:
    return f"{kb / 1024:.1f} MiB"


def pct(new: int, old: int) -> float:
    return (new - old) * 100.0 / old if old else 0.0


def table(rows: List[tuple]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def do_calls(args, server: Server) -> dict:
    warm_at = max(1, args.calls * args.warmup // 100)
    if args.transport == "stdio":
        r = calls.run_stdio(server, args.calls, args.inflight, warm_at)
    else:
        r = calls.run_http(server, args.calls, args.inflight, warm_at, args.session)
    warm = next(kb for done, kb in r.samples if done == warm_at)
    end = r.samples[-1][1]
    peak = max(kb for _, kb in r.samples)
    after = [kb for done, kb in r.samples if done >= warm_at]
    # The floor of the last tenth: a garbage-collected heap (Node, Go, Python) saws up and down,
    # and the last sample may sit on a tooth; what stays after its collections is what leaks.
    floor = min(kb for done, kb in r.samples if done >= args.calls - args.calls // 10)
    growth = pct(floor, warm)
    per_call = (floor - warm) * 1024.0 / max(1, args.calls - warm_at)
    where = "stateless" if args.transport == "http" and not args.session else "one session"
    print(f"calls over {args.transport}" + (f" ({where})" if args.transport == "http" else "")
          + f": {args.calls} tools/call add, {args.inflight} in flight, every answer checked; RSS of pid "
          f"{server.pid} every {max(1, args.calls // 50)} calls; warm-up = the first {warm_at} calls; growth = "
          f"the lowest RSS of the last tenth of the calls against the RSS after warm-up")
    print(table([
        ("calls", f"{args.calls}"),
        ("RSS after warm-up", mib(warm)),
        ("RSS at the end", mib(end)),
        ("RSS floor, last tenth", mib(floor)),
        ("RSS max", mib(peak)),
        ("RSS min after warm-up", mib(min(after))),
        ("growth warm-up -> end", f"{growth:+.2f} % (threshold {args.threshold} %)"),
        ("bytes per call after warm-up", f"{per_call:+.2f}"),
        ("calls/s", f"{args.calls / r.seconds:.0f} ({r.seconds:.1f} s)"),
    ]))
    print("  RSS samples (calls:KiB): " + " ".join(f"{d}:{kb}" for d, kb in r.samples))
    ok = growth <= args.threshold
    return {"mode": f"calls-{args.transport}", "calls": args.calls, "inflight": args.inflight,
            "warm_kb": warm, "end_kb": end, "floor_kb": floor, "max_kb": peak, "growth_pct": round(growth, 2),
            "bytes_per_call": round(per_call, 2), "calls_per_s": round(args.calls / r.seconds),
            "seconds": round(r.seconds, 1), "ok": ok}


HEAP_NOTE = ("; with --heap, gdb reads the glibc heap in use (malloc_stats(): everything the core and the C "
             "server allocate; not the Python, V8 or Go heaps) and the RSS after malloc_trim(0) (without the "
             "free pages glibc keeps for reuse)")


def heap_rows(label: str, in_use: int, trimmed: int, base_in_use: int, base_trimmed: int) -> List[tuple]:
    return [(f"{label}: heap in use", f"{in_use / 1048576:.2f} MiB ({(in_use - base_in_use) / 1024:+.0f} KiB "
                                      f"vs baseline)"),
            (f"{label}: RSS after malloc_trim", f"{mib(trimmed)} ({pct(trimmed, base_trimmed):+.2f} % vs "
                                                f"baseline)")]


def do_sessions(args, server: Server) -> dict:
    r = sessions.run(server, args.sessions, args.warmup_sessions, args.rounds, args.slots, args.settle, args.heap,
                     args.expire_ms)
    how = (f"left idle until the {args.expire_ms} ms idle timeout and the sweep ended them" if args.expire_ms
           else "each ended by DELETE")
    print(f"sessions (stateful HTTP): baseline after {args.warmup_sessions} sessions made and ended; then "
          f"{args.rounds} round(s) of {args.sessions} sessions (initialize + initialized) all alive, then "
          f"{how}, the oldest and newest checked gone (404); {args.settle:.0f} s wait; RSS of pid {server.pid}"
          + (HEAP_NOTE if args.heap else ""))
    rows = [("sessions per round", f"{args.sessions}"), ("RSS baseline", mib(r.baseline_kb))]
    if args.heap:
        rows += [("baseline: heap in use", f"{r.baseline_in_use / 1048576:.2f} MiB"),
                 ("baseline: RSS after malloc_trim", mib(r.trimmed_baseline_kb))]
    for n, rd in enumerate(r.rounds, 1):
        per = (rd.created_kb - r.baseline_kb) * 1024.0 / args.sessions
        rows += [
            (f"round {n}: RSS with all alive", f"{mib(rd.created_kb)} ({per:.0f} bytes per session; "
                                               f"{args.sessions / rd.create_seconds:.0f} sessions/s)"),
            (f"round {n}: RSS after all ended", f"{mib(rd.ended_kb)} ({pct(rd.ended_kb, r.baseline_kb):+.2f} % "
                                                f"vs baseline)"),
        ]
        if args.heap:
            rows += heap_rows(f"round {n}", rd.in_use, rd.trimmed_kb, r.baseline_in_use, r.trimmed_baseline_kb)
    back = pct(r.rounds[-1].ended_kb, r.baseline_kb)
    drift = pct(r.rounds[-1].ended_kb, r.rounds[0].ended_kb)
    rows += [("back to baseline within", f"{back:+.2f} % (RSS after the last round vs baseline; reported)"),
             ("last round vs first, after end", f"{drift:+.2f} % (threshold {args.threshold} %)")]
    print(table(rows))
    ok = drift <= args.threshold
    return {"mode": "sessions-expired" if args.expire_ms else "sessions", "sessions": args.sessions,
            "rounds": args.rounds, "baseline_kb": r.baseline_kb,
            "alive_kb": [rd.created_kb for rd in r.rounds], "ended_kb": [rd.ended_kb for rd in r.rounds],
            "back_pct": round(back, 2), "drift_pct": round(drift, 2),
            "baseline_in_use": r.baseline_in_use, "in_use": [rd.in_use for rd in r.rounds],
            "trimmed_baseline_kb": r.trimmed_baseline_kb, "trimmed_kb": [rd.trimmed_kb for rd in r.rounds],
            "ok": ok}


def do_sse(args, server: Server) -> dict:
    r = sse.run(server, args.streams, args.slots, args.hold, args.settle, args.rounds, args.heap)
    print(f"sse (stateful HTTP): {args.rounds} round(s) of {args.streams} GET streams, one session each, held "
          f"together; every one 200 text/event-stream; a ping answered while held; one "
          f"test_trigger_tool_change, notifications/tools/list_changed awaited on every stream; then all "
          f"closed (ping answered) and the sessions deleted; RSS of pid {server.pid}"
          + (HEAP_NOTE if args.heap else ""))
    rows = [("streams", f"{args.streams}"), ("RSS baseline", mib(r.baseline_kb))]
    if args.heap:
        rows += [("baseline: heap in use", f"{r.baseline_in_use / 1048576:.2f} MiB"),
                 ("baseline: RSS after malloc_trim", mib(r.trimmed_baseline_kb))]
    for n, rd in enumerate(r.rounds, 1):
        top = rd.samples[-1][1]
        per = (top - r.baseline_kb) * 1024.0 / args.streams
        rows += [
            (f"round {n}: RSS with all open", f"{mib(top)} ({per:.0f} bytes per stream and its session)"),
            (f"round {n}: notified", f"{rd.received} streams in {rd.notify_seconds:.2f} s "
                                     f"(the trigger counted {rd.listeners} listeners)"),
            (f"round {n}: RSS after all closed", mib(rd.closed_kb)),
            (f"round {n}: RSS after sessions deleted", f"{mib(rd.deleted_kb)} "
                                                       f"({pct(rd.deleted_kb, r.baseline_kb):+.2f} % vs baseline)"),
        ]
        if args.heap:
            rows += heap_rows(f"round {n}", rd.in_use, rd.trimmed_kb, r.baseline_in_use, r.trimmed_baseline_kb)
        print("  round %d RSS samples (streams:KiB): " % n + " ".join(f"{c}:{kb}" for c, kb in rd.samples))
    print(table(rows))
    first = r.rounds[0]
    return {"mode": "sse", "streams": args.streams, "rounds": args.rounds, "baseline_kb": r.baseline_kb,
            "open_kb": [rd.samples[-1][1] for rd in r.rounds],
            "bytes_per_stream": round((first.samples[-1][1] - r.baseline_kb) * 1024.0 / args.streams),
            "received": [rd.received for rd in r.rounds], "deleted_kb": [rd.deleted_kb for rd in r.rounds],
            "baseline_in_use": r.baseline_in_use, "in_use": [rd.in_use for rd in r.rounds],
            "trimmed_baseline_kb": r.trimmed_baseline_kb, "trimmed_kb": [rd.trimmed_kb for rd in r.rounds],
            "ok": True}


def main(argv: List[str]) -> int:
    if "--" not in argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    split = argv.index("--")
    own, command = argv[:split], argv[split + 1:]
    p = argparse.ArgumentParser(prog="soak.py", description="Soak runs with the server's memory sampled.")
    p.add_argument("mode", choices=["calls", "sessions", "sse"])
    p.add_argument("--name", default="", help="a label for the summary line")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--calls", type=int, default=1_000_000)
    p.add_argument("--inflight", type=int, default=None, help="calls in flight (default 32 stdio, 4 http)")
    p.add_argument("--warmup", type=int, default=10, help="percent of the calls before the warm-up sample")
    p.add_argument("--session", action="store_true", help="http calls inside one session, not stateless")
    p.add_argument("--threshold", type=float, default=5.0, help="RSS growth allowed, percent")
    p.add_argument("--sessions", type=int, default=10_000)
    p.add_argument("--warmup-sessions", type=int, default=100)
    p.add_argument("--expire-ms", type=int, default=0,
                   help="sessions: end them by this idle timeout (FERRITE_HTTP_OPTIONS) instead of DELETE")
    p.add_argument("--rounds", type=int, default=None, help="default 2 for sessions, 1 for sse")
    p.add_argument("--streams", type=int, default=1_000)
    p.add_argument("--hold", type=float, default=2.0, help="seconds the streams are held before the trigger")
    p.add_argument("--slots", type=int, default=4, help="concurrent connections making sessions")
    p.add_argument("--settle", type=float, default=2.0, help="seconds waited before an RSS after ending")
    p.add_argument("--heap", action="store_true",
                   help="sessions and sse: also read the glibc heap in use and the RSS after malloc_trim(0) (gdb)")
    p.add_argument("--summary", help="append the figures as one JSON line to this file")
    args = p.parse_args(own)
    if not command:
        p.error("no server command after --")
    if args.inflight is None:
        args.inflight = 32 if args.transport == "stdio" else 4
    if args.rounds is None:
        args.rounds = 2 if args.mode == "sessions" else 1
    if args.calls < 50 or not 0 < args.warmup < 100:
        p.error("--calls must be at least 50 and --warmup between 1 and 99")
    over_http = args.mode != "calls" or args.transport == "http"
    stateless = args.mode == "calls" and over_http and not args.session
    env = None
    if args.mode == "sessions" and args.expire_ms:
        env = {"FERRITE_HTTP_OPTIONS": json.dumps({"session_idle_timeout_ms": args.expire_ms})}
    server = Server(command, http=over_http, stateless=stateless, env=env)
    try:
        figures = {"calls": do_calls, "sessions": do_sessions, "sse": do_sse}[args.mode](args, server)
        server.check_alive()
    except (SoakError, OSError, ValueError, LookupError, TypeError, AttributeError,
            http.client.HTTPException) as e:
        # A wrong answer, a refused or cut connection, or an answer of the wrong shape.
        if not isinstance(e, SoakError):
            e = SoakError(f"{type(e).__name__}: {e}; {server.log_tail()}")
        print(f"soak {args.mode}: FAILED: {e}", file=sys.stderr)
        figures = {"mode": args.mode if args.mode != "calls" else f"calls-{args.transport}",
                   "ok": False, "error": str(e)[:500]}
    finally:
        server.stop()
    figures["name"] = args.name
    figures["command"] = " ".join(server.argv)
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write(json.dumps(figures) + "\n")
    verdict = "ok" if figures["ok"] else "FAILED"
    print(f"soak {figures['mode']} {args.name}: {verdict}")
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
