"""Honest Fig. 3: cost-sensitive REBEL against an equal-capacity two-step method, tuned and reported apart.

The protocol (docs/REPRODUCTION.md, "Beyond the paper"):

- A *variant* is a dict of ``RebelClassifier`` options beyond depth and rounds (``{}`` = the paper's
  exponential loss with binary leaves and full steps; e.g. ``{"loss": "logistic", "leaves": "vector",
  "learning_rate": 0.3}``). Both sides get the same variant, depth and rounds: REBEL trained with the cost
  matrix, against the same configuration trained with 0-1 costs whose calibrated ``predict_proba`` feeds the
  minimum-risk rule. LightGBM's two-step (its own depth and rounds) is the outside reference.
- ``capacity_grid`` evaluates every (variant, depth, rounds) on the paper's random protocol with one seed: one
  fit per side and cost matrix at the largest round count, read at every checkpoint of ``rounds`` through
  staged predictions. On ``TUNE_SEED`` the datasets' test halves are validation data: ``select_settings``
  picks each variant's depth and rounds there (lowest mean REBEL validation cost). ``report`` then reads
  those settings, once, from the grid computed on ``REPORT_SEED`` (datasets never used for tuning); the rest
  of that grid is the capacity sweep (``win_rates``), not a selection.

Rows of ``capacity_grid``: ``dataset, cost_id, variant, depth, rounds, rebel_cost, two_step_cost,
blind_cost`` (argmax of the 0-1 model, costs ignored) and ``bayes_cost``; LightGBM rows have ``variant =
"lightgbm"`` and NaN REBEL columns. Costs are mean test costs C[y, prediction] under the trial's matrix.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from rebel.baselines import available_estimators, make_estimator, staged_posteriors
from rebel.costs import min_risk_class
from rebel.data.bayes import bayes_cost
from rebel.data.mixture import PAPER_SEED
from rebel.estimator import RebelClassifier
from rebel.experiments import stats
from rebel.experiments.paper import check_variant
from rebel.experiments.runner import Progress, run_tasks
from rebel.experiments.splits import Split, protocol_splits

TUNE_SEED = PAPER_SEED  # every earlier exploration used these datasets: tuning only
REPORT_SEED = 4813  # fresh datasets and cost matrices, read once with the settings chosen on TUNE_SEED
ROUNDS = (25, 50, 100, 200, 400)
DEPTHS = (1, 2, 3)
PAPER_VARIANT: dict = {}
GRID_COLUMNS = [
    "dataset",
    "cost_id",
    "variant",
    "depth",
    "rounds",
    "rebel_cost",
    "two_step_cost",
    "blind_cost",
    "bayes_cost",
]


def variant_name(variant: dict) -> str:
    """A short, stable name of a variant dict (``"paper"`` for ``{}``), e.g. ``"leaves=vector,loss=logistic"``."""
    if not variant:
        return "paper"
    return ",".join(f"{k}={variant[k]}" for k in sorted(variant))


def parse_variant(name: str) -> dict:
    """The variant dict of ``variant_name`` (numbers come back as numbers)."""
    if name == "paper":
        return {}
    out = {}
    for part in name.split(","):
        key, _, value = part.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def variant_family(name: str) -> str:
    """The variant without its learning rate: the family within which the learning rate is also chosen."""
    parts = [p for p in name.split(",") if not p.startswith("learning_rate=")]
    return ",".join(parts) or "paper"


def default_variants() -> list:
    """Paper mode plus the engine options beyond the paper that this build of ``RebelClassifier`` offers."""
    params = RebelClassifier().get_params()
    out = [dict(PAPER_VARIANT)]
    rates = (0.3, 0.1) if "learning_rate" in params else ()
    families = [{}]
    if "leaves" in params:
        families.append({"leaves": "vector"})
    if "loss" in params:
        families += [{"loss": "logistic"}, {"loss": "logistic", "leaves": "vector"}][
            : 1 + ("leaves" in params)
        ]
    for family in families:
        if family:
            out.append(dict(family))
        out += [{**family, "learning_rate": r} for r in rates]
    return out


def _checkpoints(rounds, n_fitted: int) -> list:
    """Round counts to read, clipped to what the model trained (a fit may stop early)."""
    return [min(int(t), n_fitted) for t in rounds]


def _cost(C: np.ndarray, y: np.ndarray, pred: np.ndarray) -> float:
    return float(C[y, pred].mean())


def _rebel_side(split: Split, C, variant: dict, depth: int, rounds) -> list:
    """Test cost of REBEL trained with C at each checkpoint of ``rounds``."""
    model = RebelClassifier(cost_matrix=C, n_estimators=max(rounds), max_depth=depth, **variant)
    model.fit(split.X_train, split.y_train)
    staged = model.staged_class_indices(split.X_test)
    return [_cost(C, split.y_test, staged[t]) for t in _checkpoints(rounds, model.n_estimators_)]


def _staged_proba_at(model, X, rounds) -> dict:
    """{rounds: posterior (N, K)} of a 0-1 model at the checkpoints (the last one when it stopped early)."""
    wanted, out, P = {int(t) for t in rounds}, {}, None
    for t, P in enumerate(staged_posteriors(model, X), start=1):
        if t in wanted:
            out[t] = P
    for t in wanted - set(out):
        out[t] = P
    return out


def _two_step_side(split: Split, costs: list, model, rounds) -> dict:
    """{(cost_id, rounds): (two-step cost, cost-blind cost)} of a 0-1 model fitted on the split."""
    model.fit(split.X_train, split.y_train)
    out = {}
    for t, P in _staged_proba_at(model, split.X_test, rounds).items():
        blind = np.argmax(P, axis=1)
        for j, C in enumerate(costs):
            out[(j, t)] = (_cost(C, split.y_test, min_risk_class(P, C)), _cost(C, split.y_test, blind))
    return out


def _zero_one_model(variant: dict, depth: int, rounds) -> RebelClassifier:
    return RebelClassifier(n_estimators=max(rounds), max_depth=depth, **variant)


def _grid_tasks(splits, costs, variants, depths, rounds, lightgbm: bool) -> list:
    tasks = []
    for i, (s, cs) in enumerate(zip(splits, costs)):
        for depth in depths:
            for v, variant in enumerate(variants):
                model = _zero_one_model(variant, depth, rounds)
                tasks.append((("two", i, v, depth), _two_step_side, (s, cs, model, rounds)))
                for j, C in enumerate(cs):
                    tasks.append((("reb", i, v, depth, j), _rebel_side, (s, C, variant, depth, rounds)))
            if lightgbm:
                model = make_estimator("lightgbm", max(rounds), depth, random_state=0)
                tasks.append((("lgb", i, depth), _two_step_side, (s, cs, model, rounds)))
    return tasks


def _grid_rows(splits, costs, variants, depths, rounds, results: dict) -> list:
    rows = []
    for i, (s, cs) in enumerate(zip(splits, costs)):
        bayes = [bayes_cost(s.mixture, s.X_test, s.classes[s.y_test], C) for C in cs]
        for depth in depths:
            sides = [
                (variant_name(v), results.get(("two", i, v_idx, depth))) for v_idx, v in enumerate(variants)
            ]
            sides.append(("lightgbm", results.get(("lgb", i, depth))))
            for v_idx, (name, two) in enumerate(sides):
                if two is None:
                    continue
                for j in range(len(cs)):
                    reb = results.get(("reb", i, v_idx, depth, j)) if name != "lightgbm" else None
                    for r_idx, t in enumerate(rounds):
                        rebel = np.nan if reb is None else reb[r_idx]
                        row = (s.name, j, name, depth, t, rebel, *two[(j, t)], bayes[j])
                        rows.append(dict(zip(GRID_COLUMNS, row)))
    return rows


def capacity_grid(
    seed: int = TUNE_SEED,
    n_datasets: int = 10,
    n_costs: int = 5,
    variants=(PAPER_VARIANT,),
    depths=DEPTHS,
    rounds=ROUNDS,
    lightgbm: bool = True,
    n_jobs: int | None = 2,
    backend: str | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Every (variant, depth, rounds) on ``n_datasets`` random datasets x ``n_costs`` cost matrices of the
    paper's protocol drawn with ``seed`` (1000 training / 500 test points; see the module docstring)."""
    rounds = sorted({int(t) for t in rounds})
    variants = [check_variant(v) for v in variants]
    splits, costs = protocol_splits(n_datasets, n_costs, seed)
    use_lgb = lightgbm and "lightgbm" in available_estimators()
    tasks = _grid_tasks(splits, costs, variants, depths, rounds, use_lgb)
    results = run_tasks(tasks, n_jobs, backend, progress)
    df = pd.DataFrame(_grid_rows(splits, costs, variants, depths, rounds, results), columns=GRID_COLUMNS)
    df["win"] = df["rebel_cost"] < df["two_step_cost"]
    df["tie"] = df["rebel_cost"] == df["two_step_cost"]
    return df


