"""Cost-sensitive REBEL against the calibrated two-step method, and a small regime map (``reproduce calibrated``).

The strongest known answer to "do we need cost-sensitive boosting?" (Nikolaou et al., Machine Learning 104,
2016) is a cost-blind booster whose posterior is calibrated, then the minimum-risk rule. Methods per trial
(dataset x cost matrix), all on the same engine and capacity options:

- ``rebel``: ``RebelClassifier`` trained with the cost matrix;
- ``two_step``: the same engine trained with 0-1 costs, the posterior its loss implies, minimum-risk rule;
- ``cal_<m>``: that posterior calibrated by cross-fitting (``N_FOLDS`` out-of-fold models, calibrator
  ``m`` in ``rebel.calibration.CALIBRATIONS``, applied to the model fitted on all training points);
- ``blind``: the 0-1 model's argmax (costs ignored).

SELECTION RULE (fixed before any held-out number was computed; ``SELECTION_RULE`` is printed with the report):
on the tuning seed's datasets (``TUNE_SEED``; their test halves serve as validation), each method picks the
configuration with the lowest mean validation cost over all tuning trials: REBEL picks (variant, depth,
rounds) across ``VARIANTS`` x ``DEPTHS`` x ``ROUNDS``; the uncalibrated two-step the same; the calibrated
two-step additionally its calibration method. Ties go to the earlier variant, smaller depth, fewer rounds,
earlier method. The choices are then read ONCE on fresh datasets drawn with ``REPORT_SEED``. The regime map
applies the same chosen configurations, unchanged, to fresh datasets that vary one factor at a time (dimension,
number of classes, training size, cost skew, real data); the capacity map lists every (depth, rounds) cell of
the held-out grid (a sweep, not a selection). Intervals: bootstrap over datasets (``rebel.experiments.stats``);
on a real dataset the "datasets" are random splits of the same data (they share points: the interval is
optimistic there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

from rebel.calibration import CALIBRATIONS, crossfit_staged, ece, fit_calibrator, reliability
from rebel.cost_presets import normalize_costs, random_costs
from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.honest import REPORT_SEED, TUNE_SEED, parse_variant, variant_name
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split, load_named, protocol_splits
from rebel.experiments.stats import LEVEL

VARIANTS = ({}, {"loss": "logistic", "leaves": "vector", "learning_rate": 0.3})
DEPTHS = (1, 3)
ROUNDS = (25, 100, 200)
N_FOLDS = 3
METHODS = ("rebel", "two_step", *(f"cal_{m}" for m in CALIBRATIONS), "blind")
POSTERIOR_METHODS = ("two_step", *(f"cal_{m}" for m in CALIBRATIONS))
SELECTION_RULE = (
    "Selection rule (fixed before the held-out run): on the tuning seed each method takes the configuration "
    "with the lowest mean validation cost over all tuning trials (REBEL: variant x depth x rounds; two-step: "
    "the same; calibrated two-step: also the calibration method); ties to the earlier variant, smaller depth, "
    "fewer rounds. Read once on fresh datasets (report seed); the regime map reuses these choices unchanged."
)
# Regime map: one factor at a time from the base (synthetic, d = 5, K = 4, 1000 training points, random costs)
BASE = {"d": 5, "K": 4, "n_train": 1000, "skew": "random"}
REGIMES = (
    ("base", {}),
    ("dimension", {"d": 2}),
    ("dimension", {"d": 20}),
    ("classes", {"K": 3}),
    ("classes", {"K": 8}),
    ("training size", {"n_train": 250}),
    ("cost skew", {"skew": "critical"}),
)
REAL = ("wine", "breast_cancer", "digits")
N_TEST = 500
CRITICAL_FACTOR = 10.0
COLUMNS = ["dataset", "cost_id", "variant", "depth", "rounds", "method", "cost", "ece"]


# ---------------------------------------------------------------------------------------------------- data
def cost_matrices(K: int, n: int, rng: np.random.Generator, skew: str = "random", y=None) -> list:
    """``n`` cost matrices: the paper's random ones (``"random"``) or with one critical class whose misses cost
    ``CRITICAL_FACTOR`` times more (``"critical"``); normalised so random guessing costs 1 under y's counts."""
    out = []
    priors = None if y is None else np.bincount(np.asarray(y), minlength=K)
    for _ in range(n):
        C = random_costs(K, rng)
        if skew == "critical":
            C[int(rng.integers(K))] *= CRITICAL_FACTOR
        out.append(normalize_costs(C, priors))
    return out


