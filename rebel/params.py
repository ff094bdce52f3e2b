"""The one table of parameter limits (scikit-learn ``_parameter_constraints`` style).

The estimator, the command line, the app's widgets and the session/link validation all read it, so a limit is
written once. ``low``/``high`` bound what the engine accepts; ``app_high`` bounds what the interactive app offers
(it retrains on every change, so it stays smaller); ``default`` is the estimator's default and ``app_default``
the app's starting value.
"""

from __future__ import annotations

import numbers
import reprlib
from dataclasses import dataclass

MAX_CLASSES = 50  # every reader (CSV, model file, session) and the estimator refuse more classes
MAX_THRESHOLDS = 255  # bin codes are uint8
MAX_DEPTH = 8
MAX_ROUNDS = 100_000
MAX_APP_POINTS = 20_000  # points of a Playground dataset: it retrains on every change
MAX_SAMPLED_POINTS = 200_000  # points sampled from a mixture outside the Playground


@dataclass(frozen=True)
class IntParam:
    """An integer hyper-parameter: engine range [low, high], app range [low, app_high]."""

    name: str
    low: int
    high: int
    default: int
    app_high: int
    app_default: int
    help: str

    def check(self, value, *, app: bool = False) -> int:
        """``value`` as an int, or a ValueError naming the parameter, the value and the accepted range."""
        high = self.app_high if app else self.high
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(  # noqa: TRY004 (parameter errors are ValueErrors, as in scikit-learn)
                f"{self.name} must be a whole number in [{self.low}, {high}]; got {reprlib.repr(value)}."
            )
        if not self.low <= value <= high:
            raise ValueError(f"{self.name} must be in [{self.low}, {high}]; got {value}. {self.help}")
        return int(value)


INT_PARAMS: dict[str, IntParam] = {
    p.name: p
    for p in (
        IntParam("n_estimators", 1, MAX_ROUNDS, 100, 1000, 100, "The number of boosting rounds T."),
        IntParam(
            "max_depth", 1, MAX_DEPTH, 1, 4, 2, "The depth of each round's tree (1 = stumps, paper Sec. 4)."
        ),
        IntParam(
            "n_thresholds",
            1,
            MAX_THRESHOLDS,
            200,
            MAX_THRESHOLDS,
            200,
            "Candidate thresholds per feature (bin codes are uint8).",
        ),
    )
}

APP_DEFAULTS = {name: p.app_default for name, p in INT_PARAMS.items()}


def check_param(name: str, value, *, app: bool = False) -> int:
    """Check one integer hyper-parameter against the table (``app=True``: the app's narrower range)."""
    return INT_PARAMS[name].check(value, app=app)


def check_n_classes(n_classes: int, where: str = "the labels") -> int:
    """Refuse more than MAX_CLASSES classes (cost arrays grow as K^2; staged class indices are int16)."""
    if n_classes > MAX_CLASSES:
        raise ValueError(
            f"{where} has {n_classes} classes; REBEL Explorer takes at most {MAX_CLASSES}. "
            "Merge rare classes or drop some."
        )
    return n_classes


# ---------------------------------------------------------------- engine options beyond the paper (variants)


@dataclass(frozen=True)
class FloatParam:
    """A real hyper-parameter in (low, high] (``closed_low``: [low, high]; ``open_high``: (low, high))."""

    name: str
    low: float
    high: float
    default: float
    help: str
    closed_low: bool = False
    open_high: bool = False

    @property
    def interval(self) -> str:
        """The accepted range as an interval, e.g. ``(0, 1]``."""
        return f"{'[' if self.closed_low else '('}{self.low:g}, {self.high:g}{')' if self.open_high else ']'}"

    def check(self, value) -> float:
        """``value`` as a float, or a ValueError naming the parameter, the value and the accepted range."""
        rng = self.interval
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"{self.name} must be a number in {rng}; got {reprlib.repr(value)}.")  # noqa: TRY004
        v = float(value)
        above = v >= self.low if self.closed_low else v > self.low
        below = v < self.high if self.open_high else v <= self.high
        if not (above and below):  # also refuses NaN
            raise ValueError(f"{self.name} must be in {rng}; got {reprlib.repr(value)}. {self.help}")
        return v


