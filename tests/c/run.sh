#!/usr/bin/env bash
# The C ABI's test entry point (issue 3). From anywhere:  tests/c/run.sh
#
#  1. cargo test -p ferrite-ffi --features testing: header drift and standalone C99/C++11
#     compiles, the C test program through handle_raw, over stdio, and driving the endpoint as
#     a host's server would (tests/c/abi_mount.c: ferrite_http_service and its exchanges), and
#     tasks (tests/c/abi_tasks.c) (debug libferrite).
#  2. valgrind on the C test program: no definite or indirect leaks after ferrite_server_close
#     (installs the Debian package when missing).
#  3. release libferrite; the C everything server (examples/c/everything*.c) linked dynamically
#     and statically, the Go everything server (cgo, on the package bindings-go/ferrite); go vet
#     and go test for that package; cargo cinstall into a temporary prefix, then a C program
#     built with only `pkg-config --cflags --libs ferrite` (and run) and the Go server built with
#     -tags ferrite_pkgconfig against the install; a stdio smoke test of each server.
#  4. the shared harnesses, when present: tests/interop/python/run.sh (C and Go everything
#     servers, over stdio and, for the 2026-07-28 client tests, HTTP; test_auth.py against each
#     with --auth: the SDK's OAuthClientProvider discovers a test authorization server from the
#     401 and the metadata, then calls whoami) and tests/inspector/run.sh
#     (C, Go and the ctypes server).
#  5. Streamable HTTP: the official conformance suite (tests/conformance/run.sh, its five
#     default suite runs: stable, next-2025-11-25, session-lifecycle, next-2026-07-28,
#     next-all) against the C and Go everything servers, stateful (--port N) and stateless
#     (--stateless --port N, the session-only scenarios unscored), the ten tasks-* scenarios
#     scored in every run (both servers serve the task fixtures); the Go everything server
#     mounted in a net/http ServeMux beside GET /health (--mount: Server.Handler over the C ABI's
#     ferrite_http_exchange; the stable, next-2025-11-25, next-2026-07-28 and next-all runs, tasks
#     scored); the TypeScript SDK client (tests/interop/typescript/run.sh, its experimental tasks
#     against both servers too); a stateless smoke test of each server; and the
#     2026-07-28 refusals over HTTP (400/-32020, 404/-32601, 400/-32602, then a request that
#     succeeds) against each server, stateful and stateless.
#
# Honours CARGO_TARGET_DIR (default: the repo's target/). Built servers land in
# $CARGO_TARGET_DIR/release/ferrite-examples/. Prints one line per step and a final
# "c-abi: N passed, M failed"; exits 1 on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
target="$CARGO_TARGET_DIR"
bin="$target/release/ferrite-examples"
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT
cd "$root"

passed=0
failed=0
# step NAME COMMAND...: run, show the output's tail on failure.
step() {
    local name="$1"
    shift
    local out="$log/step.out" start=$SECONDS
    echo "== $name" >&2
    "$@" >"$out" 2>&1
    step_report "$name" $? $((SECONDS - start)) "$out"
}
step_report() { # NAME STATUS SECONDS OUTPUT-FILE
    if [[ "$2" == 0 ]]; then
        passed=$((passed + 1))
        echo "PASS $1 ($3 s)"
    else
        failed=$((failed + 1))
        echo "FAIL $1 ($3 s)"
        tail -n 60 "$4" | sed 's/^/    /'
    fi
    grep -E "^SKIP|^test result:|checks, [0-9]+ failed|passed, [0-9]+ failed|[0-9]+ passed|ERROR SUMMARY|definitely lost|indirectly lost|^valgrind:" "$4" \
        | sed 's/^/    /' || true
}
# The harnesses after the builds run three at a time (tests/lib/together.sh).
. "$root/tests/lib/together.sh"

