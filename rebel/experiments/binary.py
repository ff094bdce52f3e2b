"""Two classes: cost-sensitive REBEL (exp loss) is the two-step method, decision for decision.

With K = 2 and a cost matrix whose correct decision is the cheaper one in each row, only the ratio
``r = (C[1, 0] - C[1, 1]) / (C[0, 1] - C[0, 0])`` matters (``cost_ratio``). Trained with the exp loss on such
costs, REBEL's weights are sqrt(r) times those of the 0-1 model at the scores shifted by 1/2 ln r; the bias a0
absorbs the shift, so every round picks the same weak learner with the same a_t, and REBEL predicts the second
class exactly where the 0-1 model's posterior sigma(2 H) exceeds 1 / (1 + r), the two-step threshold. The proof
is in docs/REPRODUCTION.md ("Two classes: cost-sensitive REBEL is the two-step method"); ``binary_equivalence``
checks it on one problem (used by the tests and the Theory page). No streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rebel.costs import min_risk_class, validate_cost_matrix
from rebel.estimator import RebelClassifier

# Points whose 0-1 score lies within this of the threshold -1/2 ln r are counted as ties: there the two fits'
# scores (equal up to the engine's smoothing of a*, about 1e-9 of the weights, and rounding) may fall on either
# side. Measured: the scores differ by at most 2.1e-8 over 20 random problems (stumps to depth 3, r in e^±3).
TIE_BAND = 1e-6


def cost_ratio(cost_matrix) -> float:
    """``r`` of a binary cost matrix (rows = truth): the cost of missing the second class over the cost of
    missing the first, each net of the correct decision's cost. Raises ``ValueError`` unless K = 2 and the
    correct decision is strictly cheaper in both rows."""
    C = validate_cost_matrix(cost_matrix, name="cost_matrix")
    if C.shape != (2, 2):
        raise ValueError(f"cost_matrix must be 2 x 2 for the binary equivalence; got {C.shape[0]} classes.")
    miss_first, miss_second = C[0, 1] - C[0, 0], C[1, 0] - C[1, 1]
    if miss_first <= 0 or miss_second <= 0:
        raise ValueError(
            f"cost_matrix {C.tolist()} must make each wrong decision dearer than the right one "
            "(C[0, 1] > C[0, 0] and C[1, 0] > C[1, 1]); raise the off-diagonal costs."
        )
    return float(miss_second / miss_first)


@dataclass
class BinaryEquivalence:
    """REBEL trained with a binary cost matrix next to the two-step method on the 0-1 model (same options).

    ``rebel`` and ``two_step``: class indices (0 or 1) predicted on the evaluation points; ``posterior``: the 0-1
    model's sigma(2 H) of the second class there; ``threshold`` = 1 / (1 + r); ``shift_error``: the largest
    |H_2 - H_2^{0-1} - 1/2 ln r| (0 in exact arithmetic); ``same_learners``: every round split on the same
    features and thresholds; ``ties``: evaluation points within ``TIE_BAND`` of the threshold's score."""

    classes: tuple
    r: float
    threshold: float
    rebel: np.ndarray
    two_step: np.ndarray
    posterior: np.ndarray
    shift_error: float
    same_learners: bool
    ties: int

    @property
    def agree(self) -> int:
        """How many evaluation points get the same decision from both methods."""
        return int(np.sum(self.rebel == self.two_step))


def binary_equivalence(X_train, y_train, X_eval, cost_matrix, **params) -> BinaryEquivalence:
    """Fit REBEL with ``cost_matrix`` (2 x 2, sorted class order) and with 0-1 costs on (X_train, y_train), both
    with the engine options ``params`` (exp loss; the equivalence does not hold for the logistic loss), and
    compare their decisions on ``X_eval``: REBEL's argmax against the minimum-risk rule on the 0-1 posterior."""
    r = cost_ratio(cost_matrix)
    if params.get("loss", "exp") != "exp":
        raise ValueError(f"loss={params['loss']!r}: the binary equivalence holds for the exp loss only.")
    costly = RebelClassifier(cost_matrix=cost_matrix, **params).fit(X_train, y_train)
    blind = RebelClassifier(**params).fit(X_train, y_train)
    H, H01 = costly.risk_scores(X_eval), blind.risk_scores(X_eval)
    P = blind.predict_proba(X_eval)
    C = validate_cost_matrix(cost_matrix, n_classes=2)
    half_log_r = 0.5 * np.log(r)
    same = bool(
        np.array_equal(costly.tree_features_, blind.tree_features_)
        and np.array_equal(costly.tree_thresholds_, blind.tree_thresholds_)
    )
    return BinaryEquivalence(
        classes=tuple(costly.classes_),
        r=r,
        threshold=1.0 / (1.0 + r),
        rebel=np.argmax(H, axis=1),
        two_step=min_risk_class(P, C),
        posterior=P[:, 1],
        shift_error=float(np.max(np.abs(H[:, 1] - H01[:, 1] - half_log_r), initial=0.0)),
        same_learners=same,
        ties=int(np.sum(np.abs(H01[:, 1] + half_log_r) < TIE_BAND)),
    )
