"""Every request has a bounded cost (``rebel.budget``): one table of limits, checked before any work, with the
limit and the reason in the message; staged computations hold one round at a time.

- The table and its messages; the engine refuses a model or a fit too large for memory before training.
- Streaming: ``scores_at``, the boosting weights and the risk-score paths allocate about one round's scores,
  not (T + 1) of them (tracemalloc sees numpy's buffers).
- Pages: a link at the schema's extremes (50 classes, 20,000 points, 1,000 rounds, depth 4, 255 thresholds,
  vector engine) is refused with the budget's message on every page that trains on the Playground's problem;
  the largest admitted problems run on every such page in one session in a fresh interpreter whose peak RSS
  stays within ``SESSION_RSS_BOUND`` of its baseline.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rebel import RebelClassifier, budget
from rebel.data import Dataset
from rebel.ui import config as cf
from rebel.ui import paths as pa
from rebel.ui import state as ust
from rebel.ui.playground import compute as pg

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
MIB = 1024 * 1024
SESSION_RSS_BOUND = 1024 * MIB  # peak RSS of one session driving every page at its extremes, over baseline
SHARED_PAGES = [  # the pages that train on the Playground's problem as soon as they open
    "pages/3_Risk_paths.py",
    "pages/4_Cost_gallery.py",
    "pages/5_Trees_and_depth.py",
    "pages/8_Cost_sweep.py",
    "pages/9_Theory.py",
]


# ------------------------------------------------------------------------------------------------- the table
def test_every_limit_has_a_reason_and_a_fix_and_the_app_is_never_looser():
    for lim in budget.LIMITS.values():
        assert lim.what and lim.reason and lim.fix.endswith(".")
        if lim.engine is not None:
            assert lim.app is not None and lim.app <= lim.engine, lim.name


def test_an_over_budget_amount_is_refused_with_the_amount_the_limit_and_the_reason():
    with pytest.raises(budget.BudgetError) as err:
        budget.check("rows", 20_001, app=True, detail="an upload")
    msg = str(err.value)
    assert "20,001 data lines (an upload)" in msg and "at most 20,000" in msg
    assert budget.LIMITS["rows"].reason in msg and budget.LIMITS["rows"].fix in msg
    assert budget.check("rows", 20_000, app=True) == 20_000
    assert budget.check("fit_work", 10**15) == 10**15  # no work limit outside the app


def test_the_work_grows_with_every_factor():
    base = budget.fit_cost(1000, 2, 3, 100, 2)
    for bigger in (
        budget.fit_cost(2000, 2, 3, 100, 2),
        budget.fit_cost(1000, 4, 3, 100, 2),
        budget.fit_cost(1000, 2, 6, 100, 2),
        budget.fit_cost(1000, 2, 3, 200, 2),
        budget.fit_cost(1000, 2, 3, 100, 4),
    ):
        assert bigger.work == 2 * base.work and bigger.fit_bytes > base.fit_bytes


def _blobs(n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    return rng.normal(size=(n, 2)) + y[:, None] % 7, y


def test_the_engine_refuses_a_model_too_large_for_memory_before_training():
    """100,000 rounds of depth-8 vector trees for 50 classes would be a 10 GB model: refused at once (the CLI
    and the estimator share the check)."""
    X, y = _blobs(200, 50)
    model = RebelClassifier(n_estimators=100_000, max_depth=8, leaves="vector")
    with pytest.raises(
        budget.BudgetError, match=r"bytes for the trained model.*REBEL Explorer allows at most"
    ):
        model.fit(X, y)
    assert not hasattr(model, "a0_")


def test_the_cli_refuses_an_over_budget_fit_with_exit_2(tmp_path):
    X, y = _blobs(200, 50)
    data = tmp_path / "d.csv"
    data.write_text("x,y,label\n" + "".join(f"{a},{b},k{c}\n" for (a, b), c in zip(X, y)))
    out = subprocess.run(
        [sys.executable, "-m", "rebel", "fit", str(data), "-o", str(tmp_path / "m.json"), "--rounds", "100000",
         "--depth", "8", "--leaves", "vector", "--quiet"],
        check=False, capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "bytes for the trained model" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "m.json").exists()


def test_an_app_fit_over_the_work_budget_is_refused_before_training():
    X, y = _blobs(20_000, 50)
    ds = Dataset(X[:15_000], y[:15_000], X[15_000:], y[15_000:], tuple(range(50)), ("x", "y"))
    hyper = {"n_estimators": 1000, "max_depth": 4, "n_thresholds": 255}
    with pytest.raises(
        budget.BudgetError, match=r"work for one training run.*the app allows at most 600,000,000"
    ):
        ust.AppState().fit(ds, None, hyper)
    with pytest.raises(budget.BudgetError, match="15,000 points x 2 features x 1,000 rounds x 50 classes"):
        pg.train_pair(ds, 1 - np.eye(50), hyper)


# ------------------------------------------------------------------------------------------------- streaming
@pytest.fixture(scope="module")
def long_model():
    X, y = _blobs(600, 5)
    return RebelClassifier(n_estimators=400, max_depth=2, n_thresholds=64).fit(X, y), X, y


def _peak_bytes(fn) -> tuple:
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_scores_at_holds_one_round_at_a_time(long_model):
    """On the Risk-score paths' 150 x 150 grid, 401 stacked rounds of 5 scores are 2 x 72 MB; one round 0.9 MB."""
    model, X, _ = long_model
    grid = pg.make_grid(X, 150).points
    one_round = grid.shape[0] * 5 * 8
    for t in (0, 200, 400):
        H, peak = _peak_bytes(lambda t=t: ust.scores_at(model, grid, t))
        assert peak < 8 * one_round, (t, peak)
        staged = model.staged_decision_function(grid, include_bias=True)
        np.testing.assert_allclose(H, next(h for i, h in enumerate(staged) if i == t), rtol=1e-12)


