"""View-model of the Real data page: the lowest- and highest-risk test examples of a run (Fig. 10, 11).

Reads REBEL's test scores H (N, K), the test labels and the cost matrix. No streamlit here.
"""

from __future__ import annotations

import numpy as np

REAL_COSTS = {
    "uniform": "Uniform 0-1 (every mistake costs 1)",
    "random": "Random (paper protocol, random guessing costs 1)",
    "taxonomy": "Taxonomy by visual similarity (digits)",
    "suggested": "The sample's suggested costs",
}


def risk_examples(scores, y_idx, cost_matrix, n_low: int = 5, n_high: int = 4) -> tuple:
    """Indices of the lowest- and highest-risk test examples (Fig. 10, 11).

    Risk here is the cost actually paid, ``C[truth, prediction]`` with prediction ``argmax_k H_k``; ties are
    broken by REBEL's margin (top score minus runner-up): the lowest-risk examples are correct and the most
    confident, the highest-risk ones the costliest mistakes, the most confident first.
    """
    H = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y_idx)
    pred = np.argmax(H, axis=1)
    paid = np.asarray(cost_matrix)[y, pred]
    top2 = np.sort(H, axis=1)[:, -2:] if H.shape[1] > 1 else np.c_[H, H]
    margin = top2[:, 1] - top2[:, 0]
    low = np.lexsort((-margin, paid))[:n_low]
    high = np.lexsort((-margin, -paid))[:n_high]
    high = high[paid[high] > 0]  # only real mistakes
    return low, high, pred, paid
