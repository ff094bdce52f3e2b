"""The lesson path: a few ordered scenes a teacher steps through, one click each (page ``pages/0_Lessons.py``).

A ``Scene`` is a full Playground configuration (``rebel.ui.config.Config``: preset, costs, hyper-parameters,
engine) with a title, a two-sentence "what to notice", a question for the students and a ``check``: a function
that takes the Playground's trained pair for that configuration (``fit_scene``, i.e. ``train_pair`` with the
same arguments as the Playground) and returns a ``Evidence``: whether the "what to notice" claim holds and the
numbers it was decided on. ``tests/test_lessons.py`` asserts every claim, so a scene never contradicts what the
Playground shows for it; the texts quote those numbers only loosely.

Opening a scene makes its ``Config`` current exactly as a shared link does (``playground.actions.apply_config``).
No streamlit here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.base import clone

from rebel.ui.config import DEFAULT_HYPER, Config, dataset_from_config, preset_config
from rebel.ui.playground import compute as pg
from rebel.ui.state import ModelCache
from rebel.ui.variants import engine_options

SCENE_KEY = "lesson_scene"  # session-state key of the scene last opened (0-based), for "next scene"


@dataclass(frozen=True)
class Evidence:
    """What a scene's check saw: ``holds`` is the claim's verdict, ``numbers`` the values it compared."""

    holds: bool
    numbers: dict = field(default_factory=dict)


def fit_scene(cfg: Config, cache: ModelCache | None = None) -> pg.TrainedPair:
    """The Playground's trained pair for ``cfg``: REBEL and the two-step baseline, fitted as the Playground does."""
    return pg.train_pair(
        dataset_from_config(cfg), cfg.cost_matrix, cfg.hyper, cache=cache, engine=engine_options(cfg.engine)
    )


def _costs(pair: pg.TrainedPair) -> dict:
    """Test costs per point after the last round: REBEL, two-step, ignoring the costs (0-1 model), Bayes."""
    T = pair.n_rounds
    return {
        "REBEL": pair.metrics(T, "REBEL").cost,
        "two-step": pair.metrics(T, "two-step").cost,
        "costs ignored": pair.blind_cost(T),
        "Bayes": pair.bayes_test_cost,
    }


def _area(regions: np.ndarray, k: int) -> float:
    """Share of the plot's grid where class index ``k`` is chosen."""
    return float(np.mean(regions == k))


# ------------------------------------------------------------------------------------------------------ checks
Fit = Callable[[Config], pg.TrainedPair]


def _check_cost_matrix(cfg: Config, fit: Fit) -> Evidence:
    """The costly class 'weapon' gets at least three times the area it gets when the costs are ignored, and REBEL's
    test cost is at most 0.6 times that of ignoring the costs."""
    pair = fit(cfg)
    T, k = pair.n_rounds, pair.classes.index("weapon")
    n = {
        "weapon area, REBEL": _area(pair.regions[T], k),
        "weapon area, costs ignored": _area(pair.blind_region(T), k),
        **_costs(pair),
    }
    holds = (
        n["weapon area, REBEL"] >= 3 * n["weapon area, costs ignored"]
        and n["REBEL"] <= 0.6 * n["costs ignored"]
    )
    return Evidence(holds, n)


def _check_min_risk(cfg: Config, fit: Fit) -> Evidence:
    """REBEL calls 'severe' on at least 1.5 times as many test points as are severe, the costs-blind model on
    fewer; REBEL makes more mistakes than the costs-blind model, yet costs less."""
    pair = fit(cfg)
    T, k = pair.n_rounds, pair.classes.index("severe")
    y = pair.y_test_idx
    n = {
        "severe test points": int(np.sum(y == k)),
        "called severe, REBEL": int(np.sum(pair.test_predictions(T) == k)),
        "called severe, costs ignored": int(np.sum(pair.blind_test[T] == k)),
        "error rate, REBEL": pair.metrics(T).error,
        "error rate, costs ignored": float(np.mean(pair.blind_test[T] != y)),
        **_costs(pair),
    }
    holds = (
        n["called severe, REBEL"] >= 1.5 * n["severe test points"]
        and n["severe test points"] > n["called severe, costs ignored"]
        and n["error rate, REBEL"] > n["error rate, costs ignored"]
        and n["REBEL"] < n["costs ignored"]
    )
    return Evidence(holds, n)


def _check_rebel_wins(cfg: Config, fit: Fit) -> Evidence:
    """REBEL's test cost is lower than the two-step method's."""
    n = _costs(fit(cfg))
    return Evidence(n["REBEL"] < n["two-step"], n)