def test_boosting_weights_and_path_scores_stream(long_model):
    model, X, y = long_model
    C = 1 - np.eye(5)
    w, peak = _peak_bytes(lambda: pg.boosting_weights(model, X, y, C))
    assert w.shape == (401, 600) and np.allclose(w.mean(axis=1), 1.0, rtol=1e-5)
    assert peak < w.nbytes + 20 * X.shape[0] * 5 * 8  # the (T + 1, N) result, and a few rounds' scores
    paths = {name: [[-2, -2], [8, 8]] for name in "ABCDEF"}
    scores, peak = _peak_bytes(lambda: pa.path_scores(model, paths, 300))
    assert peak < 20 * 6 * pa.PATH_SAMPLES * 5 * 8  # (T + 1) rounds would be 400x one round
    np.testing.assert_allclose(scores["C"].H, ust.scores_at(model, scores["C"].points, 300), rtol=1e-12)


# ------------------------------------------------------------------------------------------------- the pages
def _config(n_classes: int, n_points: int, hyper: dict, engine: str = "paper") -> cf.Config:
    """A mixture of ``n_classes`` classes on a lattice with ``n_points`` points and 0-1 costs."""
    d = cf.preset_config("airport").to_dict()
    names = [f"c{k:02d}" for k in range(n_classes)]
    d["spec"]["mixture"] = [
        {"class": c, "mean_x": float(k % 8), "mean_y": float(k // 8), "std_x": 0.6, "std_y": 0.6, "corr": 0.0,
         "angle": 0.0, "weight": 1.0}
        for k, c in enumerate(names)
    ]  # fmt: skip
    d["spec"]["n_points"] = n_points
    d.update(
        preset="", classes=names, cost_matrix=(1 - np.eye(n_classes)).tolist(), hyper=hyper, engine=engine
    )
    return cf.Config.from_dict(d)


def _errors(at: AppTest) -> str:
    """The page's error boxes as plain text (markdown escapes removed)."""
    return " ".join(e.value for e in at.error).replace("\\", "")


EXTREMES = {"n_estimators": 1000, "max_depth": 4, "n_thresholds": 255}


def test_a_link_at_the_schema_extremes_is_refused_on_every_page_with_the_reason():
    """50 classes, 20,000 points, 1,000 rounds of depth-4 vector trees: each page says what to lower, at once."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(_config(50, 20_000, EXTREMES, "vector"))
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    errors = _errors(at)
    assert "allows at most 600,000,000" in errors and "Lower the number of rounds" in errors, errors
    for page in SHARED_PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.message for e in at.exception])
        errors = _errors(at)
        assert "allows at most" in errors and "because" in errors, (page, errors)


SESSION_SCRIPT = """
import json, os, sys, threading, time
import psutil
from streamlit.testing.v1 import AppTest
from tests.test_budget import APP, SHARED_PAGES, _config

proc = psutil.Process(os.getpid())
peak = [0]
def sample():
    while True:
        peak[0] = max(peak[0], proc.memory_info().rss)
        time.sleep(0.05)

def session(cfg, widgets):
    at = AppTest.from_file(APP, default_timeout=900)
    at.query_params["cfg"] = cfg
    for k, v in widgets.items():
        at.session_state[k] = v
    at.run()
    report = [("Playground", [e.message for e in at.exception], [e.value for e in at.error])]
    for page in SHARED_PAGES:
        at.switch_page(page).run()
        report.append((page, [e.message for e in at.exception], [e.value for e in at.error]))
    return report

small = sys.argv[1]
session(small, {})  # compiles (or loads) the kernels and imports every page: the baseline
baseline = proc.memory_info().rss
threading.Thread(target=sample, daemon=True).start()
start = time.monotonic()
reports = [session(cfg, json.loads(w)) for cfg, w in zip(sys.argv[2::2], sys.argv[3::2])]
print(json.dumps({"baseline": baseline, "peak": peak[0], "seconds": time.monotonic() - start,
                  "reports": reports}))
"""


def test_one_session_at_the_largest_admitted_settings_stays_within_its_memory_bound(tmp_path):
    """Every page that trains on the Playground's problem, in one session, at the largest problems the budget
    admits: the most classes (50) with 1,000 rounds of depth-4 vector trees and 1,000 training points, and the
    most points (20,000) with 1,000 rounds of depth-4 trees and 3 classes. Before streaming, one such page
    stacked (T + 1) x grid x K scores: 9 GB for 50 classes. The sweep takes 3 values (its widget's minimum)
    to keep the test short; its budget covers all of them. Each problem is its own session in its own process
    (its own baseline and peak), and the two run at once: each trains on one core (the serial drivers)."""
    small = cf.encode_query(_config(3, 300, {"n_estimators": 5, "max_depth": 1, "n_thresholds": 16}))
    many_classes = cf.encode_query(_config(50, 1500, EXTREMES, "vector"))
    many_points = cf.encode_query(_config(3, 20_000, EXTREMES))
    widgets = json.dumps({"sw_n": 3})
    scenarios = {"50 classes": many_classes, "20,000 points": many_points}
    logs = {name: (tmp_path / f"{i}.out", tmp_path / f"{i}.err") for i, name in enumerate(scenarios)}
    runs = {}
    try:
        for name, cfg in scenarios.items():
            out, err = logs[name]
            with out.open("w") as fo, err.open("w") as fe:  # files, not pipes: neither can block the other
                runs[name] = subprocess.Popen(
                    [sys.executable, "-c", textwrap.dedent(SESSION_SCRIPT), small, cfg, widgets],
                    stdout=fo, stderr=fe, text=True, cwd=ROOT,
                )  # fmt: skip
        for proc in runs.values():
            proc.wait(timeout=1800)
    finally:
        for proc in runs.values():
            if proc.poll() is None:  # a timeout or a failure: stop the other session too
                proc.kill()
    for name, proc in runs.items():
        stdout, stderr = (path.read_text() for path in logs[name])
        assert proc.returncode == 0, (name, stderr[-3000:])
        res = json.loads(stdout.strip().splitlines()[-1])
        over = res["peak"] - res["baseline"]
        print(
            f"\nbudget: one session, every shared page at the largest admitted settings ({name}): baseline "
            f"{res['baseline'] / MIB:.0f} MiB, peak {res['peak'] / MIB:.0f} MiB (+{over / MIB:.0f} MiB), "
            f"{res['seconds']:.0f} s"
        )
        for report in res["reports"]:
            for page, exceptions, errors in report:
                assert not exceptions and not errors, (name, page, exceptions, errors)
        assert over < SESSION_RSS_BOUND, name


def test_a_page_run_lowers_its_own_threads_priority_only():
    """Heavy work runs below the server's event loop (health checks stay answered under load)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread priorities are Linux's")
    import os
    import threading

    from rebel.ui.guard import PAGE_NICE, lower_priority

    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen = []

    def run():
        lower_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [max(PAGE_NICE, main)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main
