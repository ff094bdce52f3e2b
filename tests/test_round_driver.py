"""The two round drivers give the same bits: the compiled round loop (``kernels.boost_rounds_serial`` /
``boost_rounds``) and the interpreted one (``kernels.boost_rounds_interpreted``, the same source run by the
interpreter); and ``rebel.booster.round_driver`` picks the interpreted one only while the compiled one is not
compiled and the process's interpreter budget lasts."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from rebel import RebelClassifier, grower
from rebel import booster as booster_mod
from rebel import kernels as kern
from rebel import variants as variants_mod

wu = importlib.import_module("rebel.warmup")  # rebel.warmup is also the function
COMPILED = {"rounds": "boost_rounds", "newton": "grow_newton_tree"}
INTERPRETED = {"rounds": kern.boost_rounds_interpreted, "newton": kern.grow_newton_tree_interpreted}
DRIVERS = {
    "compiled": lambda parallel, *_, kind="rounds": getattr(
        kern, COMPILED[kind] + ("" if parallel else "_serial")
    ),
    "interpreted": lambda *_, kind="rounds": INTERPRETED[kind],
}
FITTED = (
    "a0_",
    "a_",
    "tree_features_",
    "tree_thr_idx_",
    "tree_thresholds_",
    "tree_leaf_signs_",
    "train_loss_",
    "train_risk_",
    "layer_loss_",
)


def _data(n_classes: int, n: int = 150, seed: int = 0):
    rng = np.random.default_rng(seed)
    d = max(6, n_classes + 1)
    X = rng.normal(size=(n, d))
    y = (np.argmax(X[:, :n_classes] + 0.7 * rng.normal(size=(n, n_classes)), axis=1)) % n_classes
    X[:, -1] = 1.0  # a constant feature: never usable
    return X, y


def _fit(
    monkeypatch, driver: str, params: dict, n_classes: int, weights: bool, callback: bool, parallel: bool
):
    monkeypatch.setattr(booster_mod, "round_driver", DRIVERS[driver])
    monkeypatch.setattr(variants_mod, "round_driver", DRIVERS[driver])
    if parallel:
        monkeypatch.setattr(grower.kern, "train_in_parallel", lambda *_: True)
    X, y = _data(n_classes)
    sw = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y)) if weights else None
    seen = []

    def cb(t, info):
        seen.append((t, info["loss"], info["risk"], np.array(info["a"])))

    model = RebelClassifier(n_thresholds=16, **params)
    model.fit(X, y, sample_weight=sw, callback=cb if callback else None)
    monkeypatch.undo()
    staged = np.array(list(model.staged_class_indices(X)))
    return model, seen, staged, model.risk_scores(X)


def _bytes_of(model, seen, staged, scores):
    out = {name: np.asarray(getattr(model, name)).tobytes() for name in FITTED}
    out["callback"] = [
        (t, np.float64(loss).tobytes(), np.float64(r).tobytes(), a.tobytes()) for t, loss, r, a in seen
    ]
    out["staged"] = staged.tobytes()
    out["scores"] = scores.tobytes()
    return out


CASES = [
    # (K, params, sample weights, callback, parallel drivers)
    (2, {"n_estimators": 25, "max_depth": 1}, False, False, False),
    (3, {"n_estimators": 20, "max_depth": 2}, True, False, False),
    (5, {"n_estimators": 15, "max_depth": 3, "learning_rate": 0.4}, False, True, False),
    (4, {"n_estimators": 30, "max_depth": 2, "n_iter_no_change": 3, "random_state": 0}, True, True, False),
    (3, {"n_estimators": 12, "max_depth": 4, "learning_rate": 0.7}, True, True, False),
    (17, {"n_estimators": 8, "max_depth": 2}, False, False, False),  # above the lane passes' class counts
    (3, {"n_estimators": 10, "max_depth": 2, "learning_rate": 0.5}, True, True, True),
    # the logistic loss's binary leaves: the Newton grower, compiled or interpreted
    (3, {"n_estimators": 12, "max_depth": 3, "loss": "logistic"}, True, True, False),
    (2, {"n_estimators": 10, "max_depth": 2, "loss": "logistic", "learning_rate": 0.5}, False, False, False),
    (4, {"n_estimators": 10, "max_depth": 2, "loss": "logistic", "min_samples_leaf": 5}, False, True, False),
    (3, {"n_estimators": 8, "max_depth": 2, "loss": "logistic", "l2_regularization": 1.0}, True, False, True),
]


@pytest.mark.parametrize("n_classes, params, weights, callback, parallel", CASES)
def test_both_round_drivers_give_the_same_bits(monkeypatch, n_classes, params, weights, callback, parallel):
    """Every fitted array, the callback's loss, risk and a after every round (the per-round path), the staged
    classes and the scores: byte for byte, over class counts, depths, shrinkage, sample weights, early
    stopping, the callback path and the parallel drivers; the logistic loss's Newton grower likewise."""
    compiled = _fit(monkeypatch, "compiled", params, n_classes, weights, callback, parallel)
    interpreted = _fit(monkeypatch, "interpreted", params, n_classes, weights, callback, parallel)
    a, b = _bytes_of(*compiled), _bytes_of(*interpreted)
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == b[key], key
    if callback:
        assert len(a["callback"]) >= 2


