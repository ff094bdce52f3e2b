"""The round loop of the engine options beyond the paper (DESIGN.md "Variants"): ``loss="logistic"`` (Newton
steps) and ``leaves="vector"`` (a K-vector per leaf), each with a ``learning_rate``. Paper mode (exp loss,
binary leaves) and its shrunk form run in ``rebel.booster.boost``; nothing here touches them.

Reads binned training data and per-sample cost rows (N, K); writes a ``BoostResult`` whose ``leaf_values``
(T, 2^D, K) hold vector leaves (binary-leaf models keep ``leaf_signs`` and ``A``). The loss L of a variant is
``training_loss(H, cost_rows, loss)``: for the logistic loss ``mean(beta) + sum_n <c+, F(H)> + <c-, F(-H)> /
(2 ln2 N)`` with F(x) = ln(1 + e^x), scaled so that it equals the exp loss's L at H = 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import kernels as kern
from .booster import BoostInputs, BoostResult, _bias_step, round_driver
from .costs import decompose
from .grower import Tree, new_forest, round_work, variant_work

LOSSES = ("exp", "logistic")
LEAVES = ("binary", "vector")
_LOSS_ID = {"exp": kern.LOSS_EXP, "logistic": kern.LOSS_LOGISTIC}


class _Run:
    """One variant fit's arrays and running loss (kept together so each round is a few kernel calls)."""

    def __init__(self, inputs: BoostInputs, loss, leaves, learning_rate, l2, msl):
        bins, usable, cost_rows = inputs.bins, inputs.usable, inputs.cost_rows
        n_rounds, depth, n_bins = inputs.n_rounds, inputs.depth, inputs.n_bins
        n_features, n_samples = bins.shape
        n_classes = cost_rows.shape[1]
        dec = decompose(cost_rows)
        self.bins, self.usable, self.depth, self.loss, self.leaves = bins, usable, depth, loss, leaves
        self.lr = float(learning_rate)
        # l2 in units of the largest cost (scaling every cost leaves the model as it is), applied to the raw loss
        self.l2, self.msl = float(l2) * float(cost_rows.max(initial=0.0)), int(msl)
        self.root_counts = np.zeros((0, 0))
        if self.msl > 1 and leaves == "binary":  # rows per (feature, bin): the same every round
            self.root_counts = np.stack([np.bincount(b, minlength=n_bins) for b in bins]).astype(np.float64)
        self.cp, self.cm = np.ascontiguousarray(dec.cp), np.ascontiguousarray(dec.cm)
        self.mean_beta = float(dec.beta.mean())
        self.n_samples = n_samples
        self.state = kern.TrainState(
            self.cp.copy(), self.cm.copy(), np.zeros((n_samples, n_classes)), cost_rows
        )
        self.work = round_work(n_samples, n_features, n_classes, n_bins, depth)
        self.vw = variant_work(n_samples, n_features, n_classes, n_bins, depth, self.msl)
        self.forest = new_forest(n_rounds, depth, n_classes)
        # the Newton grower of a logistic fit with binary leaves: compiled or interpreted (the same bits)
        binary = leaves == "binary"
        size = (n_classes, n_rounds, depth, n_samples, n_features)
        self.grow = round_driver(self.work.parallel, *size, kind="newton") if binary else None
        self.leaf_values = np.zeros((n_rounds, 1 << depth, n_classes))
        self.layer_loss = np.zeros((n_rounds, depth))
        self.train_loss = np.zeros(n_rounds + 1)
        a0, risk0, self.log_total = _bias_step(self.state, self.work)  # exp: a0 and the weights past it
        if loss == "logistic":  # argmin_a sum cp F(a) + cm F(-a) = ln(Cm / Cp), twice the exp loss's a0
            a0 = 2.0 * a0
            self.state.H[:] = a0
            risk0 = float(cost_rows[np.arange(n_samples), np.argmax(self.state.H, axis=1)].mean())
            self.train_loss[0] = self._logistic_L(kern.logistic_loss_sum(*self._at_H()))
        else:
            self.train_loss[0] = self.mean_beta + math.exp(self.log_total) / (2 * n_samples)
        self.a0, self.risk0 = a0, risk0

    def _at_H(self):
        zero = np.zeros((1, self.cp.shape[1]))
        return self.state.H, self.cp, self.cm, np.zeros(self.n_samples, dtype=np.int64), zero, 0.0

    def _logistic_L(self, loss_sum: float) -> float:
        return self.mean_beta + loss_sum / (2 * math.log(2) * self.n_samples)

    def _exp_L(self, log_total: float) -> float:
        return self.mean_beta + math.exp(log_total) / (2 * self.n_samples)

    def _l2_of_stats(self) -> float:
        """l2 in the units of the round's statistics: the logistic g, h are the raw loss's; the exp weights are
        the raw ones divided by their total e^log_total (capped: a vanishing total leaves the steps near 0)."""
        if self.loss == "logistic" or self.l2 == 0.0:
            return self.l2
        return min(self.l2 * math.exp(min(-self.log_total, 700.0)), 1e300)

    def round(self, t: int) -> dict:
        """Grow round t's tree, move H (and the exp weights) past it; returns the callback's info."""
        s, vw, f = self.state, self.vw, self.forest
        features, thr_idx = f.features[t], f.thr_idx[t]
        lam = np.zeros(self.cp.shape[1])
        if self.loss == "logistic":
            kern.logistic_stats(s.H, self.cp, self.cm, vw.g, vw.h)
            lam = kern.NEWTON_RIDGE * (vw.h.sum(0) + np.abs(vw.g).sum(0)) / self.n_samples + 1e-300
        if self.leaves == "vector":
            P, Q = (s.wp, s.wm) if self.loss == "exp" else (vw.g, vw.h)
            eps = kern.SMOOTHING / self.cp.shape[1]  # the exp weights total 1 (as in a_star)
            lid = _LOSS_ID[self.loss]
            kern.grow_vector_tree(
                self.bins, self.usable, self.depth, P, Q, s.H, self.cp, self.cm, lid, self.lr, eps, lam,
                self._l2_of_stats(), self.msl, vw, features, thr_idx,
            )  # fmt: skip
            self.leaf_values[t] = vw.values
            leaf = vw.node
        else:
            self.grow(
                self.bins, self.usable, self.depth, s.H, self.cp, self.cm, self.lr, lam + self.l2, self.msl,
                self.root_counts, self.work, vw, features, thr_idx, f.leaf_signs[t], f.A[t],
            )  # fmt: skip
            self.leaf_values[t] = f.leaf_signs[t][:, None] * f.A[t]
            leaf = self.work.leaf
        exp = self.loss == "exp"
        total = vw.layer_loss[-1] if exp else 1.0
        scale = 1.0 / total if total > 0 else 1.0
        risk = kern.apply_leaf_values(s.H, s.wp, s.wm, leaf, self.leaf_values[t], scale, exp, s.cost_rows)
        f.risks[t] = risk
        if exp:
            with np.errstate(divide="ignore"):
                self.layer_loss[t] = [self._exp_L(self.log_total + v) for v in np.log(vw.layer_loss)]
            self.log_total += math.log(total) if total > 0 else -math.inf
            self.train_loss[t + 1] = self._exp_L(self.log_total)
        else:
            self.layer_loss[t] = [self._logistic_L(v) for v in vw.layer_loss]
            self.train_loss[t + 1] = self.layer_loss[t, -1]
        tree = Tree(self.depth, features, thr_idx, f.leaf_signs[t])
        return {
            "loss": self.train_loss[t + 1],
            "risk": risk,
            "a": f.A[t],
            "tree": tree,
            "values": self.leaf_values[t],
        }

    def result(self, done: int) -> BoostResult:
        f = self.forest
        return BoostResult(
            a0=self.a0,
            features=f.features[:done].copy(),
            thr_idx=f.thr_idx[:done].copy(),
            leaf_signs=f.leaf_signs[:done].copy()
            if self.leaves == "binary"
            else np.ones_like(f.leaf_signs[:done]),
            A=f.A[:done].copy(),
            train_loss=self.train_loss[: done + 1].copy(),
            train_risk=np.concatenate(([self.risk0], f.risks[:done])),
            layer_loss=self.layer_loss[:done].copy(),
            H=self.state.H,
            leaf_values=self.leaf_values[:done].copy() if self.leaves == "vector" else None,
        )


