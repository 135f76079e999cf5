#!/usr/bin/env bash
# Fault injection (issue 15) against every surface's everything server, over stdio and HTTP:
# tests/faults/faults.py (each fault tool 300 times with fds and RSS checked, cancellation of a
# hanging handler, clients that leave mid-request, mid-SSE and mid-elicitation, stdin closed
# with requests in flight).
#
#   FERRITE_FAULT_SERVERS     "name=command line;..."; by default the five surfaces as
#                             scripts/test builds them (as tests/surfaces/run.sh)
#   FERRITE_FAULT_ROUNDS      rounds per server and transport (300)
#   FERRITE_FAULT_TRANSPORTS  "stdio,http" (default), or one of them
#
# Needs the servers the earlier steps built: the Rust debug example, the C and Go everything
# servers (tests/c/run.sh), the Python package in $FERRITE_PY_VENV and the Node addon.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

# shellcheck source=../lib/everything-servers.sh
. "$root/tests/lib/everything-servers.sh"
FERRITE_FAULT_SERVERS="${FERRITE_FAULT_SERVERS:-$(everything_servers)}" exec python3 "$here/faults.py"
