#!/usr/bin/env bash
# Soak runs with the server's memory sampled (issue 15), per surface: N `tools/call add` over
# stdio and over HTTP, S sessions made and deleted, C concurrent GET SSE streams; each by
# tests/soak/soak.py against that surface's everything server. See bench/README.md ("Soak").
#
#   bench/soak.sh [--calls N] [--stdio-calls N] [--sessions S] [--expire-ms MS] [--streams C] [--modes "M..."]
#                 [--warmup PCT] [--threshold PCT] [--heap] [--summary FILE] [surface...]
#
# Defaults are the issue's sizes: 1,000,000 calls per transport, 10,000 sessions, 1,000 streams.
# --stdio-calls sets the stdio count apart (default: --calls). --warmup is the percent of the calls
# run before the warm-up sample (default 10; the bounded run takes 25: a server's allocator and
# runtime settle over the first few thousand HTTP calls, longer than a tenth of a short run). Surfaces: rust c python node go
# (default: all five, in that order). Modes: calls-stdio calls-http sessions sse (default: all
# four), and sessions-expired: the sessions left idle until the server's idle timeout (--expire-ms,
# default 30000, set through FERRITE_HTTP_OPTIONS; longer than making them takes) ends them. --heap also reads, through gdb, the glibc heap in use and the RSS after malloc_trim(0)
# in sessions and sse. The bounded run for the test command (about 2 minutes):
#   bench/soak.sh --stdio-calls 100000 --calls 40000 --warmup 25 --sessions 1000 --streams 200
# Servers (override with SOAK_RUST, SOAK_C, SOAK_PYTHON, SOAK_NODE, SOAK_GO):
#   rust    $CARGO_TARGET_DIR/release/examples/everything (cargo build --release --example everything -p ferrite-core)
#   c, go   $CARGO_TARGET_DIR/release/ferrite-examples/everything-c, everything-go (tests/c/run.sh builds them)
#   python  ${FERRITE_PY_VENV:-~/.cache/ferrite/venv-py}/bin/python examples/python/everything.py
#   node    node --max-semi-space-size=1 examples/node/everything.mjs (V8's young generation kept at
#           its starting size, so that its adaptive growth, up to 16 MiB semi-spaces over the
#           first ~500,000 calls, is not read as a leak: bench/README.md, "Soak")
# SOAK_THRESHOLD_<SURFACE> (e.g. SOAK_THRESHOLD_NODE=25) sets one surface's threshold apart.
# Exit status 1 when any run failed or a server is missing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
py_venv=${FERRITE_PY_VENV:-$HOME/.cache/ferrite/venv-py}
calls=1000000 stdio_calls="" sessions=10000 streams=1000 threshold=5 warmup=10 expire_ms=30000
modes="calls-stdio calls-http sessions sse"
extra=()
summary=""
surfaces=()
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
    --calls) calls=${2:?--calls needs a number}; shift 2 ;;
    --stdio-calls) stdio_calls=${2:?--stdio-calls needs a number}; shift 2 ;;
    --sessions) sessions=${2:?--sessions needs a number}; shift 2 ;;
    --expire-ms) expire_ms=${2:?--expire-ms needs a number}; shift 2 ;;
    --streams) streams=${2:?--streams needs a number}; shift 2 ;;
    --modes) modes=${2:?--modes needs a list}; shift 2 ;;
    --threshold) threshold=${2:?--threshold needs a number}; shift 2 ;;
    --warmup) warmup=${2:?--warmup needs a percent}; shift 2 ;;
    --summary) summary=${2:?--summary needs a file}; shift 2 ;;
    --heap) extra+=(--heap); shift ;;
    -h | --help) usage; exit 0 ;;
    rust | c | python | node | go) surfaces+=("$1"); shift ;;
    *) printf 'soak.sh: unknown argument %s\n' "$1" >&2; usage >&2; exit 2 ;;
    esac
done
[ ${#surfaces[@]} -gt 0 ] || surfaces=(rust c python node go)
[ -n "$stdio_calls" ] || stdio_calls=$calls
for m in $modes; do
    case $m in calls-stdio | calls-http | sessions | sessions-expired | sse) ;; *) printf 'soak.sh: unknown mode %s\n' "$m" >&2; exit 2 ;; esac
done
[ -n "$summary" ] || summary=$(mktemp /tmp/soak-summary.XXXXXX.jsonl)

