"""The ``reproduce`` sub-commands beyond the paper: their options and their text reports.

``python -m rebel reproduce honest|surrogate|example-costs|fig7|calibrated|digits`` (and the engine options of ``reproduce fig3``)
are defined here so the command-line module only registers them. Each runner takes the parsed arguments and a
``progress(done, total, label)`` callback and returns ``(per-trial DataFrame, summary text, headline)``.
"""

from __future__ import annotations

import argparse
import json
import math

import pandas as pd

from rebel.cli_args import float_param_type, int_at_least, output_file, param_type, write_text
from rebel.experiments import calibrated as cal
from rebel.experiments import convergence as cv
from rebel.experiments import diagnostics as diag
from rebel.experiments import digits as dg
from rebel.experiments import honest, readings, stats
from rebel.experiments import method_map as mm
from rebel.experiments.diagnostics import SCORE_TRANSFORMS, ScorePosterior
from rebel.params import CHOICE_PARAMS

NAIVE_POSTERIORS = tuple(f"rebel-{t}" for t in SCORE_TRANSFORMS)
DEFAULT_ROUNDS = {
    "honest": 100,
    "surrogate": 100,
    "example-costs": 100,
    "fig7": 100,
    "calibrated": 200,
    "digits": 400,
    "methods": 100,
}


def _floats(value: str) -> tuple:
    """``--lambdas``: comma-separated finite numbers >= 0."""
    try:
        out = tuple(float(v) for v in value.split(","))
    except ValueError:
        out = ()
    if not out or not all(math.isfinite(v) and v >= 0 for v in out):
        raise argparse.ArgumentTypeError(f"give comma-separated numbers >= 0, e.g. 1.5,3,5; got {value!r}.")
    return out


def _ints(value: str) -> tuple:
    """``--rounds-grid``: comma-separated round counts in the engine's range, increasing."""
    items = [v.strip() for v in value.split(",")]
    out = tuple(param_type("n_estimators")(v) for v in items)
    if list(out) != sorted(set(out)):
        raise argparse.ArgumentTypeError(f"give increasing round counts, e.g. 25,50,100; got {value!r}.")
    return out


def add_arguments(rep) -> None:
    """The options of the experiments beyond the paper, on the ``reproduce`` parser."""
    rep.add_argument(
        "--loss",
        choices=CHOICE_PARAMS["loss"],
        default=None,
        help="fig3: loss of both REBEL sides (exp = paper, logistic)",
    )
    rep.add_argument(
        "--leaves",
        choices=CHOICE_PARAMS["leaves"],
        default=None,
        help="fig3: leaf values (binary = paper, vector)",
    )
    rep.add_argument(
        "--learning-rate",
        type=float_param_type("learning_rate"),
        default=None,
        help="fig3: shrinkage of both REBEL sides",
    )
    rep.add_argument(
        "--variants",
        default=None,
        help="honest: ';'-separated variants, e.g. 'paper;loss=logistic,learning_rate=0.3' "
        "(default: paper mode and every engine option this build offers)",
    )
    rep.add_argument(
        "--rounds-grid",
        type=_ints,
        default=honest.ROUNDS,
        help="honest: round checkpoints (default: 25,...,400)",
    )
    rep.add_argument(
        "--tune-seed",
        type=int_at_least(0, "the tuning seed"),
        default=honest.TUNE_SEED,
        help="honest: tuning seed",
    )
    rep.add_argument(
        "--tune-costs",
        type=int_at_least(1, "the number of tuning cost matrices"),
        default=5,
        help="honest: cost matrices per tuning dataset",
    )
    rep.add_argument(
        "--regimes",
        type=output_file,
        default=None,
        help="calibrated: write the regime map (JSON, read by the app's REBEL vs two-step page) to this file; "
        'methods: store the every-method map as its "methods" entry (the file\'s other entries kept)',
    )
    rep.add_argument(
        "--rebel-rounds",
        type=param_type("n_estimators"),
        default=None,
        help="surrogate: train REBEL to this many rounds and print its training loss and cost curves against "
        "the mapped two-step model (whose posterior keeps --rounds)",
    )
    rep.add_argument(
        "--readings",
        action="store_true",
        help="fig3: REBEL against several two-step posteriors (sigma(2H), softmax, 1-vs-all at equal total "
        "stumps, SAMME raw and temperature-calibrated) at 5, 10, 25 and 100 stumps (ignores --rounds, "
        "--posterior and the engine options)",
    )
    rep.add_argument(
        "--lambdas", type=_floats, default=diag.LAMBDAS, help="example-costs: strengths (default: 1.5,3,5)"
    )