def win_rates(grid: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, depth, rounds): trials, REBEL's win rate against the equal-capacity two-step and against
    the cost-blind argmax, ties, and the mean costs (the capacity sweep)."""
    reb = grid[grid["variant"] != "lightgbm"]
    out = reb.groupby(["variant", "depth", "rounds"]).agg(
        trials=("win", "size"),
        win_rate=("win", "mean"),
        tie_rate=("tie", "mean"),
        win_vs_blind=("rebel_cost", lambda s: float((s < reb.loc[s.index, "blind_cost"]).mean())),
        rebel_cost=("rebel_cost", "mean"),
        two_step_cost=("two_step_cost", "mean"),
        blind_cost=("blind_cost", "mean"),
        bayes_cost=("bayes_cost", "mean"),
    )
    return out.reset_index()


def select_settings(tune_grid: pd.DataFrame) -> pd.DataFrame:
    """Each variant's (depth, rounds) with the lowest mean REBEL validation cost on the tuning grid (ties: the
    smaller model), and LightGBM's (depth, rounds) with its lowest two-step validation cost. Also records the
    two-step side's own best setting (``two_step_depth``, ``two_step_rounds``) for the separately-tuned row."""
    rows = []
    for name, g in tune_grid.groupby("variant", sort=False):
        means = g.groupby(["depth", "rounds"])[["rebel_cost", "two_step_cost"]].mean().reset_index()
        key = "two_step_cost" if name == "lightgbm" else "rebel_cost"
        best = means.sort_values([key, "depth", "rounds"], kind="stable").iloc[0]
        own = means.sort_values(["two_step_cost", "depth", "rounds"], kind="stable").iloc[0]
        rows.append(
            {
                "variant": name,
                "family": "lightgbm" if name == "lightgbm" else variant_family(name),
                "depth": int(best["depth"]),
                "rounds": int(best["rounds"]),
                "val_rebel_cost": best["rebel_cost"],
                "val_two_step_cost": best["two_step_cost"],
                "two_step_depth": int(own["depth"]),
                "two_step_rounds": int(own["rounds"]),
            }
        )
    out = pd.DataFrame(rows)
    best = out.groupby("family")["val_rebel_cost"].transform("min")
    out["family_choice"] = (out["val_rebel_cost"] == best) & (out["variant"] != "lightgbm")
    return out


