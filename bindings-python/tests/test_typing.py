"""The package type-checks under ``mypy --strict`` against its own stub of the compiled
module (so the stub and the Python half agree), and so does the everything example (its
2026-07-28 fixtures, written against the typed MRTR API, under ``--strict`` too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_package_and_example_type_check() -> None:
    pytest.importorskip("mypy")
    package = ROOT / "bindings-python" / "python" / "ferrite_mcp"
    example = ROOT / "examples" / "python" / "everything.py"
    strict = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", str(package)],
        capture_output=True,
        text=True,
        cwd=package.parent,
    )
    assert strict.returncode == 0, strict.stdout + strict.stderr
    plain = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null", str(example)], capture_output=True, text=True, cwd=ROOT
    )
    assert plain.returncode == 0, plain.stdout + plain.stderr
    modern = ROOT / "examples" / "python" / "everything_modern.py"
    strict_example = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", str(modern)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert strict_example.returncode == 0, strict_example.stdout + strict_example.stderr
