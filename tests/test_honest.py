"""The honest Fig. 3 protocol (rebel.experiments.honest) and the diagnostics (rebel.experiments.diagnostics),
on tiny sizes: each checked against an independent route to the same number."""

import numpy as np
import pandas as pd
import pytest

from rebel import RebelClassifier
from rebel.booster import training_loss
from rebel.costs import decompose, min_risk_class
from rebel.experiments import compare_cost_sensitive, fig3, honest
from rebel.experiments.diagnostics import (
    ScorePosterior,
    Trials,
    example_cost_trials,
    example_costs,
    fig7_counts,
    population_scores,
    surrogate_diagnostic,
)
from rebel.experiments.honest import (
    capacity_grid,
    default_variants,
    parse_variant,
    report,
    select_settings,
    variant_family,
    variant_name,
    win_rates,
)
from rebel.experiments.splits import protocol_splits

SEED = 11  # tiny runs; the documented runs use TUNE_SEED and REPORT_SEED


def test_variant_names_round_trip_and_families():
    for v in ({}, {"loss": "logistic", "learning_rate": 0.3}, {"leaves": "vector"}):
        assert parse_variant(variant_name(v)) == v
    assert variant_name({}) == "paper"
    assert variant_name({"learning_rate": 0.1, "leaves": "vector"}) == "learning_rate=0.1,leaves=vector"
    assert variant_family("learning_rate=0.1,leaves=vector") == "leaves=vector"
    assert variant_family("learning_rate=0.3") == "paper"
    variants = default_variants()
    assert variants[0] == {} and len({variant_name(v) for v in variants}) == len(variants)
    params = RebelClassifier().get_params()
    assert all(set(v) <= set(params) for v in variants)  # only options this engine accepts


@pytest.fixture(scope="module")
def grid():
    return capacity_grid(SEED, n_datasets=2, n_costs=2, depths=(1, 2), rounds=(5, 10), n_jobs=1)


def test_capacity_grid_equals_fig3_at_each_setting(grid):
    assert set(grid["variant"]) == {"paper", "lightgbm"}
    assert len(grid) == 2 * 2 * 2 * 2 * 2  # datasets x costs x depths x rounds x (paper, lightgbm)
    for depth, rounds in ((1, 5), (2, 10)):
        ref = fig3(n_datasets=2, n_costs=2, n_rounds=rounds, max_depth=depth, seed=SEED, n_jobs=1)
        got = grid[(grid["variant"] == "paper") & (grid["depth"] == depth) & (grid["rounds"] == rounds)]
        got = got.sort_values(["dataset", "cost_id"]).reset_index(drop=True)
        for col in ("rebel_cost", "two_step_cost", "blind_cost", "bayes_cost", "win"):
            np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float), rtol=1e-12)
    lgb = grid[grid["variant"] == "lightgbm"]
    assert lgb["rebel_cost"].isna().all() and lgb["two_step_cost"].notna().all()


@pytest.mark.parametrize("variant", [{"leaves": "vector", "learning_rate": 0.5}, {"loss": "logistic"}])
def test_variant_grid_equals_fig3_with_the_same_engine_options(variant):
    grid = capacity_grid(
        SEED, 1, 2, variants=(variant,), depths=(2,), rounds=(4, 8), lightgbm=False, n_jobs=1
    )
    assert set(grid["variant"]) == {variant_name(variant)}
    ref = fig3(n_datasets=1, n_costs=2, n_rounds=8, max_depth=2, seed=SEED, n_jobs=1, variant=variant)
    got = grid[grid["rounds"] == 8].sort_values("cost_id").reset_index(drop=True)
    for col in ("rebel_cost", "two_step_cost", "blind_cost"):  # staged route == final predict_proba route
        np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float), rtol=1e-12)


