#!/usr/bin/env bash
# Miri over the C ABI's unsafe code (issue 15): every seed of the `ffi_json` fuzz target through
# the ABI's JSON entry points (`ffi/tests/json_entry_points.rs`: servers made and freed,
# registrations with C callbacks, requests handled, result builders called from inside a tool,
# returned buffers freed), interpreted by Miri, which fails on undefined behaviour (a bad
# pointer, an out-of-bounds or misaligned access, a use after free, a data race) and on memory
# or threads left behind. Installs the nightly toolchain and its `miri` component when missing.
#
#   scripts/miri.sh            # about 3 minutes warm, 6 cold, on this 2-core machine
#
# Isolation is off (`-Zmiri-disable-isolation`): the test reads its seeds from disk and the
# server's runtime reads the clock.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "miri.sh: installing the nightly toolchain"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "miri.sh: installing the miri component"
  rustup component add miri --toolchain nightly
fi
export CARGO_TARGET_DIR="${FERRITE_MIRI_TARGET_DIR:-$HOME/.cache/ferrite/miri-target}"
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
cargo +nightly miri setup >/dev/null
cargo +nightly miri test -p ferrite-ffi --test json_entry_points
