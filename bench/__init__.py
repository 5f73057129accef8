"""Benchmarks: ``make bench`` runs every ``bench/bench_*.py`` module's ``run()``.

Each ``run()`` prints its figures and returns them as a JSON-ready dict; the whole set
is written to ``bench/results/bench.json`` (git-ignored). Figures are reported next to a
reference measured in the same run wherever one exists.
"""
