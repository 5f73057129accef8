"""A failing property test reports its own failure under the project's warnings-as-errors
configuration, even when its falsifying example is too large for Hypothesis to print
cheaply (the sandbox's hostile lines are up to 200,000 brackets long)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_FAILING = """
from hypothesis import given, strategies as st

@given(st.integers(40_000, 50_000).map(lambda n: b"[" * n))
def test_fails_on_a_long_line(line):
    assert len(line) < 40_000, "the property's own failure"
"""


def test_a_large_falsifying_example_still_reports_the_real_failure(tmp_path: Path) -> None:
    (tmp_path / "test_long_example.py").write_text(_FAILING)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(REPO / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_long_example.py"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "AssertionError: the property's own failure" in run.stdout, run.stdout[-3000:]
    assert "hypothesis.errors.HypothesisWarning" not in run.stdout, run.stdout[-3000:]
