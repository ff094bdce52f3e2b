"""The browser engine's Python side: its JavaScript text, the problem it is given, and a Node runner.

``rebel_engine.js`` (with ``libm.js`` and ``rebel_inputs.js``) is paper-mode REBEL (exp loss, binary leaves, uniform thresholds) in plain JavaScript. This
module reads its text (``engine_source``) for pages that embed it, writes the JSON-able problem it trains on
(``problem_payload``: the training points, class indices, cost matrix, sample weights and hyper-parameters) and
runs it under Node on a batch of problems (``run_node``), which the equality test and the timings use.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np

from rebel.params import INT_PARAMS, MAX_APP_POINTS, MAX_CLASSES

HERE = Path(__file__).resolve().parent
LIBM_JS = HERE / "libm.js"
INPUTS_JS = HERE / "rebel_inputs.js"
ENGINE_JS = HERE / "rebel_engine.js"
NODE_BATCH_JS = HERE / "node_batch.js"
# The sizes the engine takes: the Playground's (rebel.params). tests/test_browser_engine.py checks it against the
# numba engine up to 5,000 points and 12 classes.
MAX_POINTS = MAX_APP_POINTS
MAX_ROUNDS = INT_PARAMS["n_estimators"].app_high
MAX_DEPTH = INT_PARAMS["max_depth"].app_high
N_FEATURES = 2


def engine_source() -> str:
    """The engine's JavaScript text, its exp and log and its inputs first (defines ``RebelLibm``, ``RebelInputs``
    and ``RebelEngine``; in a Web Worker it answers ``{problem}`` messages)."""
    return "\n".join(path.read_text(encoding="utf-8") for path in (LIBM_JS, INPUTS_JS, ENGINE_JS))


def problem_payload(X, y_idx, cost_matrix, hyper: dict, sample_weight=None) -> dict:
    """The problem the JavaScript ``fit`` trains on: X (N, 2) training points, class indices (N,), the cost
    matrix (K, K; rows = truth), optional sample weights (N,) and ``hyper`` (``n_estimators``, ``max_depth``,
    ``n_thresholds``). Refuses sizes beyond the engine's (ValueError naming the argument and the limit)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y_idx = np.asarray(y_idx, dtype=np.int64)
    C = np.asarray(cost_matrix, dtype=np.float64)
    n, d = X.shape
    K = C.shape[0]
    limits = [
        ("X's rows", n, MAX_POINTS),
        ("the cost matrix's classes", K, MAX_CLASSES),
        ("n_estimators", int(hyper["n_estimators"]), MAX_ROUNDS),
        ("max_depth", int(hyper["max_depth"]), MAX_DEPTH),
    ]
    for name, value, top in limits:
        if value > top:
            raise ValueError(
                f"{name} is {value}; the browser engine takes at most {top}. Use the server engine."
            )
    if d != N_FEATURES:
        raise ValueError(
            f"X has {d} features; the browser engine takes {N_FEATURES} (the Playground's plane)."
        )
    return {
        "X": X.ravel().tolist(),
        "N": n,
        "d": d,
        "K": K,
        "y": y_idx.tolist(),
        "costMatrix": C.ravel().tolist(),
        "weights": None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).tolist(),
        "nRounds": int(hyper["n_estimators"]),
        "depth": int(hyper["max_depth"]),
        "nThresholds": int(hyper["n_thresholds"]),
    }


def node_path() -> str | None:
    """The ``node`` executable, or None when Node is not installed."""
    return shutil.which("node") or shutil.which("nodejs")


def run_node(
    jobs: list[tuple[dict, np.ndarray]], node: str | None = None, timeout: float = 600, trace: bool = False
) -> list[dict]:
    """Fit each ``(problem payload, points (M, 2))`` job with the JavaScript engine in one Node process; returns
    per job ``{"model": {...}, "staged": (T + 1, M) class indices, "seconds": the fit's wall time}``, and with
    ``trace`` ``"logs"``: (n, 2) the argument and result of every log the fit took."""
    node = node or node_path()
    if node is None:
        raise RuntimeError(
            "Node is not installed (apt-get install nodejs); the browser engine cannot run here."
        )
    payload = json.dumps(
        [
            {
                "problem": p,
                "points": np.ascontiguousarray(P, dtype=np.float64).ravel().tolist(),
                "trace": trace,
            }
            for p, P in jobs
        ]
    )
    done = subprocess.run(
        [node, str(NODE_BATCH_JS)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"node exited with status {done.returncode}: {done.stderr.strip()[-2000:]}")
    out = json.loads(done.stdout)
    for (_, P), res in zip(jobs, out, strict=True):
        res["staged"] = np.asarray(res["staged"], dtype=np.int64).reshape(-1, np.shape(P)[0])
        if res["logs"] is not None:
            res["logs"] = np.asarray(res["logs"], dtype=np.float64).reshape(-1, 2)
    return out