# 1. Rust-side tests: header, standalone header, C programs. The C programs link the
# libferrite.so in target/debug, which only a `cargo build` of the crate itself puts there
# (test and example builds do not), so build it first, with the same features.
ffi_tests() {
    cargo build -p ferrite-ffi --features testing && cargo test -p ferrite-ffi --features testing
}
step "cargo test -p ferrite-ffi --features testing" ffi_tests

# 2. valgrind.
abi_test="$target/debug/c-tests/abi_test"
run_valgrind() {
    if ! command -v valgrind >/dev/null 2>&1; then
        local sudo=""
        ((EUID != 0)) && sudo="sudo"
        $sudo apt-get install -y valgrind >/dev/null 2>&1 \
            || { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y valgrind; } || return 1
    fi
    [[ -x "$abi_test" ]] || { echo "missing $abi_test (step 1 builds it)"; return 1; }
    RUST_BACKTRACE=0 valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$abi_test" \
        && echo "valgrind: no definite or indirect leaks, no memory errors"
}

# 3. Release library and the everything servers.
# The release build names the host triple (CARGO_BUILD_TARGET), as napi-rs always does for the
# Node addon and the Python steps do for the wheel, so the three share one release build of the
# core instead of compiling it twice (about 4 minutes on a fresh 2-core machine); the library
# is then put where the servers, Go, ctypes and the other steps find it, $target/release.
release_ffi() {
    local host
    host="$(rustc -vV | sed -n 's/^host: //p')"
    CARGO_BUILD_TARGET="$host" cargo build --release -p ferrite-ffi || return 1
    mkdir -p "$target/release"
    local lib
    for lib in libferrite.so libferrite.a; do
        # A copy and a rename: a process still mapping the old library keeps its copy.
        cp -p "$target/$host/release/$lib" "$target/release/.$lib.new" && mv -f "$target/release/.$lib.new" "$target/release/$lib" \
            || return 1
    done
}
step "cargo build --release -p ferrite-ffi (for the host triple; the library in \$target/release)" release_ffi
mkdir -p "$bin"
step "gcc examples/c/everything*.c: C everything (shared libferrite)" \
    gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude examples/c/everything*.c -o "$bin/everything-c" \
    -L"$target/release" -Wl,-rpath,"$target/release" -lferrite -lpthread -ldl -lm
step "gcc examples/c/everything*.c: C everything (static libferrite.a)" \
    gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude examples/c/everything*.c -o "$bin/everything-c-static" \
    "$target/release/libferrite.a" -lpthread -ldl -lm
step "gcc examples/c/protected.c: a protected server (issue 13's example)" \
    gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude examples/c/protected.c -o "$bin/protected-c" \
    -L"$target/release" -Wl,-rpath,"$target/release" -lferrite -lpthread -ldl -lm
build_go() {
    command -v go >/dev/null 2>&1 || { echo "go is not installed"; return 1; }
    CGO_LDFLAGS="-L$target/release -Wl,-rpath,$target/release" go build -o "$bin/everything-go" ./examples/go &&
        CGO_LDFLAGS="-L$target/release -Wl,-rpath,$target/release" go build -o "$bin/protected-go" ./examples/go/protected
}
step "go build ./examples/go ./examples/go/protected" build_go
# The Go package's own checks: go vet and its go test tests (in-process, through handle_raw).
go_package() {
    command -v go >/dev/null 2>&1 || { echo "go is not installed"; return 1; }
    export CGO_LDFLAGS="-L$target/release -Wl,-rpath,$target/release"
    go vet ./bindings-go/ferrite ./examples/go || return 1
    local out="$log/go-test.out" rc=0
    go test -count=1 -timeout 300s -v ./bindings-go/ferrite >"$out" 2>&1 || rc=$?
    cat "$out"
    echo "go test: $(grep -c '^--- PASS' "$out") passed, $(grep -c '^--- FAIL' "$out") failed"
    return $rc
}
step "go vet and go test ./bindings-go/ferrite" go_package

