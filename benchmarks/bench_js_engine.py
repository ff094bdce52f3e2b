"""Fit time of the browser engine (rebel/ui/browser/rebel_engine.js) under Node against the numba engine, on the
Playground's default problem (airport, 100 rounds, depth 2, 200 thresholds) and on its largest ones (5,000 and
15,000 training points, 12 classes, 1,000 rounds, depth 4, 255 thresholds), plus the staged classes on the
Playground's grid (``grid_size_for``). The JavaScript fit repeats ``--repeat`` times in one Node process after one
warm-up (the JIT's), and the median is reported with the range; numba's fit is timed after a warm-up the same way.
Run: python -m benchmarks.bench_js_engine [--repeat 5] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from rebel.data import DatasetSpec, make_dataset
from rebel.estimator import RebelClassifier
from rebel.ui.browser.engine import node_path, problem_payload, run_node
from rebel.ui.config import dataset_from_config, preset_config
from rebel.ui.playground.compute import grid_size_for, make_grid

from ._common import load_average, print_table


def _twelve_classes(n_points: int):
    """A 12-class mixture of the Playground's kind (one Gaussian a class on a ring), and 0-1 costs but one
    costly mistake."""
    rows = [
        {"class": f"c{k:02d}", "mean_x": 3 * np.cos(k / 2), "mean_y": 3 * np.sin(k / 2), "std_x": 0.7,
         "std_y": 0.7, "corr": 0.0, "angle": 0.0, "weight": 1.0}
        for k in range(12)
    ]  # fmt: skip
    spec = DatasetSpec.from_dict({"mixture": rows, "n_points": n_points, "seed": 1, "test_fraction": 0.25})
    ds = make_dataset(spec, "twelve")
    C = 1.0 - np.eye(12)
    C[3, 4] = 20.0
    return ds.X_train, ds.class_index(ds.y_train), C


def cases(quick: bool) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, dict]]:
    cfg = preset_config("airport")
    ds = dataset_from_config(cfg)
    out = [("airport default", ds.X_train, ds.class_index(ds.y_train), cfg.cost_matrix, cfg.hyper)]
    big = {"n_estimators": 1000, "max_depth": 4, "n_thresholds": 255}
    cfg5 = dataclasses.replace(cfg, spec=dataclasses.replace(cfg.spec, n_points=6667))
    ds5 = dataset_from_config(cfg5)
    out.append(
        ("airport 5k, max", ds5.X_train[:5000], ds5.class_index(ds5.y_train)[:5000], cfg.cost_matrix, big)
    )
    out.append(("12 classes 5k, max", *_twelve_classes(6667), big))
    if not quick:
        out.append(("12 classes 15k, max", *_twelve_classes(20000), big))
    return [(name, X[:15000], y[:15000], C, h) for name, X, y, C, h in out]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if node_path() is None:
        raise SystemExit("Node is not installed (apt-get install nodejs): nothing to measure.")
    rows = []
    for name, X, y, C, hyper in cases(args.quick):
        grid = make_grid(X, grid_size_for(hyper["n_estimators"])).points
        job = (problem_payload(X, y, C, hyper), grid)
        load_before = load_average()
        js = run_node([job] * (args.repeat + 1))[1:]
        js_fit = sorted(r["seconds"] for r in js)
        RebelClassifier(cost_matrix=C, **hyper).fit(X, y)  # warm-up (compiles on an empty cache)
        nb_fit = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            RebelClassifier(cost_matrix=C, **hyper).fit(X, y)
            nb_fit.append(time.perf_counter() - start)
        nb_fit.sort()
        rows.append(
            [
                name,
                f"{X.shape[0]} x {C.shape[0]} cl, T={hyper['n_estimators']} D={hyper['max_depth']}",
                f"{1e3 * js_fit[len(js_fit) // 2]:.0f} ms ({1e3 * js_fit[0]:.0f}-{1e3 * js_fit[-1]:.0f})",
                f"{1e3 * nb_fit[len(nb_fit) // 2]:.0f} ms ({1e3 * nb_fit[0]:.0f}-{1e3 * nb_fit[-1]:.0f})",
                f"{grid.shape[0]} cells",
                f"{load_before} / {load_average()}",
            ]
        )
    print_table(rows, ["case", "size", "JS fit (Node)", "numba fit", "grid", "load before / after"])


if __name__ == "__main__":
    main()
