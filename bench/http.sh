#!/usr/bin/env bash
# The Streamable HTTP benchmark: `tools/call add` from 1 and 32 concurrent keep-alive clients against
# several MCP servers, stateless JSON and stateful (sessions, SSE), RUNS runs each, medians and
# target ratios. Servers that serve it are also measured at protocol revision 2026-07-28 (the
# per-request envelope, stateless JSON only: the revision has no sessions). See bench/README.md.
#
# Environment (all optional):
#   RUNS=3                  runs per server, mode, protocol and client count; the table shows medians
#   CLIENTS="1 32"          concurrent client counts
#   MODES="stateless-json stateful-sse"
#   PROTOCOLS="2025-11-25 2026-07-28"
#                           revisions to measure; 2026-07-28 runs in stateless-json only, and a row
#                           runs only the revisions it serves (ferrite and rmcp serve both)
#   DURATION=2              seconds per measured window
#   WARMUP=2                seconds of warm-up before each window (same clients, same connections;
#                           Node's JIT needs it)
#   EXTRA_HTTP_SERVERS="name=command;name2=command2"
#                           more rows; each command is run as `sh -c "exec COMMAND [--stateless] --port N"`
#                           and must serve Streamable HTTP at http://127.0.0.1:N/mcp in that very
#                           process (CPU time is read for that pid only)
#   EXTRA_PROTOCOLS="2025-11-25"
#                           the revisions the EXTRA_HTTP_SERVERS rows are measured at
#   ONLY="name;name2"       run only these rows (by name; each at every revision it serves)
#   AUTH=1                  also the "ferrite (rust, auth)" row: the same server with --auth, every
#                           request carrying an RS256 bearer token (bench/http-peers/auth-issuer.mjs
#                           serves the JWK Set); its cost per request against "ferrite (rust)" is
#                           the token check (default 1; 0 leaves the row out)
#   FERRITE_CMD=...         command for the ferrite row instead of building the Rust everything example
#   LAYERS=1                also the "ferrite (rust, middleware)", "ferrite (rust, telemetry)" and
#                           "ferrite (rust, telemetry 1% sampled)" rows:
#                           the everything example with one pass-through middleware, and with
#                           OpenTelemetry on (exporting to bench/otlp_sink.py); their cost per request
#                           against "ferrite (rust)" is printed (target: under 5 %); 0 leaves them out
#   PYTHON=...              a python with mcp==2.3.0 for the Python SDK row (default: the first of
#                           ~/.cache/ferrite/bench-venv and ~/.cache/ferrite/venv that has it; else
#                           bench-venv is created)
#   PORT_BASE=18700         servers listen on PORT_BASE..PORT_BASE+99, a new port for every run
#   BENCH_TARGET_DIR        cargo target dir for bench/ (default ~/.cache/ferrite/bench-target)
#   CARGO_TARGET_DIR        the repository's target dir, where the everything example is built
#   RESULTS=path.jsonl      where the raw http-loadgen lines go (default: in BENCH_TARGET_DIR)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_target=${BENCH_TARGET_DIR:-$HOME/.cache/ferrite/bench-target}
ferrite_target=${CARGO_TARGET_DIR:-$repo/target}
peers=$repo/bench/http-peers
runs=${RUNS:-3}
client_counts=${CLIENTS:-1 32}
modes=${MODES:-stateless-json stateful-sse}
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
duration=${DURATION:-2}
warmup=${WARMUP:-2}
port_base=${PORT_BASE:-18700}
results=${RESULTS:-$bench_target/http-$(date +%Y%m%d-%H%M%S).jsonl}
log_file=${results%.jsonl}.log

say() { printf '%s\n' "$*" >&2; }

# One http-loadgen JSON line as "N req/s, p50 N µs" for the progress output.
summarize() {
    python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(format(d["req_per_s"], ",.0f"), "req/s, p50", format(d["p50_us"], ",.1f"), "µs")' "$1"
}

