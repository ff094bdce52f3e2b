"""The regime map with every method (``python -m rebel reproduce methods``): which method has the lowest test
cost in each regime, cost-sensitive training (REBEL, cost-weighted boosting, cost-weighted logistic
regression) or a two-step method (boosting or logistic regression posterior, raw or calibrated).

Method families (``FAMILIES``); each picks its own setting per regime on the tuning seed:

- ``rebel``: ``RebelClassifier`` trained with the cost matrix, at every capacity of ``BOOST_CONFIGS`` (paper mode,
  stumps with 5, 25, 100 rounds; paper mode, depth 3 with 25, 200 rounds; logistic loss + vector leaves +
  shrinkage 0.3, depth 3 with 25, 100 rounds);
- ``weighted_boost``: the same engine trained with 0-1 costs and each point weighted by its class's mean mistake
  cost w_y = sum_k C[y, k] / (K - 1), decision argmin_k sum_y q(y|x) C[y, k] / w_y (``WEIGHTED_CONFIGS``);
- ``weighted_linear``: scikit-learn's logistic regression (standardised features) with the same weights and
  decision;
- ``two_step_boost``: the 0-1 engine at every capacity of ``BOOST_CONFIGS``, its posterior raw, temperature-
  scaled or isotonic (cross-fitted on ``N_FOLDS`` out-of-fold models), then the minimum-risk rule;
- ``two_step_linear``: logistic regression's posterior, raw, temperature-scaled or isotonic, minimum-risk rule.

``rebel_paper`` (paper mode, 100 stumps, not selected) is shown for reference.

SELECTION RULE (``SELECTION_RULE``, fixed before the run): per regime, on ``TUNE`` datasets x costs drawn with
the tuning seed (test halves as validation), each family takes the setting with the lowest mean validation
cost (ties: the first in ``settings`` order). "Cost-sensitive training" is the cost-sensitive family with the
lowest validation cost, "two-step" the two-step family with the lowest. All are read ONCE on fresh datasets of
the report seed. Intervals: bootstrap over datasets (``rebel.experiments.stats``); real data: random half /
half splits that share points (optimistic intervals).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from rebel.baselines import staged_posteriors
from rebel.calibration import crossfit_staged, fit_calibrator, fold_indices
from rebel.costs import min_risk_class
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.calibrated import (
    CRITICAL_FACTOR,
    N_TEST,
    STAT_KEYS,
    cost_matrices,
    real_split,
    synthetic_split,
)
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split

ENGINES = {
    "paper": {},
    "vector+logistic+lr0.3": {"loss": "logistic", "leaves": "vector", "learning_rate": 0.3},
}
BOOST_CONFIGS = (("paper", 1, (5, 25, 100)), ("paper", 3, (25, 200)), ("vector+logistic+lr0.3", 3, (25, 100)))
WEIGHTED_CONFIGS = (("paper", 1, (25, 100)), ("vector+logistic+lr0.3", 3, (25, 100)))
CALIBRATIONS = ("raw", "temperature", "isotonic")
N_FOLDS = 3
FAMILIES = {
    "rebel": "REBEL (trained with the costs)",
    "weighted_boost": "cost-weighted boosting",
    "weighted_linear": "cost-weighted logistic regression",
    "two_step_boost": "two-step, boosting posterior",
    "two_step_linear": "two-step, logistic regression posterior",
}
COST_SENSITIVE = ("rebel", "weighted_boost", "weighted_linear")
TWO_STEP = ("two_step_boost", "two_step_linear")
SAME_MODEL = (  # cost-sensitive training against the two-step method on the same model class
    ("weighted_linear", "two_step_linear"),
    ("weighted_boost", "two_step_boost"),
    ("rebel", "two_step_boost"),
)
REFERENCE = ("rebel_paper", "paper d1 r100")  # the paper's REBEL, shown beside the chosen settings
SELECTION_RULE = (
    "Selection rule (fixed before the run): per regime, on the tuning seed's datasets (test halves as "
    "validation) each method family takes the setting with the lowest mean validation cost (ties: the first "
    "setting); cost-sensitive training = the cost-sensitive family with the lowest validation cost (REBEL, "
    "cost-weighted boosting, cost-weighted logistic regression), two-step = the two-step family with the "
    "lowest (boosting or logistic-regression posterior, raw or calibrated). Read once on the report seed."
)
MISS_COSTS = (5.0, 7.5, 10.0, 15.0, 20.0)  # the misspecified regime's costs of missing the rare class
TUNE = (3, 5)  # tuning datasets x cost matrices per regime
REPORT = (8, 5)  # held-out datasets x cost matrices per regime (40 trials)
COLUMNS = ["dataset", "cost_id", "family", "setting", "cost"]
# Regimes: (factor, setting, kind, parameters). "synthetic" varies the base of rebel.experiments.calibrated
# (make_classification, d = 5, K = 4, 1000 training points, random costs) one factor at a time.
BASE = {"d": 5, "K": 4, "n_train": 1000, "skew": "random"}
REGIMES = (
    ("base", "d=5, K=4, n=1000, random costs", "synthetic", {}),
    ("dimension", "d=2", "synthetic", {"d": 2}),
    ("dimension", "d=20", "synthetic", {"d": 20}),
    ("classes", "K=3", "synthetic", {"K": 3}),
    ("classes", "K=8", "synthetic", {"K": 8}),
    ("training size", "n=250", "synthetic", {"n_train": 250}),
    ("cost skew", "one class's misses x10", "synthetic", {"skew": "critical"}),
    ("rare costly class", "K=4, prior 0.1, its misses x10", "rare", {}),
    ("misspecified", "K=2 Gaussians, unequal covariances, prior 0.1, miss x5-x20", "quadratic", {}),
    ("real data", "wine", "real", {"name": "wine"}),
    ("real data", "breast cancer (K=2)", "real", {"name": "breast_cancer"}),
)


# ---------------------------------------------------------------------------------------------------- data
def rare_split(seed: int, i: int, n_train: int = 1000) -> Split:
    """make_classification, d = 5, K = 4, class 0 with prior 0.1 (the costly one)."""
    from sklearn.datasets import make_classification

    rs = int(np.random.SeedSequence([seed, 53, i]).generate_state(1)[0])
    X, y = make_classification(
        n_samples=n_train + N_TEST, n_features=5, n_informative=5, n_redundant=0, n_classes=4,
        n_clusters_per_class=2, weights=[0.1, 0.3, 0.3, 0.3], class_sep=1.0, flip_y=0.02, random_state=rs,
    )  # fmt: skip
    return Split(f"rare_{i}", np.arange(4), X[:n_train], y[:n_train], X[n_train:], y[n_train:])


def quadratic_split(seed: int, i: int, n_train: int = 1000) -> Split:
    """Two Gaussians in 2-D with unequal covariances (a quadratic Bayes boundary): the common class N(0, I),
    the rare class (prior 0.1) N((1, 1), 4 I). A linear model is misspecified here."""
    rng = np.random.default_rng([seed, 59, i])
    n = n_train + N_TEST
    y = (rng.random(n) < 0.1).astype(int)
    X = np.where(y[:, None] == 1, 1.0 + 2.0 * rng.normal(size=(n, 2)), rng.normal(size=(n, 2)))
    return Split(f"quadratic_{i}", np.arange(2), X[:n_train], y[:n_train], X[n_train:], y[n_train:])


def regime_trials(kind: str, params: dict, seed: int, n_datasets: int, n_costs: int, k: int) -> tuple:
    """(splits, costs per split) of one regime drawn with ``seed``. The misspecified regime has one fixed
    matrices (0, 1; r, 0): a false alarm costs 1, missing the rare class r in ``MISS_COSTS``."""
    rng = np.random.default_rng([seed, 61, k])
    if kind == "synthetic":
        p = {**BASE, **params}
        splits = [
            synthetic_split(p["d"], p["K"], p["n_train"], seed, 1000 + 100 * k + i) for i in range(n_datasets)
        ]
        return splits, [cost_matrices(p["K"], n_costs, rng, p["skew"], s.y_train) for s in splits]
    if kind == "rare":
        splits = [rare_split(seed, i) for i in range(n_datasets)]
        costs = []
        for s in splits:
            cs = cost_matrices(4, n_costs, rng, "random", s.y_train)
            for C in cs:
                C[0] *= CRITICAL_FACTOR
            costs.append(cs)
        return splits, costs
    if kind == "quadratic":
        splits = [quadratic_split(seed, i) for i in range(n_datasets)]
        return splits, [[np.array([[0.0, 1.0], [r, 0.0]]) for r in MISS_COSTS[:n_costs]] for _ in splits]
    splits = [real_split(params["name"], seed, i) for i in range(n_datasets)]
    return splits, [cost_matrices(s.n_classes, n_costs, rng, "random", s.y_train) for s in splits]


# ---------------------------------------------------------------------------------------------------- one dataset
def linear_model():
    """scikit-learn's logistic regression on standardised features (the map's linear model)."""
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


def _calibrated(oof: np.ndarray, y, P: np.ndarray) -> dict:
    """{calibration: test posterior} from out-of-fold posteriors ``oof`` and the full model's ``P``."""
    out = {"raw": P}
    for m in CALIBRATIONS[1:]:
        out[m] = fit_calibrator(oof, y, m).predict_proba(P)
    return out


