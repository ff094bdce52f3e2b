"""The one table of parameter limits (scikit-learn ``_parameter_constraints`` style).

The estimator, the command line, the app's widgets and the session/link validation all read it, so a limit is
written once. ``low``/``high`` bound what the engine accepts; ``app_high`` bounds what the interactive app offers
(it retrains on every change, so it stays smaller); ``default`` is the estimator's default and ``app_default``
the app's starting value.
"""

from __future__ import annotations

import numbers
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
                f"{self.name} must be a whole number in [{self.low}, {high}]; got {value!r}."
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
