"""The command line: ``python -m rebel reproduce ...`` prints the table, writes the CSV, reports bad input."""

import io
import subprocess
import sys

import pandas as pd
import pytest

from rebel.__main__ import ProgressBar, main


def test_fig3_ci_command_runs_prints_table_and_writes_csv(tmp_path):
    out = tmp_path / "fig3.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rebel",
            "reproduce",
            "fig3",
            "--datasets",
            "2",
            "--costs",
            "3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "win_rate" in proc.stdout and "harder half" in proc.stdout
    assert "of 6 trials" in proc.stdout
    assert "bootstrap over the 2 datasets" in proc.stdout  # every win rate with its interval and baseline
    assert "all (6 trials): REBEL wins" in proc.stdout and "against the cost-blind argmax" in proc.stdout
    assert "8/8 fits" in proc.stderr  # progress bar: 2 posterior fits + 6 cost-sensitive fits
    df = pd.read_csv(out)
    assert len(df) == 6 and {"rebel_cost", "two_step_cost", "win"} <= set(df.columns)


def test_table1_and_fig4_in_process(tmp_path, capsys):
    out = tmp_path / "t1.csv"
    assert (
        main(
            [
                "reproduce",
                "table1",
                "--datasets",
                "iris",
                "--depths",
                "1,2",
                "--splits",
                "1",
                "--rounds",
                "3",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "stumps" in text and "depth 2" in text
    assert len(pd.read_csv(out)) == 4
    curves = tmp_path / "curves.csv"
    assert (
        main(
            [
                "reproduce",
                "fig4",
                "--datasets",
                "iris",
                "--methods",
                "rebel,adaboost_mh",
                "--splits",
                "2",
                "--rounds",
                "3",
                "--jobs",
                "1",
                "--quiet",
                "--curves",
                str(curves),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "Test error %" in text and "AdaBoost.MH two-step" in text and "REBEL (cost-sensitive)" in text
    assert len(pd.read_csv(curves)) == 2 * (2 * 2 + 1) * 3


def test_bad_input_is_an_error_message_not_a_traceback(capsys):
    assert main(["reproduce", "fig4", "--datasets", "nope", "--splits", "1", "--rounds", "2", "--quiet"]) == 2
    assert "unknown" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce", "fig5"])


def test_progress_bar_writes_one_line_per_decile_off_terminal():
    stream = io.StringIO()
    bar = ProgressBar("x", stream)
    for done in range(101):
        bar(done, 100)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11 and lines[-1].startswith("x [" + "#" * 30 + "] 100/100")


# ------------------------------------------------------------------------------------ bad arguments (F7 and more)
def run_cli(*argv, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "rebel", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        check=False,
    )


def _refused(argv, capsys) -> str:
    """``main(argv)`` ends with exit code 2 and one clear line on stderr; returns that line."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--datasets", "0"], "argument --datasets: the number of datasets must be at least 1; got 0."),
        (["--datasets", "-1"], "argument --datasets: the number of datasets must be at least 1; got -1."),
        (
            ["--costs", "0"],
            "argument --costs: the number of cost matrices per dataset must be at least 1; got 0",
        ),
        (
            ["--costs", "x"],
            "argument --costs: the number of cost matrices per dataset must be a whole number",
        ),
        (["--datasets", "iris"], "fig3 takes a number of random datasets (>= 1); got 'iris'"),
        (["--rounds", "0"], "argument --rounds: n_estimators must be in [1, 100000]; got 0."),
        (["--depth", "9"], "argument --depth: max_depth must be in [1, 8]; got 9."),
        (["--jobs", "0"], "argument --jobs: the number of workers must be at least 1; got 0."),
    ],
)
def test_fig3_bad_counts_are_refused_by_argparse(argv, expected, capsys):
    """Formerly ``--datasets 0``/``-1``/``--costs 0`` ran and ended in ``KeyError: 'rebel_cost'``."""
    assert expected in _refused(["reproduce", "fig3", *argv], capsys)


def test_unwritable_out_is_refused_before_the_run(tmp_path):
    """Formerly an OSError after the whole run, losing the results."""
    proc = run_cli("reproduce", "fig3", "--out", tmp_path / "missing" / "x.csv")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "fits" not in proc.stderr  # refused before the first fit
    assert f"cannot write '{tmp_path / 'missing' / 'x.csv'}': the directory" in proc.stderr
    assert "does not exist; create it or choose another path" in proc.stderr
    proc = run_cli("reproduce", "table1", "--curves", tmp_path)
    assert proc.returncode == 2 and "is a directory; give a file name inside it" in proc.stderr


def test_table1_depths_use_the_engine_range(capsys):
    assert "argument --depths: max_depth must be in [1, 8]; got 9." in _refused(
        ["reproduce", "table1", "--depths", "1,9"], capsys
    )
    assert "give at least one max_depth" in _refused(["reproduce", "table1", "--depths", ","], capsys)