def linear_posteriors(X, y, Xt) -> dict:
    """{calibration: test posterior} of the linear model: raw, and calibrated on ``N_FOLDS`` out-of-fold fits."""
    oof = np.zeros((len(y), int(y.max()) + 1))
    for train, held in fold_indices(y, N_FOLDS, 0):
        oof[held] = linear_model().fit(X[train], y[train]).predict_proba(X[held])
    return _calibrated(oof, y, linear_model().fit(X, y).predict_proba(Xt))


def class_weights(C: np.ndarray) -> np.ndarray:
    """w_y = the mean cost of a mistake on class y, sum_k C[y, k] / (K - 1) (zero diagonal)."""
    return C.sum(axis=1) / max(C.shape[0] - 1, 1)


def weighted_decision(q: np.ndarray, C: np.ndarray) -> np.ndarray:
    """The decision of a model trained with class weights w_y: argmin_k sum_y q(y|x) C[y, k] / w_y (q is the
    weighted posterior, proportional to p(y|x) w_y)."""
    return min_risk_class(q, C / class_weights(C)[:, None])


def dataset_rows(split: Split, costs: list) -> list:
    """Every method family at every setting on one split, for each cost matrix: rows of ``COLUMNS``."""
    X, y, Xt, yt = split.X_train, split.y_train, split.X_test, split.y_test
    posts = {}
    for engine, depth, rounds in BOOST_CONFIGS:
        top = max(rounds)

        def zero_one(engine=engine, depth=depth, T=top):
            return RebelClassifier(n_estimators=T, max_depth=depth, random_state=0, **ENGINES[engine])

        oof, (test_P,) = crossfit_staged(zero_one, X, y, [Xt], rounds, N_FOLDS)
        for t in rounds:
            for m, P in _calibrated(oof[t], y, test_P[t]).items():
                posts[("two_step_boost", f"{engine} d{depth} r{t} {m}")] = P
    for m, P in linear_posteriors(X, y, Xt).items():
        posts[("two_step_linear", m)] = P
    rows = []
    for j, C in enumerate(costs):
        C = np.asarray(C, dtype=np.float64)

        def paid(pred, C=C):
            return float(C[yt, pred].mean())

        for engine, depth, rounds in BOOST_CONFIGS:
            model = RebelClassifier(
                cost_matrix=C, n_estimators=max(rounds), max_depth=depth, **ENGINES[engine]
            )
            staged = model.fit(X, y).staged_class_indices(Xt)
            for t in rounds:
                rows.append(
                    (
                        split.name,
                        j,
                        "rebel",
                        f"{engine} d{depth} r{t}",
                        paid(staged[min(t, model.n_estimators_)]),
                    )
                )
        for (family, setting), P in posts.items():
            rows.append((split.name, j, family, setting, paid(min_risk_class(P, C))))
        w = class_weights(C)[y]
        for engine, depth, rounds in WEIGHTED_CONFIGS:
            model = RebelClassifier(
                n_estimators=max(rounds), max_depth=depth, random_state=0, **ENGINES[engine]
            )
            model.fit(X, y, sample_weight=w)
            for t, q in enumerate(staged_posteriors(model, Xt), start=1):
                if t in rounds:
                    rows.append(
                        (
                            split.name,
                            j,
                            "weighted_boost",
                            f"{engine} d{depth} r{t}",
                            paid(weighted_decision(q, C)),
                        )
                    )
        q = linear_model().fit(X, y, logisticregression__sample_weight=w).predict_proba(Xt)
        rows.append((split.name, j, "weighted_linear", "C=1", paid(weighted_decision(q, C))))
    return rows


