"""The bootstrap over datasets (rebel.experiments.stats): whole datasets are resampled, so trials that share a
dataset do not count as independent evidence; a naive loop gives the same intervals."""

import math

import numpy as np
import pandas as pd
import pytest

from rebel.experiments import stats


def _table(per_dataset: dict) -> pd.DataFrame:
    """{dataset: [(a, b), ...]} -> a trials table."""
    rows = [
        {"dataset": d, "rebel_cost": a, "two_step_cost": b} for d, ab in per_dataset.items() for a, b in ab
    ]
    return pd.DataFrame(rows)


def naive_compare(trials, n_boot, level, seed):
    """Resample dataset names with the same generator draws, recompute from the trial rows."""
    names = sorted(trials["dataset"].unique())
    idx = np.random.default_rng(seed).integers(0, len(names), size=(n_boot, len(names)))
    wins, diffs = [], []
    for draw in idx:
        rows = pd.concat([trials[trials["dataset"] == names[i]] for i in draw])
        wins.append((rows["rebel_cost"] < rows["two_step_cost"]).mean())
        diffs.append((rows["rebel_cost"] - rows["two_step_cost"]).mean())
    q = [(1 - level) / 2, (1 + level) / 2]
    return np.quantile(wins, q), np.quantile(diffs, q)


def test_intervals_equal_a_naive_resampling_loop():
    rng = np.random.default_rng(0)
    t = _table({f"d{i}": list(zip(rng.random(3 + i), rng.random(3 + i))) for i in range(6)})
    s = stats.compare_costs(t, n_boot=300, seed=5)
    win_q, diff_q = naive_compare(t, 300, stats.LEVEL, 5)
    np.testing.assert_allclose([s["win_lo"], s["win_hi"]], win_q, rtol=1e-12)
    np.testing.assert_allclose([s["diff_lo"], s["diff_hi"]], diff_q, rtol=1e-9, atol=1e-12)
    assert s["trials"] == len(t) and s["datasets"] == 6
    assert s["wins"] + s["ties"] + s["losses"] == len(t)
    assert math.isclose(s["diff"], (t["rebel_cost"] - t["two_step_cost"]).mean())


def test_trials_of_one_dataset_are_not_independent_evidence():
    """Two datasets, 20 cost matrices each: REBEL wins all of one and loses all of the other. Counted as 40
    independent trials a 50 % win rate would look precise; resampling datasets shows it is not."""
    t = _table({"a": [(0.1, 0.2)] * 20, "b": [(0.3, 0.2)] * 20})
    s = stats.compare_costs(t)
    assert s["win_rate"] == 0.5
    assert s["win_lo"] == 0.0 and s["win_hi"] == 1.0
    assert stats.direction(s) == "unclear"


def test_one_dataset_has_no_interval_and_says_so():
    s = stats.compare_costs(_table({"only": [(0.1, 0.2)] * 5}))
    assert s["win_rate"] == 1.0 and math.isnan(s["win_lo"]) and math.isnan(s["diff_hi"])
    assert "one dataset" in stats.rate_text(s) and "one dataset" in stats.diff_text(s)
    assert stats.direction(s) == "unclear"


def test_clear_difference_has_a_direction_and_texts_carry_the_interval():
    t = _table({f"d{i}": [(0.1 + 0.01 * i, 0.3)] * 4 for i in range(8)})
    s = stats.compare_costs(t)
    assert stats.direction(s) == "A cheaper" and s["diff_hi"] < 0
    assert stats.rate_text(s) == "100 % (95 % CI 100–100 %)"
    assert stats.diff_text(s).startswith(f"{s['diff']:+.4f} (95 % CI ")
    flipped = stats.compare_costs(t, a="two_step_cost", b="rebel_cost")
    assert stats.direction(flipped) == "B cheaper" and flipped["win_rate"] == 0.0


def test_missing_column_is_named():
    with pytest.raises(ValueError, match="'blind_cost' is missing"):
        stats.compare_costs(_table({"a": [(0.1, 0.2)]}), b="blind_cost")


def test_summary_table_groups():
    t = _table({"a": [(0.1, 0.2)] * 3, "b": [(0.3, 0.2)] * 3}).assign(depth=[1, 2, 1, 2, 1, 2])
    out = stats.summary_table(t, "depth")
    assert list(out["depth"]) == [1, 2] and list(out["trials"]) == [3, 3]
