#!/usr/bin/env bash
# Every surface's stdio `tools/call add` beside the official SDKs, in one run of bench/stdio.sh
# (interleaved runs, medians): Rust, C (through the C ABI), Go, Python `def` and `async def`
# (in a server with `def` tools too, and as an all-`async def` server serves it),
# Node sync and Promise handlers; rmcp's fastest driver, the TypeScript SDK and the Python SDK
# (`mcp`). At 1 in flight (what an interactive client feels) and 32. See bench/README.md.
#
#   bench/languages.sh                 # RUNS=3, 2 s windows, 2025-11-25
#   RUNS=5 DURATION=3 bench/languages.sh
#
# It measures what the test command builds: the C and Go everything servers
# ($CARGO_TARGET_DIR/release/ferrite-examples, tests/c/run.sh), the Python package in
# $FERRITE_PY_VENV (bindings-python/run-tests.sh), the Node addon (bindings-node/run-tests.sh);
# the official SDKs from $FERRITE_VENV (tests/interop/python/setup.sh) and the TypeScript SDK
# as bindings-node/bench resolves it (bindings-node's own dev dependency, or `npm install` in
# bindings-node/bench). A row whose server is missing is left out, with a note.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
examples=$target/release/ferrite-examples
py=${FERRITE_PY_VENV:-$HOME/.cache/ferrite/venv-py}/bin/python
sdk_py=${FERRITE_VENV:-$HOME/.cache/ferrite/venv}/bin/python

say() { printf '%s\n' "$*" >&2; }

rows=("rmcp stdio_pipes()" "ferrite (rust)")
extras=()
# row NAME COMMAND CHECK: add the row when CHECK (a command) succeeds.
row() {
    if eval "$3" >/dev/null 2>&1; then
        rows+=("$1")
        extras+=("$1=$2")
    else
        say "languages.sh: leaving out the $1 row (not built: $3 failed)"
    fi
}
q() { printf '%q' "$1"; }
row "c" "$(q "$examples/everything-c")" "test -x $(q "$examples/everything-c")"
row "go" "$(q "$examples/everything-go")" "test -x $(q "$examples/everything-go")"
row "python def" "$(q "$py") $(q "$repo/examples/python/everything.py")" "$(q "$py") -c 'import ferrite_mcp'"
# The everything server has `def` tools too, so by default it serves stdio from the runtime;
# a server whose handlers are all `async def` serves it from its event loop, as the second
# row has this one do (`FERRITE_PY_STDIO=loop`; bindings-python/README.md).
row "python async def" "env FERRITE_ADD_ASYNC=1 $(q "$py") $(q "$repo/examples/python/everything.py")" \
    "$(q "$py") -c 'import ferrite_mcp'"
row "python async def, all-async server" \
    "env FERRITE_ADD_ASYNC=1 FERRITE_PY_STDIO=loop $(q "$py") $(q "$repo/examples/python/everything.py")" \
    "$(q "$py") -c 'import ferrite_mcp'"
row "node sync" "node $(q "$repo/examples/node/everything.mjs")" "test -d $(q "$repo/bindings-node/lib")"
row "node Promise" "env FERRITE_ADD_ASYNC=1 node $(q "$repo/examples/node/everything.mjs")" \
    "test -d $(q "$repo/bindings-node/lib")"
row "typescript sdk" "node $(q "$repo/bindings-node/bench/ts-sdk-add-server.mjs")" \
    "node -e $(q "require.resolve('@modelcontextprotocol/sdk/package.json', {paths: ['$repo/bindings-node/bench']})")"
row "python sdk (mcp)" "$(q "$sdk_py") $(q "$repo/bindings-python/bench/mcp_sdk_add_server.py")" \
    "$(q "$sdk_py") -c 'import mcp'"

ONLY=$(
    IFS=';'
    printf '%s' "${rows[*]}"
)
EXTRA_SERVERS=$(
    IFS=';'
    printf '%s' "${extras[*]}"
)
export ONLY EXTRA_SERVERS
export PROTOCOLS=${PROTOCOLS:-2025-11-25} EXTRA_PROTOCOLS=2025-11-25 LAYERS=0
exec "$repo/bench/stdio.sh"
