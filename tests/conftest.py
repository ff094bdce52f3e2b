"""Suite-wide test settings."""

import os

from hypothesis import settings

# Tests assert behaviour, never wall-clock time: no per-example deadline (numba compiles on first call, and
# CI machines are shared). Derandomized so a CI failure reproduces locally with the same examples.
settings.register_profile("default", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
