#!/usr/bin/env bash
# Instructions per call of the Rust everything server over stdio, counted with callgrind:
# `loadgen` drives `tools/call add` at 32 in flight for 4,000 calls and for HI calls (default
# 44,000), each under `valgrind --tool=callgrind`; the difference divided by HI - 4,000 is the
# per-call cost, with start-up, warm-up and the clock's one-off calibration taken out.
#
#   bench/count.sh LABEL PROTOCOL [ENV=VALUE ...]
#   HI=12000 bench/count.sh spans-off 2025-11-25 OTEL_TRACES_SAMPLER=always_off \
#       OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$(cat sink.port)   # after python3 bench/otlp_sink.py > sink.port &
#
# BIN: the server (default: the release everything example with debug info, built by
#   CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release --example everything -p ferrite-core);
# LOADGEN: the load generator (default: bench's release loadgen). Profiles stay in $OUT (/tmp/cg).
set -euo pipefail
label=$1
proto=$2
shift 2
hi=${HI:-44000}
target=${CARGO_TARGET_DIR:-$HOME/.cache/ferrite/target}
bin=${BIN:-$target/release/examples/everything}
loadgen=${LOADGEN:-$HOME/.cache/ferrite/bench-target/release/loadgen}
out=${OUT:-/tmp/cg}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$out"
total() {
    local all calibration
    all=$(callgrind_annotate "$1" 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(",","",$1); print $1}')
    calibration=$(callgrind_annotate --threshold=100 --inclusive=yes "$1" 2>/dev/null \
        | grep "quanta::Calibration::calibrate " | grep -v "=>" | head -1 | awk '{gsub(",","",$1); print $1}')
    echo $((all - ${calibration:-0}))
}
for n in 4000 "$hi"; do
    rm -f "$out/$label.$n".*
    "$loadgen" --protocol "$proto" --inflight 32 --calls "$n" --warmup 500 --quiet-server -- \
        env "$@" valgrind --tool=callgrind --separate-threads=no --callgrind-out-file="$out/$label.$n.out" "$bin" \
        >/dev/null 2>&1
done
low=$(total "$out/$label.4000.out")
high=$(total "$out/$label.$hi.out")
echo "$label $proto: $(((high - low) / (hi - 4000))) instr/call"