def run_grid(splits, costs, n_jobs=1, progress: Progress | None = None) -> pd.DataFrame:
    """``dataset_rows`` of every split (one task per split) as a long DataFrame of ``COLUMNS``."""
    tasks = [(i, dataset_rows, (s, cs)) for i, (s, cs) in enumerate(zip(splits, costs))]
    results = run_tasks(tasks, n_jobs, progress=progress)
    return pd.DataFrame([r for i in sorted(results) for r in results[i]], columns=COLUMNS)


# ---------------------------------------------------------------------------------------------------- selection
def select(tune: pd.DataFrame) -> pd.DataFrame:
    """Per family, the setting with the lowest mean validation cost (ties: first setting in grid order); adds
    the two pooled choices "cost-sensitive" and "two-step" (the family of each kind with the lowest)."""
    means = tune.groupby(["family", "setting"], sort=False)["cost"].mean().reset_index()
    best = means.loc[means.groupby("family", sort=False)["cost"].idxmin()].set_index("family")
    best = best.rename(columns={"cost": "val_cost"})
    out = [best]
    for pool, families in (("cost-sensitive", COST_SENSITIVE), ("two-step", TWO_STEP)):
        row = best.loc[list(families)].sort_values("val_cost", kind="stable").iloc[:1].copy()
        row["chosen_family"] = row.index
        out.append(row.set_axis([pool]))
    return pd.concat(out).rename_axis("family").reset_index()


