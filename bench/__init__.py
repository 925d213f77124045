"""Benchmarks: each ``*_bench.py`` module prints ratios against a floor measured in the same run."""