# Installing: cargo cinstall into a temporary prefix (versioned soname, ferrite.pc, the header),
# then a C program built with nothing but pkg-config's flags, and the Go package built against
# the install (the ferrite_pkgconfig build tag).
# cargo-c is a tool from crates.io that compiles cargo itself: on a fresh 2-core machine its
# install takes 3 min (a debug build) and its first cinstall another 4.5 (it builds for an
# explicit --target, so nothing of the other release builds is reused; it builds in a target dir
# of its own, because its build scripts and proc macros, built with other flags into the shared
# release profile, made the next release build there, the Node addon's, rebuild all ~245 crates:
# 4 min 44 s). FERRITE_TEST_INSTALL:
# `auto` (the default) runs the check when cargo-c is installed and says SKIP otherwise; `1`
# installs cargo-c first; `0` skips.
install_prefix() {
    # Pinned: cargo-c's newest releases need a newer rustc than this machine's 1.95.
    local cargo_c="0.10.24+cargo-0.98.0"
    if ! cargo cinstall --version 2>/dev/null | grep -q "^cargo-c 0\.10\.24"; then
        if [[ "${FERRITE_TEST_INSTALL:-auto}" != 1 ]]; then
            echo "SKIP: cargo-c $cargo_c is not installed (FERRITE_TEST_INSTALL=1 installs it, about 7 min on 2 cores)"
            return 0
        fi
        cargo install --debug --locked cargo-c --version "=$cargo_c" || return 1
    fi
    # Go's build cache keeps the -L pkg-config gave when the package was built (pkg-config's
    # output is not part of its key): a fixed prefix with a Go cache of its own keeps it right.
    local prefix="$target/c-install-test"
    rm -rf "$prefix"
    CARGO_TARGET_DIR="$target/cinstall" \
        cargo cinstall -p ferrite-ffi --release --prefix "$prefix" --libdir "$prefix/lib" || return 1
    ls -l "$prefix/lib" "$prefix/include"
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    echo "pkg-config: $(pkg-config --cflags --libs ferrite)"
    # shellcheck disable=SC2046
    cc -std=c11 -Wall -Wextra -Werror tests/c/install_test.c $(pkg-config --cflags --libs ferrite) \
        -o "$log/install_test" || return 1
    readelf -d "$log/install_test" | grep -F '[libferrite.so.0]' || { echo "not linked by its soname"; return 1; }
    LD_LIBRARY_PATH="$prefix/lib" "$log/install_test" || return 1
    CGO_LDFLAGS="" GOCACHE="$target/c-install-test-gocache" \
        go build -tags ferrite_pkgconfig -o "$log/everything-go-installed" ./examples/go
}
if [[ "${FERRITE_TEST_INSTALL:-auto}" != 0 ]]; then
    step "cargo cinstall to a prefix; cc \$(pkg-config --cflags --libs ferrite); Go with -tags ferrite_pkgconfig" install_prefix
fi

# A few requests over stdio; the answers must carry the expected fragments.
smoke() {
    local out
    out="$(printf '%s\n' \
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}' \
        '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://static-text"}}' \
        | timeout 20 "$@")" || { echo "server failed: $*"; return 1; }
    echo "$out"
    grep -q '"serverInfo"' <<<"$out" && grep -q '"structuredContent":{"sum":5}' <<<"$out" \
        && grep -q 'This is the content of the static text resource.' <<<"$out"
}
python="$(command -v python3)"
ctypes_cmd="env FERRITE_LIB=$target/release/libferrite.so $python $root/examples/ctypes/server.py"
step "stdio smoke: C everything (shared)" smoke "$bin/everything-c"
step "stdio smoke: C everything (static)" smoke "$bin/everything-c-static"
step "stdio smoke: Go everything" smoke "$bin/everything-go"
step "stdio smoke: ctypes server" smoke $ctypes_cmd

# From here on the harnesses run three at a time, each against servers of its own; valgrind (about
# a minute of one core) first, beside them.
together "valgrind: abi_test leaks nothing after ferrite_server_close" run_valgrind