def _costs_of(grid: pd.DataFrame, family: str, setting: str) -> pd.Series:
    g = grid[(grid["family"] == family) & (grid["setting"] == setting)]
    return g.set_index(["dataset", "cost_id"])["cost"].sort_index()


def regime_summary(held: pd.DataFrame, chosen: pd.DataFrame) -> dict:
    """One regime read once: the held-out mean cost of each family at its chosen setting (and of the paper's
    REBEL), the pooled cost-sensitive choice against the pooled two-step choice and REBEL against the pooled
    two-step (win rate and mean difference with bootstrap intervals over datasets), and the family with the
    lowest held-out mean cost."""
    c = chosen.set_index("family")
    series = {f: _costs_of(held, f, c.loc[f, "setting"]) for f in FAMILIES}
    series["rebel_paper"] = _costs_of(held, "rebel", REFERENCE[1])

    def versus(a: pd.Series, b: pd.Series) -> dict:
        t = pd.DataFrame({"a": a, "b": b}).reset_index()
        s = stats.compare_costs(t, "a", "b")
        return {k: s[k] for k in STAT_KEYS}

    cs, ts = c.loc["cost-sensitive", "chosen_family"], c.loc["two-step", "chosen_family"]
    means = {f: float(s.mean()) for f, s in series.items()}
    best = min(FAMILIES, key=means.get)
    return {
        "methods": {
            f: {"label": FAMILIES.get(f, "REBEL, paper mode, 100 stumps (not selected)"),
                "setting": c.loc[f, "setting"] if f in FAMILIES else REFERENCE[1], "cost": round(means[f], 6)}
            for f in (*FAMILIES, "rebel_paper")
        },
        "best": best,
        "cost_sensitive": cs,
        "two_step": ts,
        "cs_vs_two_step": versus(series[cs], series[ts]),
        "rebel_vs_two_step": versus(series["rebel"], series[ts]),
        "same_model": {f"{a} vs {b}": versus(series[a], series[b]) for a, b in SAME_MODEL},
    }  # fmt: skip


def chosen_from_row(row: dict) -> pd.DataFrame:
    """The chosen settings of one stored regime row, as ``select`` returns them (to summarise a stored held-out
    table again, e.g. after a comparison was added)."""
    out = [{"family": f, "setting": row["methods"][f]["setting"], "chosen_family": None} for f in FAMILIES]
    for pool, key in (("cost-sensitive", "cost_sensitive"), ("two-step", "two_step")):
        f = row[key]
        out.append({"family": pool, "setting": row["methods"][f]["setting"], "chosen_family": f})
    return pd.DataFrame(out)


def outcome(row: dict) -> str:
    """ "cost-sensitive" / "two-step" when the interval of the mean difference (chosen cost-sensitive method -
    chosen two-step) excludes 0 on that side, else "unclear"."""
    v = row["cs_vs_two_step"]
    return "cost-sensitive" if v["diff_hi"] < 0 else "two-step" if v["diff_lo"] > 0 else "unclear"


