"""Statistics that respect how the trials were drawn: a bootstrap over datasets.

A Fig. 3 style run has D datasets x M cost matrices. The M trials of one dataset share its training points and
its posterior model, so they are not independent: a sign test over all D x M trials makes p-values too small.
``compare_costs`` resamples whole datasets with replacement (a cluster bootstrap) and reports, with percentile
intervals:

- the win rate of method A over method B (share of trials where A's cost is strictly lower), its tie rate,
- the effect size: the mean cost difference A - B (negative = A cheaper), and both mean costs.

With a single dataset the interval is undefined (NaN): nothing is known about how the result varies between
datasets. ``rate_text`` / ``diff_text`` are the one way the project writes these numbers in words. Inputs are
tidy DataFrames with one row per trial; no streamlit.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

N_BOOT = 2000
LEVEL = 0.95
SEED = 20160904  # fixed: the same table gives the same interval


def compare_costs(
    trials: pd.DataFrame,
    a: str = "rebel_cost",
    b: str = "two_step_cost",
    cluster: str = "dataset",
    n_boot: int = N_BOOT,
    level: float = LEVEL,
    seed: int = SEED,
) -> dict:
    """Win rate of column ``a`` over column ``b`` (lower cost wins) and the mean difference ``a - b``, each with
    a percentile interval from ``n_boot`` resamples of whole ``cluster`` groups (datasets).

    Returns ``trials, datasets, wins, ties, losses, win_rate, win_lo, win_hi, tie_rate, loss_rate, a_cost,
    b_cost, diff, diff_lo, diff_hi`` (the ``_lo/_hi`` bounds are NaN with fewer than two datasets or no trial).
    """
    for col in (a, b, cluster):
        if col not in trials.columns:
            raise ValueError(
                f"column {col!r} is missing from the trials table; it has {list(trials.columns)}."
            )
    t = trials[[cluster, a, b]].dropna(subset=[a, b])
    n = len(t)
    win, tie = (t[a] < t[b]).to_numpy(), (t[a] == t[b]).to_numpy()
    diff = (t[a] - t[b]).to_numpy(dtype=np.float64)
    out = {
        "trials": n,
        "datasets": int(t[cluster].nunique()),
        "wins": int(win.sum()),
        "ties": int(tie.sum()),
        "losses": int(n - win.sum() - tie.sum()),
        "win_rate": float(win.mean()) if n else math.nan,
        "tie_rate": float(tie.mean()) if n else math.nan,
        "loss_rate": float(1.0 - win.mean() - tie.mean()) if n else math.nan,
        "a_cost": float(t[a].mean()) if n else math.nan,
        "b_cost": float(t[b].mean()) if n else math.nan,
        "diff": float(diff.mean()) if n else math.nan,
        "level": level,
    }
    lo_hi = {k: (math.nan, math.nan) for k in ("win", "diff")}
    if out["datasets"] >= 2:
        groups = pd.DataFrame({"g": t[cluster].to_numpy(), "w": win, "d": diff}).groupby("g", sort=True)
        sums = groups.agg(n=("w", "size"), w=("w", "sum"), d=("d", "sum"))
        counts, wins, diffs = (sums[c].to_numpy(dtype=np.float64) for c in ("n", "w", "d"))
        idx = np.random.default_rng(seed).integers(0, len(sums), size=(n_boot, len(sums)))
        size = counts[idx].sum(axis=1)
        q = [(1 - level) / 2, (1 + level) / 2]
        lo_hi["win"] = tuple(np.quantile(wins[idx].sum(axis=1) / size, q))
        lo_hi["diff"] = tuple(np.quantile(diffs[idx].sum(axis=1) / size, q))
    out["win_lo"], out["win_hi"] = (float(v) for v in lo_hi["win"])
    out["diff_lo"], out["diff_hi"] = (float(v) for v in lo_hi["diff"])
    return out


def rate_text(s: dict, digits: int = 0) -> str:
    """``"31 % (95 % CI 22–40 %)"``: a ``compare_costs`` win rate with its interval, or a note without one."""
    pct = f"{{:.{digits}f}}"
    rate = f"{pct.format(100 * s['win_rate'])} %"
    if math.isnan(s["win_lo"]):
        return f"{rate} (no interval: one dataset)"
    lo, hi = pct.format(100 * s["win_lo"]), pct.format(100 * s["win_hi"])
    return f"{rate} ({100 * s['level']:.0f} % CI {lo}–{hi} %)"


def diff_text(s: dict) -> str:
    """``"+0.0123 (95 % CI +0.0050 to +0.0200)"``: the mean cost difference A - B with its interval."""
    if math.isnan(s["diff_lo"]):
        return f"{s['diff']:+.4f} (no interval: one dataset)"
    return f"{s['diff']:+.4f} ({100 * s['level']:.0f} % CI {s['diff_lo']:+.4f} to {s['diff_hi']:+.4f})"


def direction(s: dict) -> str:
    """``"A cheaper"`` / ``"B cheaper"`` when the interval of the mean difference excludes 0, else ``"unclear"``."""
    if math.isnan(s["diff_lo"]):
        return "unclear"
    if s["diff_hi"] < 0:
        return "A cheaper"
    if s["diff_lo"] > 0:
        return "B cheaper"
    return "unclear"


def summary_table(
    trials: pd.DataFrame, by, a: str = "rebel_cost", b: str = "two_step_cost", **kw
) -> pd.DataFrame:
    """``compare_costs`` per ``by`` group: one row per group with every returned number."""
    rows = []
    for key, g in trials.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        names = by if isinstance(by, (list, tuple)) else [by]
        rows.append({**dict(zip(names, key)), **compare_costs(g, a, b, **kw)})
    return pd.DataFrame(rows)


__all__ = ["LEVEL", "N_BOOT", "compare_costs", "diff_text", "direction", "rate_text", "summary_table"]