def _check_two_step_wins(cfg: Config, fit: Fit) -> Evidence:
    """The two-step method's test cost is lower than REBEL's."""
    n = _costs(fit(cfg))
    return Evidence(n["two-step"] < n["REBEL"], n)


def _check_stumps(cfg: Config, fit: Fit) -> Evidence:
    """With stumps REBEL's test cost is at least three times its cost with depth-2 trees (same data and costs),
    and it calls the costly class 'defect' on at least 90 % of the plot."""
    stumps = fit(cfg)
    deeper = fit(replace(cfg, hyper={**cfg.hyper, "max_depth": 2}))
    T = stumps.n_rounds
    n = {
        "REBEL, stumps": _costs(stumps)["REBEL"],
        "REBEL, depth 2": _costs(deeper)["REBEL"],
        "defect area, stumps": _area(stumps.regions[T], stumps.classes.index("defect")),
        "Bayes": stumps.bayes_test_cost,
    }
    holds = n["REBEL, stumps"] >= 3 * n["REBEL, depth 2"] and n["defect area, stumps"] >= 0.9
    return Evidence(holds, n)


def _check_engine(cfg: Config, fit: Fit) -> Evidence:
    """With vector leaves REBEL beats the two-step method on the airport data, where paper REBEL loses to it
    (same data, costs and hyper-parameters)."""
    vector, paper = _costs(fit(cfg)), _costs(fit(replace(cfg, engine="paper")))
    n = {
        "REBEL, vector": vector["REBEL"],
        "two-step, vector": vector["two-step"],
        "REBEL, paper": paper["REBEL"],
        "two-step, paper": paper["two-step"],
    }
    holds = n["REBEL, vector"] < n["two-step, vector"] and n["REBEL, paper"] > n["two-step, paper"]
    return Evidence(holds, n)


CALIBRATION_FOLDS = 5  # out-of-fold models behind the calibration scene's temperature scaling


def calibrated_two_step(pair: pg.TrainedPair, method: str = "temperature") -> dict:
    """The calibration scene's numbers: the Playground pair's 0-1 posterior on the test points as trained
    (``sigma(2H)``) and calibrated (``rebel.calibration.CrossFitCalibrated``: ``CALIBRATION_FOLDS``
    out-of-fold models of the same options, ``method``), each with the minimum-risk rule's test cost and its
    class-wise calibration error (ECE)."""
    from rebel.calibration import CrossFitCalibrated, ece, reliability
    from rebel.costs import min_risk_class

    ds, C, y = pair.dataset, pair.cost_matrix, pair.y_test_idx
    raw = pair.posterior_model.predict_proba(ds.X_test)
    y_train = ds.class_index(ds.y_train)
    cal = CrossFitCalibrated(clone(pair.posterior_model), method, CALIBRATION_FOLDS).fit(ds.X_train, y_train)
    calibrated = cal.predict_proba(ds.X_test)
    return {
        "two-step, posterior as trained": float(C[y, min_risk_class(raw, C)].mean()),
        "two-step, calibrated posterior": float(C[y, min_risk_class(calibrated, C)].mean()),
        "ECE, as trained": ece(reliability(raw, y)),
        "ECE, calibrated": ece(reliability(calibrated, y)),
    }


def _check_calibration(cfg: Config, fit: Fit) -> Evidence:
    """With depth-3 trees and 200 rounds the two-step method on the 0-1 model's posterior as trained costs at
    least 1.2 times REBEL's test cost; the same posterior calibrated by temperature scaling on out-of-fold
    predictions has a lower calibration error, and the two-step method on it costs at most 0.8 times REBEL's."""
    pair = fit(cfg)
    n = {"REBEL": _costs(pair)["REBEL"], **calibrated_two_step(pair)}
    holds = (
        n["two-step, posterior as trained"] >= 1.2 * n["REBEL"]
        and n["two-step, calibrated posterior"] <= 0.8 * n["REBEL"]
        and n["ECE, calibrated"] < n["ECE, as trained"]
    )
    return Evidence(holds, n)


# ------------------------------------------------------------------------------------------------------- scenes
@dataclass(frozen=True)
class Scene:
    """One step of the lesson path (see the module docstring)."""

    title: str
    config: Config
    notice: str  # two sentences: what to notice (checked by ``check``)
    question: str  # for the students
    claim: str  # the claim ``check`` decides, in words (for the tests and the report)
    check: Callable[[Config, Fit], Evidence]

    def evidence(self, fit: Fit = fit_scene) -> Evidence:
        return self.check(self.config, fit)


def _claim(check) -> str:
    return " ".join(check.__doc__.split())


def _cfg(preset: str, engine: str = "paper", **hyper) -> Config:
    return preset_config(preset, {**DEFAULT_HYPER, **hyper}, engine)


