"""The lesson path: a few ordered scenes a teacher steps through, one click each (page ``pages/0_Lessons.py``).

A ``Scene`` is a full Playground configuration (``rebel.ui.config.Config``: preset, costs, hyper-parameters,
engine) with a title, a two-sentence "what to notice", a question for the students and a ``check``: a function
that takes the Playground's trained pair for that configuration (``fit_scene``, i.e. ``train_pair`` with the
same arguments as the Playground) and returns an ``Evidence``: whether the "what to notice" claim holds, the
numbers it was decided on and each comparison in words (``compare``). ``tests/test_lessons.py`` asserts every
claim on the scene's own draw, so a scene never contradicts what the Playground shows for it, and on ``REDRAWS``
redraws of its data (``redraw``: same settings, new data seeds), where it must hold as often as the scene's
``band`` says: at least 8 times in 10 unless the text says how often. The texts quote the numbers only loosely.

A new scene is one more ``Scene`` at the end of ``_scenes`` with its own ``_check_...`` function.

Opening a scene makes its ``Config`` current exactly as a shared link does (``playground.actions.apply_config``).
No streamlit here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from rebel.data import PRESETS
from rebel.ui.config import DEFAULT_HYPER, Config, dataset_from_config, preset_config
from rebel.ui.playground import compute as pg
from rebel.ui.playground.calibrated import calibrated_two_step
from rebel.ui.state import ModelCache
from rebel.ui.variants import engine_options

SCENE_KEY = "lesson_scene"  # session-state key of the scene last opened (0-based), for "next scene"


REDRAWS = 10  # redraws of a scene's data (same settings, new data seeds) its claim is tested on
REDRAW_SEED = 1000  # the first redraw's data seed (the redraws' seeds are none of the scenes' own)


@dataclass(frozen=True)
class Evidence:
    """What a scene's check saw: ``holds`` is the claim's verdict, ``numbers`` the values it compared (name ->
    value) and ``tests`` each comparison in words with its values (``compare``)."""

    holds: bool
    numbers: dict = field(default_factory=dict)
    tests: tuple[str, ...] = ()


def number_text(value) -> str:
    """A checked value as the Lessons page prints it: a count whole, a cost or share to three decimals."""
    if value is None:
        return "n/a"
    return str(value) if isinstance(value, (int, np.integer)) else f"{value:.3f}"


_OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
_SIGNS = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def compare(numbers: dict, left: str, op: str, right, factor: float = 1.0) -> tuple[bool, str]:
    """Whether ``numbers[left] op factor * numbers[right]`` (``right`` a name, or a number to compare with) and
    that test in words, each value named, e.g. "REBEL 0.402 < two-step 0.571: yes"."""
    a = numbers[left]
    b = numbers[right] if isinstance(right, str) else right
    ok = bool(_OPS[op](a, factor * b))
    rhs = number_text(b) if not isinstance(right, str) else f"{right} {number_text(b)}"
    rhs = rhs if factor == 1 else f"{factor:g} × {rhs}"
    return ok, f"{left} {number_text(a)} {_SIGNS[op]} {rhs}: {'yes' if ok else 'no'}"


def _verdict(numbers: dict, *tests: tuple) -> Evidence:
    """The ``Evidence`` of ``numbers`` under the ``tests`` (argument tuples of ``compare``): all must pass."""
    done = [compare(numbers, *t) for t in tests]
    return Evidence(all(ok for ok, _ in done), numbers, tuple(text for _, text in done))


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
    """The costly class 'weapon' gets at least twice the area it gets when the costs are ignored, and REBEL's
    test cost is at most 0.75 times that of ignoring the costs."""
    pair = fit(cfg)
    T, k = pair.n_rounds, pair.classes.index("weapon")
    n = {
        "weapon area, REBEL": _area(pair.regions[T], k),
        "weapon area, costs ignored": _area(pair.blind_region(T), k),
        **_costs(pair),
    }
    return _verdict(
        n,
        ("weapon area, REBEL", ">=", "weapon area, costs ignored", 2),
        ("REBEL", "<=", "costs ignored", 0.75),
    )


def _check_min_risk(cfg: Config, fit: Fit) -> Evidence:
    """REBEL calls 'severe' on at least 1.4 times as many test points as are severe, the costs-blind model on
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
    return _verdict(
        n,
        ("called severe, REBEL", ">=", "severe test points", 1.4),
        ("called severe, costs ignored", "<", "severe test points"),
        ("error rate, REBEL", ">", "error rate, costs ignored"),
        ("REBEL", "<", "costs ignored"),
    )


