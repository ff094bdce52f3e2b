"""Tests of the analysis pages' view-models (rebel.ui.paths, gallery, theory, state), rebel.experiments.studies (sweep), and
their figure builders in rebel.ui.figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rebel.costs import uniform_costs
from rebel.data import PRESETS
from rebel.estimator import RebelClassifier
from rebel.experiments import studies as sw
from rebel.ui import gallery as ga
from rebel.ui import paths as pa
from rebel.ui import state as ust
from rebel.ui import theory as th
from rebel.ui.figures import gallery as gallery_figs
from rebel.ui.figures import paths as paths_figs
from rebel.ui.figures import sweep, theory
from rebel.ui.playground import compute as pg

SMALL = {"n_estimators": 25, "max_depth": 2, "n_thresholds": 64}


@pytest.fixture(scope="module")
def fig7() -> ust.Problem:
    return ust.default_problem("fig7")


@pytest.fixture(scope="module")
def paths_problem() -> ust.Problem:
    return ust.default_problem("paths")


def _blobs(n=300, K=3, seed=0, spread=3.0):
    rng = np.random.default_rng(seed)
    centres = spread * np.c_[np.cos(2 * np.pi * np.arange(K) / K), np.sin(2 * np.pi * np.arange(K) / K)]
    y = rng.integers(0, K, n)
    return centres[y] + rng.normal(size=(n, 2)), y


def _naive_tree_outputs(model, X) -> np.ndarray:
    """Heap-ordered trees evaluated one sample at a time (DESIGN.md section 2: x_j > tau goes right)."""
    T, n_nodes = model.tree_features_.shape
    out = np.empty((T, len(X)), dtype=np.int8)
    for t in range(T):
        for n, x in enumerate(X):
            node = 0
            while node < n_nodes:
                node = 2 * node + (
                    2 if x[model.tree_features_[t, node]] > model.tree_thresholds_[t, node] else 1
                )
            out[t, n] = model.tree_leaf_signs_[t, node - n_nodes]
    return out


# ------------------------------------------------------------------------------------------------ the problem
def test_problem_defaults_and_shared_state(fig7):
    default = ust.problem_from_state(ust.AppState(), "fig7")
    assert (
        default.source == "default" and default.preset == "fig7" and default.classes == ("A", "B", "C", "D")
    )
    np.testing.assert_array_equal(default.cost_matrix, PRESETS["fig7"].cost_matrix)
    state = {"dataset": fig7.dataset, "cost_matrix": uniform_costs(4), "hyper": SMALL, "preset": "fig7"}
    shared = ust.problem_from_state(ust.AppState(**state, data_source="mixture"))
    assert shared.source == "playground" and shared.preset == "fig7" and shared.hyper == SMALL
    assert "Playground's dataset" in ust.problem_caption(shared)
    assert (
        ust.problem_from_state(ust.AppState(**state, data_source="csv")).preset == ""
    )  # uploaded points: no preset paths
    with pytest.raises(ValueError):
        ust.problem_from_state(ust.AppState(**{**state, "cost_matrix": uniform_costs(3)}))


def test_shared_model_only_when_it_matches(fig7):
    """One model cache: a page asking for the Playground's exact problem gets the Playground's model object;
    another depth or other costs give another model."""
    state = ust.AppState(dataset=fig7.dataset, cost_matrix=fig7.cost_matrix, hyper=SMALL)
    pair = pg.train_pair(fig7.dataset, fig7.cost_matrix, SMALL, grid_size=5, cache=state.models)
    model = pair.rebel
    problem = ust.problem_from_state(state)
    assert state.fit(problem.dataset, problem.cost_matrix, problem.hyper, max_depth=2) is model
    assert state.fit(problem.dataset, problem.cost_matrix, problem.hyper, max_depth=1) is not model
    other = ust.problem_from_state(
        ust.AppState(dataset=fig7.dataset, cost_matrix=uniform_costs(4), hyper=SMALL)
    )
    assert state.fit(other.dataset, other.cost_matrix, other.hyper) is not model
    assert (
        state.fit(fig7.dataset, None, SMALL) is pair.posterior_model
    )  # the two-step's 0-1 model is shared too


def test_model_cache_is_bounded():
    cache = ust.ModelCache({"model": 2, "pair": 1})
    for key in "abc":
        cache.get_or_fit(key, lambda k=key: k.upper())
    assert len(cache) == 2 and "a" not in cache and cache.get("c") == "C"
    cache.get("b")  # recently used: kept
    cache.put("d", "D")
    assert "b" in cache and "c" not in cache
    cache.put("p1", "pair 1", "pair")
    cache.put("p2", "pair 2", "pair")  # pairs have their own limit: models stay
    assert "p1" not in cache and {"p2", "b", "d"} <= set(cache._items)
    with pytest.raises(ValueError, match="cache group"):
        cache.put("x", 1, "other")


def test_scores_at_matches_the_staged_scores(fig7):
    model = ust.fit_rebel(fig7.dataset, fig7.cost_matrix, SMALL)
    X = fig7.dataset.X_test[:50]
    staged = ust.staged_scores(model, X)
    assert staged.shape == (26, 50, 4)
    for t in (0, 1, 7, 25, 99):
        np.testing.assert_allclose(ust.scores_at(model, X, t), staged[min(t, 25)], rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------------------------- paths
def test_waypoint_table_round_trip_and_errors():
    paths = {"A": [[-5.0, -1.0], [5.0, 1.0]], "B": [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]}
    table = pa.paths_table(paths)
    assert list(table.columns) == ["path", "x", "y"] and len(table) == 5
    assert pa.paths_from_table(table) == paths
    bad = {
        "no path name": table.assign(path=[None, "A", "B", "B", "B"]),
        "1 waypoint": table.iloc[1:],
        "finite numbers": table.assign(x=[np.nan, 5, 0, 1, 2]),
        "same point": pd.DataFrame({"path": ["A", "A"], "x": [1.0, 1.0], "y": [2.0, 2.0]}),
        "empty": table.iloc[:0],
    }
    for needle, df in bad.items():
        with pytest.raises(ValueError, match=needle):
            pa.paths_from_table(df)


def test_clicks_and_boxes_become_waypoints():
    clicks = {"points": [{"x": 1.0, "y": 2.0}, {"x": "bad"}, {"x": 3.0, "y": np.inf}], "box": []}
    assert pa.waypoints_from_selection(clicks) == [[1.0, 2.0]]
    box = {
        "points": [{"x": 1.0, "y": 2.0}, {"x": 1.5, "y": 2.5}],  # a box also selects the points inside it
        "box": [{"x": [0.0, 2.0], "y": [4.0, 2.0]}, {"x": [], "y": []}],
    }
    assert pa.waypoints_from_selection(box) == [[1.0, 3.0]]
    assert pa.waypoints_from_selection(None) == [] and pa.waypoints_from_selection({}) == []
    paths = pa.add_waypoints({"A": [[0, 0]]}, "A", [[1.23456, 2]])
    assert paths == {"A": [[0, 0], [1.235, 2.0]]}
    assert pa.add_waypoints(paths, "C", [[5, 5]])["C"] == [[5.0, 5.0]]
    assert pa.next_path_name({"A": 1, "B": 1}) == "C"
    with pytest.raises(ValueError):
        pa.add_waypoints(paths, " ", [[0, 0]])


def test_default_paths(paths_problem):
    assert pa.default_paths(paths_problem) == PRESETS["paths"].paths  # Fig. 8's paths A and B
    airport = ust.default_problem("airport")
    paths = pa.default_paths(airport)
    assert set(paths) == {"A", "B"} and len(paths["B"]) == 3 + 2  # class medians plus the two extensions
    pa.paths_from_table(pa.paths_table(paths))  # valid


def test_path_scores_along_the_fig8_paths(paths_problem):
    models = pa.train_path_models(paths_problem)
    assert {label: m.depth_ for label, m in models.items()} == {"stumps": 1, "depth-2 trees": 2}
    model = models["depth-2 trees"]
    A = pa.path_scores(model, PRESETS["paths"].paths, 0)["A"]
    assert A.points.shape == (pa.PATH_SAMPLES, 2) and A.s[0] == 0 and A.s[-1] == 1
    np.testing.assert_allclose(A.points[[0, -1]], [[-5, -1], [5, 1]])
    np.testing.assert_allclose(A.H, np.broadcast_to(model.a0_, A.H.shape))
    last = pa.path_scores(model, PRESETS["paths"].paths, 10**6)
    assert last["A"].t == model.n_estimators_
    np.testing.assert_allclose(last["A"].H, model.decision_function(A.points))
    np.testing.assert_allclose(last["B"].H, model.decision_function(last["B"].points))
    # path A walks from class A through B to C: the min-risk class starts at A, ends at C and changes there
    labels = pa.path_scores(model, PRESETS["paths"].paths, 100)["A"].classes
    assert labels[0] == 0 and labels[-1] == 2 and len(pa.class_changes(labels)) >= 2
    np.testing.assert_array_equal(pa.class_changes([0, 0, 1, 1, 2, 0]), [2, 4, 5])


# ----------------------------------------------------------------------------------------------------- gallery
def test_gallery_costs_are_fig7s_four_matrices():
    costs = ga.gallery_costs(4, c=2, m=10, other=1)
    np.testing.assert_array_equal(costs["a"], uniform_costs(4))
    assert costs["b"][1].tolist() == [10, 0, 10, 10]  # missing the other class
    assert costs["c"][:, 2].tolist() == [10, 10, 0, 10]  # predicting c wrongly
    assert costs["d"][2].tolist() == [10, 10, 0, 10]  # missing c
    with pytest.raises(ValueError, match="differ"):
        ga.gallery_costs(4, 2, 10, 2)
    assert ga.gallery_titles("ABCD", 2, 10, 1)["c"] == "(c) ×10 false-positive cost for C"


def test_class_report():
    r = sw.class_report([0, 0, 1, 1, 2], [0, 1, 1, 1, 1], 1)
    assert r == {"precision": 0.5, "recall": 1.0, "wrong": 2, "missed": 0, "predicted": 4, "support": 2}
    assert np.isnan(sw.class_report([0, 1], [0, 0], 1)["precision"])


def test_gallery_shows_fig7_behaviour(fig7):
    """x10 false positives of c: precision of c on train >= uniform's; x10 false negatives: recall >= uniform's."""
    assert ga.default_gallery_classes(fig7) == (2, 1)  # c = C, other = B as in the preset's variants
    calls = []
    gallery = ga.train_gallery(fig7, 2, 10.0, 1, grid_size=40, progress=lambda i, n, s: calls.append((i, n)))
    assert gallery.complete and calls[-1] == (4, 4)
    t = gallery.table().set_index(["panel", "split"])
    assert t.loc[("c", "train"), "precision"] >= t.loc[("a", "train"), "precision"]
    assert t.loc[("d", "train"), "recall"] >= t.loc[("a", "train"), "recall"]
    assert t.loc[("c", "train"), "wrong"] < t.loc[("a", "train"), "wrong"]
    assert t.loc[("d", "train"), "missed"] < t.loc[("a", "train"), "missed"]
    panel = gallery.panels["a"]
    assert panel.regions.shape == (40, 40) and len(panel.test_pred) == len(fig7.dataset.y_test)
    stopped = ga.train_gallery(fig7, 2, 10.0, 1, grid_size=20, progress=lambda i, n, s: i < 2)
    assert list(stopped.panels) == ["a", "b"] and not stopped.complete


# ------------------------------------------------------------------------------------------------------- sweep
def test_sweep_values_and_matrix():
    np.testing.assert_allclose(sw.sweep_values(0.1, 100, 4), [0.1, 1, 10, 100])
    for args in ((0, 10, 5), (10, 1, 5), (0.1, 100, 1), (0.1, 100, 1000), ("a", 1, 3)):
        with pytest.raises(ValueError):
            sw.sweep_values(*args)
    C = sw.swept_matrix(uniform_costs(3), (2, 0), 7.5)
    assert C[2, 0] == 7.5 and C.sum() == 6 - 1 + 7.5
    with pytest.raises(ValueError, match="correct decision"):
        sw.swept_matrix(uniform_costs(3), (1, 1), 2)


def test_sweep_trades_recall_for_the_costly_mistake():
    problem = ust.default_problem("airport", {"n_estimators": 20, "max_depth": 2, "n_thresholds": 64})
    weapon, harmless = 2, 0
    res = sw.run_sweep(
        problem.dataset, problem.cost_matrix, problem.hyper, (weapon, harmless), sw.sweep_values(0.1, 100, 3)
    )
    assert res.complete and len(res.costs) == 6 and len(res.metrics) == 3 * 2 * 3
    recall = res.metrics[res.metrics["class"] == weapon].pivot(
        index="value", columns="method", values="recall"
    )
    # Two-step: the posterior is fixed, so a dearer miss can only raise the weapon recall.
    assert recall["two-step"].is_monotonic_increasing
    assert recall["REBEL"].iloc[-1] > recall["REBEL"].iloc[0]
    assert (res.costs["test_cost"] >= 0).all()
    stopped = sw.run_sweep(
        problem.dataset,
        problem.cost_matrix,
        problem.hyper,
        (weapon, harmless),
        sw.sweep_values(0.1, 100, 3),
        progress=lambda done, n, label: done < 1,  # reported after each value: stop after the first
    )
    assert not stopped.complete and len(stopped.values) == 1


# ------------------------------------------------------------------------------------------------------ theory
def test_decomposition_tables_for_01_and_airport_costs():
    t = th.decomposition_tables(uniform_costs(3), ("a", "b", "c"))
    np.testing.assert_array_equal(t["summary"]["β"], 0)
    np.testing.assert_array_equal(t["c+"].to_numpy(), 1 - np.eye(3))
    np.testing.assert_array_equal(t["c-"].to_numpy(), np.eye(3))
    assert np.isposinf(np.diag(t["H*"].to_numpy())).all()
    C = PRESETS["airport"].cost_matrix
    t = th.decomposition_tables(C, PRESETS["airport"].classes)
    beta = t["summary"]["β"].to_numpy()
    # c = beta 1 + c+ and c- = max(c) - c, row by row (S.3/S.4)
    np.testing.assert_allclose(beta[:, None] + t["c+"].to_numpy(), C)
    np.testing.assert_allclose(t["c-"].to_numpy(), C.max(axis=1, keepdims=True) - C)


def test_loss_levels_and_zero_training_cost_below_l_bullet():
    levels = th.loss_levels(uniform_costs(3), np.array([0, 1, 2, 2]))
    assert levels["L*"] == 0 and levels["L_bullet"] == pytest.approx(2 / (2 * 4))
    X, y = _blobs(200, K=3, seed=1, spread=6.0)  # nearly separable: the loss falls below L_bullet
    C = np.array([[0, 1, 1], [5, 0, 5], [2, 2, 0]], dtype=float)  # c* = 0: the loss can reach L* = mean(beta)
    model = RebelClassifier(C, n_estimators=150, max_depth=2, n_thresholds=64).fit(X, y)
    L_bullet = th.loss_levels(C, y)["L_bullet"]
    below = model.train_loss_ < L_bullet
    assert below.any()
    assert np.all(model.train_risk_[below] == 0)  # S.4, Eq. 5 (with the 1/(2N) weight of one sample)


@pytest.mark.parametrize("depth", [1, 2])
def test_round_diagnostics_against_the_engine_and_the_bound(depth):
    X, y = _blobs(300, K=4, seed=depth, spread=2.0)
    C = np.array([[0, 1, 2, 1], [3, 0, 1, 1], [1, 5, 0, 2], [1, 1, 1, 0]], dtype=float)
    model = RebelClassifier(C, n_estimators=40, max_depth=depth, n_thresholds=32).fit(X, y)
    np.testing.assert_array_equal(model.weak_learner_outputs(X).T, _naive_tree_outputs(model, X))
    d = th.round_diagnostics(model, X, y)
    assert len(d) == 40 and d["t"].tolist() == list(range(1, 41))
    np.testing.assert_allclose(d["loss_before"], model.train_loss_[:-1], rtol=1e-9)
    assert d["a_star_err"].max() < 1e-6  # a_t is the closed form 1/2 (ln s- - ln s+) of Eq. 7
    assert np.all(d["ratio"] <= d["bound"] + 1e-9) and np.all(d["bound"] <= d["bound_exp"] + 1e-12)  # Eq. 8
    assert np.all(d["cum_ratio"] <= d["cum_bound"] + 1e-9)
    assert np.all(d["gamma_wlc"] <= d["gamma"] + 1e-9) and np.all(d["phi"] <= d["gamma"] + 1e-12)
    paper = d["phi_paper"].dropna()
    assert np.all(paper <= d.loc[paper.index, "phi"] + 1e-12)
    assert (d["gamma"] > 0).all()


def test_binary_reduction_is_adaboost(fig7):
    demo = th.binary_reduction(fig7.dataset, ("B", "A"), n_rounds=15, n_thresholds=64)
    r = demo.rounds
    assert demo.classes == ("A", "B") and len(r) == 15
    assert r["max |H1 + H2|"].max() < 1e-9  # S.8 lemma: H_1 = -H_2
    assert r["max |H1 - h|"].max() < 1e-6  # H_1 is AdaBoost's score
    np.testing.assert_allclose(r["REBEL loss"], r["AdaBoost loss"], rtol=1e-8)
    np.testing.assert_allclose(r["a_t (class 1)"], r["AdaBoost alpha_t"], rtol=1e-6, atol=1e-9)
    assert (r["feature"] == r["AdaBoost feature"]).all()
    with pytest.raises(ValueError, match="two different classes"):
        th.binary_reduction(fig7.dataset, ("A", "A"))


# ------------------------------------------------------------------------------------------------------- plots
def test_polyline_points_and_directions():
    P, U = paths_figs._polyline_at([[0, 0], [1, 0], [1, 0], [1, 1]], [0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(P, [[0, 0], [0.5, 0], [1, 0], [1, 1]])
    np.testing.assert_allclose(U[[0, 3]], [[1, 0], [0, 1]])


def test_paths_regions_figure_draws_arrows_nibs_and_click_targets():
    xs, ys = np.linspace(-5, 5, 30), np.linspace(-4, 4, 20)
    regions = (xs[None, :] > 0).astype(int) + np.zeros((20, 1), int)
    paths = {"A": [[-4, -1], [4, 1]], "B<x>": [[-3, 3], [0, -3], [3, 3]]}
    fig = paths_figs.paths_regions_figure(xs, ys, regions, ["a", "b"], paths, click_points=10)
    names = [tr.name for tr in fig.data]
    assert "path A" in names and "path B&lt;x&gt;" in names  # user text is escaped
    nibs = next(tr for tr in fig.data if tr.name == "path A nibs")
    assert np.isnan(np.asarray(nibs.x, dtype=float)).sum() == 6  # 0, 20, ..., 100 %
    click = next(tr for tr in fig.data if tr.name == "click target")
    assert len(click.x) == 100
    arrows = [a for a in fig.layout.annotations if a.showarrow]
    assert len(arrows) == 2 and arrows[0].x == 4 and arrows[0].y == 1
    assert fig.layout.clickmode == "event+select" and fig.layout.dragmode == "zoom"  # clicks select points


def test_path_scores_figure_bands_lines_and_change_markers():
    s = np.linspace(0, 1, 11)
    H = np.c_[1 - 2 * s, 2 * s - 1, np.full(11, -2.0)]  # class 0 wins, then class 1
    fig = paths_figs.path_scores_figure(
        {"A": {"stumps": (s, H), "depth-2 trees": (s, H[:, [1, 0, 2]])}}, ["a", "b", "c"], 7
    )
    rects = [sh for sh in fig.layout.shapes if sh.type == "rect"]
    assert len(rects) == 4  # two stretches per panel
    lines = [tr for tr in fig.data if tr.mode == "lines"]
    assert len(lines) == 2 * 3 and sum(bool(tr.showlegend) for tr in lines) == 3
    changes = [tr for tr in fig.data if tr.name == "class change"]
    assert len(changes) == 2 and all(len(tr.x) == 1 for tr in changes)
    assert "t = 7" in fig.layout.title.text


def test_gallery_sweep_and_theory_figures():
    xs, ys = np.linspace(0, 1, 5), np.linspace(0, 1, 5)
    fig = gallery_figs.gallery_panel_figure(
        xs, ys, np.zeros((5, 5), int), ["a", "b"], title="(a) uniform costs"
    )
    assert fig.layout.showlegend is False and fig.layout.title.text == "(a) uniform costs"
    metrics = pd.DataFrame(
        [
            {"value": v, "method": m, "class": k, "recall": 0.5, "precision": 0.5}
            for v in (0.1, 1, 10)
            for m in ("REBEL", "two-step")
            for k in (0, 1)
        ]
    )
    fig = sweep.sweep_metrics_figure(metrics, ["a", "b"], [1], "C[a → b]", current=1.0)
    assert len(fig.data) == 2 * 2 and fig.layout.xaxis.type == "log"
    costs = pd.DataFrame(
        [{"value": v, "method": m, "test_cost": v} for v in (0.1, 1) for m in ("REBEL", "two-step")]
    )
    fig = sweep.sweep_cost_figure(costs, "C[a → b]", current=1.0)
    assert [tr.name for tr in fig.data] == ["REBEL", "two-step"] and not fig.layout.annotations
    X, y = _blobs(120, K=3)
    model = RebelClassifier(n_estimators=5, n_thresholds=16).fit(X, y)
    d = th.round_diagnostics(model, X, y)
    assert len(theory.edge_figure(d).data) == 4 and len(theory.bound_figure(d).data) == 5
    demo = th.binary_reduction(ust.default_problem("fig7").dataset, ("A", "B"), 5, 32)
    assert len(theory.binary_reduction_figure(demo.rounds, demo.classes).data) == 5
