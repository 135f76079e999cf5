#!/usr/bin/env bash
# A fleet behind one endpoint (issue 14): a throwaway redis-server, N everything servers that
# keep their shared state there (--redis), and the round-robin front (examples/rust/front.rs)
# on --port, so that every request of a client lands on the next instance in turn.
#
#   tests/fleet/fleet.sh --port N [INSTANCE ARGS...]
#
# INSTANCE ARGS (for example --task-ttl-ms T) go to every instance. FERRITE_FLEET_REDIS_URL
# uses a Redis already running instead of starting one; FERRITE_FLEET_PROFILE=release runs the
# release front (default debug).
#
# The instances are FERRITE_FLEET: server commands that take --port P and --redis URL,
# separated by ';' (default: three Rust everything servers, --stateless); they share one
# requestState key (FERRITE_REQUEST_STATE_KEYS, generated when unset). The front answers
# at http://127.0.0.1:N/mcp once every instance accepts connections. Everything it started
# stops with it (SIGTERM, SIGINT, or the end of the script), so it can be the server command
# of tests/conformance/run.sh, which appends --port.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
[ "${1:-}" = "--port" ] && [ -n "${2:-}" ] || { echo "usage: $0 --port N [INSTANCE ARGS...]" >&2; exit 2; }
port="$2"
shift 2
profile="${FERRITE_FLEET_PROFILE:-debug}"
rust="$target/$profile/examples/everything"
fleet="${FERRITE_FLEET:-$rust --stateless;$rust --stateless;$rust --stateless}"

"$root/scripts/redis.sh" install || exit 1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "fleet: nothing listens on port $1" >&2
  return 1
}

pids=()
cleanup() {
  trap - EXIT TERM INT
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

if [ -n "${FERRITE_FLEET_REDIS_URL:-}" ]; then
  redis_url="$FERRITE_FLEET_REDIS_URL"
else
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
  pids+=($!)
  wait_port "$redis_port" || exit 1
  redis_url="redis://127.0.0.1:$redis_port/"
fi
export FERRITE_REDIS_PREFIX="fleet-$port:"
# One requestState key for the whole fleet: a state sealed by one instance opens on any other.
FERRITE_REQUEST_STATE_KEYS="${FERRITE_REQUEST_STATE_KEYS:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"
export FERRITE_REQUEST_STATE_KEYS

upstreams=()
IFS=';' read -r -a commands <<<"$fleet"
for cmd in "${commands[@]}"; do
  p=$(free_port)
  # shellcheck disable=SC2086 # a command line with its arguments
  $cmd --port "$p" --redis "$redis_url" "$@" &
  pids+=($!)
  upstreams+=("127.0.0.1:$p")
done
for u in "${upstreams[@]}"; do wait_port "${u##*:}" || exit 1; done
"$target/$profile/examples/front" --port "$port" "${upstreams[@]}" &
pids+=($!)
wait_port "$port" || exit 1
echo "fleet: http://127.0.0.1:$port/mcp -> ${upstreams[*]} (redis at $redis_url)" >&2
wait -n "${pids[@]}"
echo "fleet: a member exited" >&2
