#!/usr/bin/env python3
"""Summarise loadgen results: medians per (server, protocol, mode, in-flight level), a table, and
target ratios.

Input is the JSON-lines file written by bench/stdio.sh (loadgen) or bench/http.sh (http-loadgen),
one line per run. Runs that answered any call wrongly are left out of the medians and counted in
the "bad" column. Every line names its `protocol` revision (lines without one are 2025-11-25, the
handshake era). HTTP lines carry a `mode` (stateless-json, stateful-sse); their table gets a mode
column and an "answers" column (whether the server answered with JSON or SSE), and `--http`
selects the HTTP targets.

The targets against the baseline and rmcp apply to the handshake revision (2025-11-25). For the
per-request envelope (2026-07-28) the report prints, per in-flight level, Ferrite's 2026-07-28
req/s over its 2025-11-25 req/s and the server CPU per call of each (target: the envelope path
costs at most 10% more), and Ferrite against rmcp at each revision.

Usage: report.py [--http] [--baseline NAME] [--ferrite NAME] [--rmcp-prefix PREFIX] [--at K] RESULTS.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, field

# Ferrite's targets at the reference in-flight level (see bench/README.md).
TARGET_VS_BASELINE = 0.60
TARGET_VS_RMCP = 1.5
# Over Streamable HTTP, stateless JSON (see bench/README.md).
HTTP_TARGET_MODE = "stateless-json"
HTTP_TARGET_VS_BARE_HYPER = 0.75
HTTP_TARGET_VS_RMCP = 1.5
# The per-request envelope (2026-07-28) may cost at most this much more than the handshake path
# (2025-11-25): server CPU per call at most 1.10x, req/s at least 1/1.10x.
HANDSHAKE = "2025-11-25"
ENVELOPE = "2026-07-28"
ENVELOPE_MAX_COST = 1.10

METRICS = ("req_per_s", "p50_us", "p99_us", "cpu_us_per_call")


@dataclass
class Row:
    label: str
    protocol: str
    mode: str | None
    inflight: int
    runs: list[dict] = field(default_factory=list)
    bad: int = 0

    def median(self, metric: str) -> float | None:
        values = [run[metric] for run in self.runs if run.get(metric) is not None]
        return statistics.median(values) if values else None

    def answers(self) -> str:
        """How an HTTP server answered: "JSON", "SSE" or the share of SSE answers."""
        calls = sum(run.get("calls", 0) for run in self.runs)
        sse = sum(run.get("sse_answers", 0) for run in self.runs)
        if not calls:
            return "-"
        if sse == 0:
            return "JSON"
        if sse == calls:
            return "SSE"
        return f"{100 * sse / calls:.0f}% SSE"


def load(path: str) -> list[Row]:
    """Groups runs by (label, protocol, mode, inflight), keeping the order in which servers first
    appear."""
    rows: dict[tuple[str, str, str | None, int], Row] = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                run = json.loads(line)
                key = (run["label"], run.get("protocol") or HANDSHAKE, run.get("mode"), int(run["inflight"]))
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{path}:{number}: not a loadgen result line ({e})")
            row = rows.setdefault(key, Row(*key))
            if run.get("errors", 0) > 0:
                row.bad += 1
            else:
                row.runs.append(run)
    # Servers in order of appearance, then each server's modes in order of appearance, then its
    # revisions (oldest first), then its levels ascending.
    order: dict[str, int] = {}
    mode_order: dict[str | None, int] = {}
    for label, _, mode, _ in rows:
        order.setdefault(label, len(order))
        mode_order.setdefault(mode, len(mode_order))
    return sorted(rows.values(), key=lambda r: (order[r.label], mode_order[r.mode], r.protocol, r.inflight))


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def print_table(rows: list[Row], baseline: str, http: bool) -> None:
    # The baseline serves the handshake revision only; every row, whatever its revision, is
    # compared with it in the same mode at the same level.
    loop_rps: dict[tuple[str | None, int], float | None] = {}
    for r in sorted((r for r in rows if r.label == baseline), key=lambda r: r.protocol != HANDSHAKE):
        loop_rps.setdefault((r.mode, r.inflight), r.median("req_per_s"))
    if http:
        header = (
            "server",
            "mode",
            "protocol",
            "clients",
            "answers",
            "req/s",
            "p50 µs",
            "p99 µs",
            "server CPU µs/call",
            "x hyper",
        )
    else:
        header = ("server", "protocol", "inflight", "req/s", "p50 µs", "p99 µs", "server CPU µs/call", "x loop")
    header += ("runs", "bad")
    table = [header]
    for r in rows:
        rps = r.median("req_per_s")
        loop = loop_rps.get((r.mode, r.inflight))
        if http:
            line = (r.label, r.mode or "-", r.protocol, str(r.inflight), r.answers())
        else:
            line = (r.label, r.protocol, str(r.inflight))
        table.append(
            line
            + (
                fmt(rps, 0),
                fmt(r.median("p50_us")),
                fmt(r.median("p99_us")),
                fmt(r.median("cpu_us_per_call"), 2),
                fmt(rps / loop, 2) if rps and loop else "-",
                str(len(r.runs)),
                str(r.bad),
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    # Text columns are left-aligned, figures right-aligned.
    left = 3 if http else 2
    for n, line in enumerate(table):
        cells = [cell.ljust(w) for cell, w in zip(line[:left], widths)]
        cells += [cell.rjust(w) for cell, w in zip(line[left:], widths[left:])]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def ratio_line(name: str, numerator: float | None, denominator: float | None, target: float, missing: str) -> str:
    if numerator is None or denominator is None or denominator == 0:
        return f"{name} = n/a ({missing}) (target >= {target:.2f})"
    value = numerator / denominator
    verdict = "met" if value >= target else "NOT met"
    return f"{name} = {value:.2f} (target >= {target:.2f}: {verdict})"


def print_ratios(rows: list[Row], baseline: str, ferrite: str, rmcp_prefix: str, at: int) -> None:
    rows = [r for r in rows if r.protocol == HANDSHAKE]

    def rps(label: str) -> float | None:
        return next((r.median("req_per_s") for r in rows if r.label == label and r.inflight == at), None)

    ferrite_rps = rps(ferrite)
    loop_rps = rps(baseline)
    rmcp = [(r.median("req_per_s"), r.label) for r in rows if r.label.startswith(rmcp_prefix) and r.inflight == at]
    rmcp = [(value, label) for value, label in rmcp if value is not None]
    best_rmcp_rps, best_rmcp = max(rmcp) if rmcp else (None, "none")

    missing_ferrite = f"no '{ferrite}' {HANDSHAKE} figures at {at} in flight"
    print(
        ratio_line(
            f"ferrite/hand-written @{at}",
            ferrite_rps,
            loop_rps,
            TARGET_VS_BASELINE,
            missing_ferrite if ferrite_rps is None else f"no '{baseline}' figures",
        )
    )
    print(
        ratio_line(
            f"ferrite/best-rmcp @{at}",
            ferrite_rps,
            best_rmcp_rps,
            TARGET_VS_RMCP,
            missing_ferrite if ferrite_rps is None else f"no '{rmcp_prefix}*' figures",
        )
        + (f"  [best rmcp: {best_rmcp}]" if best_rmcp_rps is not None else "")
    )


def print_http_ratios(rows: list[Row], baseline: str, ferrite: str, rmcp_prefix: str, at: int) -> None:
    mode = HTTP_TARGET_MODE
    rows = [r for r in rows if r.protocol == HANDSHAKE]

    def rps(label: str) -> float | None:
        return next(
            (r.median("req_per_s") for r in rows if r.label == label and r.mode == mode and r.inflight == at), None
        )

    ferrite_rps = rps(ferrite)
    missing_ferrite = f"no '{ferrite}' {mode} {HANDSHAKE} figures at {at} clients"
    rmcp = [r.label for r in rows if r.label.startswith(rmcp_prefix) and r.mode == mode and r.inflight == at]
    rmcp_rps = max((value for value in map(rps, rmcp) if value is not None), default=None)
    print(
        ratio_line(
            f"ferrite/bare-hyper {mode} @{at}",
            ferrite_rps,
            rps(baseline),
            HTTP_TARGET_VS_BARE_HYPER,
            missing_ferrite if ferrite_rps is None else f"no '{baseline}' figures",
        )
    )
    print(
        ratio_line(
            f"ferrite/rmcp {mode} @{at}",
            ferrite_rps,
            rmcp_rps,
            HTTP_TARGET_VS_RMCP,
            missing_ferrite if ferrite_rps is None else f"no '{rmcp_prefix}*' figures",
        )
    )


def fold(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def quotient(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def verdict(value: float | None, ok: bool) -> str:
    return "n/a" if value is None else ("met" if ok else "NOT met")


def print_envelope(rows: list[Row], ferrite: str, rmcp_prefix: str, mode: str | None) -> None:
    """Ferrite's envelope path (2026-07-28) against its handshake path (2025-11-25), and both
    against the best rmcp row at the same revision, per in-flight level (in `mode` over HTTP)."""
    rows = [r for r in rows if r.mode == mode]

    def find(label: str, protocol: str, level: int) -> Row | None:
        return next((r for r in rows if r.label == label and r.protocol == protocol and r.inflight == level), None)

    def best_rmcp(protocol: str, level: int) -> Row | None:
        candidates = [
            r
            for r in rows
            if r.label.startswith(rmcp_prefix)
            and r.protocol == protocol
            and r.inflight == level
            and r.median("req_per_s") is not None
        ]
        return max(candidates, key=lambda r: r.median("req_per_s"), default=None)

    def median(row: Row | None, metric: str) -> float | None:
        return row.median(metric) if row else None

    levels = sorted({r.inflight for r in rows if r.label == ferrite})
    where = f" {mode}" if mode else ""
    unit = "clients" if mode else "in flight"
    if not levels:
        print(f"envelope vs handshake{where}: n/a (no '{ferrite}' figures)")
        return
    print(
        f"ferrite envelope path ({ENVELOPE}) vs handshake path ({HANDSHAKE}){where}"
        f" (target: costs at most {ENVELOPE_MAX_COST:.2f}x, i.e. req/s >= {1 / ENVELOPE_MAX_COST:.3f}x"
        f" and server CPU/call <= {ENVELOPE_MAX_COST:.2f}x):"
    )
    for level in levels:
        old, new = find(ferrite, HANDSHAKE, level), find(ferrite, ENVELOPE, level)
        if old is None or new is None:
            missing = HANDSHAKE if old is None else ENVELOPE
            print(f"  @{level} {unit}: n/a (no '{ferrite}' {missing} figures)")
            continue
        rps = quotient(median(new, "req_per_s"), median(old, "req_per_s"))
        cpu = quotient(median(new, "cpu_us_per_call"), median(old, "cpu_us_per_call"))
        print(
            f"  @{level} {unit}: req/s {fmt(median(new, 'req_per_s'), 0)} / {fmt(median(old, 'req_per_s'), 0)}"
            f" = {fold(rps, 3)} ({verdict(rps, rps is not None and rps >= 1 / ENVELOPE_MAX_COST)});"
            f" server CPU µs/call {fmt(median(new, 'cpu_us_per_call'), 2)} / {fmt(median(old, 'cpu_us_per_call'), 2)}"
            f" = {fold(cpu, 3)} ({verdict(cpu, cpu is not None and cpu <= ENVELOPE_MAX_COST)})"
        )
        if median(new, "request_bytes_per_call") is not None and median(old, "request_bytes_per_call") is not None:
            print(
                f"      bytes/call: request {fmt(median(old, 'request_bytes_per_call'), 0)} ->"
                f" {fmt(median(new, 'request_bytes_per_call'), 0)}, response"
                f" {fmt(median(old, 'response_bytes_per_call'), 0)} -> {fmt(median(new, 'response_bytes_per_call'), 0)}"
            )
    print(f"ferrite vs the best rmcp row at the same revision{where} (req/s ratio; server CPU/call ratio):")
    for protocol in (HANDSHAKE, ENVELOPE):
        for level in levels:
            mine, theirs = find(ferrite, protocol, level), best_rmcp(protocol, level)
            if mine is None or theirs is None:
                missing = f"'{ferrite}'" if mine is None else f"'{rmcp_prefix}*'"
                print(f"  {protocol} @{level} {unit}: n/a (no {missing} figures)")
                continue
            rps = quotient(median(mine, "req_per_s"), median(theirs, "req_per_s"))
            cpu = quotient(median(mine, "cpu_us_per_call"), median(theirs, "cpu_us_per_call"))
            print(
                f"  {protocol} @{level} {unit}: ferrite/rmcp req/s = {fold(rps)}; server CPU/call = {fold(cpu)}"
                f"  [{theirs.label}]"
            )


#: What a layer (middleware, telemetry) may cost per request: server CPU per call and req/s.
LAYER_MAX_COST = 1.05


def print_layers(rows: list[Row], ferrite: str) -> None:
    """Each "ferrite (rust, LAYER)" row against the ferrite row at the same revision, level and
    mode: the layer's cost per request (server CPU per call, and req/s)."""
    stem = ferrite[:-1] + ", " if ferrite.endswith(")") else ferrite + " ("
    layered = sorted({r.label for r in rows if r.label.startswith(stem)})
    if not layered:
        return
    print(f"ferrite layers against '{ferrite}' (target: each costs under {LAYER_MAX_COST - 1:.0%}: server CPU/call"
          f" <= {LAYER_MAX_COST:.2f}x and req/s >= {1 / LAYER_MAX_COST:.3f}x):")
    for label in layered:
        for r in sorted((r for r in rows if r.label == label), key=lambda r: (r.mode or "", r.protocol, r.inflight)):
            base = next(
                (b for b in rows if b.label == ferrite and b.protocol == r.protocol and b.inflight == r.inflight and b.mode == r.mode),
                None,
            )
            where = f"{r.mode} " if r.mode else ""
            if base is None:
                print(f"  {label} {where}{r.protocol} @{r.inflight}: n/a (no '{ferrite}' figures)")
                continue
            rps = quotient(r.median("req_per_s"), base.median("req_per_s"))
            cpu = quotient(r.median("cpu_us_per_call"), base.median("cpu_us_per_call"))
            added = None
            if r.median("cpu_us_per_call") is not None and base.median("cpu_us_per_call") is not None:
                added = r.median("cpu_us_per_call") - base.median("cpu_us_per_call")
            ok = rps is not None and cpu is not None and rps >= 1 / LAYER_MAX_COST and cpu <= LAYER_MAX_COST
            print(
                f"  {label} {where}{r.protocol} @{r.inflight}: req/s = {fold(rps, 3)}x, server CPU/call = {fold(cpu, 3)}x"
                f" ({fold(added, 2)} µs/call added): {verdict(rps, ok)}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="JSON-lines file of loadgen results")
    parser.add_argument("--baseline", default="hand-written loop", help="label of the hand-written loop row")
    parser.add_argument("--ferrite", default="ferrite (rust)", help="label of the Ferrite row")
    parser.add_argument("--rmcp-prefix", default="rmcp ", help="labels of rmcp rows start with this")
    parser.add_argument("--at", type=int, default=32, help="in-flight level (clients) the targets apply to")
    parser.add_argument("--http", action="store_true", help="HTTP results: mode columns and the HTTP targets")
    args = parser.parse_args()

    rows = load(args.results)
    if not rows:
        sys.exit(f"{args.results}: no results")
    print_table(rows, args.baseline, args.http)
    print()
    if args.http:
        print_http_ratios(rows, args.baseline, args.ferrite, args.rmcp_prefix, args.at)
    else:
        print_ratios(rows, args.baseline, args.ferrite, args.rmcp_prefix, args.at)
    if any(r.protocol == ENVELOPE for r in rows):
        print()
        print_envelope(rows, args.ferrite, args.rmcp_prefix, HTTP_TARGET_MODE if args.http else None)
    if any(r.label.startswith(args.ferrite[:-1] + ", ") for r in rows):
        print()
        print_layers(rows, args.ferrite)
    if any(r.bad for r in rows):
        print("\nsome runs answered calls wrongly and were left out (column 'bad'); see the log")


if __name__ == "__main__":
    main()
