#!/usr/bin/env bash
# The stateful fleet test of issue 14 with the official MCP Python SDK client
# (tests/fleet/test_sessions.py): a Rust, a C and a Go everything server sharing one Redis behind
# the round-robin front. Uses the interop venv (tests/interop/python/setup.sh: mcp pinned there).
# The binaries must be built: `cargo build --workspace --examples` (the Rust server and the
# front) and the C and Go servers as tests/c/run.sh builds them; FERRITE_FLEET_A/B/C override
# the instances' command lines. Extra arguments go to pytest; the exit code is pytest's.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

python="$("$root/tests/interop/python/setup.sh" | tail -n 1)"
"$root/scripts/redis.sh" install
cd "$root"
# No ini file: pytest's rootdir is this directory and its cache stays out of the work tree.
exec "$python" -m pytest -q -c /dev/null --rootdir "$here" -p no:cacheprovider "$here/test_sessions.py" "$@"
