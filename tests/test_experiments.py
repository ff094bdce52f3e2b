"""Experiment runners: tidy tables, caller-given data, reuse of the two-step model, parallel backends."""

import numpy as np
import pandas as pd
import pytest

from rebel import RebelClassifier
from rebel.cost_presets import random_costs
from rebel.costs import min_risk_class
from rebel.data import make_dataset, paper_random_spec
from rebel.experiments import (
    compare_cost_sensitive,
    drive,
    experiment_costs,
    fig3,
    fig3_intervals,
    fig3_summary,
    fig4,
    fig4_summary,
    load_named,
    report,
    run_tasks,
    sample_cost_matrix,
    select_rounds,
    stats,
    table1,
    table1_summary,
    three_way_splits,
)


def _square(x):
    return x * x


def test_run_tasks_returns_every_key_and_reports_progress():
    calls = []
    tasks = [(i, _square, (i,)) for i in range(7)]
    for n_jobs, backend in ((1, None), (2, None), (2, "loky")):
        calls.clear()
        out = run_tasks(tasks, n_jobs, backend, lambda d, t, label: calls.append((d, t)))
        assert out == {i: i * i for i in range(7)}
        assert calls[0] == (0, 7) and calls[-1] == (7, 7) and len(calls) == 8


def test_report_goes_on_unless_the_callback_returns_false():
    seen = []
    assert report(None, 1, 2) is True
    assert report(lambda d, t, label: seen.append((d, t, label)), 1, 2, "fits") is True  # None = go on
    assert report(lambda d, t, label: False, 1, 2) is False
    assert seen == [(1, 2, "fits")]


def _steps(n):
    for i in range(n + 1):
        yield list(range(i))


def test_drive_runs_to_the_end_or_stops_between_steps():
    calls = []
    last, cancelled = drive(
        _steps(3), lambda d, t, label: calls.append((d, t, label)), lambda r: (len(r), 3), "x"
    )
    assert last == [0, 1, 2] and cancelled is False
    assert calls == [(0, 3, "x"), (1, 3, "x"), (2, 3, "x"), (3, 3, "x")]
    # asked to stop after the second partial result: the generator is closed, the partial result kept
    gen = _steps(5)
    last, cancelled = drive(gen, lambda d, t, label: d < 1, lambda r: (len(r), 5))
    assert last == [0] and cancelled is True
    with pytest.raises(StopIteration):
        next(gen)
    # a stop request after the last step changes nothing; an empty generator gives (None, False)
    assert drive(_steps(1), lambda d, t, label: d < t, lambda r: (len(r), 1)) == ([0], False)
    assert drive(iter(()), None, lambda r: (0, 0)) == (None, False)


def test_run_tasks_stops_when_asked_and_returns_the_finished_tasks():
    tasks = [(i, _square, (i,)) for i in range(20)]
    for n_jobs in (1, 2):
        out = run_tasks(tasks, n_jobs, progress=lambda d, t, label: d < 3)
        assert 3 <= len(out) < 20 and all(out[k] == k * k for k in out)
    assert run_tasks(tasks, 1, progress=lambda d, t, label: False) == {}


def test_stopped_fig3_keeps_the_finished_trials():
    df = fig3(n_datasets=2, n_costs=3, n_rounds=5, n_jobs=1, progress=lambda d, t, label: d < 4)
    # serial order: posterior 0, posterior 1, then the cost-sensitive fits of dataset 0
    assert 0 < len(df) < 6 and set(df["dataset"]) == {"random_0"}
    assert {"win", "tie", "rebel_cost"} <= set(df.columns)
    empty = fig3(n_datasets=1, n_costs=1, n_rounds=5, n_jobs=1, progress=lambda d, t, label: False)
    assert len(empty) == 0 and "win" in empty.columns


def test_fig3_small_run_is_tidy_and_consistent():
    progress = []
    df = fig3(n_datasets=2, n_costs=2, n_rounds=10, n_jobs=2, progress=lambda d, t, label: progress.append(d))
    assert len(df) == 4 and progress[-1] == 2 + 4  # one posterior fit per dataset + one fit per trial
    assert set(df.columns) >= {
        "dataset",
        "cost_id",
        "rebel_cost",
        "two_step_cost",
        "blind_cost",
        "bayes_cost",
        "win",
        "tie",
    }
    assert (df["bayes_cost"] <= df[["rebel_cost", "two_step_cost"]].min(axis=1) + 0.05).all()
    summary = fig3_summary(df)
    assert summary.loc["all", "trials"] == 4
    assert summary.loc["all", "win_rate"] == pytest.approx(df["win"].mean())