say "== building bench/ (release) into $bench_target"
CARGO_TARGET_DIR=$bench_target cargo build --release --quiet --manifest-path "$repo/bench/Cargo.toml"
bin=$bench_target/release
mkdir -p "$(dirname "$results")"
: >"$results"
: >"$log_file"

# The rows: parallel arrays of names, the stateless and the stateful command (both without
# `--port N`, which is appended), extra http-loadgen options, and the protocol revisions served.
names=()
stateless_commands=()
stateful_commands=()
loadgen_options=()
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
# add_server NAME STATELESS_COMMAND STATEFUL_COMMAND [LOADGEN_OPTIONS] [REVISIONS]
# REVISIONS (default 2025-11-25) are the protocol revisions the server serves. 2026-07-28 is
# measured against STATELESS_COMMAND only.
add_server() {
    if wanted "$1"; then
        names+=("$1")
        stateless_commands+=("$2")
        stateful_commands+=("$3")
        loadgen_options+=("${4:-}")
        row_protocols+=("${5:-2025-11-25}")
    fi
}
# add_everything NAME COMMAND [REVISIONS]: a server that takes `--stateless` like the everything
# servers.
add_everything() {
    add_server "$1" "$2 --stateless" "$2" "" "${3:-2025-11-25}"
}
# The revisions row I is measured at in MODE, in PROTOCOLS order.
protocols_of() {
    local p q out=()
    for p in $protocols; do
        [[ $p == 2026-07-28 && $2 != stateless-json ]] && continue
        for q in ${row_protocols[$1]}; do
            [[ $p == "$q" ]] && out+=("$p")
        done
    done
    printf '%s\n' "${out[*]}"
}
both="2025-11-25 2026-07-28"

