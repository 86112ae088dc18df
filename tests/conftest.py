"""Shared pytest configuration."""

import os

# Figures are drawn off-screen in tests.
os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import settings

# Speed is measured by the benchmarks, never by the tests: no per-example deadline (a first
# example that imports or builds something can take longer than hypothesis's 200 ms on a
# loaded 2-core machine, which it then reports as a flaky failure).
settings.register_profile("fray", deadline=None)
settings.load_profile("fray")
