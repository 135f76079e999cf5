#!/usr/bin/env bash
# The stdio benchmark: pipelined `tools/call add` against several MCP servers, 1 and 32 requests
# in flight, RUNS runs each, medians and target ratios. Servers that serve it are measured at both
# protocol revisions: 2025-11-25 (the initialize handshake) and 2026-07-28 (the per-request
# envelope). See bench/README.md.
#
# Environment (all optional):
#   RUNS=3              runs per server, protocol and in-flight level; the table shows medians
#   PROTOCOLS="2025-11-25 2026-07-28"
#                       revisions to measure; a row runs only those it serves (the hand-written
#                       loop: 2025-11-25 only)
#   INFLIGHT="1 32"     in-flight levels
#   DURATION=2          seconds per measured window (ignored when CALLS is set)
#   CALLS=N             measure exactly N calls per run instead of DURATION seconds
#   WARMUP=2000         calls before each measured window
#   EXTRA_SERVERS="name=command;name2=command2"
#                       more rows; each command is run as `sh -c "exec COMMAND"` (set variables
#                       with `env VAR=value program`) and must serve MCP on stdio in that very
#                       process: CPU time is read for that pid only
#   EXTRA_PROTOCOLS="2025-11-25"
#                       the revisions the EXTRA_SERVERS rows are measured at
#   ONLY="name;name2"   run only these rows (by name; each at every revision it serves)
#   FERRITE_CMD=...     command for the ferrite row instead of building the Rust everything example
#   LAYERS=1            also the "ferrite (rust, middleware)", "ferrite (rust, telemetry)" and
#                       "ferrite (rust, telemetry 1% sampled)" rows: the
#                       everything example with one pass-through middleware, and with OpenTelemetry
#                       on (exporting to bench/otlp_sink.py); their cost per request against
#                       "ferrite (rust)" is printed (target: under 5 %); 0 leaves them out
#   BENCH_TARGET_DIR    cargo target dir for bench/ (default ~/.cache/ferrite/bench-target)
#   CARGO_TARGET_DIR    the repository's target dir, where the everything example is built
#   RESULTS=path.jsonl  where the raw loadgen lines go (default: in BENCH_TARGET_DIR)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_target=${BENCH_TARGET_DIR:-$HOME/.cache/ferrite/bench-target}
ferrite_target=${CARGO_TARGET_DIR:-$repo/target}
runs=${RUNS:-3}
inflight_levels=${INFLIGHT:-1 32}
protocols=${PROTOCOLS:-2025-11-25 2026-07-28}
extra_protocols=${EXTRA_PROTOCOLS:-2025-11-25}
for protocol in $protocols $extra_protocols; do
    case $protocol in
    2025-11-25 | 2026-07-28) ;;
    *)
        printf 'PROTOCOLS/EXTRA_PROTOCOLS: unknown revision %s (expected 2025-11-25 or 2026-07-28)\n' "$protocol" >&2
        exit 2
        ;;
    esac
done
warmup=${WARMUP:-2000}
results=${RESULTS:-$bench_target/stdio-$(date +%Y%m%d-%H%M%S).jsonl}
log_file=${results%.jsonl}.log

if [[ -n ${CALLS:-} ]]; then
    plan=(--calls "$CALLS")
else
    plan=(--duration "${DURATION:-2}")
fi

say() { printf '%s\n' "$*" >&2; }

# One loadgen JSON line as "N req/s, p50 N µs" for the progress output.
summarize() {
    python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(format(d["req_per_s"], ",.0f"), "req/s, p50", format(d["p50_us"], ".1f"), "µs")' "$1"
}

say "== building bench/ (release) into $bench_target"
CARGO_TARGET_DIR=$bench_target cargo build --release --quiet --manifest-path "$repo/bench/Cargo.toml"
bin=$bench_target/release
mkdir -p "$(dirname "$results")"
: >"$results"
: >"$log_file"