# The --auth row: an issuer serving its JWK Set, and the token every request carries (the
# audience is fixed, since every run gets a new port).
add_auth_row() {
    local cmd=$1 info issuer_out=$bench_target/auth-issuer.json
    : >"$issuer_out"
    node "$peers/auth-issuer.mjs" http://127.0.0.1/mcp >"$issuer_out" 2>>"$log_file" &
    issuer_pid=$!
    trap 'kill "${issuer_pid:-}" "${sink_pid:-}" 2>/dev/null || true' EXIT
    for _ in $(seq 100); do
        [[ -s $issuer_out ]] && break
        sleep 0.05
    done
    info=$(cat "$issuer_out")
    if [[ -z $info ]]; then
        say "   skipping the ferrite (rust, auth) row: the issuer did not start (log: $log_file)"
        return
    fi
    read -r jwks issuer token < <(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(d["jwks_url"], d["issuer"], d["token"])' "$info")
    local env="env FERRITE_AUTH_ISSUER=$issuer FERRITE_AUTH_AUDIENCE=http://127.0.0.1/mcp FERRITE_AUTH_JWKS_URL=$jwks"
    add_server "ferrite (rust, auth)" "$env $cmd --auth --stateless" "$env $cmd --auth" "--bearer $token" "$both"
}

# bare hyper answers the same bytes to everything (no resultType): handshake era only.
baseline=$(printf '%q' "$bin/http-baseline")
add_server "bare hyper" "$baseline" "$baseline --sse" "--fixed-reply"
# rmcp 3.9.0's stateless JSON service serves 2026-07-28 requests as they come (see README.md).
rmcp=$(printf '%q' "$bin/rmcp-server")
add_server "rmcp" "$rmcp --driver http-json" "$rmcp --driver http-sse" "" "$both"

if wanted "ferrite (rust)"; then
    if [[ -n ${FERRITE_CMD:-} ]]; then
        add_everything "ferrite (rust)" "$FERRITE_CMD" "$both"
    else
        say "== building Ferrite's everything example (release) into $ferrite_target"
        if (cd "$repo" && CARGO_TARGET_DIR=$ferrite_target cargo build --release --quiet --example everything) \
            >>"$log_file" 2>&1; then
            add_everything "ferrite (rust)" "$(printf '%q' "$ferrite_target/release/examples/everything")" "$both"
            ferrite_rust=$(printf '%q' "$ferrite_target/release/examples/everything")
        else
            say "   skipping the ferrite (rust) row: the everything example does not build (log: $log_file)"
        fi
    fi
fi
if [[ ${AUTH:-1} == 1 ]] && wanted "ferrite (rust, auth)"; then
    if [[ -n ${FERRITE_CMD:-} ]]; then
        add_auth_row "$FERRITE_CMD"
    elif [[ -n ${ferrite_rust:-} ]]; then
        add_auth_row "$ferrite_rust"
    else
        (cd "$repo" && CARGO_TARGET_DIR=$ferrite_target cargo build --release --quiet --example everything) >>"$log_file" 2>&1 &&
            add_auth_row "$(printf '%q' "$ferrite_target/release/examples/everything")"
    fi
fi

# The cost of Ferrite's layers per request (LAYERS=0 leaves these rows out), each against the
# "ferrite (rust)" row: one pass-through middleware (the smallest chain; with none the chain is
# skipped), and OpenTelemetry recording a span and metrics per request and exporting them over
# OTLP/HTTP to a loopback sink (bench/otlp_sink.py).
if [[ ${LAYERS:-1} == 1 ]] && [[ -z ${FERRITE_CMD:-} && -x $ferrite_target/release/examples/everything ]]; then
    everything=$(printf '%q' "$ferrite_target/release/examples/everything")
    wanted "ferrite (rust, middleware)" &&
        add_everything "ferrite (rust, middleware)" "env FERRITE_PASSTHROUGH_MIDDLEWARE=1 $everything" "$both"
    if wanted "ferrite (rust, telemetry)" || wanted "ferrite (rust, telemetry 1% sampled)"; then
        exec {sink_fd}< <(exec python3 "$repo/bench/otlp_sink.py")
        sink_pid=$!
        trap 'kill "${issuer_pid:-}" "${sink_pid:-}" 2>/dev/null || true' EXIT
        read -r -t 10 sink_port <&"$sink_fd" || sink_port=
        if [[ -n $sink_port ]]; then
            wanted "ferrite (rust, telemetry)" && add_everything "ferrite (rust, telemetry)" "env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port $everything" "$both"
            # The same with the standard sampler variables keeping 1 trace in 100 (metrics still
            # record every request): what a busy production server typically runs.
            wanted "ferrite (rust, telemetry 1% sampled)" && add_everything "ferrite (rust, telemetry 1% sampled)" \
                "env OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.01 OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port $everything" "$both"
        else
            say "   skipping the ferrite (rust, telemetry) rows: the OTLP sink did not start"
        fi
    fi
fi

if wanted "typescript sdk"; then
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        say "   skipping the typescript sdk row: node and npm are needed"
    elif [[ -d $peers/node_modules/@modelcontextprotocol/sdk ]] || (cd "$peers" && npm ci --no-audit --no-fund) >>"$log_file" 2>&1; then
        add_everything "typescript sdk" "node $(printf '%q' "$peers/server.mjs")"
    else
        say "   skipping the typescript sdk row: npm ci in $peers failed (log: $log_file)"
    fi
fi

# Whether python $1 has mcp 2.3.0.
has_mcp() {
    "$1" -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")' 2>/dev/null
}
if wanted "python sdk"; then
    python=${PYTHON:-}
    if [[ -z $python ]]; then
        for candidate in "$HOME/.cache/ferrite/bench-venv/bin/python" "$HOME/.cache/ferrite/venv/bin/python"; do
            if [[ -x $candidate ]] && has_mcp "$candidate"; then
                python=$candidate
                break
            fi
        done
    fi
    if [[ -z $python ]]; then
        say "== creating ~/.cache/ferrite/bench-venv with mcp==2.3.0"
        venv=$HOME/.cache/ferrite/bench-venv
        if (python3 -m venv "$venv" && "$venv/bin/pip" install --quiet -r "$peers/requirements.txt") >>"$log_file" 2>&1; then
            python=$venv/bin/python
        fi
    fi
    if [[ -n $python ]] && has_mcp "$python"; then
        add_everything "python sdk" "$(printf '%q %q' "$python" "$peers/python_server.py")"
    else
        say "   skipping the python sdk row: no python with mcp==2.3.0 (log: $log_file)"
    fi
fi

if [[ -n ${EXTRA_HTTP_SERVERS:-} ]]; then
    IFS=';' read -r -a extras <<<"$EXTRA_HTTP_SERVERS"
    for extra in "${extras[@]}"; do
        [[ -z ${extra//[[:space:]]/} ]] && continue
        if [[ $extra != *=* ]]; then
            say "EXTRA_HTTP_SERVERS: expected name=command, got: $extra"
            exit 2
        fi
        add_everything "${extra%%=*}" "${extra#*=}" "$extra_protocols"
    done
fi

if ((${#names[@]} == 0)); then
    say "ONLY=${ONLY:-} selects no server"
    exit 2
fi
measured=0
for i in "${!names[@]}"; do
    any=
    for mode in $modes; do
        [[ -n $(protocols_of "$i" "$mode") ]] && any=1
    done
    if [[ -z $any ]]; then
        say "   the ${names[i]} row serves none of PROTOCOLS={$protocols} in MODES={$modes}; skipped"
    else
        measured=$((measured + 1))
    fi
done
if ((measured == 0)); then
    say "no selected server serves PROTOCOLS={$protocols} in MODES={$modes}"
    exit 2
fi

say "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "   $runs run(s) x ${#names[@]} server(s) x {$modes} x protocols {$protocols} (2026-07-28: stateless-json only) x clients {$client_counts}; ${duration}s windows after ${warmup}s warm-up"
say "   raw results: $results"

# Runs are interleaved (run 1 of every row, then run 2, ...) so that a burst of background load
# on this shared machine spreads over all rows instead of sinking one of them. A server's two
# revisions in stateless-json run back to back, so the envelope/handshake ratio compares
# neighbouring windows.
failures=0
port_offset=0
for ((run = 1; run <= runs; run++)); do
    for i in "${!names[@]}"; do
        for mode in $modes; do
            for protocol in $(protocols_of "$i" "$mode"); do
                for clients in $client_counts; do
                    name=${names[i]}
                    if [[ $mode == stateless-json ]]; then
                        command=${stateless_commands[i]}
                    else
                        command=${stateful_commands[i]}
                    fi
                    # A fresh port for every run: no connection of the last run can reach this server.
                    port=$((port_base + port_offset % 100))
                    port_offset=$((port_offset + 1))
                    read -r -a options <<<"${loadgen_options[i]}"
                    if line=$("$bin/http-loadgen" --port "$port" --mode "$mode" --protocol "$protocol" \
                        --clients "$clients" --duration "$duration" --warmup "$warmup" --label "$name" \
                        ${options[@]+"${options[@]}"} -- sh -c "exec $command --port $port" 2>>"$log_file"); then
                        status=0
                    else
                        status=$?
                    fi
                    if [[ -n $line ]]; then
                        printf '%s\n' "$line" >>"$results"
                    fi
                    if ((status != 0)); then
                        failures=$((failures + 1))
                        say "   [run $run/$runs] $name $mode $protocol @$clients FAILED (exit $status); last log lines:"
                        tail -n 3 "$log_file" | sed 's/^/      /' >&2
                    else
                        say "   [run $run/$runs] $name $mode $protocol @$clients: $(summarize "$line")"
                    fi
                done
            done
        done
    done
done

echo
python3 "$repo/bench/report.py" --http --baseline "bare hyper" --ferrite "ferrite (rust)" --rmcp-prefix "rmcp" "$results"
if ((failures > 0)); then
    say "$failures run(s) failed; see $log_file"
    exit 1
fi
