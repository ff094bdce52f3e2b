"""``python -m rebel fit | predict | evaluate``: the round trip on sample_data/ through the command line gives
bit-identical predictions and scores to the Python API; bad input is one error line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rebel import RebelClassifier
from rebel.__main__ import main
from rebel.cli import read_cost_matrix
from tests.test_cli import run_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"


def _cli(*argv, cwd=None):
    proc = run_cli(*argv, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _cost_csv(path: Path, preset: str) -> np.ndarray:
    """Write the preset's cost matrix as a named CSV grid, rows in reverse order; return it (sorted order)."""
    meta = json.loads((SAMPLES / f"{preset}.json").read_text())
    classes, C = meta["classes"], np.array(meta["cost_matrix"], dtype=float)
    lines = ["truth," + ",".join(classes)]
    lines += [
        f"{c}," + ",".join(repr(float(v)) for v in row)
        for c, row in reversed(list(zip(classes, C, strict=True)))
    ]
    path.write_text("\n".join(lines) + "\n")
    return C


def test_fit_predict_evaluate_round_trip_matches_the_python_api(tmp_path):
    data = SAMPLES / "airport.csv"
    C = _cost_csv(tmp_path / "C.csv", "airport")
    model_file, pred_file = tmp_path / "model.json", tmp_path / "pred.csv"

    fit = _cli(
        "fit", data, "--cost-matrix", tmp_path / "C.csv", "--rounds", 30, "--depth", 2, "-o", model_file
    )
    assert fit.returncode == 0, fit.stderr
    assert "30/30 rounds" in fit.stderr  # the progress bar
    assert f"Model written to {model_file}" in fit.stdout
    pred = _cli("predict", model_file, data, "-o", pred_file, "--scores")
    assert pred.returncode == 0, pred.stderr
    ev = _cli("evaluate", model_file, data, "--cost-matrix", tmp_path / "C.csv")
    assert ev.returncode == 0, ev.stderr

    # The same fit through the Python API: the file's train rows, the same costs and parameters.
    table = pd.read_csv(data)
    train, test = table[table.split == "train"], table[table.split == "test"]
    model = RebelClassifier(C, n_estimators=30, max_depth=2).fit(train[["x", "y"]].to_numpy(), train.label)
    X_all = table[["x", "y"]].to_numpy()
    written = pd.read_csv(pred_file)
    assert len(written) == len(table)  # one prediction per input row, in file order
    np.testing.assert_array_equal(written.prediction.to_numpy(), model.predict(X_all))
    scores = written[[f"H_{c}" for c in model.classes_]].to_numpy()
    np.testing.assert_array_equal(scores, model.decision_function(X_all))  # bit-identical

    y_idx = np.searchsorted(model.classes_, test.label.to_numpy())
    p_idx = np.argmax(model.decision_function(test[["x", "y"]].to_numpy()), axis=1)
    lines = ev.stdout.splitlines()
    assert f"points: {len(test)}" in lines
    cost = float(next(line for line in lines if line.startswith("mean cost:")).split()[2])
    assert cost == pytest.approx(C[y_idx, p_idx].mean(), rel=1e-5)
    error = float(next(line for line in lines if line.startswith("error rate:")).split()[2])
    assert error == pytest.approx(np.mean(y_idx != p_idx), rel=1e-5)
    rows = lines[lines.index("confusion matrix (rows: truth, columns: predicted):") + 2 :]
    counts = np.array([[int(v) for v in row.split()[1:]] for row in rows])
    expected = np.zeros((3, 3), dtype=int)
    np.add.at(expected, (y_idx, p_idx), 1)
    np.testing.assert_array_equal(counts, expected)