def test_win_rates_and_selection_use_only_the_grid_given(grid):
    rates = win_rates(grid)
    assert set(rates["variant"]) == {"paper"} and (rates["trials"] == 4).all()
    g = grid[(grid["variant"] == "paper") & (grid["depth"] == 2) & (grid["rounds"] == 10)]
    row = rates[(rates["depth"] == 2) & (rates["rounds"] == 10)].iloc[0]
    assert row["win_rate"] == g["win"].mean()
    assert row["win_vs_blind"] == (g["rebel_cost"] < g["blind_cost"]).mean()
    settings = select_settings(grid)
    paper = settings.set_index("variant").loc["paper"]
    means = grid[grid["variant"] == "paper"].groupby(["depth", "rounds"])["rebel_cost"].mean()
    assert means[(paper["depth"], paper["rounds"])] == means.min()
    assert bool(paper["family_choice"])
    # the report reads the chosen cells from another grid: shifting that grid's costs shifts the report
    other = grid.assign(rebel_cost=grid["rebel_cost"] + 1.0)
    other["win"] = other["rebel_cost"] < other["two_step_cost"]
    out = report(other, settings).set_index("variant").loc["paper"]
    assert out["win_rate"] == 0.0
    chosen = grid[
        (grid["variant"] == "paper") & (grid["depth"] == paper["depth"]) & (grid["rounds"] == paper["rounds"])
    ]
    assert out["rebel_cost"] == pytest.approx(chosen["rebel_cost"].mean() + 1.0)
    assert out["trials"] == 4 and "win_vs_lightgbm" in out


def test_population_scores_decide_like_the_two_step_rule_and_minimise_the_expected_loss():
    rng = np.random.default_rng(0)
    K = 4
    C = rng.uniform(0.1, 3.0, (K, K))
    np.fill_diagonal(C, 0.0)
    P = rng.dirichlet(np.ones(K), size=50)
    H = population_scores(P, C)
    np.testing.assert_array_equal(np.argmax(H, axis=1), min_risk_class(P, C))
    dec = decompose(C)

    def expected_loss(H):
        return ((P @ dec.cp) * np.exp(H) + (P @ dec.cm) * np.exp(-H)).sum()

    base = expected_loss(H)
    for _ in range(20):
        assert expected_loss(H + 1e-3 * rng.standard_normal(H.shape)) > base


def test_surrogate_diagnostic_reports_the_engine_loss_and_training_costs():
    df = surrogate_diagnostic(Trials(n_datasets=1, n_costs=2, n_rounds=10, seed=SEED), n_jobs=1)
    assert len(df) == 2 and np.isfinite(df[["rebel_loss", "mapped_loss"]].to_numpy()).all()
    (s,), (costs,) = protocol_splits(1, 2, SEED)
    C = costs[1]
    model = RebelClassifier(cost_matrix=C, n_estimators=10).fit(s.X_train, s.y_train)
    row = df.iloc[1]
    assert row["rebel_loss"] == pytest.approx(training_loss(model.decision_function(s.X_train), C[s.y_train]))
    assert row["rebel_train_cost"] == pytest.approx(C[s.y_train, model.predict(s.X_train)].mean())
    assert row["mapped_lower"] == (row["mapped_loss"] < row["rebel_loss"])


def test_example_costs_formula_and_lambda_zero_is_fig3():
    C = np.array([[0.0, 1.0], [2.0, 0.0]])
    X = np.array([[5.0, 0.0], [-5.0, 1.0], [0.0, 2.0]])
    y = np.array([0, 1, 1])
    rows = example_costs(C, y, X, 1.0, np.array([1.0, -1.0]))
    np.testing.assert_allclose(rows, [[0.0, np.e], [2 * np.e, 0.0], [2.0, 0.0]])
    df = example_cost_trials((0.0, 3.0), Trials(n_datasets=1, n_costs=2, n_rounds=10, seed=SEED), n_jobs=1)
    assert len(df) == 4 and (df["bayes_cost"] <= df[["rebel_cost", "two_step_cost"]].min(axis=1) + 0.05).all()
    ref = fig3(n_datasets=1, n_costs=2, n_rounds=10, seed=SEED, n_jobs=1)
    flat = df[df["lambda"] == 0.0].sort_values("cost_id").reset_index(drop=True)
    for col in ("rebel_cost", "two_step_cost", "win"):
        np.testing.assert_allclose(flat[col].to_numpy(float), ref[col].to_numpy(float), rtol=1e-12)


def test_fig7_counts_add_up_and_a_costly_miss_is_missed_less():
    df = fig7_counts(n_rounds=20, max_depth=2)
    assert len(df) == 8 and set(df["part"]) == {"train", "test"}
    predicted = df.filter(like="predicted ")
    assert (predicted.sum(axis=1) == np.where(df["part"] == "train", 1000, 500)).all()
    train = df[df["part"] == "train"].set_index("panel")
    assert train.loc["(d) x10 false-negative C", "C missed"] < train.loc["(a) uniform", "C missed"]
    assert (
        train.loc["(c) x10 false-positive C", "C false alarms"] < train.loc["(a) uniform", "C false alarms"]
    )
    assert isinstance(df, pd.DataFrame)


