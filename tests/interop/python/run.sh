#!/usr/bin/env bash
# Runs the Python-SDK interop tests against every server in FERRITE_STDIO_SERVERS
# ("name=command line;name=command line"). Extra arguments go to pytest; exit code is pytest's.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

python="$("$here/setup.sh" | tail -n 1)"
cd "$root"
exec "$python" -m pytest -q tests/interop/python "$@"
