"""A command line that cannot silently mislead: features matched by name, no guessed label column, model file
version 2, cost matrices from the project's JSON files, one-line errors and warnings, a quiet closed pipe,
``--seed``, ``--version``, ``evaluate --baselines``, and no traceback on any hostile argument."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rebel import RebelClassifier, __version__
from rebel.__main__ import build_parser, main
from rebel.baselines import TwoStepClassifier
from rebel.io import dumps_model, load_model, loads_model
from tests.processes import run_cli_forked
from tests.test_cli import run_cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"
AIRPORT = SAMPLES / "airport.csv"


def _run(argv, capsys) -> tuple[int, str, str]:
    """``main(argv)`` in this process: (exit code, stdout, stderr), whether it returned or raised SystemExit."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_error(argv, capsys) -> str:
    """Exit code 2 and exactly one stderr line, ``error: ...``, without traceback or usage; returns it."""
    code, _, err = _run(argv, capsys)
    assert code == 2, err
    assert "Traceback" not in err and "usage:" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def airport_model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("m") / "airport.json"
    argv = ["fit", AIRPORT, "--cost-matrix", SAMPLES / "airport.json", "--rounds", 20, "--quiet", "-o", path]
    assert main([str(a) for a in argv]) == 0
    return path


# ----------------------------------------------------------------------------------- features matched by name
def test_reordered_columns_give_the_same_predictions(airport_model, tmp_path, capsys):
    table = pd.read_csv(AIRPORT)
    plain, shuffled = tmp_path / "plain.csv", tmp_path / "shuffled.csv"
    table[["x", "y"]].to_csv(plain, index=False)
    table[["split", "y", "label", "x"]].to_csv(shuffled, index=False)
    out_a, out_b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert _run(["predict", airport_model, plain, "--scores", "-o", out_a], capsys)[0] == 0
    assert _run(["predict", airport_model, shuffled, "--scores", "-o", out_b], capsys)[0] == 0
    a, b = pd.read_csv(out_a), pd.read_csv(out_b)
    pd.testing.assert_frame_equal(a, b)
    # and the same as the Python API on the columns in training order
    model = load_model(airport_model)
    np.testing.assert_array_equal(a["prediction"].to_numpy(), model.predict(table[["x", "y"]]))
    code, out, _ = _run(["evaluate", airport_model, shuffled], capsys)
    assert code == 0
    assert out == _run(["evaluate", airport_model, AIRPORT], capsys)[1]


def test_renamed_missing_and_extra_columns(airport_model, tmp_path, capsys):
    table = pd.read_csv(AIRPORT)
    renamed = tmp_path / "renamed.csv"
    table.rename(columns={"x": "x1"}).to_csv(renamed, index=False)
    line = _one_error(["predict", airport_model, renamed], capsys)
    assert "lacks the feature column(s) ['x'] the model was trained on" in line and "'x1'" in line
    line = _one_error(["evaluate", airport_model, renamed], capsys)
    assert "lacks the feature column(s) ['x']" in line
    missing = tmp_path / "missing.csv"
    table[["y", "label"]].to_csv(missing, index=False)
    assert "lacks the feature column(s) ['x']" in _one_error(["predict", airport_model, missing], capsys)
    extra = tmp_path / "extra.csv"
    table.assign(z=1.0, note="n")[["z", "x", "note", "y"]].to_csv(extra, index=False)
    code, out, err = _run(["predict", airport_model, extra], capsys)
    assert code == 0 and len(out.splitlines()) == len(table) + 1
    assert err.strip() == f"note: {extra}: ignoring column(s) ['z', 'note'] the model does not use"


def test_a_file_without_header_needs_no_header(airport_model, tmp_path, capsys):
    table = pd.read_csv(AIRPORT)
    bare = tmp_path / "bare.csv"
    table[["x", "y"]].to_csv(bare, index=False, header=False)
    line = _one_error(["predict", airport_model, bare], capsys)
    assert "looks like data, not column names" in line and "--no-header" in line
    code, out, _ = _run(["predict", airport_model, bare, "--no-header"], capsys)
    assert code == 0
    with_header = _run(["predict", airport_model, AIRPORT], capsys)[1]
    assert out == with_header
    labelled = tmp_path / "labelled.csv"
    table[table.split == "test"][["x", "y", "label"]].to_csv(labelled, index=False, header=False)
    assert "give the number of the label column" in _one_error(
        ["evaluate", airport_model, labelled, "--no-header"], capsys
    )
    code, out, _ = _run(["evaluate", airport_model, labelled, "--no-header", "--label-column", 3], capsys)
    assert (
        code == 0
        and out.splitlines()[2:] == _run(["evaluate", airport_model, AIRPORT], capsys)[1].splitlines()[2:]
    )