FLOAT_PARAMS: dict[str, FloatParam] = {
    p.name: p
    for p in (
        FloatParam(
            "learning_rate", 0.0, 1.0, 1.0, "Shrinkage of every round's step (1 = the paper's full step)."
        ),
        FloatParam(
            "l2_regularization",
            0.0,
            1e6,
            0.0,
            "Added to the hessian of every leaf value and split gain of a variant, in units of the largest cost "
            "(0 = none; scikit-learn's HistGradientBoosting l2_regularization).",
            closed_low=True,
        ),
        FloatParam(
            "validation_fraction",
            0.0,
            1.0,
            0.1,
            "Share of the training set held out to score early stopping (validation cost).",
            open_high=True,
        ),
    )
}

# name -> accepted values; the first is the default (paper mode).
CHOICE_PARAMS: dict[str, tuple[str, ...]] = {
    "loss": ("exp", "logistic"),
    "leaves": ("binary", "vector"),
    "binning": ("uniform", "quantile"),
}

# Rounds without a lower validation cost before early stopping ends training (None = no early stopping).
N_ITER_NO_CHANGE = IntParam(
    "n_iter_no_change",
    1,
    10_000,
    10,
    100,
    10,
    "Rounds without a lower validation cost before training stops.",
)


# The fewest training rows a split may leave on either side (variants only; 1 = no constraint).
MIN_SAMPLES_LEAF = IntParam(
    "min_samples_leaf",
    1,
    1_000_000,
    1,
    100,
    1,
    "The fewest training rows a variant's split may leave on either side (1 = no constraint).",
)

# The options that only the variants (loss="logistic" or leaves="vector") use, with their no-op values.
VARIANT_ONLY = {"l2_regularization": 0.0, "min_samples_leaf": 1}


def check_variant_only(loss: str, leaves: str, values: dict, *, cli: bool = False) -> None:
    """Refuse a variant-only option (``VARIANT_ONLY``) set away from its default in paper mode (exp + binary),
    naming the option, its value and the two ways out (``cli``: as the command line's flags)."""
    if (loss, leaves) != ("exp", "binary"):
        return
    for name, default in VARIANT_ONLY.items():
        if values[name] != default:
            if cli:
                flag = "--" + name.replace("_", "-")
                raise ValueError(
                    f"{flag} {values[name]!r} applies only to the variants beyond the paper, but --loss exp with "
                    f"--leaves binary is paper mode, which has no regularisation. Add --loss logistic or "
                    f"--leaves vector, or drop {flag}."
                )
            raise ValueError(
                f"{name}={values[name]!r} applies only to the variants beyond the paper, but loss='exp' and "
                f"leaves='binary' is paper mode, which has no regularisation. Set loss='logistic' or "
                f"leaves='vector', or leave {name} at {default!r}."
            )


def check_float(name: str, value) -> float:
    """Check one real hyper-parameter against ``FLOAT_PARAMS``."""
    return FLOAT_PARAMS[name].check(value)


def check_choice(name: str, value) -> str:
    """``value`` if it is one of ``CHOICE_PARAMS[name]``, else a ValueError listing the choices."""
    choices = CHOICE_PARAMS[name]
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {reprlib.repr(value)}.")
    return value


# ------------------------------------------------------- the Playground's dataset settings (links, session files)


@dataclass(frozen=True)
class AppRange:
    """A dataset setting of the Playground: the closed range [low, high] its widget shows (with ``step``), which
    is also all a session file or a ``?cfg=`` link may hold (``rebel.ui.schemas``, ``rebel.ui.config.Config``),
    so every accepted value can be shown by its widget."""

    name: str
    low: float
    high: float
    step: float
    label: str
    help: str

    def check(self, value) -> float:
        """``value`` if it is a number in [low, high], else a ValueError naming it, the range and the fix."""
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not self.low <= value <= self.high
        ):
            raise ValueError(
                f"{self.name} is {reprlib.repr(value)}; the Playground takes {self.name} between {self.low} and "
                f"{self.high} ({self.help}). Use a value in that range"
            )
        return value


DATA_RANGES: dict[str, AppRange] = {
    r.name: r
    for r in (
        AppRange(
            "n_points",
            20,
            MAX_APP_POINTS,
            100,
            "Number of points (train + test)",
            "it retrains on every change",
        ),
        AppRange("seed", 0, 2**31 - 1, 1, "Seed", "the random draw of the points"),
        AppRange(
            "label_noise",
            0.0,
            0.5,
            0.01,
            "Label noise (training labels)",
            "share of training points relabelled to another class; test labels stay clean",
        ),
        AppRange(
            "test_fraction", 0.05, 0.9, 0.01, "Test share", "share of the points held out as test points"
        ),
    )
}
