#!/usr/bin/env bash
# The Node package's test entry point.
#
# 1. `npm install` in bindings-node/: installs the dev tools and builds the addon (the
#    `prepare` script runs `napi build --release`; incremental when warm).
# 2. Fails when the build changed the committed generated files (index.js, index.d.ts).
# 3. `node --test` over test/*.test.mjs.
# 4. The shared stdio harnesses (the official Python SDK client, the MCP Inspector CLI)
#    against examples/node/everything.mjs, when those harnesses exist.
#
# Exits non-zero on any failure; the last line is a summary of the steps.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"

failed=()
passed=()
step() { # step NAME STATUS
    if [[ "$2" == 0 ]]; then passed+=("$1"); else failed+=("$1"); fi
}
summary() {
    echo "run-tests.sh: passed: ${passed[*]:-none}; failed: ${failed[*]:-none}"
    ((${#failed[@]} == 0))
}

# --- 1 + 2: build, and compare the generated files with what was there before -----------
generated=(index.js index.d.ts)
before="$(mktemp -d)"
trap 'rm -rf "$before"' EXIT
for f in "${generated[@]}"; do
    [[ -f "$f" ]] && cp "$f" "$before/$f"
done

echo "run-tests.sh: npm install (builds the addon)" >&2
if npm install --no-audit --no-fund --loglevel=error >&2; then
    step build 0
else
    step build 1
    summary
    exit 1
fi

status=0
for f in "${generated[@]}"; do
    if [[ ! -f "$before/$f" ]]; then
        echo "run-tests.sh: $f was not there before the build: commit the generated $f" >&2
        status=1
    elif ! diff -u "$before/$f" "$f" >&2; then
        echo "run-tests.sh: the build changed the generated $f: commit the new version" >&2
        status=1
    fi
done
step generated-files "$status"

# --- 3: node --test -----------------------------------------------------------------------
node --test test/*.test.mjs
step node-test $?

# --- 4: the shared stdio harnesses -----------------------------------------------------------
export FERRITE_STDIO_SERVERS="node=node examples/node/everything.mjs"
for harness in tests/interop/python/run.sh tests/inspector/run.sh; do
    if [[ -f "$root/$harness" ]]; then
        echo "run-tests.sh: $harness with FERRITE_STDIO_SERVERS=\"$FERRITE_STDIO_SERVERS\"" >&2
        (cd "$root" && bash "$harness")
        step "$harness" $?
    else
        echo "run-tests.sh: $harness does not exist: skipped" >&2
    fi
done

summary