def test_no_guessed_label_column(tmp_path, capsys):
    table = pd.read_csv(AIRPORT)
    no_label = tmp_path / "nolabel.csv"
    table[["x", "y", "split"]].to_csv(no_label, index=False)
    line = _one_error(["fit", no_label, "-o", tmp_path / "m.json"], capsys)
    assert "has no 'label' column; its columns are ['x', 'y', 'split']" in line and "--label-column" in line
    assert not (tmp_path / "m.json").exists()
    renamed = tmp_path / "kind.csv"
    table.rename(columns={"label": "kind"}).to_csv(renamed, index=False)
    assert (
        _run(
            ["fit", renamed, "--label-column", "kind", "--rounds", 3, "--quiet", "-o", tmp_path / "k.json"],
            capsys,
        )[0]
        == 0
    )
    code, out, err = _run(["evaluate", tmp_path / "k.json", renamed], capsys)  # the model file kept "kind"
    assert code == 0 and "mean cost:" in out, err
    line = _one_error(["evaluate", tmp_path / "k.json", renamed, "--label-column", "label"], capsys)
    assert "label_column 'label' is not a column" in line and "['x', 'y', 'kind', 'split']" in line


# ------------------------------------------------------------------------------------------ model file v2
def test_model_file_version_2_keeps_names_and_restores_feature_names_in(airport_model):
    doc = json.loads(airport_model.read_text())
    assert doc["version"] == 2 and doc["package_version"] == __version__
    assert doc["feature_names"] == ["x", "y"] and doc["classes"]["kind"] in ("str", "object-str")
    model = load_model(airport_model)
    assert model.feature_names_in_.tolist() == ["x", "y"]
    table = pd.read_csv(AIRPORT)
    model.predict(table[["x", "y"]])
    with pytest.raises(ValueError, match="feature names"):  # scikit-learn's own check
        model.predict(table[["y", "x"]])


def test_version_1_files_still_load():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(80, 2)), np.arange(80) % 2
    model = RebelClassifier(n_estimators=4).fit(X, y)
    doc = json.loads(dumps_model(model))
    assert doc.pop("feature_names") is None
    doc.pop("package_version")
    doc["version"] = 1
    loaded = loads_model(json.dumps(doc))
    assert not hasattr(loaded, "feature_names_in_")
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    doc["feature_names"] = ["a", "b"]  # a version 2 field in a version 1 file
    with pytest.raises(ValueError, match="unknown field"):
        loads_model(json.dumps(doc))


def test_a_version_1_file_predicts_by_position_on_the_command_line(airport_model, tmp_path, capsys):
    doc = json.loads(airport_model.read_text())
    for field in ("feature_names", "package_version"):
        doc.pop(field)
    doc["version"] = 1
    old = tmp_path / "v1.json"
    old.write_text(json.dumps(doc))
    code, out, err = _run(["predict", old, AIRPORT, "--scores"], capsys)
    assert code == 0 and err == ""
    assert out == _run(["predict", airport_model, AIRPORT, "--scores"], capsys)[1]
    three = tmp_path / "three.csv"
    three.write_text("a,b,c\n1,2,3\n")
    assert "has 3 feature columns ['a', 'b', 'c']; the model was trained on 2" in _one_error(
        ["predict", old, three], capsys
    )


def test_a_newer_file_says_to_upgrade_the_package(airport_model):
    doc = json.loads(airport_model.read_text())
    doc["version"] = 3
    with pytest.raises(ValueError) as exc:
        loads_model(json.dumps(doc))
    text = str(exc.value)
    assert "newer REBEL Explorer: upgrade the package (pip install --upgrade rebel-explorer)" in text
    assert "save" not in text


# ------------------------------------------------------------------------------------------- cost matrices
def _preset_costs(name: str) -> np.ndarray:
    return np.array(json.loads((SAMPLES / f"{name}.json").read_text())["cost_matrix"], dtype=float)