def fig3_variant(args) -> dict:
    """The engine options of ``reproduce fig3`` (``{}``: paper mode)."""
    options = {"loss": args.loss, "leaves": args.leaves, "learning_rate": args.learning_rate}
    return {k: v for k, v in options.items() if v is not None}


def fig3_posterior(args):
    """``--posterior``: a name of ``rebel.baselines.ESTIMATORS`` or a naive score posterior (rebel-softmax)."""
    if args.posterior in NAIVE_POSTERIORS:
        return ScorePosterior(args.rounds, args.depth, args.posterior.removeprefix("rebel-"))
    return args.posterior


def run_fig3_readings(args, progress) -> tuple:
    """``reproduce fig3 --readings`` (``rebel.experiments.readings``): ``--datasets`` x ``--costs`` trials."""
    n_datasets = 10 if args.datasets is None else int(args.datasets)
    df = readings.fig3_readings(n_datasets, args.costs, seed=args.seed, progress=progress)
    table = readings.readings_table(df)
    majority = table[table["win_rate"] > 0.5]
    headline = (
        f"Fig. 3 readings, {n_datasets} datasets x {args.costs} costs: REBEL wins a majority against "
        + (
            "; ".join(
                f"{readings.READINGS[r['reading']]} at {r['stumps']} stumps ({stats.rate_text(r, 1)})"
                for r in majority.to_dict("records")
            )
            or "no reading"
        )
        + "."
    )
    return df, readings.readings_text(table), headline


def _run_honest(args, progress) -> tuple:
    variants = [honest.parse_variant(v) for v in args.variants.split(";")] if args.variants else None
    variants = variants or honest.default_variants()
    depths = args.depths if args.depths is not None else honest.DEPTHS
    n_datasets = int(args.datasets or 10)
    grid = {"variants": variants, "depths": depths, "rounds": args.rounds_grid, "n_jobs": args.jobs}
    tune = honest.capacity_grid(args.tune_seed, n_datasets, args.tune_costs, **grid, progress=progress)
    held = honest.capacity_grid(args.seed, n_datasets, args.costs, **grid, progress=progress)
    settings = honest.select_settings(tune)
    result = honest.report(held, settings)
    sweep = honest.win_rates(held)
    cells = sweep.pivot_table(index=["variant", "depth"], columns="rounds", values="win_rate").round(3)
    costs = sweep.assign(
        cost=sweep["rebel_cost"].map("{:.3f}".format) + " / " + sweep["two_step_cost"].map("{:.3f}".format)
    )
    costs = costs.pivot(index=["variant", "depth"], columns="rounds", values="cost")
    # Cross-variant rule, fixed before the run: the variant with the lowest REBEL validation cost on the tuning
    # seed (never the held-out win rate), read once on the held-out seed.
    chosen = settings[settings["variant"] != "lightgbm"].sort_values("val_rebel_cost", kind="stable").iloc[0]
    best = result.set_index("variant").loc[chosen["variant"]]
    text = (
        f"Settings chosen on validation (tuning seed {args.tune_seed}, {args.tune_costs} costs per dataset):\n"
        + settings.round(4).to_string(index=False)
        + f"\n\nHeld-out report (seed {args.seed}, read once at the chosen settings):\n"
        + result.round(4).to_string(index=False)
        + "\n\nCapacity sweep on the held-out datasets (REBEL win rate; every cell, not a selection):\n"
        + cells.to_string()
        + "\n\nMean test costs REBEL / equal-capacity two-step in the same cells:\n"
        + costs.to_string()
        + "\n\nHeld-out win rates with intervals (bootstrap over the held-out datasets), at the chosen settings:\n"
        + _stat_table(honest.report_intervals(held, settings)).to_string(index=False)
        + "\n\nCapacity sweep with intervals (REBEL against the equal-capacity two-step):\n"
        + _stat_table(honest.sweep_intervals(held)).to_string(index=False)
    )
    ints = honest.report_intervals(held, settings)
    ints = ints[ints["variant"] == chosen["variant"]].set_index("baseline")
    against = "; ".join(
        f"{stats.rate_text(r.to_dict())} against the {label} (its mean cost {r['b_cost']:.4f})"
        for label, r in ints.iterrows()
    )
    headline = (
        f"Variant chosen on validation (lowest REBEL validation cost): {chosen['variant']} (depth "
        f"{best['depth']}, {best['rounds']} rounds, held-out mean cost {best['rebel_cost']:.4f}); held out over "
        f"{best['trials']} trials REBEL wins {against} (bootstrap over the held-out datasets)."
    )
    return held, text, headline


