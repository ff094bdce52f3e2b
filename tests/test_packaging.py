"""Packaging: the engine installs and imports without the app's libraries; make run's server settings match
.streamlit/config.toml and hold from any working directory."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.processes import run_python

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CORE = {"numpy", "numba", "scipy", "scikit-learn", "pandas", "joblib", "skops"}  # skops: method files
APP_LIBRARIES = {"streamlit", "plotly"}  # the engine must never import these
APP_EXTRA = APP_LIBRARIES | {"pydantic", "av", "pillow", "orjson"}
"""pydantic: session files and links; av: MP4 slides; pillow: slides, preset pictures, the Playground's points
image (all in rebel/ui); orjson: plotly's JSON engine for the charts' specs."""


def _names(requirements: list) -> set:
    """Distribution names of requirement strings ("dask[distributed]>=2024.1" -> "dask")."""
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requirements}


def test_core_dependencies_are_the_engine_stack_only():
    core = _names(PYPROJECT["project"]["dependencies"])
    assert core == CORE
    assert not core & APP_EXTRA


def test_extras_split_app_test_bench_dev_cluster():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(extras) >= {"app", "test", "bench", "dev", "cluster"}
    assert _names(extras["app"]) == APP_EXTRA
    test = _names(extras["test"])
    # the suite runs the app (AppTest, Chromium) and the peers, so `test` pulls in the app extra
    assert "rebel-explorer[app]" in extras["test"]
    assert {"pytest", "pytest-timeout", "pytest-xdist", "hypothesis", "playwright", "lightgbm"} <= test
    assert "dask" in test
    assert {"lightgbm", "xgboost"} <= _names(extras["bench"])
    assert _names(extras["dev"]) == {"ruff"}
    assert "dask" in _names(extras["cluster"])


def test_license_is_an_spdx_string():
    # the {text = ...} table is deprecated (PEP 639)
    assert PYPROJECT["project"]["license"] == "MIT"


_IMPORT_ALL = r"""
import importlib, json, pkgutil, sys

BLOCKED = ("streamlit", "plotly", "pydantic", "av", "PIL", "orjson")


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: the engine must not import the app libraries")
        return None


sys.meta_path.insert(0, Blocker())
import rebel

done, failed = [], {}
for info in pkgutil.walk_packages(rebel.__path__, "rebel."):
    name = info.name
    if name == "rebel.ui" or name.startswith("rebel.ui."):
        continue
    try:
        importlib.import_module(name)
        done.append(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps({"imported": done, "failed": failed,
                  "leaked": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)}))
"""


def _run_json(code: str, *argv: str, cwd, stdin: str | None = None, **env: str):
    """Run ``python -c code *argv`` (``run_python``) and return the JSON its last output line holds (its stderr
    on failure)."""
    proc = run_python(code, *argv, cwd=cwd, stdin=stdin, **env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_engine_imports_with_streamlit_and_plotly_unimportable():
    result = _run_json(_IMPORT_ALL, cwd=ROOT, PYTHONPATH=str(ROOT))
    assert result["failed"] == {}
    assert result["leaked"] == []
    assert {"rebel.estimator", "rebel.costs", "rebel.io", "rebel.params", "rebel.__main__"} <= set(
        result["imported"]
    )


def test_the_blocker_catches_an_app_import():
    """The import check above can fail: a module importing plotly is reported."""
    code = _IMPORT_ALL.replace(
        "importlib.import_module(name)", "importlib.import_module(name); __import__('plotly')"
    )
    result = _run_json(code, cwd=ROOT, PYTHONPATH=str(ROOT))
    assert "rebel.estimator" in result["failed"] and "blocked" in result["failed"]["rebel.estimator"]


# ----------------------------------------------------------------------------------- make run / config.toml
MAKEFILE = (ROOT / "Makefile").read_text()


def _make_variable(name: str) -> str:
    match = re.search(rf"^{name}\s*:?=\s*((?:.*\\\n)*.*)$", MAKEFILE, flags=re.MULTILINE)
    assert match, f"Makefile has no {name} variable"
    return match.group(1).replace("\\\n", " ")


def _safety_flags() -> dict:
    tokens = _make_variable("SAFETY").split()
    assert len(tokens) % 2 == 0 and all(t.startswith("--") for t in tokens[::2])
    return {flag[2:]: value for flag, value in zip(tokens[::2], tokens[1::2], strict=True)}


def _config_toml() -> dict:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return {f"{section}.{key}": value for section, table in config.items() for key, value in table.items()}


def test_make_run_passes_every_config_setting_on_the_command_line():
    flags, config = _safety_flags(), _config_toml()
    assert set(flags) == set(config)
    for key, value in config.items():
        expected = str(value).lower() if isinstance(value, bool) else str(value)
        assert flags[key] == expected, f"Makefile passes --{key} {flags[key]}, config.toml says {value!r}"
    assert flags["server.address"] == "127.0.0.1"
    assert flags["server.enableXsrfProtection"] == "true"
    assert flags["browser.gatherUsageStats"] == "false"
    assert flags["client.showErrorDetails"] == "none"
    assert int(flags["server.maxUploadSize"]) <= 5
    # one script thread per session: a rerun waits for the run under way (stacked builds at the limits: 18 GB)
    assert flags["runner.fastReruns"] == "false"
    run_recipe = re.search(r"^run:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE).group(1)
    assert "$(SAFETY)" in run_recipe and "-m rebel.ui.launch $(CURDIR)/app.py" in run_recipe


_LOAD_FLAGS = r"""
import json, sys
from streamlit import config
from streamlit.web import bootstrap, cli