# 4. Shared harnesses (skipped, and said so, when not in the tree yet).
servers="c=$bin/everything-c;go=$bin/everything-go"
if [[ -x tests/interop/python/run.sh ]]; then
    together "Python SDK interop (tests/interop/python/run.sh): c, go (stdio; HTTP for 2026-07-28; --auth and the protected examples with the SDK's OAuth client)" \
        env FERRITE_STDIO_SERVERS="$servers" FERRITE_HTTP_SERVERS="$servers" \
        FERRITE_AUTH_SERVERS="$servers;c-protected=$bin/protected-c;go-protected=$bin/protected-go" \
        tests/interop/python/run.sh
else
    echo "SKIP tests/interop/python/run.sh is not in the tree"
fi
if [[ -x tests/inspector/run.sh ]]; then
    together "MCP Inspector CLI (tests/inspector/run.sh): c, go, ctypes" \
        env FERRITE_STDIO_SERVERS="$servers;ctypes=$ctypes_cmd" tests/inspector/run.sh
else
    echo "SKIP tests/inspector/run.sh is not in the tree"
fi

# 5. Streamable HTTP: the official conformance suite (pinned in tests/conformance/) and the
#    TypeScript SDK client (tests/interop/typescript/) against the C and Go everything servers.
# Both servers serve the task fixtures (examples/SURFACE.md), so the ten tasks-* scenarios are
# scored everywhere (CONFORMANCE_UNSCORED="": the runner leaves them unscored by default).
# Stateless servers refuse what needs a session the documented way: those scenarios run but
# are not scored.
stateless_unscored='^(logging-set-level|tools-call-with-logging|tools-call-sampling|tools-call-elicitation|elicitation-sep|resources-(un)?subscribe)'
if [[ -x tests/conformance/run.sh ]]; then
    together "conformance suite, 5 runs (tests/conformance/run.sh): C everything, tasks-* scored" \
        env CONFORMANCE_UNSCORED="" tests/conformance/run.sh c -- "$bin/everything-c"
    together "conformance suite, 5 runs (tests/conformance/run.sh): Go everything, tasks-* scored" \
        env CONFORMANCE_UNSCORED="" tests/conformance/run.sh go -- "$bin/everything-go"
    together "conformance suite, 5 runs: C everything --stateless, tasks-* scored" \
        env CONFORMANCE_UNSCORED="$stateless_unscored" tests/conformance/run.sh c-stateless -- "$bin/everything-c" --stateless
    together "conformance suite, 5 runs: Go everything --stateless, tasks-* scored" \
        env CONFORMANCE_UNSCORED="$stateless_unscored" tests/conformance/run.sh go-stateless -- "$bin/everything-go" --stateless
    together "conformance suite (stable, next-2025-11-25, next-2026-07-28, next-all): Go everything mounted in a net/http ServeMux (--mount), tasks-* scored" \
        env CONFORMANCE_SUITES=stable,next-2025-11-25,next-2026-07-28,next-all CONFORMANCE_UNSCORED="" \
        CONFORMANCE_HOST_ROUTE=/health tests/conformance/run.sh go-mounted -- "$bin/everything-go" --mount
else
    echo "SKIP tests/conformance/run.sh is not in the tree"
fi
if [[ -x tests/interop/typescript/run.sh ]]; then
    together "TypeScript SDK interop over HTTP (tests/interop/typescript/run.sh): c, go (their experimental tasks too)" \
        env FERRITE_HTTP_SERVERS="$servers" FERRITE_TASK_SERVERS="$servers" tests/interop/typescript/run.sh
else
    echo "SKIP tests/interop/typescript/run.sh is not in the tree"
fi

