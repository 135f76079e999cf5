#!/usr/bin/env bash
# Proves the Python package installs and runs with no Rust toolchain: builds the release wheel
# (`maturin build --release`: an abi3 manylinux wheel), installs it into a fresh temporary venv
# with cargo, rustc and rustup hidden from PATH (shims that fail loudly stand in for them),
# checks that ferrite_mcp is imported from that install, then runs the Python everything
# server from it against the official Python SDK client (tests/interop/python/run.sh with
# FERRITE_STDIO_SERVERS; the port test, test_port_python.py, runs on the same interpreter).
#
#   FERRITE_PYTHON              the interpreter of both venvs (default: python3.11, else python3)
#   FERRITE_MATURIN_VENV        the venv maturin is installed into
#                               (default: $HOME/.cache/ferrite/venv-maturin)
#   FERRITE_PY_TARGET           cargo target dir of the wheel build
#                               (default: $CARGO_TARGET_DIR, else $HOME/.cache/ferrite/target)
#   FERRITE_CHECK_WHEEL_KEEP=1  keep the temporary directory (its path is printed)
#
# Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
say() { printf 'check-wheel.sh: %s\n' "$*" >&2; }

if [[ -n "${FERRITE_PYTHON:-}" ]]; then
    base_python="$FERRITE_PYTHON"
elif command -v python3.11 >/dev/null 2>&1; then
    base_python=python3.11
else
    base_python=python3
fi

work="$(mktemp -d -t ferrite-check-wheel.XXXXXX)"
if [[ "${FERRITE_CHECK_WHEEL_KEEP:-0}" == 1 ]]; then
    say "keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi

# ----- the wheel -----
tools="${FERRITE_MATURIN_VENV:-$HOME/.cache/ferrite/venv-maturin}"
want="maturin>=1.16,<2"
if [[ ! -x "$tools/bin/maturin" || "$(cat "$tools/.ferrite-tools" 2>/dev/null)" != "$want" ]]; then
    say "installing $want into $tools"
    rm -rf "$tools"
    "$base_python" -m venv "$tools"
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check "$want" >&2
    echo "$want" >"$tools/.ferrite-tools"
fi
dist="$work/dist"
say "maturin build --release (cargo target ${FERRITE_PY_TARGET:-${CARGO_TARGET_DIR:-$HOME/.cache/ferrite/target}})"
# For the host triple, as the C ABI, the Node addon and the package's test build: one release
# build of the core serves them all.
CARGO_TARGET_DIR="${FERRITE_PY_TARGET:-${CARGO_TARGET_DIR:-$HOME/.cache/ferrite/target}}" \
    CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')" \
    "$tools/bin/maturin" build --release --quiet --interpreter "$base_python" \
    --manifest-path "$here/Cargo.toml" --out "$dist" >&2
wheels=("$dist"/*.whl)
if [[ ${#wheels[@]} -ne 1 || ! -f "${wheels[0]}" ]]; then
    say "expected one wheel in $dist, found: ${wheels[*]}"
    exit 1
fi
wheel="${wheels[0]}"
name="$(basename "$wheel")"
say "built $name"
# ferrite_mcp-<version>-cp39-abi3-manylinux_<glibc>_<arch>.whl (maturin audits the glibc symbols)
if [[ ! "$name" =~ -cp39-abi3-manylinux ]]; then
    say "$name is not an abi3 manylinux wheel"
    exit 1
fi

# ----- a fresh venv, no Rust on PATH -----
shims="$work/no-rust"
mkdir -p "$shims"
for tool in cargo rustc rustup; do
    printf '#!/bin/sh\necho "check-wheel.sh: %s was called, but the installed wheel must need no Rust" >&2\nexit 1\n' "$tool" >"$shims/$tool"
    chmod +x "$shims/$tool"
done
clean_path="$shims"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [[ -z "$d" || -e "$d/cargo" || -e "$d/rustc" ]] && continue
    clean_path="$clean_path:$d"
done
no_rust() { env -u CARGO_TARGET_DIR -u CARGO_HOME -u RUSTUP_HOME -u VIRTUAL_ENV -u PYTHONPATH PATH="$clean_path" "$@"; }

venv="$work/venv"
base_abs="$(command -v "$base_python")"
no_rust "$base_abs" -m venv "$venv"
# --only-binary: pip may not fall back to building anything (pydantic-core included) from source.
no_rust "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: "$wheel" >&2
located="$(cd "$work" && no_rust "$venv/bin/python" -c '
import ferrite_mcp, ferrite_mcp._ferrite as native
s = ferrite_mcp.MCPServer("wheel")
print(native.__file__ if s.capabilities().get("logging") == {} else "")
s.close()')"
case "$located" in
    "$venv"/*) say "ferrite_mcp loads from the fresh venv: $located" ;;
    *) say "ferrite_mcp did not load from $venv (got: $located)"; exit 1 ;;
esac

# ----- the official Python SDK client against the everything server from that install -----
say "interop: tests/interop/python/run.sh against $venv/bin/python examples/python/everything.py"
FERRITE_STDIO_SERVERS="python=$venv/bin/python examples/python/everything.py" \
    PATH="$clean_path" "$root/tests/interop/python/run.sh"
say "ok: $name installs and serves with no Rust toolchain"
