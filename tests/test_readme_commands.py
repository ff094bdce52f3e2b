"""Every ``bash`` block of the README runs as written, in a fresh directory holding a copy of ``sample_data/``
(``.venv/bin/python`` is this interpreter, as ``make run``/``make test`` leave it on a fresh clone: nothing is
activated), and ends with exit code 0 without a traceback."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_blocks() -> list[str]:
    return BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_has_command_blocks():
    blocks = readme_blocks()
    assert len(blocks) >= 2
    assert any("python -m rebel fit" in b for b in blocks) and any("--baselines" in b for b in blocks)
    for name in re.findall(r"sample_data/[\w.]+", "".join(blocks)):
        assert (ROOT / name).is_file(), f"the README uses {name}, which is not shipped"
    for block in blocks:  # an unactivated fresh clone has no `python` with the package: only .venv's
        assert not re.search(r"(^|[\s;|&(])python3? ", block, re.MULTILINE), block


def test_every_readme_block_runs_verbatim(tmp_path):
    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = (
        bin_dir / "python"
    )  # a wrapper, not a symlink: a venv's interpreter finds its packages by its path
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    for block in readme_blocks():  # in file order, in one directory: a later block may use an earlier output
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert proc.returncode == 0, f"{block}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr and "error:" not in proc.stderr, proc.stderr
    assert (tmp_path / "model.json").is_file() and (tmp_path / "pred.csv").is_file()