def test_score_posteriors_keep_the_argmax_but_not_the_calibration():
    (s,), (costs,) = protocol_splits(1, 2, SEED)
    model = RebelClassifier(n_estimators=10).fit(s.X_train, s.y_train)
    H = model.decision_function(s.X_test)
    for transform in ("softmax", "shift"):
        P = ScorePosterior(10, 1, transform).fit(s.X_train, s.y_train).predict_proba(s.X_test)
        assert (P >= 0).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        np.testing.assert_array_equal(np.argmax(P, axis=1), np.argmax(H, axis=1))
    soft = ScorePosterior(10, 1, "softmax").fit(s.X_train, s.y_train).predict_proba(s.X_test)
    assert not np.allclose(soft, model.predict_proba(s.X_test))
    df = compare_cost_sensitive([s], [costs], 10, 1, posterior=ScorePosterior(10, 1, "shift"), n_jobs=1)
    assert len(df) == 2 and df["two_step_cost"].notna().all()
    with pytest.raises(ValueError, match="transform is 'x'"):
        ScorePosterior(transform="x").fit(s.X_train, s.y_train)


def test_reproduce_commands_beyond_the_paper(capsys, tmp_path):
    from rebel.__main__ import main

    out = tmp_path / "honest.csv"
    args = ["--datasets", "1", "--costs", "2", "--quiet"]
    assert (
        main(["reproduce", "honest", *args, "--tune-costs", "1", "--rounds-grid", "5,10", "--depths", "1"])
        == 0
    )
    text = capsys.readouterr().out
    assert (
        "Held-out report (seed 4813" in text and "Capacity sweep" in text and "REBEL / equal-capacity" in text
    )
    assert (
        "Variant chosen on validation (lowest REBEL validation cost)" in text and "Best held-out" not in text
    )
    variants = ["--variants", "paper;leaves=vector,learning_rate=0.5"]
    assert (
        main(
            [
                "reproduce",
                "honest",
                *args,
                *variants,
                "--rounds-grid",
                "5",
                "--depths",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert set(pd.read_csv(out)["variant"]) == {"paper", "learning_rate=0.5,leaves=vector", "lightgbm"}
    assert (
        main(["reproduce", "fig3", *args, "--rounds", "5", "--leaves", "vector", "--learning-rate", "0.5"])
        == 0
    )
    assert main(["reproduce", "surrogate", *args, "--rounds", "5"]) == 0
    assert "lower REBEL training loss in" in capsys.readouterr().out
    assert main(["reproduce", "example-costs", *args, "--rounds", "5", "--lambdas", "3"]) == 0
    assert "lambda 3: REBEL wins" in capsys.readouterr().out
    assert main(["reproduce", "fig3", *args, "--rounds", "5", "--posterior", "rebel-shift"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:  # an argument error: argparse's exit, one line, no usage
        main(["reproduce", "fig3", *args, "--rounds", "5", "--loss", "no-such-loss"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1  # one line, no usage block


def test_a_cost_scale_changes_no_decision_so_no_win():
    """Normalising the costs (or drawing |N(0, s)| for another s) multiplies every cost matrix by a positive
    number: REBEL's weights are renormalised every round and the two-step argmin is scale-free, so every
    trial's decisions, and with them every win, stay the same."""
    splits, costs = protocol_splits(2, 3, SEED)
    ref = compare_cost_sensitive(splits, costs, 10, 2, n_jobs=1)
    for scale in (0.01, 7.3):
        scaled = [[scale * C for C in cs] for cs in costs]
        out = compare_cost_sensitive(splits, scaled, 10, 2, n_jobs=1)
        np.testing.assert_array_equal(out["win"], ref["win"])
        np.testing.assert_allclose(out["rebel_cost"], scale * ref["rebel_cost"], rtol=1e-9)
        np.testing.assert_array_equal(out["rebel_error"], ref["rebel_error"])


def test_reproduce_calibrated_selects_on_the_tuning_seed_and_reports_intervals(capsys, monkeypatch, tmp_path):
    """A small ``reproduce calibrated``: the selection rule is printed, the choices come from the tuning grid,
    the held-out table has REBEL against the calibrated two-step with bootstrap intervals, the regime map
    covers a synthetic and a real dataset."""
    from rebel.__main__ import main
    from rebel.experiments import calibrated as cal

    monkeypatch.setattr(cal, "ROUNDS", (4, 8))
    monkeypatch.setattr(cal, "REGIMES", (("base", {}), ("classes", {"K": 3})))
    monkeypatch.setattr(cal, "REAL", ("wine",))
    out = tmp_path / "cal.csv"
    assert (
        main(
            ["reproduce", "calibrated", "--datasets", "2", "--costs", "2", "--quiet", "--out", str(out)]
            + ["--regimes", str(tmp_path / "regimes.json")]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert cal.SELECTION_RULE in text and "calibrated two-step (own tuning)" in text
    assert "Held-out: REBEL beats the calibrated two-step in" in text and "95 % CI" in text
    assert "Regime map" in text and "K=3" in text and "wine" in text
    df = pd.read_csv(out)
    assert set(df["method"]) == set(cal.METHODS) and set(df["part"]) == {"held-out", "regime"}

    # --regimes: the JSON the app draws, equal to the regime table recomputed from the per-trial CSV
    from rebel.ui import vs_two_step as vs

    record = vs.load_regime_map(tmp_path / "regimes.json")
    assert "--datasets 2 --costs 2 --seed 4813" in record["command"] and record["tune_seed"] == 2016
    assert [r["setting"] for r in record["rows"]][-1] == "wine" and len(record["rows"]) == 3
    regime = df[df["part"] == "regime"]
    for r in record["rows"]:
        g = regime[regime["setting"] == r["setting"]]
        assert r["trials"] == len(g) // len(g.groupby(["variant", "depth", "rounds", "method"]))


def test_report_intervals_agree_with_the_report(grid):
    settings = select_settings(grid)
    plain = report(grid, settings).set_index("variant").loc["paper"]
    ints = honest.report_intervals(grid, settings).set_index("baseline")
    assert ints.loc["equal-capacity two-step", "win_rate"] == pytest.approx(plain["win_rate"])
    assert ints.loc["two-step tuned apart", "win_rate"] == pytest.approx(plain["win_vs_own_tuned"])
    assert ints.loc["cost-blind argmax", "win_rate"] == pytest.approx(plain["win_vs_blind"])
    assert ints.loc["LightGBM two-step", "b_cost"] == pytest.approx(plain["lightgbm_cost"])
    assert (ints["datasets"] == 2).all() and (ints["win_lo"] <= ints["win_rate"]).all()
    assert (ints["win_rate"] <= ints["win_hi"]).all()
    sweep = honest.sweep_intervals(grid).set_index(["depth", "rounds"])
    rates = win_rates(grid).set_index(["depth", "rounds"])
    assert np.allclose(sweep["win_rate"], rates.loc[sweep.index, "win_rate"])


def test_reproduce_digits_measures_every_study_on_train_and_test(capsys, monkeypatch):
    from rebel.__main__ import main
    from rebel.experiments import digits as dg

    monkeypatch.setattr(dg, "ROUNDS", (3, 6))
    studies = (dg.STUDIES[2], dg.STUDIES[9], dg.STUDIES[-1])  # paper depth 3, a cost mix, PCA 2
    monkeypatch.setattr(dg, "STUDIES", studies)
    assert main(["reproduce", "digits", "--datasets", "2", "--costs", "2", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "Mean cost per round" in text and "0-1 error per round" in text and "Spearman" in text
    assert "Digits, 6 rounds: REBEL's lowest mean test cost" in text
    df, per_class = dg.run(n_splits=2, n_costs=2, studies=studies, n_jobs=1)
    assert set(df["part"]) == {"train", "test"} and set(df["rounds"]) == {3, 6}
    assert len(per_class) == 2 * 2 * 10  # splits x costs x classes of the "paper, depth 3" study
    rebel = df[df["method"] == "rebel"]
    assert rebel["step"].gt(0).all() and df["cost"].ge(0).all() and df["error"].between(0, 1).all()
    # alpha = 1 is the trial's own matrix; alpha = 0 the 0-1 matrix at the same mean off-diagonal cost
    C = dg.digits_trials(n_splits=1, n_costs=1)[1][0][0]
    assert np.array_equal(dg.mixed_costs(C, 1.0), C)
    flat = dg.mixed_costs(C, 0.0)
    assert (
        np.allclose(flat.sum(), C.sum()) and np.allclose(np.diag(flat), 0) and np.ptp(flat[flat > 0]) < 1e-12
    )