def test_cost_matrix_from_a_preset_and_a_session_file(airport_model, tmp_path):
    from rebel.cli import read_cost_matrix

    classes = ["harmless", "liquid", "weapon"]
    np.testing.assert_array_equal(
        read_cost_matrix(SAMPLES / "airport.json", classes), _preset_costs("airport")
    )
    np.testing.assert_array_equal(load_model(airport_model).cost_matrix_, _preset_costs("airport"))
    preset = json.loads((SAMPLES / "airport.json").read_text())
    session = {  # what the app's session download holds (classes implied by the mixture)
        "format": "rebel-explorer-session",
        "version": 1,
        "preset": "airport",
        "spec": preset["spec"],
        "cost_matrix": preset["cost_matrix"],
        "hyper": {"n_estimators": 10},
    }
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    np.testing.assert_array_equal(read_cost_matrix(path, classes), _preset_costs("airport"))
    session["classes"] = ["weapon", "liquid", "harmless"]  # named rows are matched by name
    session["cost_matrix"] = _preset_costs("airport")[::-1, ::-1].tolist()
    path.write_text(json.dumps(session))
    np.testing.assert_array_equal(read_cost_matrix(path, classes), _preset_costs("airport"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "is not valid JSON (Expecting property name"),
        ('{"name": "x"}', "JSON without a 'cost_matrix' list"),
        ("[[0, 1], [1, 0]]", "is 2 x 2; the data has 3 classes"),
        (
            '{"classes": ["a", "b", "c"], "cost_matrix": [[0,1,1],[1,0,1],[1,1,0]]}',
            "names the classes ['a', 'b', 'c']",
        ),
        ('{"cost_matrix": [1, 2]}', "'cost_matrix' must be a list of rows of numbers"),
        ("[" * 5000 + "]" * 5000, "not valid JSON"),
    ],
)
def test_bad_json_cost_matrices_are_one_line(airport_model, tmp_path, capsys, text, expected):
    path = tmp_path / "costs.json"
    path.write_text(text)
    line = _one_error(["evaluate", airport_model, AIRPORT, "--cost-matrix", path], capsys)
    assert expected in line and len(line) < 400


def test_cost_warning_is_one_line_once(tmp_path, capsys):
    path = tmp_path / "C.csv"
    path.write_text("1,1\n1,0\n")  # a non-zero diagonal warns
    code, _, err = _run(
        [
            "fit",
            SAMPLES / "xor.csv",
            "--cost-matrix",
            path,
            "--rounds",
            2,
            "--quiet",
            "-o",
            tmp_path / "m.json",
        ],
        capsys,
    )
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: --cost-matrix[0, 0] = 1.0: correct predictions")
    assert ".py" not in err


# ----------------------------------------------------------------------------------- truthful command line
def test_version_and_help_texts():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"rebel-explorer {__version__}"
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "fit" in a.choices).choices
    for name, command in sub.items():
        text = command.format_help()
        assert "`" not in text, name
    fit = sub["fit"].format_help()
    for option in ("--rounds ROUNDS", "--seed SEED", "--max-bytes N"):
        assert option in fit
    flat = " ".join(fit.split())
    assert "[1, 100000] (default: 100)" in flat and "validation rows (default: 0)" in flat


def test_argument_errors_are_one_line_without_usage(capsys):
    line = _one_error(["fit", SAMPLES / "xor.csv"], capsys)
    assert "the following arguments are required: -o/--out" in line and "--help' shows the usage" in line
    assert "invalid choice: 'frobnicate'" in _one_error(["frobnicate"], capsys)


def test_early_stopping_is_reproducible_with_seed(tmp_path, capsys):
    argv = ["fit", SAMPLES / "xor.csv", "--rounds", 300, "--depth", 2, "--early-stopping", 5, "--quiet"]
    runs = []
    for i, seed in enumerate((7, 7, 8)):
        out = tmp_path / f"m{i}.json"
        code, text, _ = _run([*argv, "--seed", seed, "-o", out], capsys)
        assert code == 0 and f"drawn with seed {seed}" in text
        runs.append(json.loads(out.read_text()))
    assert runs[0] == runs[1]
    assert runs[0]["params"]["random_state"] == 7 and runs[2]["params"]["random_state"] == 8


