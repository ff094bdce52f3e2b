"""``fit --method auto|two-step|weighted``, the label column kept in the model file, ``fit --drop``, arguments
checked before any work, and the method file (rebel.method_file)."""

from __future__ import annotations

import base64
import json
import operator

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from rebel import CostSensitiveAuto, CostWeightedClassifier, MinRiskClassifier, RebelClassifier
from rebel.auto import booster, candidates
from rebel.io import ModelFileError, dumps_model, load_model, loads_model, save_model
from tests.test_cli_truth import AIRPORT, SAMPLES, _one_error, _run

C = np.array([[0.0, 1.0, 8.0], [2.0, 0.0, 1.0], [6.0, 1.0, 0.0]])


@pytest.fixture(scope="module")
def iris_frame():
    X, y = load_iris(return_X_y=True, as_frame=True)
    X.columns = ["sl", "sw", "pl", "pw"]
    return X, y.to_numpy()


def test_fit_method_auto_prints_the_candidates_and_saves_the_winner(tmp_path, capsys):
    out = tmp_path / "auto.json"
    argv = ["fit", AIRPORT, "--cost-matrix", SAMPLES / "airport.json", "--method", "auto", "--cv", 3]
    code, text, err = _run([*argv, "--quiet", "-o", out], capsys)
    assert code == 0, err
    lines = text.splitlines()
    assert lines[0].startswith("candidate") and "CV cost" in lines[0] and "95% interval" in lines[0]
    names = list(candidates(np.ones((3, 3)) - np.eye(3)))
    for name in names:
        assert any(line[1:].startswith(name) for line in lines), name
    winner = next(line[1:].split("  ")[0].strip() for line in lines if line.startswith("*"))
    model = load_model(out)
    assert model.winner_ == winner and model.method_ == winner.split(" ")[0]
    costs = {row["candidate"]: row["cost"] for row in model.selection_}
    cheapest = min(costs, key=costs.get)
    chosen = next(line for line in lines if line.startswith("chosen: "))
    assert chosen.startswith(f"chosen: {cheapest} has the lowest cross-validated cost")
    if winner != cheapest:  # rule "order": the two-step kept, the cheapest not told apart from it
        assert model.method_ == "two-step" and f"cannot be told apart from {winner}" in chosen
    code, again, err = _run(["evaluate", out, AIRPORT], capsys)
    assert code == 0, err
    table = [line for line in lines if line.startswith(("candidate", "*", " ", "chosen"))]
    assert "\n".join(table) in again  # evaluate prints the same table


@pytest.mark.parametrize("method", ["two-step", "weighted"])
def test_fit_another_method_keeps_the_label_column(method, tmp_path, capsys):
    renamed = tmp_path / "kind.csv"
    table = pd.read_csv(AIRPORT).rename(columns={"label": "kind"})
    table.insert(0, "id", [f"row{i}" for i in range(len(table))])  # not a number: only --drop lets fit run
    table.to_csv(renamed, index=False)
    out = tmp_path / "m.json"
    argv = [
        "fit",
        renamed,
        "--label-column",
        "kind",
        "--drop",
        "id",
        "--method",
        method,
        "--quiet",
        "-o",
        out,
    ]
    code, text, err = _run(argv, capsys)
    assert code == 0, err
    model = load_model(out)
    assert model.label_column_ == "kind" and list(model.feature_names_in_) == ["x", "y"]
    assert isinstance(model, MinRiskClassifier if method == "two-step" else CostWeightedClassifier)
    code, text, err = _run(["evaluate", out, renamed], capsys)  # no --label-column: the file remembers it
    assert code == 0, err
    assert "mean cost:" in text


def test_rebel_fit_keeps_a_given_label_column(tmp_path, capsys):
    renamed = tmp_path / "kind.csv"
    pd.read_csv(AIRPORT).rename(columns={"label": "kind"}).to_csv(renamed, index=False)
    out = tmp_path / "r.json"
    code, _, err = _run(
        ["fit", renamed, "--label-column", "kind", "--rounds", 3, "--quiet", "-o", out], capsys
    )
    assert code == 0, err
    model = load_model(out)
    assert isinstance(model, RebelClassifier) and model.label_column_ == "kind"
    code, text, err = _run(["evaluate", out, renamed, "--baselines"], capsys)
    assert code == 0, err
    assert "cost-blind + min-risk rule (two-step)" in text


def test_arguments_are_checked_before_any_work(tmp_path, capsys):
    out = tmp_path / "m.json"
    line = _one_error(["fit", AIRPORT, "--method", "two-step", "--rounds", 5, "-o", out], capsys)
    assert "--rounds" in line and "--method rebel" in line
    line = _one_error(
        ["fit", AIRPORT, "--method", "weighted", "--calibration", "isotonic", "-o", out], capsys
    )
    assert "--calibration applies to --method two-step" in line
    line = _one_error(["fit", AIRPORT, "--cv", 3, "-o", out], capsys)
    assert "--cv applies to --method auto" in line
    line = _one_error(["fit", AIRPORT, "--drop", "nope", "-o", out], capsys)
    assert "'nope'" in line and "['x', 'y', 'label', 'split']" in line
    line = _one_error(["fit", AIRPORT, "--drop", "label", "-o", out], capsys)
    assert "label column 'label'" in line
    assert not out.exists()


