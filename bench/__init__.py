"""Benchmarks: ``make bench`` runs every ``bench/bench_*.py`` module's ``run()``.

Each ``run()`` prints its figures and returns them as a JSON-ready dict; the whole set
is written to ``bench/results/bench.json`` (git-ignored). Figures are reported next to a
reference measured in the same run wherever one exists.
"""

from __future__ import annotations

import os

# One BLAS thread: the policies the environment benchmark plays multiply small matrices,
# which OpenBLAS's threads only slow down on a small shared machine (a 64-unit layer took
# 2 ms with its threads competing for two busy cores, 40 µs without). Set before NumPy
# loads (``python -m bench`` imports this package first); an RL library's environment
# workers do the same (``torch.set_num_threads(1)``).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
