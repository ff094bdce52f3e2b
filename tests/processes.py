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


# One interpreter imports the command line once, then runs each command in a fork of itself: a fresh process per
# command (its own exit code, standard output and error at the file-descriptor level, no state left by another
# command), without paying the imports each time. ``python -m rebel`` exactly: rebel/__main__.py as __main__, an
# exception out of it printed as the interpreter prints it, exit code 1.
_FORKED_CLI = r"""
import json, os, runpy, sys, tempfile, traceback
import rebel.__main__  # noqa: F401 (the imports, once; each command then runs in a fork)

results = []
for argv in json.loads(sys.stdin.read()):
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.argv = ["python -m rebel", *argv]
        del sys.modules["rebel.__main__"]  # run as __main__ afresh, as ``python -m`` does
        code = 0
        try:
            runpy.run_module("rebel", run_name="__main__", alter_sys=True)
        except SystemExit as exit_:
            code = exit_.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                print(code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        try:
            sys.stdout.flush()
        finally:
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    texts = []
    for f in (out, err):
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    results.append([code, *texts])
sys.stdout.write(json.dumps(results))
"""


def run_cli_forked(
    commands: list[list[str]], cwd=None, timeout: float = 600
) -> list[subprocess.CompletedProcess]:
    """``python -m rebel *argv`` for each argv of ``commands``, each in its own process (a fork of one that
    imported the command line once): per command its exit code, stdout and stderr, as ``subprocess.run`` gives."""
    import json

    argvs = [[str(a) for a in argv] for argv in commands]
    done = run_python(_FORKED_CLI, cwd=cwd, stdin=json.dumps(argvs), timeout=timeout)
    assert done.returncode == 0, done.stderr
    return [
        subprocess.CompletedProcess(["python", "-m", "rebel", *argv], code, out, err)
        for argv, (code, out, err) in zip(argvs, json.loads(done.stdout), strict=True)
    ]