def test_closed_pipe_is_quiet(airport_model, tmp_path):
    """``predict ... | head -1``: the reader leaves; no message, exit code 141 (as cat/yes do)."""
    rng = np.random.default_rng(0)
    big = tmp_path / "big.csv"
    pd.DataFrame(rng.normal(size=(30_000, 2)), columns=["x", "y"]).to_csv(big, index=False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "rebel", "predict", str(airport_model), str(big), "--scores"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.readline().startswith(b"prediction,H_harmless")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert err == b""


def test_evaluate_baselines_match_the_python_api(airport_model, capsys):
    code, out, _ = _run(["evaluate", airport_model, AIRPORT, "--baselines"], capsys)
    assert code == 0
    table = pd.read_csv(AIRPORT)
    train, test = table[table.split == "train"], table[table.split == "test"]
    C = _preset_costs("airport")
    model = load_model(airport_model)
    two = TwoStepClassifier(RebelClassifier(**{**model.get_params(), "cost_matrix": None}), C)
    two.fit(train[["x", "y"]], train.label)
    truth = np.searchsorted(model.classes_, test.label)

    def cost(pred):
        return C[truth, np.searchsorted(model.classes_, pred)].mean()

    values = {
        line.split(":")[0].strip(): float(line.split(":")[-1])
        for line in out.splitlines()
        if line.startswith("  mean cost")
    }
    assert values["mean cost, cost-blind + min-risk rule (two-step)"] == pytest.approx(
        cost(two.predict(test[["x", "y"]])), rel=1e-5
    )
    assert values["mean cost, cost-blind + argmax"] == pytest.approx(
        cost(two.estimator_.predict(test[["x", "y"]])), rel=1e-5
    )
    rebel_cost = float(next(line for line in out.splitlines() if line.startswith("mean cost:")).split()[2])
    assert rebel_cost == pytest.approx(cost(model.predict(test[["x", "y"]])), rel=1e-5)


def test_baselines_need_training_rows(airport_model, tmp_path, capsys):
    unsplit = tmp_path / "unsplit.csv"
    pd.read_csv(AIRPORT).drop(columns="split").to_csv(unsplit, index=False)
    assert "give the training file with --train" in _one_error(
        ["evaluate", airport_model, unsplit, "--baselines"], capsys
    )
    code, out, _ = _run(["evaluate", airport_model, unsplit, "--baselines", "--train", AIRPORT], capsys)
    assert code == 0 and "min-risk rule" in out


# ------------------------------------------------------------------------- hostile arguments: exit 2, one line
@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory, airport_model) -> dict:
    d = tmp_path_factory.mktemp("hostile")
    table = pd.read_csv(AIRPORT)
    files = {"model": airport_model, "dir": d}
    files["all_test"] = d / "all_test.csv"
    table.assign(split="test").to_csv(files["all_test"], index=False)
    files["all_train"] = d / "all_train.csv"
    table.assign(split="train").to_csv(files["all_train"], index=False)
    files["garbage_json"] = d / "garbage.json"
    files["garbage_json"].write_text('{"format": "rebel-explorer-model", "version": ')
    files["data_copy"] = d / "d.csv"
    files["data_copy"].write_bytes(AIRPORT.read_bytes())
    files["model_copy"] = d / "m.json"
    files["model_copy"].write_bytes(airport_model.read_bytes())
    return files


HOSTILE = {
    "fit-all-test": (["fit", "{all_test}", "-o", "{dir}/m1.json"], "column marks no row 'train'"),
    "fit-missing": (["fit", "{dir}/nope.csv", "-o", "{dir}/m2.json"], "does not exist"),
    "fit-out-is-input": (["fit", "{data_copy}", "-o", "{data_copy}"], "is the input TRAIN.csv"),
    "fit-garbage-costs": (
        ["fit", "{data_copy}", "--cost-matrix", "{garbage_json}", "-o", "{dir}/m3.json"],
        "not valid JSON",
    ),
    "fit-out-dev-full": (
        ["fit", "{data_copy}", "--rounds", "2", "--quiet", "-o", "/dev/full"],
        "could not write '/dev/full': No space left on device",
    ),
    "fit-max-bytes": (
        ["fit", "{data_copy}", "--max-bytes", "100", "-o", "{dir}/m4.json"],
        "the limit is 100 (--max-bytes)",
    ),
    "predict-garbage-model": (["predict", "{garbage_json}", "{data_copy}"], "model file is not valid JSON"),
    "predict-out-is-model": (
        ["predict", "{model_copy}", "{data_copy}", "-o", "{model_copy}"],
        "is the input model.json",
    ),
    "predict-out-dev-full": (
        ["predict", "{model}", "{data_copy}", "-o", "/dev/full"],
        "No space left on device",
    ),
    "predict-max-bytes": (["predict", "{model}", "{data_copy}", "--max-bytes", "10"], "(--max-bytes)"),
    "evaluate-all-train": (["evaluate", "{model}", "{all_train}"], "marks no row 'test'"),
    "evaluate-missing": (["evaluate", "{model}", "{dir}/nope.csv"], "does not exist"),
    "evaluate-garbage-costs": (
        ["evaluate", "{model}", "{data_copy}", "--cost-matrix", "{garbage_json}"],
        "not valid JSON",
    ),
    "evaluate-model-is-csv": (["evaluate", "{data_copy}", "{data_copy}"], "model file is not valid JSON"),
    "reproduce-tune-costs-0": (["reproduce", "honest", "--tune-costs", "0"], "must be at least 1; got 0"),
    "reproduce-rounds-grid": (["reproduce", "honest", "--rounds-grid", "50,x"], "--rounds-grid"),
    "reproduce-lambdas": (["reproduce", "example-costs", "--lambdas", "nan"], "--lambdas"),
    "reproduce-same-outputs": (
        ["reproduce", "fig4", "--out", "{dir}/o.csv", "--curves", "{dir}/o.csv"],
        "is the --curves output",
    ),
    "reproduce-same-regimes-output": (
        ["reproduce", "calibrated", "--out", "{dir}/o.json", "--regimes", "{dir}/o.json"],
        "is the --regimes output",
    ),
    "reproduce-dev-full": (
        [
            "reproduce",
            "fig3",
            "--datasets",
            "1",
            "--costs",
            "1",
            "--rounds",
            "2",
            "--quiet",
            "--out",
            "/dev/full",
        ],
        "could not write '/dev/full': No space left on device",
    ),
    "reproduce-unknown-dataset": (
        ["reproduce", "table1", "--datasets", "nope", "--rounds", "2", "--quiet"],
        "unknown",
    ),
}


