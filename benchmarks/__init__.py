"""Benchmarks: time REBEL Explorer and its peers in one run and print ratios (not tests)."""
