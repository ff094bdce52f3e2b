"""rebel.ui.playground.shared_models: concurrent trainings of one configuration share one build, keyed so that a
different configuration (another cost matrix) never waits for or receives another's pair; bounded; thread-safe."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from rebel.cost_presets import fn_costs
from rebel.data import PRESETS, DatasetSpec
from rebel.ui import config as cf
from rebel.ui.playground import compute as pg
from rebel.ui.playground import shared_models as sm
from rebel.ui.playground import warm_start as ws
from rebel.ui.state import ModelCache, SharedLRU

HYPER = {"n_estimators": 6, "max_depth": 1, "n_thresholds": 16}
WAIT = 60.0  # seconds a test waits for a state of the other threads before it fails


@pytest.fixture(scope="module")
def dataset():
    return cf.dataset_from_spec(DatasetSpec(PRESETS["fig7"].spec.mixture, n_points=200, seed=5))


def _until(condition, what: str) -> None:
    done = threading.Event()
    for _ in range(int(WAIT * 50)):
        if condition():
            return
        done.wait(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _in_threads(calls: list) -> list:
    """Run each ``calls[i]()`` in its own thread; their results (an exception is re-raised here)."""
    out: list = [None] * len(calls)

    def go(i):
        try:
            out[i] = calls[i]()
        except BaseException as exc:  # noqa: BLE001 (handed to the test)
            out[i] = exc

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(calls))]
    for th in threads:
        th.start()
    for th in threads:
        th.join(WAIT)
    assert not any(th.is_alive() for th in threads), "a call never returned"
    for value in out:
        if isinstance(value, BaseException):
            raise value
    return out


def test_call_key_follows_the_configuration(dataset):
    C = fn_costs(4, 2, 10)
    key = sm.call_key(dataset, C, HYPER, 8, {})
    assert key == sm.call_key(dataset, C.tolist(), dict(HYPER), 8, None)  # the same matrix, written otherwise
    other = C.copy()
    other[0, 1] += 1.0
    assert sm.call_key(dataset, other, HYPER, 8, {}) != key
    assert sm.call_key(dataset, C, {**HYPER, "max_depth": 2}, 8, {}) != key
    assert sm.call_key(dataset, C, HYPER, 9, {}) != key
    assert sm.call_key(dataset, C, HYPER, 8, {"leaves": "vector"}) != key


def test_a_class_opening_one_link_trains_it_once(dataset, monkeypatch):
    """Six sessions (each its own model cache) ask for one configuration at once: REBEL and the 0-1 model are
    fitted once, and every session gets the one stored pair, of its own cost matrix."""
    builds, store = sm.InFlight(), SharedLRU(4)
    fits, real = [], pg.fit_rebel
    train = sm.one_build_at_a_time(pg.train_pair.__wrapped__, builds)
    C = fn_costs(4, 2, 10)
    key = sm.call_key(dataset, C, HYPER, 8, None)

    def fit(ds, costs, hyper):  # the real fit, counted; the first waits till the other five sessions wait
        fits.append(costs)
        if len(fits) == 1:
            _until(lambda: builds.waiting(key) == 5, "five sessions waiting for the first one's training")
        return real(ds, costs, hyper)

    monkeypatch.setattr(pg, "fit_rebel", fit)
    pairs = _in_threads([lambda: train(dataset, C, HYPER, grid_size=8, cache=ModelCache(), shared=store)] * 6)
    assert len(fits) == 2  # REBEL with the costs and the 0-1 model, once each
    assert all(p is pairs[0] for p in pairs)
    np.testing.assert_array_equal(pairs[0].cost_matrix, C)
    assert len(builds) == 0 and builds.waiting(key) == 0  # nothing left behind


def test_another_cost_matrix_never_waits_for_nor_gets_anothers_pair(dataset, monkeypatch):
    """Two sessions at once on the same data with different costs: each training runs (the first one's waits
    until the second one's has started, which would never happen if the second waited for the first) and each
    session gets the pair of its own costs."""
    builds, store = sm.InFlight(), SharedLRU(4)
    A = fn_costs(4, 2, 10)
    B = A.copy()
    B[1, 0] = 7.0
    started_b = threading.Event()
    real = pg.fit_rebel

    def fit(ds, costs, hyper):
        if costs is not None and np.array_equal(costs, B):
            started_b.set()
        if costs is not None and np.array_equal(costs, A):
            assert started_b.wait(WAIT), "the other cost matrix's training waited for this one"
        return real(ds, costs, hyper)

    monkeypatch.setattr(pg, "fit_rebel", fit)
    train = sm.one_build_at_a_time(pg.train_pair.__wrapped__, builds)
    pa, pb = _in_threads(
        [
            lambda: train(dataset, A, HYPER, grid_size=8, cache=ModelCache(), shared=store),
            lambda: train(dataset, B, HYPER, grid_size=8, cache=ModelCache(), shared=store),
        ]
    )
    np.testing.assert_array_equal(pa.cost_matrix, A)
    np.testing.assert_array_equal(pb.cost_matrix, B)
    assert pa.rebel is not pb.rebel and pa.key != pb.key


def test_a_failed_build_lets_the_waiting_calls_build_for_themselves():
    builds = sm.InFlight()
    made, lock = [], threading.Lock()

    def build(fail: bool):
        def run():
            if fail:
                _until(lambda: builds.waiting("k") == 3, "three calls waiting")
                raise RuntimeError("the first build failed")
            with lock:
                made.append(threading.get_ident())
            return "built"

        return run

    def first():
        with pytest.raises(RuntimeError, match="first build failed"):
            builds.run("k", build(True))
        return "failed"

    def later():
        _until(lambda: len(builds) == 1, "the first build to start")
        return builds.run("k", build(False))

    assert _in_threads([first, later, later, later]) == ["failed", "built", "built", "built"]
    assert len(made) == 3 and len(builds) == 0 and builds.waiting("k") == 0


def test_many_threads_many_keys_each_waits_for_its_own_key():
    """Twelve threads on three keys at once: the three later calls of each key wait for its first build (and
    only for it: the three first builds run at once), and every thread gets its key's value."""
    builds = sm.InFlight()
    counts, lock = {}, threading.Lock()

    def call(key):
        def build():
            with lock:
                counts[key] = counts.get(key, 0) + 1
                first = counts[key] == 1
            if first:  # the first build of a key lasts until the key's three other calls wait for it
                _until(lambda: builds.waiting(key) == 3, f"three calls waiting for {key}")
            return key.upper()

        return lambda: builds.run(key, build)

    keys = ["a", "b", "c"] * 4
    assert _in_threads([call(k) for k in keys]) == [k.upper() for k in keys]
    # after the first build, each waiting call builds again: the real build then finds the stored value
    assert counts == {"a": 4, "b": 4, "c": 4} and len(builds) == 0


def test_a_build_inside_its_own_build_does_not_wait_for_itself():
    builds = sm.InFlight(wait_seconds=WAIT)
    assert builds.run("k", lambda: builds.run("k", lambda: "inner")) == "inner"
    assert len(builds) == 0


def test_calls_without_a_shared_store_are_not_held(dataset, monkeypatch):
    """A training with no session cache and no shared store keeps nothing to share: it is not registered."""
    builds = sm.InFlight()
    seen, real = [], pg.fit_rebel
    monkeypatch.setattr(pg, "fit_rebel", lambda ds, C, h: seen.append(len(builds)) or real(ds, C, h))
    train = sm.one_build_at_a_time(pg.train_pair.__wrapped__, builds)
    train(dataset, fn_costs(4, 2, 10), HYPER, grid_size=8)
    assert seen and set(seen) == {0}
    train(dataset, fn_costs(4, 2, 10), HYPER, grid_size=8, cache=ModelCache(), shared=SharedLRU(2))
    assert set(seen[2:]) == {1}  # with a store: registered while it trains


def test_the_playground_trains_through_it():
    assert pg.train_pair.builds is sm.PAIR_BUILDS and callable(pg.train_pair.__wrapped__)


@pytest.mark.parametrize("query", ["", "p=fig7"])
def test_a_warmed_replica_trains_nothing_on_the_first_visit(query, monkeypatch):
    """``warm`` trains exactly the pair the Playground's first visit (of the page without a link, or of a link)
    trains: the page's first run then fits nothing and shows the warmed pair."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from rebel.ui.state import SHARED_PAIRS, STATE_KEY

    SHARED_PAIRS.clear()
    key = ws.warm(query)
    fits, real = [], pg.fit_rebel
    monkeypatch.setattr(pg, "fit_rebel", lambda ds, C, h: fits.append(C) or real(ds, C, h))
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=120)
    if query:
        name, value = query.split("=")
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state[STATE_KEY].pair_key == key
    assert fits == []


def test_warm_reads_the_setting_and_says_what_is_wrong(caplog):
    assert ws.warm_from_env({}) is None and ws.warm_from_env({ws.WARM_ENV: "0"}) is None
    with pytest.raises(ValueError, match="not a preset"):
        ws.warm("p=nope")
    with pytest.raises(ValueError, match="names no configuration"):
        ws.warm("x=1")
    assert ws.warm_from_env({ws.WARM_ENV: "p=nope"}) is None  # a launch goes on without it, and logs why
    assert "not a preset" in caplog.text and ws.WARM_ENV in caplog.text