@pytest.fixture(scope="module")
def hostile_runs(hostile_files) -> dict:
    """Every hostile command, each in its own process (``run_cli_forked``), then the overwrite refusal's input."""
    before = hostile_files["data_copy"].read_bytes()
    commands = {case: [a.format(**hostile_files) for a in argv] for case, (argv, _) in HOSTILE.items()}
    commands["overwrite"] = ["fit", hostile_files["data_copy"], "-o", hostile_files["data_copy"]]
    runs = dict(zip(commands, run_cli_forked(list(commands.values())), strict=True))
    runs["overwrite-input-kept"] = hostile_files["data_copy"].read_bytes() == before
    return runs


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_arguments_end_in_one_line_and_exit_2(case, hostile_runs):
    proc, expected = hostile_runs[case], HOSTILE[case][1]
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "usage:" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and expected in errors[0], proc.stderr


def test_overwrite_refusal_keeps_the_input(hostile_runs):
    assert hostile_runs["overwrite"].returncode == 2 and hostile_runs["overwrite-input-kept"]


def test_a_cold_engine_says_it_compiles(tmp_path, airport_model):
    """An empty numba cache: one line before the work, then the prediction (the kernels compile here)."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def predict(out: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "rebel", "predict", str(airport_model), str(AIRPORT), "-o", out]
        return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, check=False)

    proc = predict(str(tmp_path / "p.csv"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0].startswith(
        "compiling the engine for this machine (first use only, about"
    )
    again = predict(str(tmp_path / "q.csv"))
    assert again.returncode == 0 and "compiling" not in again.stderr


def test_a_cold_fit_says_it_compiles_once(tmp_path):
    """An empty numba cache: ``fit`` says it compiles (with an estimate) before its progress bar; a small fit
    with another number of classes does not (its plain drivers do not depend on K:
    ``rebel.kernels.interpreted_drivers``), nor one with the same number of classes."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    table = pd.read_csv(AIRPORT)
    two = tmp_path / "two.csv"
    table[table["label"] != "weapon"].to_csv(two, index=False)

    def fit(path, out):
        return subprocess.run(
            [sys.executable, "-m", "rebel", "fit", str(path), "--rounds", "5", "-o", str(tmp_path / out)],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
            check=False,
        )

    first, other_k, same_k = fit(AIRPORT, "a.json"), fit(two, "b.json"), fit(two, "c.json")
    for proc in (first, other_k, same_k):
        assert proc.returncode == 0, proc.stderr
    notice = first.stderr.replace("\r", "\n").splitlines()[0]
    assert (
        notice.startswith("compiling the engine for this machine (first use only, about ") and " s)" in notice
    )
    assert "compiling" not in other_k.stderr and "compiling" not in same_k.stderr


def test_a_full_standard_output_is_a_write_error(airport_model):
    """``predict ... > /dev/full``: "could not write to standard output: No space left on device", exit 2."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "rebel", "predict", str(airport_model), str(AIRPORT)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            check=False,
        )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: could not write to standard output: No space left on device."