def synthetic_split(d: int, K: int, n_train: int, seed: int, i: int) -> Split:
    """A scikit-learn ``make_classification`` problem: ``d`` features (all informative up to 5, the rest
    redundant or noise), ``K`` classes with two clusters each, ``n_train`` training and ``N_TEST`` test points."""
    informative = min(d, max(2, min(5, d)))
    rs = int(np.random.SeedSequence([seed, 31, i]).generate_state(1)[0])
    X, y = make_classification(
        n_samples=n_train + N_TEST,
        n_features=d,
        n_informative=informative,
        n_redundant=min(2, d - informative),
        n_classes=K,
        n_clusters_per_class=2 if 2**informative >= 2 * K else 1,
        class_sep=1.0,
        flip_y=0.02,
        random_state=rs,
    )
    return Split(
        f"d{d}_K{K}_n{n_train}_{i}", np.arange(K), X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    )


def real_split(name: str, seed: int, i: int) -> Split:
    """A random stratified half / half split of a bundled dataset (labels as class indices)."""
    from sklearn.model_selection import train_test_split

    X, y, _ = load_named(name)
    classes, y = np.unique(y, return_inverse=True)
    rs = int(np.random.SeedSequence([seed, 37, i]).generate_state(1)[0])
    a, b = train_test_split(np.arange(len(y)), train_size=0.5, stratify=y, random_state=rs)
    return Split(f"{name}_{i}", classes, X[a], y[a], X[b], y[b])


# ---------------------------------------------------------------------------------------------------- one dataset
def dataset_rows(split: Split, costs: list, configs: list, rounds, n_folds: int = N_FOLDS) -> list:
    """Every method of ``METHODS`` at every (variant, depth) of ``configs`` and round count of ``rounds`` on one
    split, for each cost matrix: rows of ``COLUMNS`` (``ece``: class-wise calibration error of the posterior on
    the test points, NaN for REBEL)."""
    rows, X, y, Xt, yt = [], split.X_train, split.y_train, split.X_test, split.y_test
    T = max(rounds)
    for variant, depth in configs:
        name = variant_name(variant)

        def zero_one(variant=variant, depth=depth):
            return RebelClassifier(n_estimators=T, max_depth=depth, random_state=0, **variant)

        oof, (test_P,) = crossfit_staged(zero_one, X, y, [Xt], rounds, n_folds)
        posts = {}
        for t in rounds:
            posts[("two_step", t)] = test_P[t]
            for m in CALIBRATIONS:
                posts[(f"cal_{m}", t)] = fit_calibrator(oof[t], y, m).predict_proba(test_P[t])
        errors = {k: ece(reliability(P, yt)) for k, P in posts.items()}
        for j, C in enumerate(costs):
            model = RebelClassifier(cost_matrix=C, n_estimators=T, max_depth=depth, **variant).fit(X, y)
            staged = model.staged_class_indices(Xt)
            for t in rounds:
                base = (split.name, j, name, depth, t)
                rows.append((*base, "rebel", C[yt, staged[min(t, model.n_estimators_)]].mean(), np.nan))
                for (method, tt), P in posts.items():
                    if tt == t:
                        rows.append((*base, method, C[yt, min_risk_class(P, C)].mean(), errors[(method, t)]))
                rows.append((*base, "blind", C[yt, np.argmax(test_P[t], axis=1)].mean(), np.nan))
    return rows