def _cell(grid: pd.DataFrame, name: str, depth, rounds) -> pd.DataFrame:
    """The trials of one (variant, depth, rounds) cell, in (dataset, cost_id) order."""
    g = grid[(grid["variant"] == name) & (grid["depth"] == depth) & (grid["rounds"] == rounds)]
    return g.sort_values(["dataset", "cost_id"]).reset_index(drop=True)


def report(report_grid: pd.DataFrame, settings: pd.DataFrame) -> pd.DataFrame:
    """The held-out result: for each variant, at the settings chosen on validation, REBEL's win rate against
    the equal-capacity two-step, against the two-step tuned on its own, against LightGBM's two-step (at its
    own chosen settings) and against the cost-blind rule, with the mean test costs and Bayes."""
    chosen = settings.set_index("variant")

    def at(name, depth, rounds):
        return _cell(report_grid, name, depth, rounds)

    lgb = None
    if "lightgbm" in chosen.index:
        lgb = at("lightgbm", chosen.loc["lightgbm", "depth"], chosen.loc["lightgbm", "rounds"])
    rows = []
    for name, s in chosen.iterrows():
        if name == "lightgbm":
            continue
        g = at(name, s["depth"], s["rounds"])
        own = at(name, s["two_step_depth"], s["two_step_rounds"])
        row = {
            "variant": name,
            "family_choice": bool(s["family_choice"]),
            "depth": s["depth"],
            "rounds": s["rounds"],
            "trials": len(g),
            "win_rate": g["win"].mean(),
            "win_vs_own_tuned": (g["rebel_cost"] < own["two_step_cost"]).mean(),
            "win_vs_blind": (g["rebel_cost"] < g["blind_cost"]).mean(),
            "rebel_cost": g["rebel_cost"].mean(),
            "two_step_cost": g["two_step_cost"].mean(),
            "own_tuned_two_step_cost": own["two_step_cost"].mean(),
            "bayes_cost": g["bayes_cost"].mean(),
        }
        if lgb is not None:
            row["win_vs_lightgbm"] = (g["rebel_cost"] < lgb["two_step_cost"]).mean()
            row["lightgbm_cost"] = lgb["two_step_cost"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


INTERVAL_KEYS = ("trials", "datasets", "win_rate", "win_lo", "win_hi", "a_cost", "b_cost", "diff", "diff_lo",
                 "diff_hi", "level")  # fmt: skip


def _versus(rebel: pd.DataFrame, base_cost) -> dict:
    t = pd.DataFrame({"dataset": rebel["dataset"], "rebel_cost": rebel["rebel_cost"], "base_cost": base_cost})
    s = stats.compare_costs(t, "rebel_cost", "base_cost")
    return {k: s[k] for k in INTERVAL_KEYS}


def report_intervals(report_grid: pd.DataFrame, settings: pd.DataFrame) -> pd.DataFrame:
    """``report``'s win rates with their intervals: per variant at its chosen settings and per baseline
    (equal-capacity two-step, two-step tuned apart, LightGBM two-step, cost-blind argmax), ``stats.compare_costs``
    of REBEL against it (bootstrap over the held-out datasets; ``a_cost`` REBEL's, ``b_cost`` the baseline's)."""
    chosen = settings.set_index("variant")
    lgb = None
    if "lightgbm" in chosen.index:
        lgb = _cell(
            report_grid, "lightgbm", chosen.loc["lightgbm", "depth"], chosen.loc["lightgbm", "rounds"]
        )
    rows = []
    for name, s in chosen.iterrows():
        if name == "lightgbm":
            continue
        g = _cell(report_grid, name, s["depth"], s["rounds"])
        own = _cell(report_grid, name, s["two_step_depth"], s["two_step_rounds"])
        baselines = {
            "equal-capacity two-step": g["two_step_cost"],
            "two-step tuned apart": own["two_step_cost"],
        }
        if lgb is not None:
            baselines["LightGBM two-step"] = lgb["two_step_cost"]
        baselines["cost-blind argmax"] = g["blind_cost"]
        for label, cost in baselines.items():
            row = {"variant": name, "depth": s["depth"], "rounds": s["rounds"], "baseline": label}
            rows.append({**row, **_versus(g, cost.to_numpy())})
    return pd.DataFrame(rows)


def sweep_intervals(report_grid: pd.DataFrame) -> pd.DataFrame:
    """Every (variant, depth, rounds) cell: REBEL against the equal-capacity two-step, with intervals."""
    rows = []
    reb = report_grid[report_grid["variant"] != "lightgbm"]
    for (name, depth, rounds), _ in reb.groupby(["variant", "depth", "rounds"], sort=True):
        g = _cell(reb, name, depth, rounds)
        rows.append(
            {"variant": name, "depth": depth, "rounds": rounds, **_versus(g, g["two_step_cost"].to_numpy())}
        )
    return pd.DataFrame(rows)


__all__ = [
    "DEPTHS",
    "REPORT_SEED",
    "ROUNDS",
    "TUNE_SEED",
    "capacity_grid",
    "default_variants",
    "parse_variant",
    "report",
    "report_intervals",
    "select_settings",
    "sweep_intervals",
    "variant_family",
    "variant_name",
    "win_rates",
]