def _check_rebel_wins(cfg: Config, fit: Fit) -> Evidence:
    """REBEL's test cost is lower than the two-step method's, and each of them costs more than with the app's
    default training settings (depth-2 trees, 100 rounds; same data and costs)."""
    costs, default = _costs(fit(cfg)), _costs(fit(replace(cfg, hyper=dict(DEFAULT_HYPER))))
    n = {
        **costs,
        "REBEL, default settings": default["REBEL"],
        "two-step, default settings": default["two-step"],
    }
    return _verdict(
        n,
        ("REBEL", "<", "two-step"),
        ("REBEL", ">", "REBEL, default settings"),
        ("two-step", ">", "two-step, default settings"),
    )


def _check_two_step_wins(cfg: Config, fit: Fit) -> Evidence:
    """The two-step method's test cost is lower than REBEL's."""
    return _verdict(_costs(fit(cfg)), ("two-step", "<", "REBEL"))


def _check_stumps(cfg: Config, fit: Fit) -> Evidence:
    """With stumps REBEL's test cost is at least three times its cost with depth-2 trees (same data and costs),
    it calls the costly class 'defect' on at least 85 % of the plot, and the two-step method (two classes)
    makes the same decision on at least 99 % of the test points."""
    stumps = fit(cfg)
    deeper = fit(replace(cfg, hyper={**cfg.hyper, "max_depth": 2}))
    T = stumps.n_rounds
    same = stumps.test_predictions(T, "REBEL") == stumps.test_predictions(T, "two-step")
    n = {
        "REBEL, stumps": _costs(stumps)["REBEL"],
        "same decision as the two-step method": float(np.mean(same)),
        "REBEL, depth 2": _costs(deeper)["REBEL"],
        "defect area, stumps": _area(stumps.regions[T], stumps.classes.index("defect")),
        "Bayes": stumps.bayes_test_cost,
    }
    return _verdict(
        n,
        ("REBEL, stumps", ">=", "REBEL, depth 2", 3),
        ("defect area, stumps", ">=", 0.85),
        ("same decision as the two-step method", ">=", 0.99),
    )


def _check_engine(cfg: Config, fit: Fit) -> Evidence:
    """With vector leaves REBEL's test cost is lower than the two-step method's, the vector-leaf two-step costs
    more than the paper engine's two-step (same data, costs and hyper-parameters), and the cheaper of the paper
    engine's two methods costs less than vector-leaf REBEL."""
    vector, paper = _costs(fit(cfg)), _costs(fit(replace(cfg, engine="paper")))
    n = {
        "REBEL, vector": vector["REBEL"],
        "two-step, vector": vector["two-step"],
        "REBEL, paper": paper["REBEL"],
        "two-step, paper": paper["two-step"],
        "cheaper paper-engine method": min(paper["REBEL"], paper["two-step"]),
    }
    return _verdict(
        n,
        ("REBEL, vector", "<", "two-step, vector"),
        ("two-step, vector", ">", "two-step, paper"),
        ("cheaper paper-engine method", "<", "REBEL, vector"),
    )


def _check_calibration(cfg: Config, fit: Fit) -> Evidence:
    """The 0-1 model's posterior calibrated by temperature scaling on out-of-fold predictions has a lower
    calibration error than as trained, and the two-step method on it costs less than on the posterior as trained
    and less than REBEL."""
    pair = fit(cfg)
    n = {"REBEL": _costs(pair)["REBEL"], **calibrated_two_step(pair)}
    return _verdict(
        n,
        ("ECE, calibrated", "<", "ECE, as trained"),
        ("two-step, calibrated posterior", "<", "two-step, posterior as trained"),
        ("two-step, calibrated posterior", "<", "REBEL"),
    )


# ------------------------------------------------------------------------------------------------------- scenes
@dataclass(frozen=True)
class Scene:
    """One step of the lesson path (see the module docstring).

    ``band``: on how many of ``REDRAWS`` redraws of the data (``redraw``) the claim holds, as the scene's text
    says (low, high); by default at least 8 of 10, which the text need not qualify. A claim that holds less
    often says how often in its ``notice`` (e.g. "on about 3 draws in 4") and sets the band to match."""

    title: str
    config: Config
    notice: str  # two sentences: what to notice (checked by ``check``)
    question: str  # for the students
    claim: str  # the claim ``check`` decides, in words (for the tests and the report)
    check: Callable[[Config, Fit], Evidence]
    band: tuple[int, int] = (8, REDRAWS)
    shows_calibrated: bool = False  # the Playground shows the calibrated two-step's cost with this scene

    def evidence(self, fit: Fit = fit_scene) -> Evidence:
        return self.check(self.config, fit)

    def redrawn(self, fit: Fit = fit_scene, n: int = REDRAWS) -> list[Evidence]:
        """The claim's evidence on ``n`` redraws of the scene's data (``redraw``), in order."""
        return [self.check(redraw(self.config, j), fit) for j in range(n)]


