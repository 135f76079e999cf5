#!/usr/bin/env bash
# Hostile input (issue 15) against every surface's everything server, stdio and HTTP, both
# eras: tests/hostile/hostile.py. The C everything server runs twice: as built by
# tests/c/run.sh, and rebuilt here with AddressSanitizer and UBSan (on the C side; the Rust
# static library it links is not instrumented), so a memory error on the C side of the ABI
# aborts the process and fails the run.
#
# Needs the servers the earlier steps built: the Rust debug example, the C and Go everything
# servers (tests/c/run.sh), the Python package in $FERRITE_PY_VENV and the Node addon.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
bin="$target/release/ferrite-examples"
cd "$root"

asan="$bin/everything-c-asan"
gcc -std=c11 -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -Wall -Wextra -Werror -Iinclude \
    examples/c/everything*.c -o "$asan" "$target/release/libferrite.a" -lpthread -ldl -lm
# Leaks are valgrind's job (tests/c/run.sh); here any memory error or UB aborts.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# shellcheck source=../lib/everything-servers.sh
. "$root/tests/lib/everything-servers.sh"
servers="$(everything_servers);c-asan=$asan"
FERRITE_HOSTILE_SERVERS="${FERRITE_HOSTILE_SERVERS:-$servers}" python3 "$here/hostile.py"