def test_predict_to_stdout_and_evaluate_with_the_training_costs(tmp_path, capsys):
    data = SAMPLES / "xor.csv"
    model_file = tmp_path / "m.json"
    assert main(["fit", str(data), "--rounds", "5", "--quiet", "-o", str(model_file)]) == 0
    capsys.readouterr()
    features = tmp_path / "X.csv"
    pd.read_csv(data)[["x", "y"]].head(7).to_csv(features, index=False)  # no label column
    assert main(["predict", str(model_file), str(features)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "prediction" and len(out) == 8 and set(out[1:]) <= {"defect", "ok"}
    assert main(["evaluate", str(model_file), str(data)]) == 0
    assert "(cost matrix: the model's training costs)" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------- bad input
def _refused(argv, capsys) -> str:
    """One ``error:`` line on stderr and exit code 2, from argparse (SystemExit) or from the run."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def xor_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "xor.json"
    assert main(["fit", str(SAMPLES / "xor.csv"), "--rounds", "3", "--quiet", "-o", str(path)]) == 0
    return path


# (flag, value) refused by ``fit``: the message it must show
FIT_REFUSALS = {
    # the base parameters
    ("--rounds", "0"): "argument --rounds: n_estimators must be in [1, 100000]; got 0.",
    ("--depth", "9"): "argument --depth: max_depth must be in [1, 8]; got 9.",
    ("--thresholds", "256"): "argument --thresholds: n_thresholds must be in [1, 255]; got 256.",
    ("--thresholds", "abc"): "argument --thresholds: n_thresholds must be a whole number; got 'abc'.",
    ("--binning", "log"): "argument --binning: invalid choice: 'log'",
    # the engine options
    ("--loss", "squared"): "argument --loss: invalid choice: 'squared' (choose from 'exp', 'logistic')",
    ("--leaves", "tree"): "argument --leaves: invalid choice: 'tree' (choose from 'binary', 'vector')",
    ("--learning-rate", "0"): "argument --learning-rate: learning_rate must be in (0, 1]; got 0.0.",
    ("--learning-rate", "1.5"): "argument --learning-rate: learning_rate must be in (0, 1]; got 1.5.",
    ("--learning-rate", "nan"): "argument --learning-rate: learning_rate must be in (0, 1]; got nan.",
    ("--learning-rate", "fast"): "argument --learning-rate: learning_rate must be a number; got 'fast'.",
    ("--validation-fraction", "1"): "validation_fraction must be in (0, 1); got 1.0.",
    ("--early-stopping", "0"): "argument --early-stopping: n_iter_no_change must be in [1, 10000]; got 0.",
    ("--early-stopping", "2.5"): "argument --early-stopping: --early-stopping must be a whole number",
    (
        "--l2-regularization",
        "-1",
    ): "argument --l2-regularization: l2_regularization must be in [0, 1e+06]; got -1.0.",
    (
        "--l2-regularization",
        "lots",
    ): "argument --l2-regularization: l2_regularization must be a number; got 'lots'.",
    (
        "--min-samples-leaf",
        "0",
    ): "argument --min-samples-leaf: min_samples_leaf must be in [1, 1000000]; got 0.",
    ("--min-samples-leaf", "2.5"): "argument --min-samples-leaf: --min-samples-leaf must be a whole number",
    # paper mode (the default --loss exp --leaves binary) has no regularisation: the message names the fix
    (
        "--l2-regularization",
        "0.5",
    ): "--l2-regularization 0.5 applies only to the variants beyond the paper, but "
    "--loss exp with --leaves binary is paper mode, which has no regularisation. Add --loss logistic or --leaves "
    "vector, or drop --l2-regularization.",
    ("--min-samples-leaf", "5"): "--min-samples-leaf 5 applies only to the variants",
}


@pytest.mark.parametrize(("option", "expected"), list(FIT_REFUSALS.items()))
def test_fit_arguments_are_checked_against_rebel_params(option, expected, tmp_path, capsys):
    """``fit`` with one bad (flag, value) exits 2 with a message naming it, and writes no model file."""
    out = tmp_path / "m.json"
    assert expected in _refused(["fit", SAMPLES / "xor.csv", *option, "-o", out], capsys)
    assert not out.exists()


def test_paths_are_checked_before_any_work(tmp_path, capsys):
    data = SAMPLES / "xor.csv"
    missing = tmp_path / "no" / "m.json"
    assert f"cannot write '{missing}': the directory" in _refused(["fit", data, "-o", missing], capsys)
    assert "is a directory" in _refused(["fit", data, "-o", tmp_path], capsys)
    nope = tmp_path / "nope.csv"
    assert f"input file '{nope}' does not exist; check the path." in _refused(
        ["fit", nope, "-o", tmp_path / "m.json"], capsys
    )
    assert "argument --cost-matrix: input file" in _refused(
        ["fit", data, "--cost-matrix", nope, "-o", tmp_path / "m.json"], capsys
    )


def test_bad_files_name_the_problem_and_the_fix(tmp_path, xor_model, capsys):
    data = SAMPLES / "xor.csv"
    airport_costs = tmp_path / "C3.csv"
    _cost_csv(airport_costs, "airport")
    line = _refused(["fit", data, "--cost-matrix", airport_costs, "-o", tmp_path / "m.json"], capsys)
    assert line.startswith("error: --cost-matrix") and "the data has ['defect', 'ok']" in line
    not_json = tmp_path / "model.json"
    not_json.write_text("x,y\n1,2\n")
    assert f"error: {not_json}: model file is not valid JSON" in _refused(["predict", not_json, data], capsys)
    three = tmp_path / "three.csv"
    three.write_text("a,b,c\n1,2,3\n")
    assert (
        "lacks the feature column(s) ['x', 'y'] the model was trained on; its columns are ['a', 'b', 'c']"
        in (_refused(["predict", xor_model, three], capsys))
    )
    labels = tmp_path / "labels.csv"
    labels.write_text("x,y,label\n1,2,cat\n3,4,dog\n")
    assert "label 'cat' is not one of the classes" in _refused(["evaluate", xor_model, labels], capsys)
    text = tmp_path / "text.csv"
    text.write_text("x,y\n1,abc\n")
    assert "CSV line 2, column 'y': the value is 'abc'" in _refused(["predict", xor_model, text], capsys)
    assert "cannot write" in _refused(["predict", xor_model, data, "-o", tmp_path / "d" / "p.csv"], capsys)


def test_read_cost_matrix_grids(tmp_path):
    path = tmp_path / "C.csv"
    path.write_text("0,5\n1,0\n")
    np.testing.assert_array_equal(read_cost_matrix(path, ["defect", "ok"]), [[0, 5], [1, 0]])
    path.write_text("truth,ok,defect\nok,0,1\ndefect,5,0\n")  # named, any order: reordered to sorted classes
    np.testing.assert_array_equal(read_cost_matrix(path, ["defect", "ok"]), [[0, 5], [1, 0]])
    path.write_text("truth,1,2\n2,3,0\n1,0,4\n")  # integer class labels match by their text
    np.testing.assert_array_equal(read_cost_matrix(path, np.array([1, 2])), [[0, 4], [3, 0]])
    bad = {
        "0,5,1\n1,0,1\n": "is 2 x 3; the data has 2 classes ['defect', 'ok'], so give a 2 x 2 grid",
        "0,-5\n1,0\n": "--cost-matrix",
        "0,abc\n1,0\n": "'abc' is not a number",
        "0,inf\n1,0\n": "'inf' is not finite",
        "\n": "is empty; give 2 rows of 2 costs",
        "truth,defect,ok\ndefect,0\nok,1,0\n": "row 'defect' has 1 costs; give 2",
    }
    for text, expected in bad.items():
        path.write_text(text)
        with pytest.raises(ValueError) as exc:
            read_cost_matrix(path, ["defect", "ok"])
        assert expected in str(exc.value)


# ------------------------------------------------------------------------------------ engine options (variants)
def test_fit_engine_options_match_the_python_api_and_reach_the_model_file(tmp_path, capsys):
    from rebel.io import load_model

    data = SAMPLES / "airport.csv"
    C = _cost_csv(tmp_path / "C.csv", "airport")
    model_file = tmp_path / "m.json"
    argv = ["fit", data, "--cost-matrix", tmp_path / "C.csv", "--rounds", 40, "--depth", 2, "--quiet"]
    argv += ["--loss", "logistic", "--leaves", "vector", "--learning-rate", 0.3, "-o", model_file]
    assert main([str(a) for a in argv]) == 0
    assert "loss logistic, vector leaves, learning rate 0.3" in capsys.readouterr().out
    frame = pd.read_csv(data)
    train = frame[frame["split"] == "train"]
    X, y = train.drop(columns=["label", "split"]).to_numpy(float), train["label"].to_numpy()
    expected = RebelClassifier(C, 40, 2, loss="logistic", leaves="vector", learning_rate=0.3).fit(X, y)
    model = load_model(model_file)
    assert (model.loss, model.leaves, model.learning_rate) == ("logistic", "vector", 0.3)
    X_all = frame.drop(columns=["label", "split"])  # the model file keeps the feature names x, y
    np.testing.assert_array_equal(
        model.decision_function(X_all), expected.decision_function(X_all.to_numpy())
    )
    paper = tmp_path / "paper.json"
    assert main([str(a) for a in argv[:-6]] + ["-o", str(paper)]) == 0
    paper_scores = load_model(paper).decision_function(X_all)
    assert not np.array_equal(paper_scores, expected.decision_function(X_all.to_numpy()))


def test_fit_regularisation_options_match_the_python_api_and_reach_the_model_file(tmp_path, capsys):
    from rebel.io import load_model

    data = SAMPLES / "airport.csv"
    out = tmp_path / "m.json"
    argv = ["fit", data, "--rounds", 20, "--depth", 2, "--leaves", "vector", "--quiet"]
    assert (
        main([str(a) for a in [*argv, "--l2-regularization", 2.5, "--min-samples-leaf", 7, "-o", out]]) == 0
    )
    assert "l2 regularization 2.5, min samples a leaf 7" in capsys.readouterr().out
    model = load_model(out)
    assert (model.l2_regularization, model.min_samples_leaf) == (2.5, 7)
    frame = pd.read_csv(data)
    train = frame[frame["split"] == "train"]
    X, y = train.drop(columns=["label", "split"]).to_numpy(float), train["label"].to_numpy()
    expected = RebelClassifier(None, 20, 2, leaves="vector", l2_regularization=2.5, min_samples_leaf=7).fit(
        X, y
    )
    X_all = frame.drop(columns=["label", "split"])
    np.testing.assert_array_equal(
        model.decision_function(X_all), expected.decision_function(X_all.to_numpy())
    )


def test_fit_early_stopping_stops_before_the_last_round(tmp_path, capsys):
    from rebel.io import load_model

    out = tmp_path / "m.json"
    argv = ["fit", SAMPLES / "xor.csv", "--rounds", 2000, "--depth", 2, "--early-stopping", 5, "--quiet"]
    assert main([str(a) for a in [*argv, "--validation-fraction", 0.25, "-o", out]]) == 0
    assert "early stopping after 5 rounds" in capsys.readouterr().out
    model = load_model(out)
    assert model.n_iter_no_change == 5 and model.validation_fraction == 0.25
    assert model.n_estimators_ < 2000
