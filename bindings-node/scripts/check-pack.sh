#!/usr/bin/env bash
# Proves the npm packages install and run with no Rust toolchain: builds and packs both
# tarballs (scripts/pack.sh), installs them into a fresh temporary directory with cargo and
# rustc hidden from PATH (`npm install <main.tgz> <platform.tgz>`), checks that the addon
# came from the platform package, then runs the Node everything server from that install
# (examples/node/everything*.mjs and mounted.mjs with their imports pointed at the installed package)
# against the official Python SDK client (tests/interop/python/run.sh, FERRITE_STDIO_SERVERS).
#
#   FERRITE_PACK_SKIP_BUILD=1   pack what is already built
#   FERRITE_CHECK_PACK_KEEP=1   keep the temporary directory (its path is printed)
#
# Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"

mapfile -t tarballs < <(bash "$here/scripts/pack.sh")
main="${tarballs[0]}"
native="${tarballs[1]}"
echo "check-pack.sh: packed $(basename "$main") and $(basename "$native")" >&2

work="$(mktemp -d -t ferrite-check-pack.XXXXXX)"
if [[ "${FERRITE_CHECK_PACK_KEEP:-0}" == 1 ]]; then
    echo "check-pack.sh: keeping $work" >&2
else
    trap 'rm -rf "$work"' EXIT
fi

# PATH without any directory holding cargo or rustc, and shims that fail loudly if anything
# still asks for them.
shims="$work/no-rust"
mkdir -p "$shims"
for tool in cargo rustc rustup; do
    printf '#!/bin/sh\necho "check-pack.sh: %s was called, but the installed package must need no Rust" >&2\nexit 1\n' "$tool" >"$shims/$tool"
    chmod +x "$shims/$tool"
done
clean_path="$shims"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [[ -z "$d" || -e "$d/cargo" || -e "$d/rustc" ]] && continue
    clean_path="$clean_path:$d"
done
no_rust() { env -u CARGO_TARGET_DIR -u CARGO_HOME -u RUSTUP_HOME PATH="$clean_path" "$@"; }

app="$work/app"
mkdir -p "$app"
(
    cd "$app"
    no_rust npm init -y >/dev/null
    no_rust npm install --no-audit --no-fund --loglevel=error "$main" "$native"
) >&2

# The addon must be the platform package's, not a build.
loaded="$(cd "$app" && no_rust node -e '
const m = require("ferrite-mcp");
const s = new m.McpServer({ name: "pack", version: "1" });
const addon = require.resolve("ferrite-mcp-linux-x64-gnu");
console.log(typeof s.registerTool === "function" && typeof m.StdioServerTransport === "function" ? addon : "");
s.close();
')"
case "$loaded" in
    "$app"/node_modules/ferrite-mcp-linux-x64-gnu/*) echo "check-pack.sh: the addon loads from $loaded" >&2 ;;
    *) echo "check-pack.sh: the installed package did not load its platform package (got: $loaded)" >&2; exit 1 ;;
esac
if [[ -e "$app/node_modules/ferrite-mcp/ferrite-mcp.linux-x64-gnu.node" ]]; then
    echo "check-pack.sh: the main package holds an addon" >&2
    exit 1
fi

# The everything server and the modules it imports (its 2026-07-28 and task fixtures, the
# mounting helpers), importing the installed package.
for path in "$root"/examples/node/everything*.mjs "$root/examples/node/mounted.mjs"; do
    f=$(basename "$path")
    sed "s#'../../bindings-node/lib/index.mjs'#'ferrite-mcp'#" "$path" >"$app/$f"
    if grep -qE "from '[^']*bindings-node" "$app/$f"; then
        echo "check-pack.sh: $f still imports from bindings-node/" >&2
        exit 1
    fi
done

echo "check-pack.sh: tests/interop/python/run.sh against node $app/everything.mjs (no Rust on PATH)" >&2
cd "$root"
FERRITE_STDIO_SERVERS="node-packed=node $app/everything.mjs" FERRITE_HTTP_SERVERS="" \
    no_rust bash tests/interop/python/run.sh
echo "check-pack.sh: ok" >&2