# The servers hold one descriptor per SSE stream: raise the soft limit they inherit.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((streams + 256)) ]; then
    printf 'soak.sh: %s streams need %s descriptors; the hard limit is %s\n' "$streams" $((streams + 256)) "$(ulimit -n)" >&2
    exit 2
fi

command_of() {
    case $1 in
    rust) echo "${SOAK_RUST:-$target/release/examples/everything}" ;;
    c) echo "${SOAK_C:-$target/release/ferrite-examples/everything-c}" ;;
    go) echo "${SOAK_GO:-$target/release/ferrite-examples/everything-go}" ;;
    python) echo "${SOAK_PYTHON:-$py_venv/bin/python $repo/examples/python/everything.py}" ;;
    node) echo "${SOAK_NODE:-node --max-semi-space-size=1 $repo/examples/node/everything.mjs}" ;;
    esac
}

failed=0
start_all=$SECONDS
for surface in "${surfaces[@]}"; do
    read -r -a cmd <<<"$(command_of "$surface")"
    if ! command -v "${cmd[0]}" >/dev/null 2>&1; then
        printf '\n==== %s: server %s not found (see the header of bench/soak.sh to build it)\n' "$surface" "${cmd[0]}"
        failed=1
        continue
    fi
    threshold_var=SOAK_THRESHOLD_${surface^^}
    surface_threshold=${!threshold_var:-$threshold}
    for mode in $modes; do
        case $mode in
        calls-stdio) args=(calls --transport stdio --calls "$stdio_calls" --warmup "$warmup") ;;
        calls-http) args=(calls --transport http --calls "$calls" --warmup "$warmup") ;;
        sessions) args=(sessions --sessions "$sessions" "${extra[@]}") ;;
        sessions-expired) args=(sessions --sessions "$sessions" --expire-ms "$expire_ms" "${extra[@]}") ;;
        sse) args=(sse --streams "$streams" "${extra[@]}") ;;
        esac
        printf '\n==== %s %s: tests/soak/soak.py %s -- %s\n' "$surface" "$mode" "${args[*]}" "${cmd[*]}"
        t=$SECONDS
        if python3 "$repo/tests/soak/soak.py" "${args[@]}" --threshold "$surface_threshold" \
            --name "$surface" --summary "$summary" -- "${cmd[@]}"; then
            printf '==== %s %s: ok (%s s)\n' "$surface" "$mode" $((SECONDS - t))
        else
            printf '==== %s %s: FAILED (%s s)\n' "$surface" "$mode" $((SECONDS - t))
            failed=1
        fi
    done
done

printf '\n==== soak summary (%s s; figures as JSON lines in %s)\n' $((SECONDS - start_all)) "$summary"
python3 - "$summary" <<'EOF'
import json, sys
mib = lambda kb: f"{kb / 1024:.1f}"
heap = lambda r: (f"; heap {r['baseline_in_use'] / 1048576:.2f}->"
                  + "/".join(f"{k / 1048576:.2f}" for k in r["in_use"]) + " MiB" if r["baseline_in_use"] else "")
print(f"{'surface':8} {'mode':16} {'size':>8}  {'figures':<96} ok")
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    m = r["mode"]
    if "error" in r:
        size, fig = "", "error: " + r["error"][:90]
    elif m.startswith("calls"):
        size = r["calls"]
        fig = (f"RSS warm-up {mib(r['warm_kb'])} end {mib(r['end_kb'])} floor {mib(r['floor_kb'])} "
               f"max {mib(r['max_kb'])} MiB, "
               f"growth {r['growth_pct']:+.2f} %, {r['calls_per_s']} calls/s")
    elif m.startswith("sessions"):
        size = r["sessions"]
        fig = (f"RSS base {mib(r['baseline_kb'])} alive {mib(r['alive_kb'][0])} ended "
               f"{'/'.join(mib(k) for k in r['ended_kb'])} MiB: {r['back_pct']:+.1f} % vs base, "
               f"rounds {r['drift_pct']:+.2f} %" + heap(r))
    else:
        size = r["streams"]
        fig = (f"RSS base {mib(r['baseline_kb'])} open {mib(r['open_kb'][0])} MiB "
               f"({r['bytes_per_stream']} B/stream), after {'/'.join(mib(k) for k in r['deleted_kb'])}, "
               f"notified {'/'.join(str(k) for k in r['received'])}" + heap(r))
    print(f"{r['name']:8} {m:16} {size:>8}  {fig:<96} {'ok' if r['ok'] else 'FAILED'}")
EOF
exit "$failed"