def _scenes() -> tuple[Scene, ...]:
    return (
        Scene(
            "What a cost matrix does",
            _cfg("airport"),
            "Letting a weapon through costs 20 times a false alarm, so REBEL hands the weapon class several times "
            "the area a model trained without costs gives it. Its test cost is far below what ignoring the costs "
            "would cost.",
            "Which cell of the cost matrix would you change to shrink the weapon region, and what would it cost?",
            _claim(_check_cost_matrix),
            _check_cost_matrix,
        ),
        Scene(
            "The minimum-risk rule",
            _cfg("imbalanced"),
            "Missing a severe case costs ten times any other mistake, so the minimum-risk rule calls 'severe' "
            "well beyond the severe points, where the model trained without costs calls it on fewer points "
            "than there are. REBEL therefore makes more mistakes than that model, yet its total cost is lower.",
            "Is the most likely class always the best decision? When should a doctor say 'severe' although it "
            "is probably mild?",
            _claim(_check_min_risk),
            _check_min_risk,
        ),
        Scene(
            "REBEL wins",
            _cfg("fig7"),
            "Mistakes on the true class C cost 10, and REBEL is trained with these costs from its first round. "
            "Its test cost is lower than the two-step method's (0-1 training, then the "
            "cheapest class).",
            "Turn on the two-step regions: where do the two methods disagree, and why there?",
            _claim(_check_rebel_wins),
            _check_rebel_wins,
        ),
        Scene(
            "The two-step method wins",
            _cfg("paths"),
            "Here the two-step method is cheaper: it learns class probabilities with 0-1 costs and applies the "
            "costs exactly at decision time. When those probabilities are good, training with the costs has "
            "little left to gain.",
            "What would have to be true about the data for training with the costs to pay off?",
            _claim(_check_two_step_wins),
            _check_two_step_wins,
        ),
        Scene(
            "Stumps against depth",
            _cfg("xor", max_depth=1),
            "A stump splits on one feature only, and no single split separates an XOR pattern, so REBEL falls "
            "back on calling the costly 'defect' class almost everywhere. Set Tree depth to 2 and its test cost "
            "drops to a fraction of this.",
            "How many splits does a tree need to carve one XOR quadrant, and why can a sum of stumps not do it?",
            _claim(_check_stumps),
            _check_stumps,
        ),
        Scene(
            "Another engine",
            _cfg("airport", engine="vector"),
            "The same airport data and costs as scene 1, but REBEL grows vector leaves with shrinkage 0.3, and "
            "both models use that engine. Now REBEL beats the two-step method, which the paper engine did not.",
            "Why might a change in how the trees are grown favour one method over the other?",
            _claim(_check_engine),
            _check_engine,
        ),
        Scene(
            "Calibration",
            _cfg("airport", max_depth=3, n_estimators=200),
            "With depth-3 trees and 200 rounds the 0-1 model's probabilities are overconfident, and the "
            "two-step method built on them costs more than REBEL. Calibrated on out-of-fold predictions "
            "(temperature scaling), the same probabilities make the two-step method clearly cheaper than REBEL: "
            "the strongest known baseline, and the one REBEL loses to in this project's measurements.",
            "Why does the minimum-risk rule need probabilities that mean what they say, and how could you check "
            "them on data the model was not trained on?",
            _claim(_check_calibration),
            _check_calibration,
        ),
    )


SCENES: tuple[Scene, ...] = _scenes()


def evidence_table(evidence: Evidence):
    """A scene's numbers as a two-column table (quantity, value) for the Lessons page's "Numbers" view."""
    import pandas as pd

    return pd.DataFrame({"quantity": list(evidence.numbers), "value": list(evidence.numbers.values())})


def scene_label(i: int) -> str:
    """Button label of scene ``i`` (0-based): its number and title."""
    return f"{i + 1}. {SCENES[i].title}"


def next_scene(i: int | None) -> int:
    """The scene after ``i`` (the first after the last, or when none was opened)."""
    return 0 if i is None or not 0 <= i < len(SCENES) - 1 else i + 1


def state_config(state) -> Config | None:
    """The configuration the Playground shows (``AppState``), or None when it has none (no data, or a CSV)."""
    if state.dataset is None or state.spec is None or state.data_source != "mixture":
        return None
    return Config(state.spec, state.cost_matrix, state.hyper, state.preset, state.engine)


def scene_shown(state, i) -> bool:
    """Whether the Playground shows exactly scene ``i``'s configuration."""
    cfg = state_config(state)
    return i is not None and 0 <= i < len(SCENES) and cfg is not None and cfg.key() == SCENES[i].config.key()
