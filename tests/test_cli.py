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
