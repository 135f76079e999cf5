#!/usr/bin/env bash
# Fleet benchmark (issue 14): throughput of 1, 2 and 4 Rust everything servers sharing one
# Redis behind the round-robin front (examples/rust/front.rs, via tests/fleet/fleet.sh),
# against one instance with no front: stateless at 2026-07-28, then stateful at 2025-11-25
# (a session per client, made on one instance and used on all); then tasks created
# and polled to completion through the front, with the Redis commands each took (INFO stats'
# total_commands_processed before and after, so every round trip of every instance counts).
#
#   bench/fleet.sh                 (CLIENTS=32 DURATION=5 TASKS=2000 to change the load)
#
# Everything runs on this machine: the load generator, the front, the instances and Redis
# share its cores (`nproc` is printed), so these figures measure the cost of the front and the
# store, not scale-out; see bench/README.md ("A fleet behind one endpoint") for the model.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$HOME/.cache/ferrite/target}"
bench_target="${BENCH_TARGET_DIR:-$HOME/.cache/ferrite/bench-target}"
clients="${CLIENTS:-32}"
duration="${DURATION:-5}"
tasks="${TASKS:-2000}"

scripts/redis.sh install
CARGO_TARGET_DIR="$target" cargo build --release -p ferrite-core --example everything --example front
CARGO_TARGET_DIR="$bench_target" cargo build --release --manifest-path bench/Cargo.toml --bin http-loadgen --bin tasks-loadgen
rel="$target/release/examples/everything"
loadgen="$bench_target/release/http-loadgen"
tasks_loadgen="$bench_target/release/tasks-loadgen"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
commands() { redis-cli -p "$redis_port" info stats | tr -d '\r' | awk -F: '/^total_commands_processed/ {print $2}'; }
export FERRITE_FLEET_REDIS_URL="redis://127.0.0.1:$redis_port/" FERRITE_FLEET_PROFILE=release
echo "machine: $(nproc) cores; load: $clients clients, ${duration}s, tools/call add at 2026-07-28 (stateless)"

rate() { python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.0f req/s, p50 %.0f us, p99 %.0f us, %d calls, %d errors" % (d["req_per_s"], d["p50_us"], d["p99_us"], d["calls"], d["errors"]))'; }
calls() { python3 -c 'import json,sys; print(json.load(sys.stdin)["calls"])'; }
mode="stateless-json"
protocol="2026-07-28"
run() { # label, then the server command (which takes the port)
  local label=$1 port before after line n
  shift
  port=$(free_port)
  before=$(commands)
  line=$("$loadgen" --port "$port" --mode "$mode" --protocol "$protocol" --clients "$clients" \
    --duration "$duration" --label "$label" -- "$@" --port "$port")
  after=$(commands)
  n=$(echo "$line" | calls)
  # The count includes the warm-up calls and the handshakes, so it is an upper bound per call.
  echo "$label: $(echo "$line" | rate); redis commands: $((after - before - 1)) ($(python3 -c "print(round(($after - $before - 1) / max($n, 1), 2))") per measured call)"
}
run "1 instance, no front" "$rel" --stateless --redis "$FERRITE_FLEET_REDIS_URL"
for n in 1 2 4; do
  fleet=""
  for _ in $(seq 1 "$n"); do fleet="${fleet:+$fleet;}$rel --stateless"; done
  FERRITE_FLEET="$fleet" run "$n instance(s) behind the front" tests/fleet/fleet.sh
done

echo "stateful: tools/call add at 2025-11-25, one session per client shared through Redis (JSON answers: the handler is silent)"
mode="stateful-sse"
protocol="2025-11-25"
run "1 instance, no front, stateful" "$rel" --redis "$FERRITE_FLEET_REDIS_URL"
for n in 1 2 4; do
  fleet=""
  for _ in $(seq 1 "$n"); do fleet="${fleet:+$fleet;}$rel"; done
  FERRITE_FLEET="$fleet" run "$n instance(s) behind the front, stateful" tests/fleet/fleet.sh
done

for n in 1 2; do
  fleet=""
  for _ in $(seq 1 "$n"); do fleet="${fleet:+$fleet;}$rel --stateless"; done
  before=$(commands)
  port=$(free_port)
  echo "tasks through the front, $n instance(s):"
  FERRITE_FLEET="$fleet" "$tasks_loadgen" --tasks "$tasks" --workers 64 --ttl-ms 15000 --port "$port" -- tests/fleet/fleet.sh |
    grep -E "created|completed|polled" || true
  after=$(commands)
  echo "  redis commands per task (create, run, polls, finish): $(python3 -c "print(round(($after - $before - 1) / (2 * $tasks), 1))")"
done