def test_a_text_column_in_fit_names_the_drop_flag(tmp_path, capsys):
    with_id = tmp_path / "id.csv"
    table = pd.read_csv(AIRPORT)
    table.insert(0, "id", [f"row{i}" for i in range(len(table))])
    table.to_csv(with_id, index=False)
    line = _one_error(["fit", with_id, "--method", "two-step", "-o", tmp_path / "m.json"], capsys)
    assert "column 'id': the value is 'row0'" in line and "leave the column out with --drop 'id'" in line
    model = tmp_path / "r.json"
    assert _run(["fit", AIRPORT, "--rounds", 3, "--quiet", "-o", model], capsys)[0] == 0
    bad = tmp_path / "bad.csv"
    pd.read_csv(AIRPORT).assign(x=lambda t: t["x"].astype(object).where(t.index != 3, "oops")).to_csv(
        bad, index=False
    )
    line = _one_error(["predict", model, bad], capsys)  # a model's feature: no --drop to offer
    assert "column 'x': the value is 'oops'" in line and "--drop" not in line


@pytest.mark.parametrize(("method", "classes"), [("two-step", ["harmless", "liquid"]), ("weighted", None)])
def test_predict_scores_of_a_method_model_are_minus_its_risks_for_every_class_count(
    method, classes, tmp_path, capsys
):
    data = tmp_path / "d.csv"
    table = pd.read_csv(AIRPORT)
    (table if classes is None else table[table["label"].isin(classes)]).to_csv(data, index=False)
    out, pred = tmp_path / "m.json", tmp_path / "p.csv"
    assert _run(["fit", data, "--method", method, "--quiet", "-o", out], capsys)[0] == 0
    code, _, err = _run(["predict", out, data, "--scores", "-o", pred], capsys)
    assert code == 0, err
    model, written = load_model(out), pd.read_csv(pred)
    names = [f"neg_cost_{c}" for c in model.classes_]
    assert list(written.columns) == ["prediction", *names] and len(names) == (2 if classes else 3)
    X = pd.read_csv(data)[["x", "y"]]
    np.testing.assert_allclose(written[names].to_numpy(), -model.risks(X), rtol=1e-12, atol=1e-12)
    picked = model.classes_[np.argmax(written[names].to_numpy(), axis=1)]
    np.testing.assert_array_equal(picked, written["prediction"].to_numpy())


def test_evaluate_baselines_without_a_split_column_is_refused_before_evaluating(tmp_path, capsys):
    model = tmp_path / "r.json"
    assert _run(["fit", AIRPORT, "--rounds", 3, "--quiet", "-o", model], capsys)[0] == 0
    nosplit = tmp_path / "nosplit.csv"
    pd.read_csv(AIRPORT).drop(columns="split").to_csv(nosplit, index=False)
    code, out, err = _run(["evaluate", model, nosplit, "--baselines"], capsys)
    assert code == 2 and "has no split column" in err
    assert out == ""  # nothing was evaluated or printed first


def test_save_model_names_what_it_got(iris_frame, tmp_path):
    X, y = iris_frame
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    with pytest.raises(ValueError, match="save_model got a Pipeline"):
        save_model(pipe, tmp_path / "p.json")
    assert not (tmp_path / "p.json").exists()
    with pytest.raises(ValueError, match="not fitted"):
        dumps_model(CostSensitiveAuto(C))


def test_method_files_round_trip(iris_frame, tmp_path):
    X, y = iris_frame
    for model in (MinRiskClassifier(booster(), C, "isotonic"), CostWeightedClassifier(booster(), C)):
        model.fit(X, y)
        back = loads_model(dumps_model(model, "species"))
        np.testing.assert_array_equal(back.predict(X), model.predict(X))
        np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
        assert back.label_column_ == "species"


def test_a_method_file_with_an_untrusted_type_is_refused(iris_frame):
    import skops.io

    X, y = iris_frame
    doc = json.loads(dumps_model(MinRiskClassifier(LogisticRegression(max_iter=300), C, None).fit(X, y)))
    doc["skops"] = base64.b64encode(skops.io.dumps({"f": operator.attrgetter("x")})).decode()
    with pytest.raises(ModelFileError, match="refused rather than loaded"):
        loads_model(json.dumps(doc))
    doc["skops"] = base64.b64encode(skops.io.dumps({"f": 1})).decode()  # a trusted type, but not a model
    with pytest.raises(ModelFileError, match="holds a dict"):
        loads_model(json.dumps(doc))
    doc["skops"] = "not base64!"
    with pytest.raises(ModelFileError, match="not base64"):
        loads_model(json.dumps(doc))
    doc["extra"] = 1
    with pytest.raises(ModelFileError, match="unknown field"):
        loads_model(json.dumps(doc))
