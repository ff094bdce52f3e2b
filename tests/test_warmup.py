"""The warm-up and the package's import cost (what the app's start depends on), in fresh processes:

- ``import rebel`` loads neither scikit-learn nor numba; ``rebel.RebelClassifier`` and ``rebel.warmup`` are
  the estimator class and the function (also after the ``rebel.warmup`` submodule is imported).
- ``python -m rebel.warmup <group>`` refuses an unknown group, naming it and the choices.
- A group a launcher's early helper compiles (``start_early``, only for cold groups) is waited for, not
  compiled again.
- With an empty numba cache, ``warmup(variants=False)`` (the paper's groups, compiled in two processes) leaves
  every paper kernel in the cache with the signatures the estimator uses: a later process that warms up with
  ``load=False``, fits, and predicts through every estimator method compiles nothing.
- On an empty cache a small paper fit compiles only what it runs (no parallel driver, variant or prediction
  kernel), and ``cold_compile_notice`` announces the compile until the fit's kernels are cached.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, cache_dir: str | None = None, args: tuple = ()) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    cmd = [sys.executable, *(("-c", code) if code else ()), *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200, check=False)


def test_import_rebel_loads_neither_sklearn_nor_numba():
    res = _run(
        "import json, sys, importlib; import rebel; before = sorted(m for m in ('sklearn', 'numba', 'scipy') "
        "if m in sys.modules); importlib.import_module('rebel.warmup'); "
        "print(json.dumps([before, rebel.RebelClassifier.__name__, callable(rebel.warmup), "
        "type(rebel.warmup).__name__]))"
    )
    assert res.returncode == 0, res.stderr
    before, name, is_callable, kind = json.loads(res.stdout.strip().splitlines()[-1])
    assert before == []
    assert name == "RebelClassifier"
    assert is_callable and kind == "function"


def test_unknown_group_is_refused_by_name():
    res = _run("", args=("-m", "rebel.warmup", "fitt"))
    assert res.returncode == 2
    assert "fitt" in res.stderr and "'fit'" in res.stderr and "'predict'" in res.stderr
    res = _run("", args=("-m", "rebel.warmup", "--nice", "ten", "fit"))
    assert res.returncode == 2 and "--nice takes a whole number" in res.stderr


def test_the_background_helper_runs_niced():
    """``--nice N`` raises the helper's niceness before it compiles (what the launcher's helper asks for)."""
    code = (
        "import importlib, os, sys; "
        "wu = importlib.import_module('rebel.warmup'); wu.WARM = {'fit': lambda: print(os.nice(0))}; "
        "sys.exit(wu._main(['--nice', '7', 'fit']))"
    )
    before = int(_run("import os; print(os.nice(0))").stdout.strip())
    res = _run(code)
    assert res.returncode == 0, res.stderr
    assert int(res.stdout.strip()) == min(before + 7, 19)


CHECK_NO_COMPILE = """
import json
from numba.core import event
import numpy as np
import rebel

compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

with event.install_listener("numba:compile", Listener()):
    rebel.warmup(variants=False, load=False)
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 3)), np.arange(40) % 3
    model = rebel.RebelClassifier(n_estimators=3, max_depth=2, n_thresholds=8).fit(X, y)
    model.decision_function(X)
    model.predict_proba(X)
    model.staged_class_indices(X)
    list(model.staged_decision_function(X, include_bias=True))
    model.apply(X)
    model.weak_learner_outputs(X)
    from rebel import kernels as kern
    trees = (model.tree_features_, model.tree_thresholds_, model.tree_leaf_signs_)
    kern.predict_blocks(X, model.a0_, *trees, model.a_, 2, np.empty((40, 3)), np.empty((4, 40), dtype=np.int16))
    kern.tree_outputs(X, *trees, 2, np.empty((40, 3), dtype=np.int8))
    kern.tree_leaves(X, trees[0], trees[1], 2, np.empty((40, 3), dtype=np.int32))
    kern.bin_features(X, model.thresholds_, np.empty((3, 40), dtype=np.uint8))
