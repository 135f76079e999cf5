#!/usr/bin/env bash
# Fuzz every parser a peer reaches (the cargo-fuzz targets in fuzz/), each for a bounded time:
#
#   scripts/fuzz.sh [--seconds N] [target...]
#
# N defaults to $FERRITE_FUZZ_SECONDS, else 20; no target names means all of them. Builds every
# target once (see below) with debug assertions, then runs each from a scratch copy of its seeds
# (fuzz/seeds/<target>/, which libFuzzer runs first, so every committed crash input is a
# regression test). Prints executions, exec/s and coverage per target; exits non-zero if any
# target crashed, leaked, went past 2 GB or spent over 10 s on one input, with the path of
# the input that did it.
#
# Two builds, picked by FERRITE_FUZZ_SANITIZER:
# - `address` (the measured runs of HARDENING.md): cargo fuzz (pinned, installed by the script)
#   on nightly with AddressSanitizer, one codegen unit per crate as cargo fuzz does in release:
#   catches memory errors in the C ABI's unsafe code; a cold build takes about 10 minutes.
# - `none` (the default; the test suite's bounded step): the same libFuzzer targets and
#   coverage instrumentation (cargo fuzz's `-Cpasses=sancov-module` flags, given here to cargo
#   directly), on the stable toolchain, no sanitizer, 16 codegen units: nothing to install, a
#   cold build of about 4 minutes. Rust's own checks (bounds, overflow with debug assertions,
#   panics) still fail a run.
# Fuzz builds carry instrumentation flags, so they get their own target directory
# ($FERRITE_FUZZ_TARGET_DIR, default ~/.cache/ferrite/fuzz-target; each build its own
# subdirectory of it).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

CARGO_FUZZ_VERSION=0.13.1
ALL_TARGETS=(jsonrpc classifier mirrored_headers uri_template request_state last_event_id schema_args http_front ffi_json)

seconds=${FERRITE_FUZZ_SECONDS:-20}
targets=()
while (($#)); do
  case $1 in
    --seconds)
      seconds=${2:?--seconds needs a number}
      shift 2
      ;;
    --seconds=*)
      seconds=${1#--seconds=}
      shift
      ;;
    -h | --help)
      sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "fuzz.sh: unknown option $1" >&2
      exit 2
      ;;
    *)
      targets+=("$1")
      shift
      ;;
  esac
done
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [[ -f fuzz/fuzz_targets/$t.rs ]] || {
    echo "fuzz.sh: no target $t (have: ${ALL_TARGETS[*]})" >&2
    exit 2
  }
done
[[ $seconds =~ ^[0-9]+$ ]] || {
  echo "fuzz.sh: --seconds takes a whole number, not $seconds" >&2
  exit 2
}

sanitizer=${FERRITE_FUZZ_SANITIZER:-none}
triple=x86_64-unknown-linux-gnu
export CARGO_INCREMENTAL=0
export CARGO_TERM_COLOR=never
start=$SECONDS
case $sanitizer in
  none)
    export CARGO_TARGET_DIR="${FERRITE_FUZZ_TARGET_DIR:-$HOME/.cache/ferrite/fuzz-target}/stable"
    echo "fuzz.sh: building ${#ALL_TARGETS[@]} targets (stable, libFuzzer coverage, no sanitizer, debug assertions)"
    # cargo fuzz's instrumentation for a release build: sancov counters, the PC table and
    # comparison tracing that libFuzzer reads, stack depth on Linux, and `cfg(fuzzing)`.
    # `--target` keeps the flags off build scripts and proc macros. Optimization level 1: the
    # build of every dependency with coverage is most of a cold test run's fuzz step, and the
    # bounded runs need coverage more than speed (the measured runs below use cargo fuzz -O).
    RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth \
--cfg fuzzing -Cdebug-assertions -Ccodegen-units=16" \
      cargo build --manifest-path fuzz/Cargo.toml --release --bins --target "$triple" \
      --config 'profile.release.debug="line-tables-only"' --config 'profile.release.opt-level=1' || exit 1
    ;;
  address)
    export CARGO_TARGET_DIR="${FERRITE_FUZZ_TARGET_DIR:-$HOME/.cache/ferrite/fuzz-target}/asan"
    tools="$HOME/.cache/ferrite/cargo-fuzz"
    export PATH="$tools/bin:$PATH"
    if ! cargo +nightly --version >/dev/null 2>&1; then
      echo "fuzz.sh: installing the nightly toolchain (AddressSanitizer needs -Zsanitizer)"
      rustup toolchain install nightly --profile minimal || exit 1
    fi
    if [[ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
      echo "fuzz.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION into $tools"
      CARGO_TARGET_DIR="$CARGO_TARGET_DIR/cargo-install" \
        cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --root "$tools" || exit 1
    fi
    echo "fuzz.sh: building ${#ALL_TARGETS[@]} targets (nightly, AddressSanitizer, debug assertions)"
    cargo +nightly fuzz build -O --debug-assertions --sanitizer address || exit 1
    ;;
  *)
    echo "fuzz.sh: FERRITE_FUZZ_SANITIZER is none or address, not $sanitizer" >&2
    exit 2
    ;;
esac
echo "fuzz.sh: built in $((SECONDS - start)) s"
bin="$CARGO_TARGET_DIR/$triple/release"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ferrite-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
artifacts="$root/fuzz/artifacts"
# As cargo fuzz runs them; leaks fail a run.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_odr_violation=0:detect_leaks=1}"

failed=()
rows=()
for t in "${targets[@]}"; do
  corpus="$scratch/$t"
  mkdir -p "$corpus" "$artifacts/$t"
  cp fuzz/seeds/"$t"/* "$corpus"/ 2>/dev/null
  log="$scratch/$t.log"
  echo
  echo "==== fuzz $t: ${seconds} s from $(find "$corpus" -type f | wc -l) seeds"
  "$bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t/" "$corpus" >"$log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
  if ((rc != 0)); then
    failed+=("$t")
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    grep -E -m1 -A12 'panicked at|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)' "$log"
    echo "==== fuzz $t: FAILED (exit $rc); input: ${crash:-none written}; log kept at fuzz/artifacts/$t/last.log"
    cp "$log" "$artifacts/$t/last.log"
  else
    echo "==== fuzz $t: ok, ${runs:-?} runs, ${rate:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, peak rss ${rss:-?} MB"
  fi
  rows+=("$(printf '%-17s %8s s %12s %8s %7s %7s %s' "$t" "$seconds" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "$( ((rc == 0)) && echo ok || echo FAILED)")")
done

echo
printf '%-17s %10s %12s %8s %7s %7s %s\n' target time executions exec/s cov ft result
printf '%s\n' "${rows[@]}"
echo "fuzz.sh: $((SECONDS - start)) s in all (build included)"
if ((${#failed[@]})); then
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs under fuzz/artifacts/<target>/)"
  exit 1
fi
