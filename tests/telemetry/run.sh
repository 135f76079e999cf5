#!/usr/bin/env bash
# OpenTelemetry from every everything server (issue 16): tests/telemetry/telemetry.py runs each
# over stdio against an OTLP/HTTP receiver on loopback and reads the spans and metrics back.
# The receiver decodes with the official `opentelemetry-proto` messages, installed (pinned) into
# the Python venv of the test command ($FERRITE_PY_VENV).
#
#   FERRITE_TELEMETRY_SERVERS  "name=command line;..."; by default the five surfaces as
#                              scripts/test builds them (tests/lib/everything-servers.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
py_venv="${FERRITE_PY_VENV:-$HOME/.cache/ferrite/venv-py}"
want="opentelemetry-proto==1.39.1 protobuf==6.33.6"
if [[ "$(cat "$py_venv/.ferrite-otel-proto" 2>/dev/null)" != "$want" ]]; then
    # shellcheck disable=SC2086
    "$py_venv/bin/python" -m pip install --quiet --disable-pip-version-check $want >&2
    echo "$want" >"$py_venv/.ferrite-otel-proto"
fi
# shellcheck source=../lib/everything-servers.sh
. "$root/tests/lib/everything-servers.sh"
FERRITE_TELEMETRY_SERVERS="${FERRITE_TELEMETRY_SERVERS:-$(everything_servers)}" exec "$py_venv/bin/python" "$here/telemetry.py"