print(json.dumps(sorted(set(compiled))))
"""


@pytest.mark.slow
def test_parallel_warmup_leaves_every_paper_kernel_cached(tmp_path):
    cache = str(tmp_path / "numba")
    first = _run("import rebel; rebel.warmup(variants=False)", cache)
    assert first.returncode == 0, first.stderr
    second = _run(CHECK_NO_COMPILE, cache)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout.strip().splitlines()[-1]) == []


def test_warmups_from_two_threads_run_one_after_the_other(monkeypatch):
    """The launcher's thread and the page's warm-up never compile side by side: the second caller waits."""
    import threading
    import time

    wu = importlib.import_module("rebel.warmup")  # the module (rebel.warmup is the function)
    inside, overlaps = [], []

    def slow(variants, jobs, load):
        if inside:
            overlaps.append(True)
        inside.append(True)
        time.sleep(0.2)
        inside.pop()

    monkeypatch.setattr(wu, "_warmup", slow)
    threads = [threading.Thread(target=wu.warmup, kwargs={"variants": False}) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == []


def test_background_warmup_starts_a_niced_helper_only_for_cold_groups(monkeypatch):
    wu = importlib.import_module("rebel.warmup")
    started = []
    monkeypatch.setattr(wu, "_start_helper", lambda groups, nice=0: started.append((groups, nice)) or "proc")
    monkeypatch.setattr(wu, "_cache_is_cold", lambda group: group == "variants")
    assert wu.warmup_in_background(("fit", "variants")) == "proc"
    assert started == [(["variants"], 10)]
    monkeypatch.setattr(wu, "_cache_is_cold", lambda group: False)
    assert wu.warmup_in_background() is None and len(started) == 1


def test_a_group_an_early_helper_compiles_is_waited_for_not_compiled_again(monkeypatch):
    """The launcher starts the round loop's helper before importing numba; the warm-up then compiles the other
    first-page group here, waits for that helper, and loads both."""
    wu = importlib.import_module("rebel.warmup")
    events = []

    class Helper:
        def poll(self):
            return None

        def wait(self, timeout=None):
            events.append("waited")

    monkeypatch.setattr(wu, "_start_helper", lambda groups, nice=0: events.append(groups) or Helper())
    monkeypatch.setattr(wu, "_EARLY", {})
    monkeypatch.setattr(wu, "_cache_is_cold", lambda group: True)
    monkeypatch.setattr(wu, "WARM", {g: (lambda g=g: events.append(g)) for g in wu.GROUPS})
    wu.start_early(("fit",))
    assert events == [["fit"]]
    wu.warmup(groups=wu.FIRST_PAGE)
    assert events == [["fit"], "predict", "waited", "fit"]  # "fit" at the end: loaded from the helper's cache
    with pytest.raises(ValueError, match="'fitt'"):
        wu.warmup(groups=("fitt",))


@pytest.mark.parametrize("argv", [[], ["--server.port", "8502"], ["app.txt"]])
def test_launcher_names_its_first_argument(argv, capsys):
    from rebel.ui import launch

    assert launch.main(argv) == 2
    err = capsys.readouterr().err
    assert (
        "usage: python -m rebel.ui.launch APP.py" in err and "the first argument is the app's script" in err
    )


def test_launcher_prepares_the_first_page_and_logs_a_failure(monkeypatch, caplog):
    import threading

    import rebel
    from rebel.ui import launch

    calls = []
    monkeypatch.setattr(launch, "BACKGROUND_AFTER", 0.0)
    monkeypatch.setattr(launch, "FIRST_PAGE_SERVED", threading.Event())
    launch.FIRST_PAGE_SERVED.set()
    monkeypatch.setattr(rebel, "warmup", lambda **kw: calls.append(kw))
    wu = importlib.import_module("rebel.warmup")
    monkeypatch.setattr(wu, "warmup_in_background", lambda: calls.append("background"))
    monkeypatch.setattr(wu, "start_early", lambda groups: calls.append(("early", groups)))
    launch.start_preparing().join(timeout=120)
    assert calls == [("early", ("fit",)), {"groups": wu.FIRST_PAGE}, "background"]

    # The background helper stops with the server (atexit), not later.
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    at_exit = []
    monkeypatch.setattr(wu, "warmup_in_background", lambda: helper)
    monkeypatch.setattr(launch.atexit, "register", lambda fn, *args: at_exit.append((fn, args)))
    launch.prepare()
    assert helper.poll() is None and len(at_exit) == 1
    fn, args = at_exit[0]
    fn(*args)
    assert helper.wait(timeout=30) is not None

    def broken(**kw):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(rebel, "warmup", broken)
    with caplog.at_level("ERROR", logger="rebel.ui.launch"):
        launch.prepare()
    assert "preparing the first page at launch failed" in caplog.text


def test_launcher_compiles_the_options_only_after_the_first_page(monkeypatch):
    import threading

    import rebel
    from rebel.ui import launch

    wu = importlib.import_module("rebel.warmup")
    calls = []
    monkeypatch.setattr(launch, "BACKGROUND_AFTER", 0.0)
    monkeypatch.setattr(launch, "BACKGROUND_WAIT", 300.0)
    monkeypatch.setattr(launch, "FIRST_PAGE_SERVED", threading.Event())
    monkeypatch.setattr(rebel, "warmup", lambda **kw: calls.append("first page"))
    monkeypatch.setattr(wu, "warmup_in_background", lambda: calls.append("options"))
    monkeypatch.setattr(wu, "start_early", lambda groups: None)
    thread = launch.start_preparing()
    thread.join(timeout=1.0)
    assert thread.is_alive() and calls == ["first page"]  # waiting for the first page
    launch.FIRST_PAGE_SERVED.set()
    thread.join(timeout=60)
    assert calls == ["first page", "options"]


FIRST_FIT = """
import json
from numba.core import event
import numpy as np
from rebel.warmup import cold_compile_notice