# The rows: parallel arrays of names, shell commands and the revisions each row serves.
names=()
commands=()
row_protocols=()
IFS=';' read -r -a only <<<"${ONLY:-}"
# Whether row NAME is selected by ONLY (every row is when ONLY is empty).
wanted() {
    ((${#only[@]} == 0)) && return 0
    local w
    for w in "${only[@]}"; do
        [[ $w == "$1" ]] && return 0
    done
    return 1
}
# add_server NAME COMMAND [REVISIONS]: REVISIONS (default 2025-11-25) are the protocol revisions
# the server serves; the row runs at those of them that PROTOCOLS lists.
add_server() {
    if wanted "$1"; then
        names+=("$1")
        commands+=("$2")
        row_protocols+=("${3:-2025-11-25}")
    fi
}
# The revisions of row I that this invocation measures, in PROTOCOLS order.
protocols_of() {
    local p q out=()
    for p in $protocols; do
        for q in ${row_protocols[$1]}; do
            [[ $p == "$q" ]] && out+=("$p")
        done
    done
    printf '%s\n' "${out[*]}"
}
both="2025-11-25 2026-07-28"
# The hand-written loop answers the handshake era only: it has no server/discover.
add_server "hand-written loop" "$(printf '%q' "$bin/baseline-loop")"
# rmcp 3.9.0 serves 2026-07-28 on stdio from the same binary (see README.md).
add_server "rmcp stdio()" "$(printf '%q' "$bin/rmcp-server") --driver stdio" "$both"
add_server "rmcp stdio_pipes()" "$(printf '%q' "$bin/rmcp-server") --driver stdio-pipes" "$both"

if wanted "ferrite (rust)"; then
    if [[ -n ${FERRITE_CMD:-} ]]; then
        add_server "ferrite (rust)" "$FERRITE_CMD" "$both"
    else
        say "== building Ferrite's everything example (release) into $ferrite_target"
        if (cd "$repo" && CARGO_TARGET_DIR=$ferrite_target cargo build --release --quiet --example everything) \
            >>"$log_file" 2>&1; then
            add_server "ferrite (rust)" "$(printf '%q' "$ferrite_target/release/examples/everything")" "$both"
        else
            say "   skipping the ferrite (rust) row: the everything example does not build (log: $log_file)"
        fi
    fi
fi

# The cost of Ferrite's layers per request (LAYERS=0 leaves these rows out), each against the
# "ferrite (rust)" row: one pass-through middleware (the smallest chain; with none the chain is
# skipped), and OpenTelemetry recording a span and metrics per request and exporting them over
# OTLP/HTTP to a loopback sink (bench/otlp_sink.py).
if [[ ${LAYERS:-1} == 1 ]] && [[ -z ${FERRITE_CMD:-} && -x $ferrite_target/release/examples/everything ]]; then
    everything=$(printf '%q' "$ferrite_target/release/examples/everything")
    wanted "ferrite (rust, middleware)" &&
        add_server "ferrite (rust, middleware)" "env FERRITE_PASSTHROUGH_MIDDLEWARE=1 $everything" "$both"
    if wanted "ferrite (rust, telemetry)" || wanted "ferrite (rust, telemetry 1% sampled)"; then
        exec {sink_fd}< <(exec python3 "$repo/bench/otlp_sink.py")
        sink_pid=$!
        trap 'kill "${issuer_pid:-}" "${sink_pid:-}" 2>/dev/null || true' EXIT
        read -r -t 10 sink_port <&"$sink_fd" || sink_port=
        if [[ -n $sink_port ]]; then
            wanted "ferrite (rust, telemetry)" && add_server "ferrite (rust, telemetry)" "env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port $everything" "$both"
            # The same with the standard sampler variables keeping 1 trace in 100 (metrics still
            # record every request): what a busy production server typically runs.
            wanted "ferrite (rust, telemetry 1% sampled)" && add_server "ferrite (rust, telemetry 1% sampled)" \
                "env OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.01 OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port $everything" "$both"
        else
            say "   skipping the ferrite (rust, telemetry) rows: the OTLP sink did not start"
        fi
    fi
fi

if [[ -n ${EXTRA_SERVERS:-} ]]; then
    IFS=';' read -r -a extras <<<"$EXTRA_SERVERS"
    for extra in "${extras[@]}"; do
        [[ -z ${extra//[[:space:]]/} ]] && continue
        if [[ $extra != *=* ]]; then
            say "EXTRA_SERVERS: expected name=command, got: $extra"
            exit 2
        fi
        add_server "${extra%%=*}" "${extra#*=}" "$extra_protocols"
    done
fi

if ((${#names[@]} == 0)); then
    say "ONLY=${ONLY:-} selects no server"
    exit 2
fi
measured=0
for i in "${!names[@]}"; do
    if [[ -z $(protocols_of "$i") ]]; then
        say "   the ${names[i]} row serves none of PROTOCOLS={$protocols} (it serves {${row_protocols[i]}}); skipped"
    else
        measured=$((measured + 1))
    fi
done
if ((measured == 0)); then
    say "no selected server serves PROTOCOLS={$protocols}"
    exit 2
fi

say "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "   $runs run(s) x ${#names[@]} server(s) x protocols {$protocols} x in-flight {$inflight_levels}; ${plan[*]}"
say "   raw results: $results"

# Runs are interleaved (run 1 of every row, then run 2, ...) so that a burst of background load
# on this shared machine spreads over all rows instead of sinking one of them. A server's two
# revisions run back to back, so the envelope/handshake ratio compares neighbouring windows.
failures=0
for ((run = 1; run <= runs; run++)); do
    for i in "${!names[@]}"; do
        for protocol in $(protocols_of "$i"); do
            for inflight in $inflight_levels; do
                name=${names[i]}
                if line=$("$bin/loadgen" --protocol "$protocol" --inflight "$inflight" --warmup "$warmup" \
                    "${plan[@]}" --label "$name" -- sh -c "exec ${commands[i]}" 2>>"$log_file"); then
                    status=0
                else
                    status=$?
                fi
                if [[ -n $line ]]; then
                    printf '%s\n' "$line" >>"$results"
                fi
                if ((status != 0)); then
                    failures=$((failures + 1))
                    say "   [run $run/$runs] $name $protocol @$inflight FAILED (exit $status); last log lines:"
                    tail -n 3 "$log_file" | sed 's/^/      /' >&2
                else
                    say "   [run $run/$runs] $name $protocol @$inflight: $(summarize "$line")"
                fi
            done
        done
    done
done

echo
python3 "$repo/bench/report.py" --baseline "hand-written loop" --ferrite "ferrite (rust)" \
    --rmcp-prefix "rmcp " "$results"
if ((failures > 0)); then
    say "$failures run(s) failed; see $log_file"
    exit 1
fi
