"""The regime map with every method (rebel.experiments.method_map): its decision rules and selection, one
dataset's rows, the stored map (docs/regime_map.json, "methods") against docs/REPRODUCTION.md's table, and the
app's figure built from it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rebel.experiments import method_map as mm
from rebel.ui import vs_two_step as vs
from rebel.ui.figures.method_map import method_map_figure
from rebel.ui.text import visible

ROOT = Path(__file__).resolve().parent.parent
RECORD = json.loads((ROOT / "docs" / "regime_map.json").read_text(encoding="utf-8"))


def test_weighted_decision_is_the_weighted_models_argmax_for_two_classes():
    rng = np.random.default_rng(0)
    q = rng.dirichlet([1, 1], size=200)
    C = np.array([[0.0, 1.0], [7.0, 0.0]])
    assert np.array_equal(mm.weighted_decision(q, C), np.argmax(q, axis=1))


def test_weighted_decision_undoes_the_weights_for_several_classes():
    """q proportional to p w_y: the correction C / w_y gives back the minimum-risk rule on p."""
    rng = np.random.default_rng(1)
    p = rng.dirichlet([1, 1, 1], size=300)
    C = rng.uniform(0.1, 3.0, size=(3, 3)) * (1 - np.eye(3))
    q = p * mm.class_weights(C)
    q /= q.sum(axis=1, keepdims=True)
    assert np.array_equal(mm.weighted_decision(q, C), np.argmin(p @ C, axis=1))


def test_select_takes_each_familys_cheapest_setting_and_pools_each_kind():
    tune = pd.DataFrame(
        [
            ("d", 0, "rebel", "a", 0.30), ("d", 0, "rebel", "b", 0.20), ("d", 0, "weighted_boost", "a", 0.25),
            ("d", 0, "weighted_linear", "C=1", 0.40), ("d", 0, "two_step_boost", "x", 0.22),
            ("d", 0, "two_step_linear", "raw", 0.21),
        ],
        columns=mm.COLUMNS,
    )  # fmt: skip
    chosen = mm.select(tune).set_index("family")
    assert chosen.loc["rebel", "setting"] == "b" and chosen.loc["two_step_boost", "setting"] == "x"
    assert chosen.loc["cost-sensitive", "chosen_family"] == "rebel"
    assert chosen.loc["two-step", "chosen_family"] == "two_step_linear"


def test_one_binary_dataset_gives_every_family_and_rebel_equals_cost_weighted_boosting():
    """With two classes, class weights w_y = C[y, other] make weighted 0-1 training REBEL's own loss."""
    split = mm.quadratic_split(7, 0, n_train=200)
    rows = pd.DataFrame(mm.dataset_rows(split, [np.array([[0.0, 1.0], [10.0, 0.0]])]), columns=mm.COLUMNS)
    assert set(rows["family"]) == set(mm.FAMILIES)
    cost = rows.set_index(["family", "setting"])["cost"]
    assert cost[("rebel", "paper d1 r25")] == cost[("weighted_boost", "paper d1 r25")]
    assert ((rows["cost"] >= 0) & (rows["cost"] <= 10)).all()


def test_reproduction_md_holds_the_stored_method_map_table():
    doc = (ROOT / "docs" / "REPRODUCTION.md").read_text(encoding="utf-8")
    assert mm.markdown_table(RECORD["methods"]) in doc
    assert mm.markdown_same_model_table(RECORD["methods"]) in doc


def test_the_stored_map_is_read_and_every_regime_has_at_least_40_trials():
    methods = vs.method_map(RECORD)
    assert len(methods["rows"]) == len(mm.REGIMES)
    for r in methods["rows"]:
        assert r["cs_vs_two_step"]["trials"] >= 40
        assert r["best"] == min(mm.FAMILIES, key=lambda f: r["methods"][f]["cost"])
        assert r["outcome"] == mm.outcome(r)


def test_the_figure_rings_the_cheapest_method_of_every_regime():
    methods = RECORD["methods"]
    fig = method_map_figure(methods)
    ring = next(t for t in fig.data if t.name == "cheapest in the regime")
    assert len(ring.y) == len(methods["rows"])
    for r, label in zip(methods["rows"], ring.y):
        best = next(t for t in fig.data if t.name == methods["families"][r["best"]])
        assert best.x[list(best.y).index(label)] == pytest.approx(1.0)


def test_the_caption_counts_the_regimes_as_the_record_does():
    methods = RECORD["methods"]
    text = str(vs.method_map_caption(methods))
    n = len(methods["rows"])
    cs = sum(r["outcome"] == "cost-sensitive" for r in methods["rows"])
    assert f"is cheaper than the chosen two-step method in {cs} of {n} regimes" in text
    assert f"seed {methods['seed']}" in text and methods["command"] in text


def test_a_malformed_methods_entry_is_refused():
    with pytest.raises(ValueError, match="malformed"):
        vs.method_map({"methods": {"rows": [{"factor": "base"}]}})
    assert vs.method_map({"rows": []}) is None


def test_the_caption_names_every_same_model_comparison_cost_weighting_wins():
    """The caption says where cost-sensitive training beats the two-step method of its own model class (interval
    of the mean difference below 0), with both costs and the regime's cheapest method, and nowhere else."""
    methods = RECORD["methods"]
    text = visible(vs.method_map_caption(methods))
    pairs = [(r, k, v) for r in methods["rows"] for k, v in r["same_model"].items()]
    wins = [(r, k, v) for r, k, v in pairs if v["diff_hi"] < 0]
    assert len(wins) == 3  # the stored run: two logistic-regression cells and wine's boosting cell
    assert f"in {len(wins)} of {len(pairs)} comparisons over {len(methods['rows'])} regimes" in text
    for r, k, v in pairs:
        named = f"{methods['families'][k.split(' vs ')[0]]} on {r['setting']} ({r['factor']})"
        assert (named in text) == (v["diff_hi"] < 0), named
        if v["diff_hi"] < 0:
            assert f"{v['a_cost']:.4f} against {v['b_cost']:.4f}" in text
            assert f"cheapest method: {methods['families'][r['best']]}" in text