def redraw(cfg: Config, j: int) -> Config:
    """``cfg`` with its ``j``-th redrawn data: the same mixture, sizes, costs and training settings, drawn with
    the data seed ``REDRAW_SEED + j`` instead of the preset's."""
    return replace(cfg, spec=replace(cfg.spec, seed=REDRAW_SEED + j), cost_matrix=cfg.cost_matrix.copy())


def redraw_text(scene: Scene) -> str:
    """How the tests check a scene's claim beyond the shown draw (for the Lessons page's "Numbers")."""
    low, high = scene.band
    share = f"at least {low}" if high == REDRAWS else f"{low} to {high}"
    return (
        f"The test suite also redraws this scene's data {REDRAWS} times (same settings, new data seeds) and "
        f"requires the claim on {share} of them."
    )


def _claim(check) -> str:
    return " ".join(check.__doc__.split())


def _cfg(preset: str, engine: str = "paper", costs=None, **hyper) -> Config:
    cfg = preset_config(preset, {**DEFAULT_HYPER, **hyper}, engine)
    return cfg if costs is None else replace(cfg, cost_matrix=np.asarray(costs, dtype=float))


def _scenes() -> tuple[Scene, ...]:
    return (
        Scene(
            "What a cost matrix does",
            _cfg("airport"),
            "Letting a weapon through costs 20 times a false alarm, so REBEL hands the weapon class at least "
            "twice the area a model trained without costs gives it. Its test cost is at most three quarters of "
            "what ignoring the costs would cost.",
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
            _cfg("airport", max_depth=4, n_estimators=200),
            "With depth-4 trees and 200 rounds REBEL, trained with the costs from its first round, beats the "
            "two-step method (0-1 training, then the cheapest class) on almost every draw. Both cost more than "
            "with scene 1's depth-2 trees and 100 rounds.",
            "Turn on the two-step regions: where do the two methods disagree, and why there?",
            _claim(_check_rebel_wins),
            _check_rebel_wins,
        ),
        Scene(
            "The two-step method wins",
            _cfg("fig7", costs=PRESETS["fig7"].cost_variants["(c) x10 false-positive C"], max_depth=3),
            "Calling C wrongly costs 10, and the two-step method (0-1 probabilities, costs applied only at "
            "decision time) beats REBEL on almost every draw. It may even beat the Bayes rule on one draw: 500 "
            "test points are a finite sample, and the Bayes rule is cheapest only on average.",
            "What would have to be true about the data for REBEL's training with the costs to pay off?",
            _claim(_check_two_step_wins),
            _check_two_step_wins,
        ),
        Scene(
            "Stumps against depth",
            _cfg("xor", max_depth=1),
            "A stump splits on one feature only, and no single split separates an XOR pattern, so REBEL (with "
            "two classes it decides as the two-step method, on all but a few points) falls back on calling the "
            "costly 'defect' class almost everywhere. Set Tree depth to 2 and its test cost drops to a fraction "
            "of this.",
            "How many splits does a tree need to carve one XOR quadrant, and why can a sum of stumps not do it?",
            _claim(_check_stumps),
            _check_stumps,
        ),
        Scene(
            "Another engine",
            _cfg("airport", engine="vector"),
            "Scene 1's data and costs, with vector leaves (shrinkage 0.3) in both models. On about 3 draws in 4 "
            "REBEL now beats the two-step method, but that method got worse than with the paper engine, and "
            "scene 1's cheaper method still beats both.",
            "Why might a change in how the trees are grown favour one method over the other?",
            _claim(_check_engine),
            _check_engine,
            band=(5, REDRAWS),
        ),
        Scene(
            "Calibration",
            _cfg("airport", max_depth=4, n_estimators=300),
            "Scene 3's setting with 300 rounds. Calibrated on out-of-fold predictions (temperature scaling), the "
            "0-1 model's probabilities have a lower calibration error, and the two-step method on them beats "
            "its uncalibrated self and REBEL: the strongest known baseline, which REBEL loses to in this "
            "project's measurements.",
            "Why does the minimum-risk rule need probabilities that mean what they say, and how could you check "
            "them on data the model was not trained on?",
            _claim(_check_calibration),
            _check_calibration,
            shows_calibrated=True,
        ),
    )


SCENES: tuple[Scene, ...] = _scenes()


def evidence_table(evidence: Evidence):
    """A scene's numbers as a two-column table (quantity, value) for the Lessons page's "Numbers" view."""
    import pandas as pd

    values = [number_text(v) for v in evidence.numbers.values()]
    return pd.DataFrame({"quantity": list(evidence.numbers), "value": values})


def verdict_text(evidence: Evidence) -> str:
    """The verdict of a scene's check on the draw it was given, in words."""
    if evidence.holds:
        return "Every comparison above holds on this draw, so the claim does."
    return "At least one comparison above fails on this draw, so the claim does not hold here."


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
