#!/usr/bin/env bash
# Creates or refreshes the interop-test virtualenv and prints its python on the last stdout line.
#
#   FERRITE_VENV   where the venv lives (default: $HOME/.cache/ferrite/venv)
#   FERRITE_PYTHON the interpreter to build it with (default: python3.11)
#
# Warm runs cost one hash: the venv keeps a stamp of requirements.txt and the interpreter it
# was built from, and pip only runs when either changed. All chatter goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"
venv="${FERRITE_VENV:-$HOME/.cache/ferrite/venv}"
python="${FERRITE_PYTHON:-python3.11}"
stamp="$venv/.ferrite-requirements.sha256"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "setup.sh: $python not found (set FERRITE_PYTHON to a Python 3.11 interpreter)" >&2
    exit 1
fi

mkdir -p "$(dirname "$venv")"
# Two runs at once (a developer's and CI's) must not build the same venv concurrently.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
fi

want="$( { cat "$requirements"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
    echo "setup.sh: creating $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi

if [[ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]]; then
    echo "setup.sh: installing $requirements into $venv" >&2
    rm -f "$stamp"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
    echo "$want" >"$stamp"
fi

echo "$venv/bin/python"