def test_booster_weights_and_scores_are_the_same_bits(monkeypatch):
    """At the booster: H (the training scores), the per-layer losses and every forest array, for a round loop
    run in one call and round by round (a callback), with each driver."""
    X, y = _data(3, n=97)
    from rebel.binning import bin_data, fit_thresholds

    thresholds, usable = fit_thresholds(X, 8)
    bins = bin_data(X, thresholds)
    cost_rows = np.ascontiguousarray((1.0 - np.eye(3))[y]) * np.linspace(0.5, 2.0, len(y))[:, None]
    results = {}
    for driver, pick in DRIVERS.items():
        for per_round in (False, True):
            monkeypatch.setattr(booster_mod, "round_driver", pick)
            cb = (lambda t, info: None) if per_round else None
            inputs = booster_mod.BoostInputs(bins, usable, cost_rows, 9, 3, thresholds.shape[1] + 1)
            res = booster_mod.boost(inputs, callback=cb)
            results[driver, per_round] = {
                k: np.asarray(v).tobytes() for k, v in vars(res).items() if v is not None
            }
    first = results["compiled", False]
    for key, res in results.items():
        assert res == first, key


def test_the_rule_interprets_only_small_fits_while_the_loop_is_cold_and_the_budget_lasts(monkeypatch):
    monkeypatch.setattr(booster_mod, "_interpreted_spent", [0.0])
    monkeypatch.setattr(kern.compiled, "loop_is_compiled", lambda kernel, k: False)
    wine = (3, 100, 2, 178, 13)  # K, rounds, depth, N, d
    assert booster_mod.round_driver(False, *wine) is kern.boost_rounds_interpreted
    spent = booster_mod._interpreted_spent[0]
    assert 100 * 2 * booster_mod.INTERPRETED_LAYER_SECONDS < spent < 0.01
    assert booster_mod.round_driver(True, *wine) is kern.boost_rounds_interpreted
    assert booster_mod.round_driver(False, *wine, kind="newton") is kern.grow_newton_tree_interpreted
    # A big fit compiles the loop: there the interpreter would cost 3-9 % of every fit.
    big = (2, 100, 2, 100_000, 50)
    assert booster_mod.runs_compiled_loop(*big) and not booster_mod.runs_compiled_loop(*wine)
    assert booster_mod.round_driver(False, *big) is kern.boost_rounds_serial
    assert booster_mod.round_driver(True, *big) is kern.boost_rounds
    assert booster_mod.round_driver(False, *big, kind="newton") is kern.grow_newton_tree_serial
    # Small fits whose interpreter cost would take the process past the budget compile the loop instead.
    many = int(booster_mod.INTERPRETED_BUDGET / booster_mod.INTERPRETED_LAYER_SECONDS)
    assert booster_mod.round_driver(False, 3, many, 1, 24, 2) is kern.boost_rounds_serial
    # A compiled loop (in this process or in the cache) is always run.
    monkeypatch.setattr(booster_mod, "_interpreted_spent", [0.0])
    monkeypatch.setattr(kern.compiled, "loop_is_compiled", lambda kernel, k: True)
    assert booster_mod.round_driver(False, *wine) is kern.boost_rounds_serial
    assert booster_mod.round_driver(True, *wine, kind="newton") is kern.grow_newton_tree


def test_a_loop_compiled_in_this_process_is_found(monkeypatch):
    """After the compiled serial loop ran for K = 3 in this process, ``loop_is_compiled`` says so even
    when the cache's index is not read; a class count it never compiled is not."""
    monkeypatch.setattr(kern.compiled, "_LOOPS_COMPILED", set())
    wu._warm_rounds(3, parallel=False)
    monkeypatch.setattr(kern.compiled, "kernel_is_cold", lambda kernel, n_classes=None: True)
    assert kern.compiled.loop_is_compiled(kern.boost_rounds_serial, 3)
    # Another test in this process may have compiled some class counts: ask about one it has not.
    compiled = " ".join(str(sig) for sig in kern.boost_rounds_serial.overloads)
    never = next(k for k in range(4, kern.LANE_PASS_MAX_CLASSES + 1) if f"LanePlan({k})" not in compiled)
    assert not kern.compiled.loop_is_compiled(kern.boost_rounds_serial, never)
