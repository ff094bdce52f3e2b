"""Python in a fresh process, as a user's would start: for the tests of imports, caches, installs and kernels
that one test process cannot show (its modules are already loaded, its numba cache already warm)."""

from __future__ import annotations

import os
import subprocess
import sys


def run_python(code: str, *argv, cwd=None, stdin: str | None = None, timeout: float = 300, **env: str):
    """``python -c code *argv`` in a new interpreter (this one's executable), with this process's environment
    plus ``env`` (e.g. ``PYTHONPATH=...``, ``NUMBA_CACHE_DIR=...``); stdout and stderr captured as text. The exit
    code is not checked: the caller asserts it, with the stderr as the message."""
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, argv)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, **env},
        check=False,
    )
