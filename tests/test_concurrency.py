"""Concurrency: Streamlit runs every browser session in its own thread, so the engine and the Playground must
work when several sessions train at once.

- The numba threading layer is a thread-safe one (OpenMP or TBB) once a parallel kernel has run.
- 8 threads fit ``RebelClassifier`` at once on data large enough for the parallel kernels; every result equals
  the single-threaded fit bit for bit.
- 8 Playground sessions (one ``AppTest`` each) run in 8 threads at once, each with its own cost matrix (fn
  preset, × m with its own m): nothing raises and every session's model was trained with its own matrix.
"""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

import numba
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import rebel._threading as rebel_threading
from rebel.estimator import RebelClassifier
from rebel.kernels import train_in_parallel
from rebel.ui import config as cf
from rebel.ui.state import STATE_KEY

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 120  # 8 sessions share 2 cores
N_SESSIONS = 8
N_THREADS = 8
FAST = {"n_estimators": 15, "max_depth": 2, "n_thresholds": 32}


def _big_problem(seed: int):
    """Large enough for the parallel training drivers (histograms and the weight update) on 2+ threads."""
    rng = np.random.default_rng(seed)
    n, d, k = 150_000, 4, 3
    assert train_in_parallel(n, d, k, depth=2) or numba.get_num_threads() == 1
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int)
    C = np.array([[0, 1, 4], [2, 0, 1], [8, 3, 0]], dtype=float) * (1 + seed)
    return X, y, C


def _fit(X, y, C) -> RebelClassifier:
    return RebelClassifier(cost_matrix=C, n_estimators=8, max_depth=2, n_thresholds=32).fit(X, y)


def test_threading_layer_is_thread_safe_after_a_parallel_kernel():
    X, y, C = _big_problem(0)
    _fit(X, y, C)
    assert rebel_threading.threading_layer() in ("omp", "tbb"), (
        f"numba loaded the {rebel_threading.threading_layer()!r} threading layer, which aborts when two "
        "sessions train at once; install OpenMP (libgomp) or TBB"
    )


def test_eight_threads_fit_at_once_bit_for_bit():
    problems = [_big_problem(i) for i in range(N_THREADS)]
    expected = [_fit(*p) for p in problems]
    barrier = threading.Barrier(N_THREADS)

    def fit_at_once(problem):
        barrier.wait(timeout=60)  # all threads enter the parallel kernels together
        return _fit(*problem)

    with ThreadPoolExecutor(N_THREADS) as pool:
        got = list(pool.map(fit_at_once, problems))
    for i, (a, b) in enumerate(zip(expected, got)):
        for attr in ("a0_", "a_", "tree_features_", "tree_thresholds_", "tree_leaf_signs_", "train_loss_"):
            np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr), err_msg=f"thread {i}: {attr}")
        X = problems[i][0][:2000]
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X), err_msg=f"thread {i}")


# ---------------------------------------------------------------------------------------------------------------
# 8 Playground sessions at once
# ---------------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _one_runtime_for_all_sessions():
    """Let several AppTest instances run in separate threads, as sessions do in one Streamlit server.

    ``AppTest.run`` installs a mock ``Runtime`` singleton (and patches ``config.get_option``) for the length of
    each run and removes it afterwards, so a session finishing in one thread would pull the runtime from under
    a session still running in another. A real server has one Runtime shared by all sessions; this sets up one
    such runtime for the whole test and makes AppTest's per-run setup touch a private subclass instead.
    Everything the app's code sees (session state, query string, widgets, caches) stays per session.
    """
    from streamlit.runtime import Runtime
    from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
    from streamlit.runtime.dataframe_source_manager import DataframeSourceManager
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.testing.v1 import app_test as app_test_module
    from streamlit.testing.v1.util import patch_config_options

    class PerRunRuntime(Runtime):  # AppTest sets and clears _instance here, not on the shared Runtime
        pass

    shared = mock.MagicMock(spec=Runtime)
    shared.media_file_mgr = MediaFileManager(MemoryMediaFileStorage("/mock/media"))
    shared.dataframe_source_mgr = DataframeSourceManager()
    shared.cache_storage_manager = MemoryCacheStorageManager()
    saved = Runtime._instance
    Runtime._instance = shared
    try:
        with (
            patch_config_options({"global.appTest": True}),
            mock.patch.object(app_test_module, "Runtime", PerRunRuntime),
            mock.patch.object(app_test_module, "patch_config_options", lambda _: contextlib.nullcontext()),
        ):
            yield
    finally:
        Runtime._instance = saved


def _session(i: int, barrier: threading.Barrier) -> dict:
    """One browser session: open a link with fast settings, then apply 'false negatives of weapon × m_i'."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    cfg = cf.preset_config("airport", FAST)
    at.query_params[cf.QUERY_KEY] = cf.encode_query(cfg)
    barrier.wait(timeout=60)
    started = time.monotonic()
    at.run()
    m = 2.0 + i
    at.selectbox(key="w_cost_preset").set_value("fn").run()
    at.selectbox(key="w_cost_class").set_value("weapon")
    at.number_input(key="w_cost_m").set_value(m)
    at.button(key="w_apply_cost").click().run()
    state = at.session_state[STATE_KEY]
    return {
        "span": (started, time.monotonic()),
        "m": m,
        "exceptions": [e.message for e in at.exception],
        "errors": [e.value for e in at.error],
        "cost_matrix": state.cost_matrix.copy(),
        "model_costs": state.trained.rebel.cost_matrix_.copy(),
        "pair_costs": state.trained.cost_matrix.copy(),
        "n_rounds": state.trained.rebel.n_estimators_,
        "classes": tuple(state.dataset.classes),
    }


@pytest.fixture(scope="module")
def sessions():
    """Warm the kernels in this thread first (the app compiles them once per process), then run 8 at once."""
    AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    barrier = threading.Barrier(N_SESSIONS)
    with _one_runtime_for_all_sessions(), ThreadPoolExecutor(N_SESSIONS) as pool:
        futures = [pool.submit(_session, i, barrier) for i in range(N_SESSIONS)]
        return [f.result(timeout=600) for f in futures]


def test_eight_playground_sessions_train_at_once_without_errors(sessions):
    assert len(sessions) == N_SESSIONS
    for i, s in enumerate(sessions):
        assert not s["exceptions"], f"session {i}: {s['exceptions']}"
        assert not s["errors"], f"session {i}: {s['errors']}"
        assert s["n_rounds"] == FAST["n_estimators"]
        assert s["classes"] == ("harmless", "liquid", "weapon")
    # All 8 were running at one moment: the last to start began before the first to finish ended.
    assert max(s["span"][0] for s in sessions) < min(s["span"][1] for s in sessions)


def test_each_session_trains_with_its_own_cost_matrix(sessions):
    for i, s in enumerate(sessions):
        own = np.array([[0, 1, 1], [1, 0, 1], [s["m"], s["m"], 0]])  # fn: weapon's misses cost m
        np.testing.assert_array_equal(s["cost_matrix"], own, err_msg=f"session {i}")
        np.testing.assert_array_equal(s["model_costs"], own, err_msg=f"session {i}: the model's matrix")
        np.testing.assert_array_equal(s["pair_costs"], own, err_msg=f"session {i}: the shown pair's matrix")
    assert len({s["m"] for s in sessions}) == N_SESSIONS
