#!/usr/bin/env bash
# Interop tests: the official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
# package.json) against every server in FERRITE_HTTP_SERVERS over Streamable HTTP, stateful; and
# the SDK's v2 client (@modelcontextprotocol/client, pinned too) at 2026-07-28 (discover, no
# session, multi round-trip results fulfilled by its handlers: modern_client.test.mjs).
#
# FERRITE_HTTP_SERVERS is "name=command line;name=command line" (split like shlex; relative paths
# resolve against the repo root). Each command gets "--port N" appended and must then serve
# http://127.0.0.1:N/mcp; it runs in a process group of its own, which is killed at the end.
# Example:
#   FERRITE_HTTP_SERVERS='rust=target/debug/examples/everything' tests/interop/typescript/run.sh
#
# FERRITE_TASK_SERVERS (same form) names the servers that serve tasks: tasks.test.mjs runs the
# SDK's experimental tasks (2025-11-25) against each of them (unset: that file has no tests).
#
# Extra arguments go to `node --test` (e.g. --test-name-pattern=reconnection). Prints the spec
# report, then a last line "N passed, M failed"; the exit code is node --test's.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
sdk="$here/node_modules/@modelcontextprotocol/sdk/package.json"
stamp="$here/node_modules/.ferrite-install.sha256"

servers="${FERRITE_HTTP_SERVERS:-}"
if [[ -z "${servers//[[:space:];]/}" ]]; then
    echo "run.sh: SKIP: FERRITE_HTTP_SERVERS is not set (or empty): no server to test;" \
        "set it to 'name=command line;...', e.g. FERRITE_HTTP_SERVERS='rust=target/debug/examples/everything'" >&2
    echo "0 passed, 0 failed"
    exit 0
fi

install_hash() { cat "$here/package.json" "$here/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# npm ci fails on this machine for some packages; npm install with the committed lock works.
# flock: concurrent runs share one node_modules, so only one of them installs.
(
    set -e
    if command -v flock >/dev/null 2>&1; then
        mkdir -p "$here/node_modules"
        exec 9>"$here/node_modules/.ferrite-install.lock"
        flock 9
    fi
    if [[ ! -f "$sdk" || "$(cat "$stamp" 2>/dev/null)" != "$(install_hash)" ]]; then
        echo "run.sh: npm install in $here" >&2
        rm -f "$stamp"
        (cd "$here" && npm install --no-audit --no-fund --loglevel=error) >&2
        install_hash >"$stamp"
    fi
) || { echo "run.sh: npm install failed" >&2; echo "0 passed, 1 failed"; exit 1; }

cd "$root"
tests=("$here"/*.test.mjs)
node --test \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter="$here/summary-reporter.mjs" --test-reporter-destination=stdout \
    "$@" "${tests[@]}"