def method_map(
    seed: int, tune_seed: int, regimes=REGIMES, n_jobs: int = 1, progress: Progress | None = None
) -> tuple:
    """Every regime: tune on ``tune_seed`` (``TUNE``), read once on ``seed`` (``REPORT``). Returns ``(rows,
    held)``: one summary dict per regime (``regime_summary`` plus factor, setting and the chosen settings)
    and the long held-out grid."""
    rows, grids = [], []
    for k, (factor, setting, kind, params) in enumerate(regimes):
        tune = run_grid(*regime_trials(kind, params, tune_seed, *TUNE, k), n_jobs, progress)
        held = run_grid(*regime_trials(kind, params, seed, *REPORT, k), n_jobs, progress)
        chosen = select(tune)
        summary = regime_summary(held, chosen)
        rows.append({"factor": factor, "setting": setting, **summary, "outcome": outcome(summary)})
        grids.append(held.assign(factor=factor, regime=setting))
    return rows, pd.concat(grids, ignore_index=True)


def method_record(rows: list, command: str, seed: int, tune_seed: int) -> dict:
    """The map as a JSON-ready dict (the "methods" entry of docs/regime_map.json)."""
    return {
        "about": "Every method per regime (rebel.experiments.method_map): each family's held-out mean test cost at "
        "the setting it chose on the tuning seed; cs_vs_two_step / rebel_vs_two_step: the chosen cost-sensitive "
        "method (or REBEL) against the chosen two-step method, win rate (strictly lower cost) and mean "
        "difference with 95 % bootstrap intervals over the regime's datasets; outcome: the side the difference's "
        "interval favours, or unclear.",
        "command": command,
        "seed": int(seed),
        "tune_seed": int(tune_seed),
        "selection_rule": SELECTION_RULE,
        "families": FAMILIES,
        "rows": [_rounded(r) for r in rows],
    }


def _rounded(value):
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    value = float(value)
    return None if np.isnan(value) else round(value, 6)


SHORT = {
    "rebel": "REBEL",
    "weighted_boost": "cost-weighted boosting",
    "weighted_linear": "cost-weighted logistic",
    "two_step_boost": "two-step, boosting",
    "two_step_linear": "two-step, logistic",
    "rebel_paper": "REBEL paper mode, 100 stumps",
}


def markdown_table(record: dict) -> str:
    """The map as the Markdown table of docs/REPRODUCTION.md (the test holds the two equal): per regime, each
    family's held-out mean cost (the cheapest in bold), the chosen cost-sensitive method against the chosen
    two-step one, REBEL against that two-step one, and the outcome."""
    fams = [*record["families"], "rebel_paper"]
    head = ["factor", "setting", *(SHORT[f] for f in fams), "cost-sensitive vs two-step: wins, difference (95 % CI)",
            "REBEL vs two-step: wins, difference (95 % CI)", "outcome"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in record["rows"]:
        costs = [
            (f"**{r['methods'][f]['cost']:.4f}**" if f == r["best"] else f"{r['methods'][f]['cost']:.4f}")
            for f in fams
        ]
        pairs = []
        for key, who in (("cs_vs_two_step", SHORT[r["cost_sensitive"]]), ("rebel_vs_two_step", "REBEL")):
            v = {**r[key], "level": 0.95}
            pairs.append(f"{who} vs {SHORT[r['two_step']]}: {stats.rate_text(v)}, {stats.diff_text(v)}")
        lines.append("| " + " | ".join([r["factor"], r["setting"], *costs, *pairs, r["outcome"]]) + " |")
    return "\n".join(lines)


def markdown_same_model_table(record: dict) -> str:
    """Per regime, cost-sensitive training against the two-step method on the same model class (``SAME_MODEL``):
    win rate and mean difference with 95 % intervals, each family at its own chosen setting."""
    head = ["factor", "setting", *(f"{SHORT[a]} vs {SHORT[b]}" for a, b in SAME_MODEL)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in record["rows"]:
        cells = []
        for a, b in SAME_MODEL:
            v = {**r["same_model"][f"{a} vs {b}"], "level": 0.95}
            cells.append(
                f"{stats.rate_text(v)}; {v['a_cost']:.4f} vs {v['b_cost']:.4f}, {stats.diff_text(v)}"
            )
        lines.append("| " + " | ".join([r["factor"], r["setting"], *cells]) + " |")
    return "\n".join(lines)