def run_grid(splits, costs, configs, rounds, n_jobs=2, progress: Progress | None = None) -> pd.DataFrame:
    """``dataset_rows`` of every split (one task per dataset) as a long DataFrame of ``COLUMNS``."""
    tasks = [(i, dataset_rows, (s, cs, configs, rounds)) for i, (s, cs) in enumerate(zip(splits, costs))]
    results = run_tasks(tasks, n_jobs, progress=progress)
    return pd.DataFrame([r for i in sorted(results) for r in results[i]], columns=COLUMNS)


def all_configs(variants=VARIANTS, depths=DEPTHS) -> list:
    return [(v, d) for v in variants for d in depths]


# ---------------------------------------------------------------------------------------------------- selection
def select(tune: pd.DataFrame) -> pd.DataFrame:
    """The selection rule: per method family (``rebel``, ``two_step``, ``calibrated``) the configuration with
    the lowest mean validation cost (ties: first in variant, depth, rounds, method order)."""
    order = {variant_name(v): k for k, v in enumerate(VARIANTS)}
    means = tune.groupby(["method", "variant", "depth", "rounds"], sort=False)["cost"].mean().reset_index()
    means["family"] = means["method"].map(lambda m: "calibrated" if m.startswith("cal_") else m)
    means["v_order"] = means["variant"].map(order).fillna(len(order))
    means["m_order"] = means["method"].map({m: k for k, m in enumerate(METHODS)})
    keys = ["cost", "v_order", "depth", "rounds", "m_order"]
    best = means[means["family"] != "blind"].sort_values(keys, kind="stable").groupby("family").head(1)
    return best.rename(columns={"cost": "val_cost"})[
        ["family", "method", "variant", "depth", "rounds", "val_cost"]
    ]


def _pick(grid: pd.DataFrame, row) -> pd.DataFrame:
    g = grid[
        (grid["method"] == row["method"])
        & (grid["variant"] == row["variant"])
        & (grid["depth"] == row["depth"])
        & (grid["rounds"] == row["rounds"])
    ]
    return g.sort_values(["dataset", "cost_id"]).reset_index(drop=True)


