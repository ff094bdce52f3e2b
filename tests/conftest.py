"""Suite-wide test settings."""

import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# Tests assert behaviour, never wall-clock time: no per-example deadline (numba compiles on first call, and
# CI machines are shared). Derandomized so a CI failure reproduces locally with the same examples.
settings.register_profile("default", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config):
    """Ctrl-C stops a run started in the background by a shell (`make test`'s browser part): such a process starts
    with SIGINT ignored, and without Python's handler back it would go on alone after the rest has stopped."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# What makes a test a browser test: it lives in tests/e2e (a live server, Chromium) or asks for a browser. Such a
# test is marked ``browser`` here, whatever its module says, so `make test` always runs it in its browser part (one
# at a time, one app server) and never on the workers that run the rest beside it.
BROWSER_FIXTURES = frozenset({"browser", "chromium", "playwright", "app_url", "app_server"})
E2E = Path(__file__).resolve().parent / "e2e"


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        in_e2e = E2E in Path(item.path).resolve().parents
        if in_e2e or BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