compiled = {"fit": [], "predict": []}
phase = ["fit"]

class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        compiled[phase[0]].append(ev.data["dispatcher"].py_func.__name__)

notices = [cold_compile_notice()]
from rebel import RebelClassifier
rng = np.random.default_rng(2)
X, y = rng.normal(size=(60, 4)), np.arange(60) % 3
with event.install_listener("numba:compile", Listener()):
    model = RebelClassifier(n_estimators=3, max_depth=2, n_thresholds=8).fit(X, y)
    phase[0] = "predict"
    model.predict(X)
notices += [cold_compile_notice(), cold_compile_notice(loss="logistic"), cold_compile_notice(parallel=True)]
notices += [cold_compile_notice(n_classes=3), cold_compile_notice(n_classes=2)]
print(json.dumps([notices, compiled]))
"""


@pytest.mark.slow
def test_a_first_fit_compiles_only_what_it_runs_and_the_notice_says_so(tmp_path):
    """Empty cache: the notice announces the compile; a small paper fit compiles no compiled round loop, no
    parallel driver, no variant and no prediction kernel, and its first predict (small: on bin codes) compiles nothing; then the notice is
    gone for that fit and stays for the kernels still cold (a variant, the parallel drivers)."""
    res = _run(FIRST_FIT, str(tmp_path / "numba"))
    assert res.returncode == 0, res.stderr
    notices, compiled = json.loads(res.stdout.strip().splitlines()[-1])
    cold, warm, logistic, parallel, same_k, other_k = notices
    assert cold.startswith("Compiling the engine for this machine (first use only, about ") and " s)" in cold
    assert warm is None and logistic is not None and parallel is not None
    assert same_k is None and other_k is None  # a small fit's plain drivers do not depend on K
    fit = set(compiled["fit"])
    # on one thread it runs the plain drivers (rebel.kernels.interpreted_drivers), not the SIMD or chunked ones
    assert {"root_histograms_plain", "apply_round_single", "leaf_histograms_serial"} <= fit
    assert not fit & {"root_histograms_serial", "apply_round_serial"}
    # a small first fit runs the interpreted round loop (rebel.booster.round_driver): no compiled loop compiles
    parallel_drivers = {"boost_rounds", "root_histograms", "leaf_histograms", "apply_round", "bin_features"}
    assert "boost_rounds_serial" not in fit
    assert not fit & parallel_drivers
    assert not fit & {
        "grow_vector_tree",
        "grow_newton_tree_serial",
        "logistic_stats",
        "predict_blocks_serial",
    }
    assert not compiled["predict"]  # a small predict runs on bin codes through the fit's kernels