def test_fig3_intervals_match_the_summary_and_resample_whole_datasets():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "dataset": np.repeat([f"d{i}" for i in range(5)], 8),
            "rebel_cost": rng.random(40),
            "two_step_cost": rng.random(40),
            "blind_cost": rng.random(40),
            "bayes_cost": np.zeros(40),
        }
    )
    df["win"], df["tie"] = df["rebel_cost"] < df["two_step_cost"], df["rebel_cost"] == df["two_step_cost"]
    ints = fig3_intervals(df).set_index(["part", "against"])
    summary = fig3_summary(df)
    assert len(ints) == 6
    for part in ("all", "harder half", "easier half"):
        assert ints.loc[(part, "two-step"), "win_rate"] == pytest.approx(summary.loc[part, "win_rate"])
        assert ints.loc[(part, "cost-blind argmax"), "win_rate"] == pytest.approx(
            summary.loc[part, "win_vs_blind"]
        )
        assert ints.loc[(part, "two-step"), "win_lo"] <= ints.loc[(part, "two-step"), "win_hi"]
    hard = df[df["two_step_cost"] > df["two_step_cost"].median()]
    expected = stats.compare_costs(hard, "rebel_cost", "blind_cost")
    assert ints.loc[("harder half", "cost-blind argmax"), "win_lo"] == expected["win_lo"]
    one = fig3_intervals(df[df["dataset"] == "d0"])  # one dataset: nothing known about the spread
    assert one["win_lo"].isna().all()


def test_fig3_is_reproducible_and_independent_of_backend():
    a = fig3(n_datasets=1, n_costs=2, n_rounds=8, n_jobs=1)
    b = fig3(n_datasets=1, n_costs=2, n_rounds=8, n_jobs=2, backend="loky")
    pd.testing.assert_frame_equal(a, b)


def test_compare_cost_sensitive_on_caller_data_matches_direct_fits():
    ds = make_dataset(paper_random_spec(3))
    y_tr = np.unique(ds.y_train, return_inverse=True)[1]
    y_te = np.searchsorted(np.unique(ds.y_train), ds.y_test)
    K = len(ds.classes)
    costs = [random_costs(K, s) for s in (1, 2)]
    data = (ds.X_train, y_tr, ds.X_test, y_te)  # a plain tuple: outside data
    df = compare_cost_sensitive([data], costs, n_rounds=12, n_jobs=1)
    assert df["bayes_cost"].isna().all()  # no mixture known for a plain tuple
    post = RebelClassifier(n_estimators=12).fit(ds.X_train, y_tr).predict_proba(ds.X_test)
    for j, C in enumerate(costs):
        rebel = RebelClassifier(cost_matrix=C, n_estimators=12).fit(ds.X_train, y_tr).predict(ds.X_test)
        assert df.loc[j, "rebel_cost"] == pytest.approx(C[y_te, rebel].mean())
        assert df.loc[j, "two_step_cost"] == pytest.approx(C[y_te, min_risk_class(post, C)].mean())
        assert df.loc[j, "blind_cost"] == pytest.approx(C[y_te, post.argmax(1)].mean())


def test_compare_cost_sensitive_checks_cost_shapes():
    ds = make_dataset(paper_random_spec(0))
    with pytest.raises(ValueError, match="cost_matrices has 2 entries for 1 datasets"):
        compare_cost_sensitive([ds], [[np.ones((3, 3))], [np.ones((3, 3))]], n_rounds=2, n_jobs=1)
    with pytest.raises(ValueError, match="classes"):
        compare_cost_sensitive([ds], [np.ones((5, 5)) - np.eye(5)], n_rounds=2, n_jobs=1)


def test_fig3_accepts_other_posteriors_and_cost_distributions():
    df = fig3(
        n_datasets=1, n_costs=2, n_rounds=6, posterior="adaboost_mh", cost_distribution="spike:20", n_jobs=1
    )
    assert len(df) == 2
    C = sample_cost_matrix(4, 0, "spike:20")
    assert np.allclose(np.diag(C), 0) and np.isclose(C.mean(axis=1).mean(), 1.0)
    with pytest.raises(ValueError, match="unknown"):
        sample_cost_matrix(3, 0, "gamma")


