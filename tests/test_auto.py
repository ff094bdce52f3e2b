"""choose_method / CostSensitiveAuto: every candidate scored on the same folds, the cheapest chosen, the reason."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

from rebel import CostSensitiveAuto, choose_method
from rebel.auto import candidates, selection_text
from rebel.minrisk import CostWeightedClassifier, MinRiskClassifier

C = np.array([[0.0, 1.0, 8.0], [2.0, 0.0, 1.0], [6.0, 1.0, 0.0]])


def _small(C):
    """Three quick candidates, one of them a poor one (a constant-ish model) so a winner is clear."""
    return {
        "two-step (logistic)": ("two-step", MinRiskClassifier(LogisticRegression(max_iter=500), C, None)),
        "weighted (logistic)": ("weighted", CostWeightedClassifier(LogisticRegression(max_iter=500), C)),
        "two-step (weak)": ("two-step", MinRiskClassifier(LogisticRegression(C=1e-6), C, None)),
    }


def test_the_cheapest_candidate_wins_and_every_cost_is_the_out_of_fold_cost():
    X, y = load_iris(return_X_y=True)
    choice = choose_method(X, y, C, cv=3, random_state=0, cands=_small(C))
    table = choice.table.set_index("candidate")
    assert choice.winner == table["cost"].idxmin() and choice.method == "two-step"
    assert (table["lo"] <= table["cost"]).all() and (table["cost"] <= table["hi"]).all()
    assert table.loc[choice.winner, "diff"] == 0
    weak = table.loc["two-step (weak)"]
    assert weak["diff"] > 0 and weak["diff_lo"] > 0  # clearly worse: its interval is above 0
    assert choice.reason.startswith(f"{choice.winner} has the lowest cross-validated cost")
    text = selection_text(choice.table, choice.reason, choice.winner)
    assert f"*{choice.winner}" in text and "chosen:" in text


def test_auto_refits_the_winner_on_every_point():
    X, y = load_iris(return_X_y=True)
    auto = CostSensitiveAuto(C, cv=3).fit(X, y)
    assert auto.best_name_ in candidates(C)
    np.testing.assert_array_equal(auto.predict(X), auto.best_estimator_.predict(X))
    assert auto.expected_cost(X, y) >= 0
    assert set(auto.selection_["candidate"]) == set(candidates(C))


def test_a_class_with_one_point_is_refused():
    X, y = load_iris(return_X_y=True)
    keep = np.r_[np.flatnonzero(y != 2), np.flatnonzero(y == 2)[:1]]
    with pytest.raises(ValueError, match="class 2 has 1"):
        choose_method(X[keep], y[keep], C, cands=_small(C))