ctx = cli.main_run.make_context("run", ["app.py", *sys.argv[1:]])
bootstrap.load_config_options({k: v for k, v in ctx.params.items() if k not in ("target", "args")})
keys = json.loads(input())
print(json.dumps({k: config.get_option(k) for k in keys}))
"""


def test_the_flags_hold_from_another_working_directory(tmp_path):
    """Streamlit parses make run's flags into the settings of config.toml, in a directory without one."""
    pytest.importorskip("streamlit")
    flags, config = _safety_flags(), _config_toml()
    argv = [token for key, value in flags.items() for token in (f"--{key}", value)]
    flags = _run_json(_LOAD_FLAGS, *argv, cwd=tmp_path, stdin=json.dumps(sorted(config)), HOME=str(tmp_path))
    assert flags == config


def test_make_run_installs_the_app_extra_only():
    run_line = re.search(r"^run:(.*)$", MAKEFILE, flags=re.MULTILINE).group(1)
    stamp = run_line.split()[0]
    install = re.search(rf"^{re.escape(stamp)}:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE).group(1)
    assert "$(INSTALL) -e '.[app]'" in install
    assert "test" not in install
    test_line = re.search(r"^test:(.*)$", MAKEFILE, flags=re.MULTILINE).group(1)
    test_stamp = test_line.split()[0]
    test_install = re.search(
        rf"^{re.escape(test_stamp)}:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE
    ).group(1)
    assert "[test,dev]" in test_install


def test_make_test_compiles_the_kernels_then_runs_the_browser_tests_then_the_rest():
    """`make test`: the kernels compiled first (once, for every worker and server), then the browser tests (a
    module per worker, each worker its own server and Chromium), then every other test spread over the cores; both
    parts run whatever the first one's result, and either failing fails the target. `make soak` runs what both
    leave out (``soak``)."""
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE).group(1)
    warm = recipe.index("from rebel.warmup import warmup")
    browser = recipe.index('-m pytest -m "browser and not soak" -n $(BROWSER_JOBS) --dist loadfile')
    rest = recipe.index('-m pytest -m "not browser and not soak" -n $(TEST_JOBS) ||')
    assert warm < browser < rest and "exit $$status" in recipe[rest:]
    assert re.search(r"^TEST_JOBS \?= 2$", MAKEFILE, flags=re.MULTILINE)  # two cores: every machine here
    assert re.search(r"^BROWSER_JOBS \?= 2$", MAKEFILE, flags=re.MULTILINE)
    soak = re.search(r"^soak:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE).group(1)
    assert '-m pytest -s -m "browser and soak"' in soak and '-m pytest -m "soak and not browser"' in soak


def test_make_test_installs_chromium_and_fails_a_browser_test_that_cannot_start_it(tmp_path):
    """`make test` installs Debian's chromium with apt-get when it is missing (as `make classroom` does HAProxy)
    and runs its browser part with REBEL_REQUIRE_BROWSER=1: there a browser test whose Chromium is missing fails
    instead of being skipped, so the suite cannot pass without its browser tests."""
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE).group(1)
    install = recipe.index("apt-get install -y chromium")
    assert "command -v chromium" in recipe[:install] and install < recipe.index("-m pytest")
    assert 'REBEL_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -m "browser and not soak"' in recipe
    probe = tmp_path / "test_needs_chromium.py"
    probe.write_text(
        "from pathlib import Path\n"
        "import tests.e2e.conftest as e2e\n"
        f"e2e.CHROMIUM = Path({str(tmp_path / 'no-chromium')!r})\n"
        "def test_drives_chromium(playwright):\n"
        "    pass\n"
    )
    code = "import sys, pytest; sys.exit(pytest.main(sys.argv[1:]))"
    argv = ["-p", "tests.e2e.conftest", "-p", "no:cacheprovider", "-q", "-rs", "--rootdir", tmp_path, probe]
    outcomes = {}
    for required in ("", "1"):
        out = run_python(code, *argv, cwd=tmp_path, PYTHONPATH=str(ROOT), REBEL_REQUIRE_BROWSER=required)
        outcomes[required] = (out.returncode, out.stdout)
    skipped, failed = outcomes[""], outcomes["1"]
    assert skipped[0] == 0 and "1 skipped" in skipped[1] and "no-chromium is missing" in skipped[1], skipped
    assert failed[0] == 1 and "1 error" in failed[1] and "no-chromium is missing" in failed[1], failed