def _trials(args) -> diag.Trials:
    return diag.Trials(int(args.datasets or 10), args.costs, args.rounds, args.depth, args.seed)


def _run_surrogate(args, progress) -> tuple:
    if getattr(args, "rebel_rounds", None):
        return _run_surrogate_curves(args, progress)
    df = diag.surrogate_diagnostic(_trials(args), args.jobs, progress)
    means = df[["rebel_loss", "mapped_loss", "rebel_train_cost", "two_step_train_cost"]].mean()
    headline = (
        "The two-step model mapped into REBEL's score space has the lower REBEL training loss in "
        f"{int(df['mapped_lower'].sum())} of {len(df)} trials (mean {means['mapped_loss']:.4f} against REBEL's "
        f"own {means['rebel_loss']:.4f}); training cost REBEL {means['rebel_train_cost']:.4f} against two-step "
        f"{means['two_step_train_cost']:.4f}."
    )
    return df, df.round(4).to_string(index=False), headline


def _run_surrogate_curves(args, progress) -> tuple:
    """``surrogate --rebel-rounds T``: REBEL's training loss and cost along its rounds up to T against the mapped
    two-step model (posterior with ``--rounds`` rounds), trial by trial (``rebel.experiments.convergence``)."""
    df = cv.surrogate_curves(_trials(args), args.rebel_rounds, args.jobs, progress)
    table = cv.curve_table(df)
    last = df[df["rounds"] == df["rounds"].max()]
    headline = (
        f"After {int(last['rounds'].iloc[0])} rounds REBEL's training loss is below the mapped two-step model's "
        f"in {int(last['loss_below'].sum())} of {len(last)} trials (mean {last['rebel_loss'].mean():.4f} against "
        f"{last['mapped_loss'].mean():.4f}); its training cost is below the two-step's in "
        f"{int(last['cost_below'].sum())} of {len(last)} (mean {last['rebel_train_cost'].mean():.4f} against "
        f"{last['two_step_train_cost'].mean():.4f})."
    )
    per_trial = last[
        ["dataset", "cost_id", "rebel_loss", "mapped_loss", "rebel_train_cost", "two_step_train_cost"]
    ]
    text = (
        "Mean over trials per round count (loss_below / cost_below: trials where REBEL is below the mapped "
        "two-step):\n"
        + table.round(4).to_string()
        + "\n\nPer trial at the last round count:\n"
        + per_trial.round(4).to_string(index=False)
    )
    return df, text, headline


EXAMPLE_BASELINES = {
    "two_step_cost": "class-averaged two-step",
    "regressed_cost": "cost-regressing two-step (kNN, k = 30)",
    "weighted_cost": "cost-weighted two-step",
}


def _run_example_costs(args, progress) -> tuple:
    df = diag.example_cost_trials(args.lambdas, _trials(args), args.jobs, progress)
    rows = []
    for lam, g in df.groupby("lambda"):
        for col, label in EXAMPLE_BASELINES.items():
            s = stats.compare_costs(g, "rebel_cost", col)
            rows.append({"lambda": lam, "baseline": label, **{k: s[k] for k in cal.STAT_KEYS}})
    table = pd.DataFrame(rows)
    strongest = table.loc[table.groupby("lambda")["b_cost"].idxmin()]
    wins = "; ".join(
        f"lambda {r['lambda']:g}: REBEL wins {stats.rate_text(r)} against the strongest two-step "
        f"({r['baseline']}, mean cost {r['b_cost']:.4f} vs REBEL {r['a_cost']:.4f})"
        for r in strongest.to_dict("records")
    )
    bayes = df.groupby("lambda")["bayes_cost"].mean().round(4).to_string()
    return df, _stat_table(table).to_string(index=False) + "\n\nBayes rule mean cost:\n" + bayes, wins + "."


def _stat_table(df):
    out = df.copy()
    out["win rate (95% CI)"] = [stats.rate_text(r) for r in df.to_dict("records")]
    out["REBEL - baseline (95% CI)"] = [stats.diff_text(r) for r in df.to_dict("records")]
    keep = [c for c in out.columns if c not in cal.STAT_DETAIL]
    return out[keep].rename(columns={"a_cost": "rebel_cost", "b_cost": "baseline_cost"}).round(4)


