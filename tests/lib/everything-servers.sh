# The five everything servers as the test command builds them, as "name=command line;..." for
# the cross-surface runners (tests/surfaces, tests/faults, tests/hostile). Source it, then call
# `everything_servers`. Honours CARGO_TARGET_DIR and FERRITE_PY_VENV like the steps that build
# the servers: the Rust debug example (cargo build), the C and Go servers (tests/c/run.sh), the
# Python package (bindings-python/run-tests.sh) and the Node addon (bindings-node/run-tests.sh).
everything_servers() {
    local root target bin py_venv
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    target="${CARGO_TARGET_DIR:-$root/target}"
    bin="$target/release/ferrite-examples"
    py_venv="${FERRITE_PY_VENV:-$HOME/.cache/ferrite/venv-py}"
    printf '%s' "rust=$target/debug/examples/everything;c=$bin/everything-c;go=$bin/everything-go"
    printf '%s' ";python=$py_venv/bin/python $root/examples/python/everything.py"
    printf '%s' ";node=node $root/examples/node/everything.mjs"
}