def test_every_test_under_e2e_is_a_browser_test():
    """tests/conftest.py marks them, whatever their module says: none lands in the part run beside others."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not browser", "tests/e2e"],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 5 and "deselected" in out.stdout, out.stdout[-2000:]  # 5: no test selected


def test_browser_tests_wait_for_a_drawn_page_in_one_place():
    """What "the page is drawn" means (the script run over, nothing busy, every chart in view drawn) is defined
    once, in ``tests/e2e/conftest.py`` (``settle``): no other browser test module waits on Streamlit's status
    widget or script state by itself (one such wait took a screenshot of a page whose charts had not arrived)."""
    e2e = ROOT / "tests" / "e2e"
    own = [  # an assertion that no run is under way (a scrub reruns nothing) is not a wait
        p.name
        for p in sorted(e2e.glob("*.py"))
        if p.name != "conftest.py"
        and any(
            re.search(r"stStatusWidget|data-test-script-state", line)
            and not line.strip().startswith("assert ")
            for line in p.read_text().splitlines()
        )
    ]
    assert not own, f"{own} wait on the status widget themselves; use tests.e2e.conftest.settle"
    assert "def settle(" in (e2e / "conftest.py").read_text()


def test_make_classroom_passes_the_replicas_base_port():
    """`make classroom BASE_PORT=9100`: the replicas' first port goes to the classroom command (default: none, the
    command then takes PORT + 100)."""
    out = subprocess.run(
        ["make", "-n", "classroom", "BASE_PORT=9100", "N=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(x for x in out.replace("\\\n", " ").splitlines() if "rebel.ui.classroom" in x)
    assert "--base-port 9100" in line and "--replicas 2" in line
    plain = subprocess.run(
        ["make", "-n", "classroom"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "--base-port" not in plain


def test_a_soak_name_that_matches_no_test_or_leaves_make_test_no_variant_stops_the_run(monkeypatch):
    """tests/conftest.py's SOAK moves tests from `make test` to `make soak`: a name of a collected module that no
    test has (a renamed test) stops the run, and so does moving every variant of a parametrized test one by one
    (a test moved whole is listed as ``ALL``)."""
    import tests.conftest as suite

    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid

    items = [Item("tests/e2e/test_x.py::test_a[1]"), Item("tests/e2e/test_x.py::test_a[2]")]
    monkeypatch.setattr(suite, "SOAK", frozenset({"tests/e2e/test_x.py::test_a[1]"}))
    suite.check_soak(items)  # one variant stays in `make test`
    monkeypatch.setattr(
        suite, "SOAK", frozenset({"tests/e2e/test_x.py::test_a[1]", "tests/e2e/test_x.py::test_a[2]"})
    )
    with pytest.raises(pytest.UsageError, match=r"no variant of \['tests/e2e/test_x.py::test_a'\]"):
        suite.check_soak(items)
    monkeypatch.setattr(suite, "SOAK", frozenset({"tests/e2e/test_x.py::test_a[3]"}))
    with pytest.raises(pytest.UsageError, match="do not exist"):
        suite.check_soak(items)
    monkeypatch.setattr(suite, "SOAK", frozenset({"tests/e2e/test_y.py::test_b"}))
    suite.check_soak(items)  # a module this run did not collect
    # a test listed with ALL: every variant goes to `make soak`, and its name must still exist
    monkeypatch.setattr(suite, "SOAK", frozenset())
    monkeypatch.setattr(suite, "SOAK_ALL", frozenset({"tests/e2e/test_x.py::test_a"}))
    suite.check_soak(items)
    assert suite.is_soak("tests/e2e/test_x.py::test_a[2]") and not suite.is_soak(
        "tests/e2e/test_x.py::test_ab[2]"
    )
    monkeypatch.setattr(suite, "SOAK_ALL", frozenset({"tests/e2e/test_x.py::test_c"}))
    with pytest.raises(pytest.UsageError, match=r"do not exist: \['tests/e2e/test_x.py::test_c'\]"):
        suite.check_soak(items)
