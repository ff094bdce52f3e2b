"""Presets: named problems (a mixture spec, a suggested cost matrix, a one-line story, the costly mistakes).

``PRESETS`` maps a name to a ``Preset``, built on first access: the paper's figures (airport, fig7, paths),
classic shapes (xor, rings, imbalanced) and the ten random datasets of the paper's protocol (random_0..9).
Cost matrices are (K, K) in sorted class order (rows = true class, columns = decision).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rebel.cost_presets import fn_costs, fp_costs, random_costs
from rebel.costs import uniform_costs, validate_cost_matrix
from rebel.data.bayes import costliest_mistakes
from rebel.data.mixture import (
    PAPER_SEED,
    Dataset,
    DatasetSpec,
    _classes,
    label_indices,
    make_dataset,
    paper_random_spec,
)

# ---------------------------------------------------------------------------------------------------------------
# Presets: a mixture, a suggested cost matrix and a one-line story
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Preset:
    """A named problem: dataset spec, suggested cost matrix (sorted class order) and its costly mistakes.

    ``costly_mistakes``: (true class, predicted class) pairs the story is about; ``cost_variants``: other
    cost matrices worth comparing (e.g. the four panels of Fig. 7); ``paths``: named polylines (Fig. 8).
    """

    name: str
    story: str
    source: str
    spec: DatasetSpec
    cost_matrix: np.ndarray
    costly_mistakes: tuple
    cost_variants: dict = field(default_factory=dict)
    paths: dict = field(default_factory=dict)

    def __post_init__(self):
        classes = self.classes
        self.cost_matrix = validate_cost_matrix(self.cost_matrix, n_classes=len(classes))
        self.cost_variants = {
            k: validate_cost_matrix(v, n_classes=len(classes), name=f"cost_variants[{k!r}]")
            for k, v in self.cost_variants.items()
        }
        self.costly_mistakes = tuple(tuple(pair) for pair in self.costly_mistakes)
        for pair in self.costly_mistakes:
            label_indices(list(pair), classes, "name classes of the mixture in costly_mistakes")

    @property
    def classes(self) -> tuple:
        return _classes(self.spec.mixture)

    def dataset(self) -> Dataset:
        ds = make_dataset(self.spec, self.name)
        ds.story, ds.cost_matrix, ds.costly_mistakes = (
            self.story,
            self.cost_matrix.copy(),
            self.costly_mistakes,
        )
        return ds

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "story": self.story,
            "source": self.source,
            "classes": list(self.classes),
            "spec": self.spec.to_dict(),
            "cost_matrix": self.cost_matrix.tolist(),
            "costly_mistakes": [list(p) for p in self.costly_mistakes],
            "cost_variants": {k: v.tolist() for k, v in self.cost_variants.items()},
            "paths": {k: [list(map(float, p)) for p in v] for k, v in self.paths.items()},
        }

    @classmethod
    def from_dict(cls, d: dict) -> Preset:
        d = dict(d)
        d.pop("classes", None)
        d["spec"] = DatasetSpec.from_dict(d["spec"])
        d["cost_matrix"] = np.asarray(d["cost_matrix"], dtype=np.float64)
        return cls(**d)


def _comp(
    cls: str,
    mx: float,
    my: float,
    sx: float,
    sy: float | None = None,
    corr: float = 0.0,
    weight: float = 1.0,
    angle: float = 0.0,
) -> dict:
    return {
        "class": cls,
        "mean_x": mx,
        "mean_y": my,
        "std_x": sx,
        "std_y": sx if sy is None else sy,
        "corr": corr,
        "angle": angle,
        "weight": weight,
    }


def _ring(cls: str, n: int, radius: float, std: float, total_weight: float, phase: float = 0.0) -> list:
    angles = phase + 2 * np.pi * np.arange(n) / n
    return [
        _comp(
            cls, round(radius * math.cos(a), 4), round(radius * math.sin(a), 4), std, weight=total_weight / n
        )
        for a in angles
    ]


def _preset(
    name: str, story: str, source: str, rows: list, seed: int, costs, costly: tuple, **extra
) -> Preset:
    """A preset of 1500 points (1000 training, 500 test) drawn from the mixture ``rows`` with ``seed``."""
    spec = DatasetSpec(pd.DataFrame(rows), n_points=1500, test_fraction=1 / 3, seed=seed)
    return Preset(name, story, source, spec, costs, costly, **extra)


def _airport() -> Preset:
    rows = [
        _comp("harmless", 0.0, 0.0, 1.2, 1.0, weight=0.30),
        _comp("harmless", 3.0, 0.5, 0.9, 0.8, 0.2, 0.20),
        _comp("harmless", -0.5, 3.0, 0.9, 0.7, weight=0.15),
        _comp("liquid", 3.5, 3.5, 0.8, 0.7, 0.3, 0.15),
        _comp("liquid", 1.0, 5.5, 0.6, weight=0.08),
        _comp("weapon", 1.8, 2.0, 0.6, weight=0.07),
        _comp("weapon", -2.3, 1.2, 0.5, 0.7, weight=0.05),
    ]
    # rows = truth (harmless, liquid, weapon), columns = decision
    C = [[0, 1, 1], [3, 0, 1], [20, 20, 0]]
    return _preset(
        "airport",
        "Airport checkpoint: a false alarm costs one bag check, but letting a weapon through costs 20.",
        "Fig. 1",
        rows,
        1,
        C,
        (("weapon", "harmless"), ("weapon", "liquid")),
    )


def _fig7() -> Preset:
    rows = [
        _comp("A", -2.5, 0.0, 1.0, 1.4, 0.3),
        _comp("A", -1.0, -3.0, 0.8, 0.6, weight=0.5),
        _comp("B", 0.0, 2.5, 1.2, 0.7),
        _comp("B", 2.5, 3.5, 0.6, weight=0.4),
        _comp("C", 0.3, 0.0, 0.8, weight=0.8),
        _comp("D", 2.5, -0.5, 1.0, 1.3, -0.3),
        _comp("D", 1.5, -3.0, 0.7, 0.6, weight=0.4),
    ]
    variants = {
        "(a) uniform": uniform_costs(4),
        "(b) x10 false-negative B": fn_costs(4, 1, 10),
        "(c) x10 false-positive C": fp_costs(4, 2, 10),
        "(d) x10 false-negative C": fn_costs(4, 2, 10),
    }
    return _preset(
        "fig7",
        "Four classes as in Fig. 7: missing a C point costs 10 (compare the four panels' cost matrices).",
        "Fig. 7 (S.9)",
        rows,
        7,
        fn_costs(4, 2, 10),
        (("C", "A"), ("C", "B"), ("C", "D")),
        cost_variants=variants,
    )


def _paths() -> Preset:
    rows = [
        _comp("A", -3.0, 0.0, 1.0, 1.2),
        _comp("A", -1.5, 3.0, 0.7, weight=0.5),
        _comp("B", 0.0, 0.0, 0.6, 1.8),
        _comp("C", 3.0, 0.0, 1.0, 1.2),
        _comp("C", 1.5, -3.0, 0.8, 0.6, weight=0.5),
    ]
    paths = {"A": [[-5.0, -1.0], [5.0, 1.0]], "B": [[-3.0, 4.0], [0.0, -2.5], [3.0, 4.0]]}
    return _preset(
        "paths",
        "Fig. 8 layout: walk paths A and B across the class boundaries and watch the "
        "min-risk scores H(x); missing a B point costs 5.",
        "Fig. 8 (S.9)",
        rows,
        8,
        fn_costs(3, 1, 5),
        (("B", "A"), ("B", "C")),
        paths=paths,
    )


def _xor() -> Preset:
    rows = [
        _comp("defect", 2.0, 2.0, 1.1, weight=0.15),
        _comp("defect", -2.0, -2.0, 1.1, weight=0.15),
        _comp("ok", 2.0, -2.0, 1.1, weight=0.35),
        _comp("ok", -2.0, 2.0, 1.1, weight=0.35),
    ]
    return _preset(
        "xor",
        "XOR of four clusters (no single stump separates them): shipping a defect costs 5 "
        "times a false reject.",
        "classic",
        rows,
        11,
        fn_costs(2, 0, 5),
        (("defect", "ok"),),
    )


def _rings() -> Preset:
    rows = [
        _comp("core", 0.0, 0.0, 0.8, weight=0.2),
        *_ring("middle", 6, 2.5, 0.6, 0.35),
        *_ring("outer", 10, 5.0, 0.7, 0.45, phase=0.3),
    ]
    return _preset(
        "rings",
        "Concentric rings made of clusters: missing the core costs 5.",
        "classic",
        rows,
        12,
        fn_costs(3, 0, 5),
        (("core", "middle"), ("core", "outer")),
    )


def _imbalanced() -> Preset:
    rows = [
        _comp("healthy", 0.0, 0.0, 1.5, 1.2, weight=0.55),
        _comp("healthy", 2.5, 1.0, 1.0, weight=0.25),
        _comp("mild", 2.5, 2.5, 0.8, weight=0.15),
        _comp("severe", 3.2, 3.2, 0.6, weight=0.03),
        _comp("severe", -1.5, 1.5, 0.5, weight=0.02),
    ]
    return _preset(
        "imbalanced",
        "Imbalanced triage: 1 patient in 20 is severe; sending a severe patient home or "
        "to the mild queue costs 10.",
        "classic",
        rows,
        13,
        fn_costs(3, 2, 10),
        (("severe", "healthy"), ("severe", "mild")),
    )


PRESET_COST_DIGITS = 6  # significant digits of the random presets' cost entries


def _significant(C: np.ndarray, digits: int) -> np.ndarray:
    """``C`` with each entry rounded to ``digits`` significant digits (through its decimal text, so exact)."""
    return np.array([[float(f"{v:.{digits}g}") for v in row] for row in C.tolist()])


def _paper_random(i: int, spec: DatasetSpec) -> Preset:
    K = len(_classes(spec.mixture))
    # Stored to 6 significant digits: the file is the same on every machine, and cells show whole numbers.
    C = _significant(random_costs(K, np.random.default_rng([PAPER_SEED, i, 1])), PRESET_COST_DIGITS)
    costly = costliest_mistakes(spec.mixture, C)
    ((truth, pred),) = costly
    return Preset(
        f"random_{i}",
        f"Random dataset {i} of the paper's protocol with its first random cost matrix: "
        f"the costliest mistake of a cost-blind classifier is {truth} taken for {pred}.",
        "Fig. 9 / Fig. 3",
        spec,
        C,
        costly,
    )


class _LazyPresets(Mapping):
    """Read-only ``{name: Preset}``; each preset is built on first access (importing stays fast)."""

    def __init__(self, builders: dict):
        self._builders, self._built = builders, {}

    def __getitem__(self, name: str) -> Preset:
        if name not in self._builders:
            raise KeyError(name)
        if name not in self._built:
            self._built[name] = self._builders[name]()
        return self._built[name]

    def __iter__(self):
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)


def _random_builder(i: int):
    return lambda: _paper_random(i, paper_random_spec(i))


PRESETS = _LazyPresets(
    {
        "airport": _airport,
        "fig7": _fig7,
        "paths": _paths,
        "xor": _xor,
        "rings": _rings,
        "imbalanced": _imbalanced,
        **{f"random_{i}": _random_builder(i) for i in range(10)},
    }
)