def _run_calibrated(args, progress) -> tuple:
    """REBEL against the calibrated two-step (``rebel.experiments.calibrated``): ``--datasets`` random mixtures
    x ``--costs`` matrices on the tuning and the held-out seed, then the regime map (half as many datasets,
    at least 3, x 5 cost matrices per regime) and the capacity map."""
    n_datasets = int(args.datasets or 8)
    n_costs = args.costs  # the documented run: --costs 10
    chosen, _, held = cal.tune_and_hold_out(
        n_datasets, n_costs, args.tune_seed, args.seed, args.jobs, progress
    )
    main = cal.compare(held, chosen)
    regimes, regime_grid = cal.regime_map(chosen, args.seed, max(3, n_datasets // 2), 5, args.jobs, progress)
    capacity = cal.capacity_map(held)
    eces = held[held["method"].isin(cal.POSTERIOR_METHODS)].groupby("method")["ece"].mean()
    text = "\n\n".join(
        [
            cal.SELECTION_RULE,
            f"Chosen on the tuning seed {args.tune_seed} ({n_datasets} random mixtures x {n_costs} costs):\n"
            + chosen.round(4).to_string(index=False),
            f"Held-out (seed {args.seed}, fresh random mixtures, read once): REBEL at its chosen configuration "
            "against each baseline:\n" + _stat_table(main).to_string(index=False),
            "Mean class-wise calibration error (ECE) of the two-step posteriors on the held-out test points "
            "(all cells):\n" + eces.round(4).to_string(),
            "Regime map (chosen configurations, fresh data, one factor at a time; REBEL vs calibrated "
            "two-step):\n" + _stat_table(regimes).to_string(index=False),
            "Capacity map on the held-out mixtures (every cell, REBEL vs the best calibration at the same "
            "cell; a sweep, not a selection):\n" + _stat_table(capacity).to_string(index=False),
        ]
    )
    top = main.iloc[0]
    n_win = int((regimes["diff_hi"] < 0).sum())
    headline = (
        f"Held-out: REBEL beats the calibrated two-step in {stats.rate_text(top.to_dict())} of "
        f"{int(top['trials'])} trials; mean cost REBEL {top['a_cost']:.4f} vs calibrated two-step "
        f"{top['b_cost']:.4f}, difference {stats.diff_text(top.to_dict())}. "
        f"Regimes where REBEL is cheaper (interval below 0): {n_win} of {len(regimes)}."
    )
    if getattr(args, "regimes", None):
        command = (
            f"python -m rebel reproduce calibrated --datasets {n_datasets} --costs {n_costs} "
            f"--seed {args.seed} --tune-seed {args.tune_seed}"
        )
        record = cal.regime_record(regimes, chosen, command, args.seed, args.tune_seed)
        write_text(args.regimes, json.dumps(record, indent=1) + "\n")
    trials = pd.concat([held.assign(part="held-out"), regime_grid.assign(part="regime")], ignore_index=True)
    return trials, text, headline


def _run_methods(args, progress) -> tuple:
    """The regime map with every method (``rebel.experiments.method_map``); ``--regimes FILE`` stores it as the
    "methods" entry of that regime-map file (other entries kept)."""
    rows, held = mm.method_map(args.seed, args.tune_seed, n_jobs=args.jobs, progress=progress)
    lines = [mm.SELECTION_RULE, ""]
    for r in rows:
        v, w = r["cs_vs_two_step"], r["rebel_vs_two_step"]
        costs = ", ".join(f"{f} {m['cost']:.4f} ({m['setting']})" for f, m in r["methods"].items())
        lines += [
            (
                f"{r['factor']}: {r['setting']} ({v['trials']} trials, {v['datasets']} datasets) -> lowest mean cost: "
                f"{r['best']}; outcome {r['outcome']}"
            ),
            f"  mean test cost: {costs}",
            (
                f"  cost-sensitive ({r['cost_sensitive']}) vs two-step ({r['two_step']}): wins "
                f"{stats.rate_text(v)}, difference {stats.diff_text(v)}"
            ),
            f"  REBEL vs two-step ({r['two_step']}): wins {stats.rate_text(w)}, difference {stats.diff_text(w)}",
            *(
                f"  same model class, {pair}: wins {stats.rate_text(x)}, difference {stats.diff_text(x)}"
                for pair, x in r["same_model"].items()
            ),
        ]
    wins = [f"{r['factor']} ({r['setting']})" for r in rows if r["outcome"] == "cost-sensitive"]
    rebel_wins = [r["setting"] for r in rows if r["rebel_vs_two_step"]["diff_hi"] < 0]
    headline = (
        f"Regimes where the chosen cost-sensitive method is cheaper than the chosen two-step (interval below 0): "
        f"{len(wins)} of {len(rows)}"
        + (f" ({'; '.join(wins)})" if wins else "")
        + f"; where REBEL is: {len(rebel_wins)} of {len(rows)}."
    )
    if getattr(args, "regimes", None):
        command = f"python -m rebel reproduce methods --seed {args.seed} --tune-seed {args.tune_seed}"
        record = {}
        try:
            with open(args.regimes, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            record = {}
        record = record if isinstance(record, dict) else {}
        record["methods"] = mm.method_record(rows, command, args.seed, args.tune_seed)
        write_text(args.regimes, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return held, "\n".join(lines), headline


def _run_digits(args, progress) -> tuple:
    """Why cost-sensitive REBEL loses on digits (``rebel.experiments.digits``): ``--datasets`` half / half splits
    x ``--costs`` random matrices (the documented run: 3 x 5), every study, rounds 25..400."""
    df, per_class = dg.run(args.seed, int(args.datasets or dg.N_SPLITS), args.costs, n_jobs=args.jobs,
                           progress=progress)  # fmt: skip
    last = max(dg.ROUNDS)
    link = dg.class_weight_link(per_class)
    text = "\n\n".join(
        [
            "Mean cost per round (train and test; rebel = trained with the costs, two_step = 0-1 model + "
            "minimum-risk rule, blind = 0-1 model's argmax, lightgbm = LightGBM two-step, depth 3):\n"
            + dg.curves(df).to_string(),
            "0-1 error per round:\n" + dg.curves(df, "error").to_string(),
            "REBEL's largest step max_k |a_k| over its first t rounds (mean over trials):\n"
            + dg.step_sizes(df).to_string(),
            f"Test, {last} rounds: REBEL against the cost-blind argmax of the same 0-1 model (bootstrap over "
            "splits that share points: optimistic intervals):\n"
            + dg.versus(df, last).round(4).to_string(index=False),
            f"Test, {last} rounds: REBEL against the two-step method of the same 0-1 model:\n"
            + dg.versus(df, last, b="two_step").round(4).to_string(index=False),
            f"Per true class ({dg.CLASS_SETTING}, {last} rounds): Spearman correlation of REBEL's excess cost "
            "over the two-step method with the class's cost row:\n"
            + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in link.items()),
        ]
    )
    test = df[(df["part"] == "test") & (df["rounds"] == last) & df["study"].isin(dg.SAME_COSTS)]
    means = test.groupby(["setting", "method"])["cost"].mean()
    best = means.xs("rebel", level="method").idxmin()
    headline = (
        f"Digits, {last} rounds: REBEL's lowest mean test cost {means[(best, 'rebel')]:.4f} ({best}) against "
        f"the cost-blind argmax {means[(best, 'blind')]:.4f} and the two-step method "
        f"{means[(best, 'two_step')]:.4f} of the same 0-1 model."
    )
    return df, text, headline


def _run_fig7(args, progress) -> tuple:
    df = diag.fig7_counts(args.rounds, args.depth)
    headline = f"fig7 preset; REBEL with {args.rounds} rounds of depth {args.depth} per cost matrix."
    return df, df.round(4).to_string(index=False), headline


RUNNERS = {
    "honest": _run_honest,
    "surrogate": _run_surrogate,
    "example-costs": _run_example_costs,
    "fig7": _run_fig7,
    "calibrated": _run_calibrated,
    "digits": _run_digits,
    "methods": _run_methods,
}
SEEDS = {
    "honest": honest.REPORT_SEED,
    "calibrated": cal.REPORT_SEED,
    "digits": cal.REPORT_SEED,
    "methods": cal.REPORT_SEED,
}  # experiments whose --seed defaults to another seed than the paper's

__all__ = [
    "DEFAULT_ROUNDS",
    "NAIVE_POSTERIORS",
    "RUNNERS",
    "SEEDS",
    "add_arguments",
    "fig3_posterior",
    "fig3_variant",
    "run_fig3_readings",
]
