#!/usr/bin/env bash
# The Python package's tests: build and install ferrite_mcp into a venv, install redis-server
# (scripts/redis.sh: the fleet tests start throwaway ones), run its pytest suite,
# then the shared harnesses against the Python everything server, each when it exists: the
# interop tests (official `mcp` client: stdio, and its 2026-07-28 tests over Streamable HTTP
# too), the MCP Inspector CLI checks, and over Streamable HTTP the conformance suite (its five
# default suites against the stateful server, then against `--stateless` with the scenarios
# that need a session unscored, then stable, next-2025-11-25, next-2026-07-28 and next-all
# against `--mount`: `server.asgi_app()` in a Starlette app under uvicorn; the ten tasks-*
# scenarios scored in all three) and the TypeScript SDK client (against the server's own
# listener and the mounted app; its experimental tasks against the server's own listener).
#
#   FERRITE_PY_VENV     the venv ferrite_mcp is installed into
#                       (default: $HOME/.cache/ferrite/venv-py; kept apart from the interop
#                       client's venv, which tests/interop/python/setup.sh owns and may rebuild)
#   FERRITE_PYTHON      the interpreter the venv is built with (default: python3.11, else python3)
#   FERRITE_PY_TARGET   cargo target dir of the wheel build (default: $CARGO_TARGET_DIR, else
#                       $HOME/.cache/ferrite/target)
#   FERRITE_PY_HTTP=0   skip the Streamable HTTP harnesses (conformance, TypeScript client, the
#                       interop tests' HTTP targets)
#
# Exit status: non-zero when any suite fails. Each suite prints its own summary line.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
venv="${FERRITE_PY_VENV:-$HOME/.cache/ferrite/venv-py}"
if [[ -n "${FERRITE_PYTHON:-}" ]]; then
    base_python="$FERRITE_PYTHON"
elif command -v python3.11 >/dev/null 2>&1; then
    base_python=python3.11
else
    base_python=python3
fi
# The wheel builds in the shared target dir for the host triple, where the C ABI's and the Node
# addon's release builds already compiled the core and its dependencies (a cold machine
# compiles them once, not twice).
export CARGO_TARGET_DIR="${FERRITE_PY_TARGET:-${CARGO_TARGET_DIR:-$HOME/.cache/ferrite/target}}"

say() { printf 'run-tests.sh: %s\n' "$*" >&2; }

# ----- the venv: created once, test tools installed once (stamped) -----
(
    set -e
    mkdir -p "$(dirname "$venv")"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$venv.lock"
        flock 9
    fi
    if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
        say "creating $venv with $base_python"
        rm -rf "$venv"
        "$base_python" -m venv "$venv"
    fi
    # uvicorn and starlette (with the dependencies they resolve to) serve the mounted ASGI app
    # (tests/test_asgi.py, everything.py --mount); the versions the official `mcp` 2.3.0 uses.
    want="pytest==9.2.0 pydantic>=2,<3 mypy==2.4.1 PyJWT==2.15.1 cryptography==50.0.2 uvicorn==0.54.0 starlette==1.10.0 anyio==4.16.0 h11==0.16.0 click==8.5.1 idna==3.20"
    if [[ "$(cat "$venv/.ferrite-py-tools" 2>/dev/null)" != "$want" ]]; then
        say "installing $want"
        # shellcheck disable=SC2086
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $want >&2
        echo "$want" >"$venv/.ferrite-py-tools"
    fi
    say "pip install ./bindings-python (maturin; cargo target $CARGO_TARGET_DIR)"
    # For the host triple, as the Node addon and the C ABI build: one release build of the core.
    CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$here" >&2
) || { say "could not build or install the package"; echo "0 passed, 1 failed (build)"; exit 1; }

python="$venv/bin/python"
failed=()

# ----- the package's own suite -----
# tests/test_redis_fleet.py starts throwaway redis-servers (scripts/redis.sh installs Debian's).
"$root/scripts/redis.sh" install || failed+=("scripts/redis.sh install")
(cd "$root" && "$python" -m pytest -q -p no:cacheprovider bindings-python/tests) || failed+=("pytest bindings-python/tests")

# ----- the shared harnesses, against the Python everything server -----
export FERRITE_STDIO_SERVERS="python=$python examples/python/everything.py"
# The harnesses run three at a time (tests/lib/together.sh), each printed whole when done.
. "$root/tests/lib/together.sh"
cd "$root"
ran_apart() { # NAME STATUS SECONDS LOGFILE
    say "$1 ($3 s):"
    cat "$4"
    [[ "$2" == 0 ]] || failed+=("$1")
}
if [[ "${FERRITE_PY_HTTP:-1}" != 0 ]]; then
    together tests/interop/python env FERRITE_HTTP_SERVERS="python=$python examples/python/everything.py" \
        FERRITE_AUTH_SERVERS="python=$python examples/python/everything.py;python-protected=$python examples/python/protected.py" \
        tests/interop/python/run.sh
else
    together tests/interop/python tests/interop/python/run.sh
fi
together tests/inspector tests/inspector/run.sh

if [[ "${FERRITE_PY_HTTP:-1}" != 0 ]]; then
    # Stateful, tasks-* scored.
    together "tests/conformance (stateful)" env CONFORMANCE_UNSCORED="" \
        tests/conformance/run.sh python -- "$python" "$root/examples/python/everything.py"
    # Stateless: the scenarios that need a session run unscored; tasks-* scored.
    stateless_unscored="${FERRITE_STATELESS_UNSCORED:-^(tasks-|logging-set-level|tools-call-with-logging|tools-call-sampling|tools-call-elicitation|elicitation-sep|resources-(un)?subscribe)}"
    together "tests/conformance (stateless)" env CONFORMANCE_UNSCORED="${stateless_unscored/tasks-|/}" \
        tests/conformance/run.sh python-stateless -- "$python" "$root/examples/python/everything.py" --stateless
    # server.asgi_app() mounted in a Starlette app under uvicorn, stateful, tasks-* scored.
    together "tests/conformance (mounted)" env CONFORMANCE_SUITES=stable,next-2025-11-25,next-2026-07-28,next-all \
        CONFORMANCE_UNSCORED="" CONFORMANCE_HOST_ROUTE=/health \
        tests/conformance/run.sh python-mounted -- "$python" "$root/examples/python/everything.py" --mount
    # Streamable HTTP; its experimental tasks too.
    together tests/interop/typescript env \
        FERRITE_HTTP_SERVERS="python=$python examples/python/everything.py;python-mounted=$python examples/python/everything.py --mount" \
        FERRITE_TASK_SERVERS="python=$python examples/python/everything.py" tests/interop/typescript/run.sh
fi
together_run ran_apart

if ((${#failed[@]})); then
    say "FAILED: ${failed[*]}"
    exit 1
fi
say "all suites passed"