def compare(grid: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    """REBEL at its chosen configuration against each baseline at its own chosen configuration (and against
    REBEL's equal-capacity twins): win rate and mean cost difference with bootstrap intervals over datasets."""
    pick = {r["family"]: _pick(grid, r) for _, r in chosen.iterrows()}
    reb, rebel_row = pick["rebel"], chosen.set_index("family").loc["rebel"]
    twin = grid[
        (grid["variant"] == rebel_row["variant"])
        & (grid["depth"] == rebel_row["depth"])
        & (grid["rounds"] == rebel_row["rounds"])
    ]
    baselines = {
        "calibrated two-step (own tuning)": pick["calibrated"],
        "two-step (own tuning)": pick["two_step"],
        "two-step at REBEL's capacity": _pick(twin, {**rebel_row, "method": "two_step"}),
        **{
            f"{m} two-step at REBEL's capacity": _pick(twin, {**rebel_row, "method": f"cal_{m}"})
            for m in CALIBRATIONS
        },
        "cost-blind argmax at REBEL's capacity": _pick(twin, {**rebel_row, "method": "blind"}),
    }
    rows = []
    for label, base in baselines.items():
        t = pd.DataFrame({"dataset": reb["dataset"], "rebel_cost": reb["cost"], "base_cost": base["cost"]})
        s = stats.compare_costs(t, "rebel_cost", "base_cost")
        rows.append({"baseline": label, **{k: s[k] for k in STAT_KEYS}})
    return pd.DataFrame(rows)


STAT_DETAIL = ("win_lo", "win_hi", "diff_lo", "diff_hi", "level")
STAT_KEYS = (
    "level",
    "trials",
    "datasets",
    "win_rate",
    "win_lo",
    "win_hi",
    "a_cost",
    "b_cost",
    "diff",
    "diff_lo",
    "diff_hi",
)


def regime_splits(seed: int, n_datasets: int, n_costs: int) -> list:
    """[(factor, level, splits, costs)] of the regime map, drawn with ``seed``."""
    out = []
    for k, (factor, change) in enumerate(REGIMES):
        p = {**BASE, **change}
        splits = [synthetic_split(p["d"], p["K"], p["n_train"], seed, 100 * k + i) for i in range(n_datasets)]
        rng = np.random.default_rng([seed, 41, k])
        costs = [cost_matrices(p["K"], n_costs, rng, p["skew"], s.y_train) for s in splits]
        level = ", ".join(f"{a}={b}" for a, b in change.items()) or ", ".join(
            f"{a}={b}" for a, b in BASE.items()
        )
        out.append((factor, level, splits, costs))
    for k, name in enumerate(REAL):
        splits = [real_split(name, seed, i) for i in range(n_datasets)]
        rng = np.random.default_rng([seed, 43, k])
        costs = [cost_matrices(s.n_classes, n_costs, rng, "random", s.y_train) for s in splits]
        out.append(("real data", name, splits, costs))
    return out


def regime_map(chosen: pd.DataFrame, seed: int, n_datasets: int, n_costs: int, n_jobs=2, progress=None):
    """REBEL (its chosen configuration) against the calibrated two-step (its chosen configuration) on every
    regime of ``regime_splits``: one row per regime with win rate, mean costs and the difference, intervals."""
    c = chosen.set_index("family")
    configs = []
    for fam in ("rebel", "calibrated"):
        configs.append((parse_variant(c.loc[fam, "variant"]), int(c.loc[fam, "depth"])))
    configs = list({(variant_name(v), d): (v, d) for v, d in configs}.values())
    rounds = sorted({int(c.loc["rebel", "rounds"]), int(c.loc["calibrated", "rounds"])})
    grids = []
    for factor, setting, splits, costs in regime_splits(seed, n_datasets, n_costs):
        grid = run_grid(splits, costs, configs, rounds, n_jobs, progress)
        grids.append(grid.assign(factor=factor, setting=setting))
    grid = pd.concat(grids, ignore_index=True)
    return regime_table(grid, chosen), grid


def regime_table(regime_grid: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    """One row per regime of a regime grid (``regime_map``'s second result, or the ``part == "regime"`` rows of
    ``reproduce calibrated --out``): REBEL at its chosen configuration against the calibrated two-step at its
    own, win rate and mean cost difference with bootstrap intervals over the regime's datasets."""
    c = chosen.set_index("family")
    rows = []
    for (factor, setting), grid in regime_grid.groupby(["factor", "setting"], sort=False):
        reb, cal = _pick(grid, c.loc["rebel"]), _pick(grid, c.loc["calibrated"])
        t = pd.DataFrame({"dataset": reb["dataset"], "rebel_cost": reb["cost"], "base_cost": cal["cost"]})
        s = stats.compare_costs(t, "rebel_cost", "base_cost")
        rows.append({"factor": factor, "setting": setting, **{k: s[k] for k in STAT_KEYS}})
    return pd.DataFrame(rows)


def configuration_text(row) -> str:
    """A chosen configuration in words, e.g. ``"cal_temperature, learning_rate=0.3,leaves=vector, depth 3,
    25 rounds"``."""
    method = "" if row["method"] in ("rebel", "two_step") else f"{row['method'].removeprefix('cal_')}, "
    return f"{method}{row['variant']}, depth {int(row['depth'])}, {int(row['rounds'])} rounds"


def regime_record(
    regimes: pd.DataFrame, chosen: pd.DataFrame, command: str, seed: int, tune_seed: int
) -> dict:
    """The regime map as a JSON-ready dict (``reproduce calibrated --regimes FILE``; the app's figure reads it):
    the command and seeds, both sides' chosen configurations, and one row per regime with the win rate, its
    interval, both mean costs and the difference with its interval."""
    c = chosen.set_index("family")
    keys = tuple(k for k in STAT_KEYS if k != "level")  # the level is the record's, once
    return {
        "about": "REBEL against the calibrated two-step method per regime (rebel.experiments.calibrated). "
        "win_rate: share of trials where REBEL's test cost is strictly lower; win_lo/win_hi and diff_lo/diff_hi: "
        f"{100 * LEVEL:.0f} % bootstrap intervals over the regime's datasets (real data: random splits that "
        "share points, optimistic); a_cost: REBEL's mean test cost, b_cost: the calibrated two-step's.",
        "command": command,
        "seed": int(seed),
        "tune_seed": int(tune_seed),
        "rebel": configuration_text(c.loc["rebel"]),
        "baseline": "calibrated two-step (" + configuration_text(c.loc["calibrated"]) + ")",
        "level": LEVEL,
        "rows": [
            {"factor": r["factor"], "setting": r["setting"], **{k: _plain(r[k]) for k in keys}}
            for r in regimes.to_dict("records")
        ],
    }


def _plain(value):
    """A JSON number: ints stay ints, floats rounded to 6 digits (NaN becomes None)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = float(value)
    return None if np.isnan(value) else round(value, 6)


def tune_and_hold_out(
    n_datasets: int,
    n_costs: int,
    tune_seed: int = TUNE_SEED,
    seed: int = REPORT_SEED,
    n_jobs=2,
    progress=None,
) -> tuple:
    """The main comparison on the paper's random mixtures: the full grid on the tuning seed, ``select`` on it,
    the full grid on the held-out seed. Returns ``(chosen, tune_grid, held_grid)``."""
    configs = all_configs()
    tune = run_grid(*protocol_splits(n_datasets, n_costs, tune_seed), configs, ROUNDS, n_jobs, progress)
    held = run_grid(*protocol_splits(n_datasets, n_costs, seed), configs, ROUNDS, n_jobs, progress)
    return select(tune), tune, held


def capacity_map(grid: pd.DataFrame) -> pd.DataFrame:
    """Every (variant, depth, rounds) cell of a grid: REBEL against the two-step and the best-calibrated
    two-step *at the same cell* (temperature, sigmoid and isotonic each; the lowest mean cost shown)."""
    rows = []
    for (v, d, t), g in grid.groupby(["variant", "depth", "rounds"], sort=True):
        reb = g[g["method"] == "rebel"].sort_values(["dataset", "cost_id"]).reset_index(drop=True)
        cal_means = {
            m: g.loc[g["method"] == m, "cost"].mean() for m in g["method"].unique() if m.startswith("cal_")
        }
        best = min(cal_means, key=cal_means.get)
        cal = g[g["method"] == best].sort_values(["dataset", "cost_id"]).reset_index(drop=True)
        s = stats.compare_costs(
            pd.DataFrame({"dataset": reb["dataset"], "rebel_cost": reb["cost"], "base_cost": cal["cost"]}),
            "rebel_cost",
            "base_cost",
        )
        rows.append(
            {"variant": v, "depth": d, "rounds": t, "calibration": best, **{k: s[k] for k in STAT_KEYS}}
        )
    return pd.DataFrame(rows)


__all__ = [
    "BASE",
    "COLUMNS",
    "DEPTHS",
    "METHODS",
    "REAL",
    "REGIMES",
    "REPORT_SEED",
    "ROUNDS",
    "SELECTION_RULE",
    "TUNE_SEED",
    "VARIANTS",
    "all_configs",
    "capacity_map",
    "compare",
    "configuration_text",
    "cost_matrices",
    "dataset_rows",
    "real_split",
    "regime_map",
    "regime_record",
    "regime_splits",
    "regime_table",
    "run_grid",
    "select",
    "synthetic_split",
    "tune_and_hold_out",
]