# Stateless HTTP (--stateless --port N): initialize answers without minting a session, a tool
# call needs none, GET is 405. (Python's standard library as the client: no curl needed.)
http_stateless() {
    "$python" - "$@" <<'EOF'
import json, socket, subprocess, sys, time, urllib.error, urllib.request

s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
server = subprocess.Popen(sys.argv[1:] + ["--stateless", "--port", str(port)])
url = f"http://127.0.0.1:{port}/mcp"
def post(body, **extra):
    req = urllib.request.Request(url, json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **extra})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers, r.read().decode()
try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close(); break
        except OSError:
            time.sleep(0.1)
    status, headers, body = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "0"}}})
    print(status, dict(headers), body)
    assert status == 200 and '"serverInfo"' in body, "initialize"
    assert "mcp-session-id" not in {k.lower() for k in headers}, "a stateless server minted a session"
    status, _, body = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                            "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
                   **{"MCP-Protocol-Version": "2025-06-18"})
    print(status, body)
    assert '"structuredContent":{"sum":5}' in body, "tools/call add"
    try:
        urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "text/event-stream"}), timeout=10)
        sys.exit("GET was not refused")
    except urllib.error.HTTPError as e:
        print("GET:", e.code)
        assert e.code == 405, "GET must be 405 in stateless mode"
    print("stateless HTTP: ok")
finally:
    server.kill(); server.wait()
EOF
}
together "stateless HTTP smoke: C everything" http_stateless "$bin/everything-c"
together "stateless HTTP smoke: Go everything" http_stateless "$bin/everything-go"

# 2026-07-28 over HTTP, stateful and stateless: each refusal has its exact status and JSON-RPC
# code, and the server keeps serving afterwards; an unknown command-line argument exits 2.
http_modern() {
    "$python" - "$@" <<'EOF'
import json, socket, subprocess, sys, time, urllib.error, urllib.request

V = "2026-07-28"
def envelope(version=V):
    return {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}
bad = subprocess.run(sys.argv[1:] + ["--no-such-flag"], capture_output=True, text=True, timeout=20)
print("unknown flag:", bad.returncode, bad.stderr.strip())
assert bad.returncode == 2 and "usage" in bad.stderr, "an unknown argument must print the usage and exit 2"
for mode in ([], ["--stateless"]):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    server = subprocess.Popen(sys.argv[1:] + mode + ["--port", str(port)])
    url = f"http://127.0.0.1:{port}/mcp"
    def post(method, body, name=None):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": V, "Mcp-Method": method}
        if name:
            headers["Mcp-Name"] = name
        req = urllib.request.Request(url, json.dumps(body).encode(), method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode())
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close(); break
            except OSError:
                time.sleep(0.1)
        cases = [
            ("MCP-Protocol-Version differs from the envelope", post("server/discover", {"jsonrpc": "2.0", "id": 1,
                "method": "server/discover", "params": {"_meta": envelope("1999-01-01")}}), 400, -32020),
            ("unknown method", post("unknown/method", {"jsonrpc": "2.0", "id": 2, "method": "unknown/method",
                "params": {"_meta": envelope()}}), 404, -32601),
            ("no envelope", post("server/discover", {"jsonrpc": "2.0", "id": 3, "method": "server/discover",
                "params": {}}), 400, -32602),
        ]
        for what, (status, body), want_status, want_code in cases:
            print(mode, what, status, body)
            assert (status, body["error"]["code"]) == (want_status, want_code), what
        status, body = post("tools/call", {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "test_simple_text", "arguments": {}, "_meta": envelope()}}, name="test_simple_text")
        print(mode, "then", status, body)
        assert status == 200 and body["result"]["content"][0]["text"] == "This is a simple text response for testing."
    finally:
        server.kill(); server.wait()
print("2026-07-28 HTTP refusals: ok")
EOF
}
together "2026-07-28 HTTP refusals (stateful and stateless): C everything" http_modern "$bin/everything-c"
together "2026-07-28 HTTP refusals (stateful and stateless): Go everything" http_modern "$bin/everything-go"

together_run step_report

echo "c-abi: $passed passed, $failed failed"
((failed == 0))
