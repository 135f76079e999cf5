#!/usr/bin/env bash
# Compares every everything server with the Rust one (tests/surfaces/compare.py): the lists, a
# fixed set of calls in both protocol eras over stdio, and the command line (an unknown flag
# or a flag without its value: status 2 and the usage on stderr; --help: status 0).
#
#   FERRITE_STDIO_SERVERS  "name=command line;..." (the entry `rust` is the reference); by
#                          default the five surfaces as scripts/test builds them: the debug Rust
#                          example, the release C and Go servers in
#                          $CARGO_TARGET_DIR/release/ferrite-examples, Python from
#                          $FERRITE_PY_VENV (the venv with ferrite_mcp installed) and Node from
#                          bindings-node (built by its npm install)
#   FERRITE_SURFACES_DUMP  a directory: each server's answers are written there as JSON
#
# The client is the official MCP Python SDK from the interop venv (tests/interop/python/setup.sh).
# Exit status: compare.py's (0 when every surface answers what the Rust server answers).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# shellcheck source=../lib/everything-servers.sh
. "$root/tests/lib/everything-servers.sh"
export FERRITE_STDIO_SERVERS="${FERRITE_STDIO_SERVERS:-$(everything_servers)}"

python="$("$root/tests/interop/python/setup.sh" | tail -n 1)"
cd "$root"
exec "$python" "$here/compare.py"