def boost_variant(
    inputs: BoostInputs,
    loss: str = "exp",
    leaves: str = "vector",
    learning_rate: float = 1.0,
    callback: Callable[[int, dict], object] | None = None,
    l2_regularization: float = 0.0,
    min_samples_leaf: int = 1,
) -> BoostResult:
    """Train ``inputs.n_rounds`` rounds of a variant (any ``loss``/``leaves`` except the paper's exp + binary, which is
    ``rebel.booster.boost``). ``callback(t, info)`` runs after a0 (t = 0) and after each round (info: loss,
    risk, a, tree, values = the round's leaf values (2^D, K)); returning ``False`` stops training early.
    ``l2_regularization`` (>= 0, in units of the largest cost) is added to the hessian of every leaf value and
    split gain; ``min_samples_leaf`` (>= 1): a split must leave each side at least that many training rows (or none)
    (DESIGN.md "Variants"). Their defaults 0 and 1 change no bit."""
    if loss not in LOSSES or leaves not in LEAVES or (loss, leaves) == ("exp", "binary"):
        raise ValueError(f"boost_variant runs loss in {LOSSES} and leaves in {LEAVES} except exp + binary; got "
                         f"loss={loss!r}, leaves={leaves!r}.")  # fmt: skip
    run = _Run(inputs, loss, leaves, learning_rate, l2_regularization, min_samples_leaf)
    if (
        callback is not None
        and callback(0, {"loss": run.train_loss[0], "risk": run.risk0, "a": run.a0}) is False
    ):
        return run.result(0)
    for t in range(inputs.n_rounds):
        info = run.round(t)
        if callback is not None and callback(t + 1, info) is False:
            return run.result(t + 1)
    return run.result(inputs.n_rounds)


def training_loss(H, cost_rows, loss: str = "exp") -> float:
    """The loss L of Eq. 2 on scores H (N, K) for F = exp (``rebel.booster.training_loss``) or F = ln(1 + e^x)
    (scaled by 1 / (2 ln 2) so that both agree at H = 0)."""
    from .booster import training_loss as exp_loss

    if loss == "exp":
        return exp_loss(H, cost_rows)
    dec = decompose(cost_rows)
    H = np.asarray(H, dtype=np.float64)
    F = np.logaddexp(0.0, H), np.logaddexp(0.0, -H)
    return float(
        dec.beta.mean() + ((dec.cp * F[0]).sum() + (dec.cm * F[1]).sum()) / (2 * math.log(2) * H.shape[0])
    )
