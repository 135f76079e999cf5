#!/usr/bin/env bash
# The proxy in front of a Streamable HTTP upstream, as one command the conformance runner can
# start: starts the Rust everything server on a free port, waits for it, then runs
# `proxy --url <its endpoint> "$@"` (the runner appends --port N). Both stop together.
#
# usage: tests/conformance/proxy-http.sh PROXY EVERYTHING [proxy args...]
set -euo pipefail
proxy=$1 everything=$2
shift 2
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$everything" --port "$port" &
upstream=$!
trap 'kill "$upstream" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done
"$proxy" --url "http://127.0.0.1:$port/mcp" "$@" &
child=$!
trap 'kill "$child" "$upstream" 2>/dev/null || true' EXIT TERM INT
wait "$child"
