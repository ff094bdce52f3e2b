"""choose_method's rules on hand-made out-of-fold costs: "order" keeps the two-step unless another candidate is
clearly cheaper (its paired-difference interval excludes 0); "lowest" takes the lowest mean."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

from rebel import choose_method
from rebel.auto import _choice
from rebel.minrisk import MinRiskClassifier

CANDS = {"two": ("two-step", None), "weighted": ("weighted", None), "rebel": ("rebel", None)}


def _costs(rebel_gain: float) -> dict:
    """Per-point 0/1 costs of 300 points: the two-step wrong on 60, weighted on 70; REBEL right on
    ``rebel_gain`` of the two-step's 60 mistakes (paired: the same points otherwise)."""
    two = np.zeros(300)
    two[:60] = 1
    weighted = two.copy()
    weighted[60:70] = 1
    rebel = two.copy()
    rebel[: int(rebel_gain)] = 0
    return {"two": two, "weighted": weighted, "rebel": rebel}


def test_order_keeps_the_two_step_when_the_cheapest_cannot_be_told_apart_from_it():
    costs = _costs(3)  # REBEL 57/300 against 60/300: not a clear difference
    lowest = _choice(CANDS, costs, 3, "lowest")
    order = _choice(CANDS, costs, 3, "order")
    assert lowest.winner == "rebel"
    assert order.winner == "two" and order.method == "two-step"
    assert order.reason.startswith("rebel has the lowest cross-validated cost")
    assert "two-step method is preferred" in order.reason
    table = order.table.set_index("candidate")
    assert table.loc["two", "diff"] == 0 and table.loc["rebel", "diff"] == pytest.approx(-3 / 300)


def test_order_takes_a_clearly_cheaper_method():
    costs = _costs(40)  # REBEL 20/300 against 60/300: the paired interval is far below 0
    order = _choice(CANDS, costs, 3, "order")
    assert order.winner == "rebel"
    assert order.reason.startswith("rebel has the lowest cross-validated cost")
    assert "every other candidate costs more" in order.reason


def test_a_bad_rule_is_refused_before_any_fit():
    X, y = load_iris(return_X_y=True)
    cands = {
        "two-step": (
            "two-step",
            MinRiskClassifier(LogisticRegression(max_iter=500), np.ones((3, 3)) - np.eye(3)),
        )
    }
    with pytest.raises(ValueError, match="rule must be one of .*'cheapest'"):
        choose_method(X, y, np.ones((3, 3)) - np.eye(3), cands=cands, rule="cheapest")
