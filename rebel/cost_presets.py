"""Cost-matrix presets: x m false-negative / false-positive (Fig. 7), random (Sec. 5 protocol), taxonomy
(SUN/CUB), normalisation so that random guessing costs 1, and JSON-able specs (``make_costs``).

Every builder returns a validated float64 (K, K) array ``C[y, k]`` (rows = truth, columns = prediction, in
sorted class order); nothing here is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .costs import _as_float_array, random_guess_cost, uniform_costs, validate_cost_matrix


def _check_class_index(n_classes: int, c, name: str = "c") -> int:
    if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= int(c) < int(n_classes):
        raise ValueError(
            f"{name} is {c!r}; it must be a class index between 0 and {int(n_classes) - 1} "
            "(classes in sorted order)."
        )
    return int(c)


def _check_multiplier(m, name: str = "m") -> float:
    try:
        value = float(m)
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} is {m!r}; the cost multiplier must be a finite number > 0 (e.g. 10).")
    return value


def _base_costs(n_classes: int, base) -> np.ndarray:
    if base is None:
        return uniform_costs(n_classes)
    return validate_cost_matrix(base, n_classes=int(n_classes), name="base").copy()


def _scaled_line(n_classes: int, c, m, base, column: bool) -> np.ndarray:
    """``base`` (0-1 by default) with class c's row (``column=False``) or column off the diagonal times m."""
    c = _check_class_index(n_classes, c)
    C = _base_costs(n_classes, base)
    off = np.arange(C.shape[0]) != c
    line = (off, c) if column else (c, off)
    C[line] *= _check_multiplier(m)
    return C


def fn_costs(n_classes: int, c: int, m: float = 10.0, base=None) -> np.ndarray:
    """Missing class ``c`` costs ``m`` times more: row ``c``'s off-diagonal entries of ``base`` (0-1) times m."""
    return _scaled_line(n_classes, c, m, base, column=False)


def fp_costs(n_classes: int, c: int, m: float = 10.0, base=None) -> np.ndarray:
    """Wrongly predicting class ``c`` costs ``m`` times more: column ``c``'s off-diagonal entries times m."""
    return _scaled_line(n_classes, c, m, base, column=True)


def _check_priors(priors, n_classes: int) -> np.ndarray | None:
    if priors is None:
        return None
    p = _as_float_array(priors, "priors")
    if p.shape != (n_classes,):
        raise ValueError(
            f"priors has shape {p.shape}; give one prior (or class count) per class, shape ({n_classes},)."
        )
    if not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
        raise ValueError(
            f"priors is {p.tolist()}; priors must be finite, >= 0 and not all zero (class counts work too)."
        )
    return p / p.sum()


def normalize_costs(cost_matrix, priors=None) -> np.ndarray:
    """Scale ``cost_matrix`` so that guessing a class uniformly at random costs 1 (Sec. 5, SUN experiments).

    ``priors``: class priors or class counts (e.g. the training-set class counts for empirical priors);
    ``None`` means uniform priors.
    """
    C = validate_cost_matrix(cost_matrix)
    p = _check_priors(priors, C.shape[0])
    guess = random_guess_cost(C, p)
    if guess <= 0:
        raise ValueError(
            "cost_matrix: random guessing costs 0 under these priors (only classes with zero prior have costly "
            "mistakes), so it cannot be normalized; give costly mistakes to a class with a positive prior."
        )
    return C / guess


def random_costs(n_classes: int, rng=None) -> np.ndarray:
    """A random cost matrix of the paper's protocol (Sec. 5, Fig. 3), normalized so random guessing costs 1.

    Zero diagonal; off-diagonal entries ``|z|`` with ``z ~ N(0, 1)`` (half-normal, so positive), then divided by
    the cost of uniform random guessing under uniform class priors. ``rng``: a seed or ``np.random.Generator``.
    """
    if int(n_classes) < 2:
        raise ValueError(f"n_classes must be >= 2; got {n_classes!r}.")
    rng = np.random.default_rng(rng)
    K = int(n_classes)
    C = np.abs(rng.standard_normal((K, K)))
    # |z| == 0 has probability 0, but a zero entry would break "positive off-diagonal"; redraw is overkill.
    C = np.maximum(C, np.finfo(np.float64).tiny)
    np.fill_diagonal(C, 0.0)
    return normalize_costs(C)


def _tree_parents(tree) -> dict:
    """Turn a class tree into a ``{node: parent}`` map (roots have parent ``None``).

    Accepted forms (JSON-able): a parent map ``{"duck": "waterfowl", "waterfowl": "bird", "bird": None}``, or a
    nested mapping ``{"bird": {"waterfowl": ["duck", "goose"], "raptor": ["vulture"]}}`` whose values are
    sub-trees (dicts), lists of leaf names, or ``None`` for a leaf.
    """
    if not isinstance(tree, dict) or not tree:
        raise ValueError(
            f"tree is {tree!r}; give a non-empty dict, either a parent map {{child: parent}} or a nested "
            "mapping {node: {child: [...leaves]}}."
        )
    if all(v is None or isinstance(v, str) for v in tree.values()):
        parents = {str(k): (None if v in (None, "") else str(v)) for k, v in tree.items()}
        for child, parent in list(parents.items()):
            if parent is not None and parent not in parents:
                parents[parent] = None
        return parents
    parents: dict = {}

    def visit(node, parent):
        node = str(node)
        if node in parents:
            raise ValueError(f"tree: node {node!r} appears twice; every node needs exactly one parent.")
        parents[node] = parent
        return node

    def walk(sub, parent):
        if sub is None:
            return
        if isinstance(sub, dict):
            for node, children in sub.items():
                walk(children, visit(node, parent))
        elif isinstance(sub, (list, tuple)):
            for item in sub:
                if isinstance(item, dict):
                    walk(item, parent)
                else:
                    visit(item, parent)
        else:
            visit(sub, parent)

    walk(tree, None)
    return parents


