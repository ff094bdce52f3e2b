"""Tests of rebel.studies, rebel.real_runs and the view-models rebel.ui.trees, vs_two_step and real_data, with
their figure builders in rebel.ui.figures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rebel.costs import random_guess_cost
from rebel.data import load_bundled, split_dataset
from rebel.estimator import RebelClassifier
from rebel.experiments import real_runs as rr
from rebel.experiments import studies as sw
from rebel.ui import config as cf
from rebel.ui import real_data as rd
from rebel.ui import trees as tr
from rebel.ui import vs_two_step as vs
from rebel.ui.figures import compare, trees
from rebel.ui.figures import gallery as gallery_figs
from rebel.ui.text import visible


@pytest.fixture(scope="module")
def airport():
    cfg = cf.preset_config("airport")
    return cf.dataset_from_config(cfg), cfg.cost_matrix


@pytest.fixture(scope="module")
def tree_model(airport):
    ds, C = airport
    return RebelClassifier(cost_matrix=C, n_estimators=12, max_depth=3, n_thresholds=40).fit(
        ds.X_train, ds.y_train
    )


def _trials(rebel, two_step, per_dataset: int = 2) -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "dataset": [f"d{i // per_dataset}" for i in range(len(rebel))],
            "cost_id": range(len(rebel)),
            "rebel_cost": rebel,
            "two_step_cost": two_step,
            "blind_cost": 1.0,
            "bayes_cost": np.nan,
        }
    )
    df["win"] = df["rebel_cost"] < df["two_step_cost"]
    df["tie"] = df["rebel_cost"] == df["two_step_cost"]
    return df


# ------------------------------------------------------------------------------------------------------ Fig. 3
def test_fig3_run_counts_trials_and_reports_progress():
    calls = []
    run = sw.fig3_run(n_datasets=2, n_costs=3, n_rounds=5, progress=lambda d, n, label: calls.append((d, n)))
    assert run.done == run.planned == 6 and not run.cancelled
    assert calls == [(0, 6), (3, 6), (6, 6)]
    assert len(run.datasets) == 2 and list(run.trials["dataset"].unique()) == ["random 0", "random 1"]
    assert (run.trials["win"] == (run.trials["rebel_cost"] < run.trials["two_step_cost"])).all()
    assert run.trials["bayes_cost"].notna().all()  # random mixtures are known


def test_fig3_run_stops_between_datasets_and_keeps_the_finished_part():
    calls = []
    run = sw.fig3_run(
        n_datasets=3,
        n_costs=2,
        n_rounds=5,
        progress=lambda d, n, label: calls.append(d) or len(calls) < 2,  # False after the 2nd report: stop
    )
    assert run.cancelled and run.done == 2 and run.planned == 6
    assert "Stopped early: 2 of 6" in vs.fig3_text(run)


def test_fig3_playground_source_redraws_the_mixture_and_uses_the_users_costs(airport):
    ds, C = airport
    trials = sw.fig3_trials("playground", n_datasets=3, n_costs=4, dataset=ds, cost_matrix=C)
    assert len(trials) == 3 and all(len(costs) == 4 for _, costs in trials)
    for d, costs in trials:
        np.testing.assert_array_equal(costs[0], C)
        assert d.classes == ds.classes and d.mixture.equals(ds.mixture)
    assert not np.array_equal(trials[0][0].X_train, trials[1][0].X_train)  # new seeds, new points
    csv = split_dataset(ds.X_train, ds.y_train, 0.3, name="csv")  # no mixture: used as it is
    assert len(sw.fig3_trials("playground", n_datasets=5, n_costs=2, dataset=csv)) == 1


@pytest.mark.parametrize("bad", [{"n_datasets": 0}, {"n_costs": 41}, {"source": "nope"}, {"n_datasets": 1.5}])
def test_fig3_trials_rejects_bad_settings(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        sw.fig3_trials(**{"n_datasets": 1, "n_costs": 1, **bad})


def test_fig3_text_reports_two_step_winning_honestly():
    df = _trials([0.3] * 8 + [0.1, 0.2], [0.2] * 8 + [0.2, 0.2])
    counts = vs.fig3_counts(df)
    assert (counts["wins"], counts["ties"], counts["losses"]) == (1, 1, 8)
    text = vs.fig3_text(df)
    assert "1 of 10 trials (10%)" in text and "lost 8" in text
    assert "does not reproduce the paper's claim" in text
    assert "bootstrap over the 5 dataset(s)" in text and "Sign test" not in text
    assert counts["datasets"] == 5 and counts["win_lo"] <= counts["win_rate"] <= counts["win_hi"]
    assert counts["diff_lo"] > 0  # four of five datasets lose every trial: the two-step method is cheaper


def test_fig3_text_agrees_with_the_paper_only_when_rebel_wins_about_90_percent():
    assert "agrees with the paper's claim" in vs.fig3_text(_trials([0.1] * 20, [0.2] * 20))
    mixed = vs.fig3_text(_trials([0.25, 0.75] * 5, [0.5] * 10))  # every dataset: one win, one loss
    assert "no clear winner" in mixed and "agrees" not in mixed
    one = visible(
        vs.fig3_text(_trials([0.3] * 19 + [0.1], [0.2] * 20, per_dataset=20))
    )  # 20 matrices, 1 dataset
    assert "cannot tell a real difference from luck" in one and "no interval: one dataset" in one
    assert "nothing to compare" in vs.fig3_text(_trials([], []))


# ------------------------------------------------------------------------------------------------------- trees
def test_tree_nodes_follow_the_heap_order_and_count_samples(airport, tree_model):
    ds, _ = airport
    y = ds.class_index(ds.y_train)
    D = tree_model.depth_
    for t in (1, 5, tree_model.n_estimators_):
        nodes = tr.tree_nodes(tree_model, t, ds.feature_names, ds.X_train, y)
        assert len(nodes) == 2 ** (D + 1) - 1
        splits, leaves = nodes[nodes["kind"] == "split"], nodes[nodes["kind"] == "leaf"]
        assert list(splits["feature"]) == [ds.feature_names[j] for j in tree_model.tree_features_[t - 1]]
        np.testing.assert_array_equal(splits["threshold"], tree_model.tree_thresholds_[t - 1])
        np.testing.assert_array_equal(leaves["sign"], tree_model.tree_leaf_signs_[t - 1])
        n = nodes.set_index("node")["n"]
        assert n[0] == len(y)
        for node in range(2**D - 1):  # every sample goes to exactly one child
            assert n[node] == n[2 * node + 1] + n[2 * node + 2]
        leaf = tr.tree_leaf_index(tree_model, t, ds.X_train)
        np.testing.assert_array_equal(leaves["n"], np.bincount(leaf, minlength=2**D))
        assert not (leaves["n"][~leaves["reachable"]] > 0).any()  # unreachable leaves get no sample


def test_weak_learner_output_is_the_rounds_term_of_H(airport, tree_model):
    ds, _ = airport
    staged = [tree_model.a0_ + np.zeros((len(ds.X_test), 3)), *tree_model.staged_decision_function(ds.X_test)]
    for t in (1, 4, 12):
        f = tr.weak_learner_output(tree_model, t, ds.X_test)
        np.testing.assert_allclose(staged[t] - staged[t - 1], f[:, None] * tree_model.a_[t - 1], atol=1e-9)
    grid = tr.weak_learner_grid(tree_model, 4, np.linspace(-4, 8, 7), np.linspace(-4, 8, 5))
    assert grid.shape == (5, 7) and set(np.unique(grid)) <= {-1, 1}


def test_layer_losses_never_increase_and_end_at_the_rounds_loss(tree_model):
    for t in range(1, tree_model.n_estimators_ + 1):
        losses = tr.layer_losses(tree_model, t)
        assert len(losses) == tree_model.depth_ + 1
        assert losses[0] == tree_model.train_loss_[t - 1]
        assert np.all(np.diff(losses) <= 1e-12)
        assert losses[-1] == pytest.approx(tree_model.train_loss_[t])
    with pytest.raises(ValueError, match="rounds 1 to 12"):
        tr.layer_losses(tree_model, 0)


def test_weak_learner_regions_need_two_features():
    ds = load_bundled("iris")
    model = RebelClassifier(n_estimators=3).fit(ds.X_train, ds.y_train)
    with pytest.raises(ValueError, match="exactly 2"):
        tr.weak_learner_grid(model, 1, [0, 1], [0, 1])


def test_favoured_classes_split_by_sign():
    plus, minus = tr.favoured_classes([0.5, -0.2, 0.1, -0.7], ("a", "b", "c", "d"))
    assert plus == ["a", "c"] and minus == ["d", "b"]


def test_depth_study_table_and_stop(airport):
    ds, C = airport
    study = sw.depth_study(ds, C, depths=(1, 2), n_rounds=10, n_splits=1)
    assert not study.cancelled
    assert list(study.table.index) == ["0-1 error", "cost"] and list(study.table.columns) == [
        "stumps",
        "depth 2",
    ]
    assert ((study.table.to_numpy() >= 0) & (study.table.to_numpy() <= C.max())).all()
    stopped = sw.depth_study(ds, C, depths=(1, 2, 3), n_rounds=10, n_splits=1, progress=lambda *report: False)
    assert stopped.cancelled and stopped.depths_done == []


def test_depth_study_needs_points_of_every_class(airport):
    ds, C = airport
    tiny = split_dataset(ds.X_train[:9], ds.y_train[:9], 0.0)
    with pytest.raises(ValueError, match="at least 4 points"):
        sw.depth_study(tiny, C[: tiny.n_classes, : tiny.n_classes], n_rounds=5, n_splits=1)


# --------------------------------------------------------------------------------------------------- real data
def test_real_costs_taxonomy_digits_groups():
    ds = rr.load_real("digits")
    C = rr.real_costs("taxonomy", ds)
    assert C[0, 6] * 2 == pytest.approx(C[0, 1])  # same group (loops) costs half of another group
    assert C[1, 7] == pytest.approx(C[0, 6]) and np.all(np.diag(C) == 0)
    assert random_guess_cost(C, ds.priors()) == pytest.approx(1.0)
    np.testing.assert_array_equal(rr.real_costs("uniform", ds), 1 - np.eye(10))
    iris = rr.load_real("iris")
    with pytest.raises(ValueError, match="does not apply"):
        rr.real_costs("taxonomy", iris)
    assert "suggested" in rr.real_cost_kinds(rr.load_real("airport"))


def test_train_real_curves_for_every_method_and_stop():
    ds = rr.load_real("iris")
    C = rr.real_costs("random", ds, 3)
    calls = []
    run = rr.train_real(
        ds, C, ("rebel", "adaboost_mh"), n_rounds=8, progress=lambda d, n, label: calls.append((d, n))
    )
    assert calls == [(1, 3), (2, 3), (3, 3)] and not run.cancelled
    assert list(run.curves["method"].unique()) == [
        "REBEL (cost-sensitive)",
        "REBEL two-step",
        "AdaBoost.MH two-step",
    ]
    assert (run.curves.groupby("method")["t"].max() == 8).all()
    rebel_last = run.curves[run.curves["method"] == "REBEL (cost-sensitive)"]["test_cost"].iloc[-1]
    assert rebel_last == pytest.approx(run.rebel.expected_cost(ds.X_test, ds.class_index(ds.y_test)))
    assert run.summary().shape[0] == 3
    stopped = rr.train_real(ds, C, ("rebel", "adaboost_mh"), n_rounds=5, progress=lambda *report: False)
    assert stopped.cancelled and stopped.done == 1


def test_risk_examples_order_by_cost_then_margin():
    C = np.array([[0, 1, 5], [1, 0, 1], [1, 1, 0]], dtype=float)
    H = np.array([[3, 0, 0], [1, 0, 0], [0, 0, 2], [0, 0, 9], [0, 4, 0], [0, 1, 0.5]], dtype=float)
    y = np.array([0, 0, 0, 0, 1, 2])
    low, high, _pred, paid = rd.risk_examples(H, y, C, n_low=3, n_high=4)
    np.testing.assert_array_equal(paid, [0, 0, 5, 5, 0, 1])
    assert list(low) == [4, 0, 1]  # correct, most confident first
    assert list(high) == [3, 2, 5]  # costliest first, confident first; only mistakes


# ---------------------------------------------------------------------------------------------------- figures
def test_figures_build_with_the_expected_traces(tree_model, airport):
    ds, _ = airport
    df = _trials([0.1, 0.3, 0.2], [0.2, 0.2, 0.2])
    fig = compare.fig3_scatter_figure(df)
    names = [tr.name for tr in fig.data]
    assert names == ["equal cost", "REBEL cheaper (1)", "tie (1)", "two-step cheaper (1)"]
    nodes = tr.tree_nodes(tree_model, 2, ds.feature_names, ds.X_train, ds.class_index(ds.y_train))
    tree = trees.tree_diagram_figure(nodes, ds.classes, title="t")
    assert sum(len(tr.x) for tr in tree.data if tr.name in ("split", "leaf")) == len(nodes)
    a = trees.a_vector_figure(tree_model.a_[1], ds.classes)
    np.testing.assert_allclose(a.data[0].z[0], tree_model.a_[1])
    gallery = gallery_figs.image_gallery_figure(np.zeros((3, 8, 8)), ["a", "<b>", "c"])
    assert len(gallery.data) == 3 and "&lt;b&gt;" in json.dumps(gallery.to_plotly_json()["layout"])
    thumbs = compare.dataset_thumbnails_figure(
        [{"X": ds.X_train, "y_idx": ds.class_index(ds.y_train), "n_classes": 3, "title": "x"}] * 2
    )
    assert len(thumbs.data) == 2
    curves = pd.DataFrame({"method": ["A"] * 3 + ["B"] * 3, "t": [1, 2, 3] * 2, "test_cost": np.arange(6.0)})
    assert [tr.name for tr in compare.method_curves_figure(curves).data] == ["A", "B"]
    assert len(trees.layer_loss_figure([3.0, 2.0, 1.5]).data[0].y) == 3