def test_three_way_splits_are_disjoint_stratified_and_seeded():
    X, y, _ = load_named("iris")
    splits = three_way_splits(X, y, n_splits=2, seed=1)
    s = splits[0]
    assert len(s.y_train) == 75 and len(s.y_val) + len(s.y_test) == 75
    assert np.bincount(s.y_train).tolist() == [25, 25, 25]
    assert not np.array_equal(splits[0].X_train, splits[1].X_train)
    again = three_way_splits(X, y, n_splits=2, seed=1)
    np.testing.assert_array_equal(again[1].X_test, splits[1].X_test)


def test_experiment_costs_normalised_under_class_frequencies():
    y = np.array([0] * 8 + [1] * 2 + [2] * 10)
    C = experiment_costs(3, y, seed=5)
    p = np.bincount(y) / len(y)
    assert p @ C.mean(axis=1) == pytest.approx(1.0)


def test_fig4_curves_selection_and_summary():
    curves = fig4(
        datasets=["iris", "random_2"],
        methods=["rebel", "adaboost_mh", "samme"],
        n_splits=2,
        n_rounds=6,
        n_jobs=2,
    )
    # per dataset and split: 3 methods x (argmax + min-risk) + REBEL cost-sensitive, 6 rounds each
    assert len(curves) == 2 * 2 * (3 * 2 + 1) * 6
    assert curves["t"].max() == 6 and curves[["val_error", "test_cost"]].notna().all().all()
    trials = select_rounds(curves)
    assert len(trials) == 2 * 2 * 7
    one = curves[
        (curves["dataset"] == "iris")
        & (curves["split"] == 0)
        & (curves["method"] == "REBEL")
        & (curves["training"] == "cost")
    ]
    best = one.iloc[int(np.argmin(one["val_cost"].to_numpy()))]
    row = trials[
        (trials["dataset"] == "iris") & (trials["split"] == 0) & (trials["training"] == "cost")
    ].iloc[0]
    assert row["t_cost"] == best["t"] and row["test_cost"] == best["test_cost"]
    summary = fig4_summary(trials)
    assert (summary["splits"] == 2).all()


def test_fig4_rebel_curve_equals_fresh_fit():
    X, y, _ = load_named("wine")
    split = three_way_splits(X, y, n_splits=1, seed=2016)[0]  # fig4 uses seed + dataset index
    curves = fig4(datasets=["wine"], methods=["rebel"], n_splits=1, n_rounds=5, seed=2016, n_jobs=1)
    row = curves[(curves["training"] == "0-1") & (curves["decision"] == "argmax") & (curves["t"] == 3)].iloc[
        0
    ]
    model = RebelClassifier(n_estimators=3).fit(split.X_train, split.y_train)
    assert row["test_error"] == pytest.approx(np.mean(model.predict(split.X_test) != split.y_test))


def test_fig4_accepts_caller_data_and_rejects_unknown_names():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    curves = fig4(datasets=[("mine", X, y)], methods=["one_vs_all"], n_splits=1, n_rounds=3, n_jobs=1)
    assert set(curves["dataset"]) == {"mine"}
    with pytest.raises(ValueError, match="unknown"):
        fig4(datasets=["nope"], methods=["rebel"], n_splits=1, n_rounds=2)
    with pytest.raises(ValueError, match="unknown"):
        fig4(datasets=["iris"], methods=["svm"], n_splits=1, n_rounds=2)


def test_table1_rows_and_layout():
    trials = table1(datasets=["iris"], depths=(1, 2), n_splits=2, n_rounds=4, n_jobs=2)
    assert len(trials) == 2 * 2 * 2
    table = table1_summary(trials)
    assert list(table.columns) == ["stumps", "depth 2"]
    assert set(table.index.get_level_values("metric")) == {"0-1 error", "cost"}


def test_sweep_on_a_local_dask_cluster():
    pytest.importorskip("distributed")
    import joblib
    from distributed import Client, LocalCluster, get_task_stream

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        with joblib.parallel_config(backend="dask"), get_task_stream() as stream:
            df = fig3(n_datasets=1, n_costs=2, n_rounds=5, n_jobs=-1)
        assert len(stream.data) >= 3  # the 3 fits ran as tasks on the cluster
    local = fig3(n_datasets=1, n_costs=2, n_rounds=5, n_jobs=1)
    pd.testing.assert_frame_equal(df, local)