def _ancestors(node: str, parents: dict) -> list:
    path = [node]
    while parents[path[-1]] is not None:
        path.append(parents[path[-1]])
        if len(path) > len(parents):
            raise ValueError(f"tree: the parents of {node!r} form a cycle; a class tree must not loop.")
    return path


def taxonomy_costs(tree, classes) -> np.ndarray:
    """Cost = number of tree edges between the true and the predicted class (hierarchical costs, Sec. 5.2).

    ``tree``: see ``_tree_parents`` (parent map or nested mapping); ``classes``: class names in sorted order,
    each must be a node of the tree. Classes under different roots are joined by a virtual root.
    """
    parents = _tree_parents(tree)
    names = [str(c) for c in classes]
    missing = [c for c in names if c not in parents]
    if missing:
        raise ValueError(
            f"tree has no node named {missing[0]!r}; every class must appear in the tree "
            f"(known nodes: {sorted(parents)[:10]}{' ...' if len(parents) > 10 else ''})."
        )
    if len(set(names)) != len(names):
        raise ValueError(f"classes {names} contain a duplicate; give each class once.")
    paths = [_ancestors(c, parents) for c in names]
    K = len(names)
    C = np.zeros((K, K))
    for i in range(K):
        depth_i = {node: d for d, node in enumerate(paths[i])}
        for k in range(K):
            common = next((d for d, node in enumerate(paths[k]) if node in depth_i), None)
            if common is None:  # different roots: meet at a virtual root above both
                C[i, k] = len(paths[i]) + len(paths[k])
            else:
                C[i, k] = depth_i[paths[k][common]] + common
    return validate_cost_matrix(C, name="taxonomy costs")


@dataclass(frozen=True)
class CostPreset:
    """A named family of cost matrices: ``build(n_classes, **params)`` returns a (K, K) matrix."""

    name: str
    label: str
    description: str
    params: tuple
    build: object


COST_PRESETS = {
    p.name: p
    for p in (
        CostPreset(
            "uniform", "Uniform 0-1", "Every mistake costs 1.", (), lambda n_classes: uniform_costs(n_classes)
        ),
        CostPreset(
            "fn",
            "×m false-negative cost for class c",
            "Missing class c (truth c, predicted other) costs m.",
            ("c", "m"),
            fn_costs,
        ),
        CostPreset(
            "fp",
            "×m false-positive cost for class c",
            "Wrongly predicting class c costs m.",
            ("c", "m"),
            fp_costs,
        ),
        CostPreset(
            "random",
            "Random (paper protocol)",
            "Zero diagonal, half-normal off-diagonal entries, random guessing costs 1.",
            ("rng",),
            random_costs,
        ),
    )
}


def make_costs(spec: dict, classes, priors=None) -> np.ndarray:
    """Build a cost matrix from a JSON-able spec, e.g. ``{"preset": "fn", "c": "weapon", "m": 10}``.

    ``preset``: a key of ``COST_PRESETS``, ``"taxonomy"`` (with ``tree``) or ``"matrix"`` (with ``matrix``);
    ``c`` may be a class name or index; ``"normalize": true`` scales so random guessing costs 1 under
    ``priors`` (class priors or counts, ``None`` = uniform).
    """
    spec = dict(spec)
    kind = spec.pop("preset", None)
    normalize = bool(spec.pop("normalize", False))
    names = [str(c) for c in classes]
    if "c" in spec and isinstance(spec["c"], str):
        if spec["c"] not in names:
            raise ValueError(f"cost spec: c is {spec['c']!r}, which is not a class; choose one of {names}.")
        spec["c"] = names.index(spec["c"])
    if kind == "taxonomy":
        C = taxonomy_costs(spec.get("tree"), names)
    elif kind == "matrix":
        C = validate_cost_matrix(spec.get("matrix"), n_classes=len(names))
    elif kind in COST_PRESETS:
        preset = COST_PRESETS[kind]
        unknown = set(spec) - set(preset.params)
        if unknown:
            raise ValueError(
                f"cost spec: unknown parameter {min(unknown)!r} for preset {kind!r}; "
                f"allowed: {list(preset.params)}."
            )
        C = preset.build(len(names), **spec)
    else:
        allowed = [*COST_PRESETS, "taxonomy", "matrix"]
        raise ValueError(f"cost spec: preset is {kind!r}; choose one of {allowed}.")
    C = normalize_costs(C, priors) if normalize else C
    return validate_cost_matrix(C, n_classes=len(names))  # e.g. a huge multiplier m can exceed MAX_COST
