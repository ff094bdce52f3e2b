"""``reproduce fig3 --readings`` (rebel.experiments.readings) and ``reproduce surrogate --rebel-rounds``
(rebel.experiments.convergence): what they compute and print."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rebel.__main__ import main
from rebel.experiments import readings as rd
from rebel.experiments.convergence import CHECKPOINTS, curve_table, surrogate_curves
from rebel.experiments.diagnostics import Trials


def test_readings_share_rebels_side_and_the_sigma_reading_is_the_paper_protocol():
    df = rd.fig3_readings(n_datasets=2, n_costs=2, rounds=(5,))
    assert set(df["reading"]) == set(rd.READINGS) and len(df) == 2 * 2 * len(rd.READINGS)
    per = df.pivot_table(index=["dataset", "cost_id"], columns="reading", values="rebel_cost")
    assert np.allclose(per.to_numpy(), per[["sigma"]].to_numpy())  # REBEL is the same in every reading
    from rebel.experiments import fig3

    paper = fig3(n_datasets=2, n_costs=2, n_rounds=5, n_jobs=1)
    sigma = df[df["reading"] == "sigma"].sort_values(["dataset", "cost_id"])
    assert np.allclose(
        sigma["two_step_cost"].to_numpy(), paper.sort_values(["dataset", "cost_id"])["two_step_cost"]
    )
    table = rd.readings_table(df)
    assert len(table) == len(rd.READINGS) and table["win_lo"].le(table["win_rate"]).all()
    assert "REBEL wins" in rd.readings_text(table)


def test_one_vs_all_reading_uses_the_same_total_number_of_stumps():
    est = rd.reading_estimator("one_vs_all", 10, 4)
    assert est.n_estimators == 2  # 2 rounds of 4 stumps, the nearest to 10 stumps in all
    assert rd.reading_estimator("one_vs_all", 5, 5).n_estimators == 1


def test_fig3_readings_command_prints_every_reading(capsys):
    assert main(["reproduce", "fig3", "--readings", "--datasets", "1", "--costs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    for T in rd.READING_ROUNDS:
        assert f"{T} stumps:" in out
    assert out.count("REBEL wins") >= len(rd.READINGS) * len(rd.READING_ROUNDS)


def test_surrogate_curves_follow_the_engines_own_loss_and_risk():
    df = surrogate_curves(Trials(n_datasets=1, n_costs=1), rebel_rounds=200)
    assert list(df["rounds"]) == [t for t in CHECKPOINTS if t <= 200]
    assert df["rebel_loss"].is_monotonic_decreasing  # the exp loss never rises (design notes, section 1)
    assert (df["rebel_loss"] >= df["rebel_train_cost"]).all()  # the loss bounds the training cost
    assert df["mapped_loss"].nunique() == 1 and df["two_step_train_cost"].nunique() == 1
    table = curve_table(df)
    assert table.loc[200, "trials"] == 1


def test_surrogate_rebel_rounds_command(capsys, tmp_path):
    out = tmp_path / "c.csv"
    argv = ["reproduce", "surrogate", "--rebel-rounds", "100", "--datasets", "1", "--costs", "1", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "After 100 rounds REBEL's training loss is below the mapped two-step model's in" in text
    assert set(pd.read_csv(out)["rounds"]) == {25, 50, 100}
