"""``python -m benchmarks --check``'s reading and comparison of printouts, on made-up printouts (no timing)."""

from __future__ import annotations

import pytest

from benchmarks import check

FIRSTFIT = """start: load average 1.0 on 2 cores
run 1 of 2
  paper            import  0.90 CPU  0.80 wall  fit  {a:.2f} CPU  3.40 wall  predict  0.00 CPU  0.00 wall  fit+predict  {a:.2f} s CPU   (load average  1.0)
    compiled 17 kernels, 3.15 s (self seconds, most first; n = signatures):
      update.apply_round_serial                      0.77 s  n=1
  LightGBM         import  0.95 CPU  0.84 wall  fit  0.03 CPU  0.03 wall  predict  0.00 CPU  0.00 wall  fit+predict  0.03 s CPU   (load average  1.3)
run 2 of 2
  paper            import  0.90 CPU  0.80 wall  fit  {b:.2f} CPU  3.40 wall  predict  0.00 CPU  0.00 wall  fit+predict  {b:.2f} s CPU   (load average  1.0)
  vector leaves    import  0.90 CPU  0.80 wall  fit  6.00 CPU  6.00 wall  predict  0.50 CPU  0.50 wall  fit+predict  6.50 s CPU   (load average  1.0)
"""

FIT_TABLE = """Equal rounds (headline): N=100000 d=50 K=10, 100 rounds of depth-2 trees -- 1-thread CPU seconds, 5 interleaved repeats, load 1.6 on 2 cores
system    min    median  REBEL/this min  REBEL/this median
----------------------------------------------------------
REBEL     1.520  1.608   1.00            1.00
LightGBM  7.155  7.343   0.21            {k10:.2f}

Equal rounds (headline): N=100000 d=50 K=10, 100 rounds of depth-2 trees -- 2-thread wall seconds, 5 interleaved repeats, load 4.05 on 2 cores
system    min    median  REBEL/this min  REBEL/this median
----------------------------------------------------------
REBEL     1.043  1.059   1.00            1.00
LightGBM  4.003  4.069   0.26            0.99

Equal work, K=2 (one tree a round each): N=100000 d=50 K=2, 100 rounds of depth-2 trees -- 1-thread CPU seconds, 5 interleaved repeats, load 3.41 on 2 cores
system       min    median  REBEL/this min  REBEL/this median
-------------------------------------------------------------
REBEL        0.689  0.692   1.00            1.00
LightGBM     1.408  1.410   0.49            {k2:.2f}
sklearn HGB  1.208  1.210   0.56            0.57
"""

BROWSER = """== this tree /work/main (viewport 1280x720)
cost_edit    median    {cost:.1f} ms  min    229.2 ms  n=18  load 1.89-2.51  (polled: median 265.1)
scrub        median     34.6 ms  min     24.3 ms  n=18  load 1.73-2.43
play_fps     median     {fps:.1f} fps  min     19.9 fps  n=2   load 1.40-2.01  target >= 15 fps: met
"""


def test_a_first_fit_printout_reads_each_case_median_and_leaves_the_peer_out():
    figures = check.parse_printout(FIRSTFIT.format(a=3.0, b=4.0), "firstfit")
    assert figures == {
        "first fit paper, fit + predict CPU s": 3.5,
        "first fit vector leaves, fit + predict CPU s": 6.5,
    }


def test_fit_ratios_are_read_from_the_one_thread_tables_only():
    figures = check.parse_printout(FIT_TABLE.format(k10=0.22, k2=0.48), "fit")
    assert figures == {
        "K=10 equal rounds, REBEL / LightGBM 1-thread CPU median": 0.22,
        "K=2 equal work, REBEL / LightGBM 1-thread CPU median": 0.48,
    }


def test_a_before_after_printout_is_read_on_its_after_sections():
    text = (
        "summary: K=10 main 0.30 | branch 0.20\n\n===== before = main (abc) =====\n"
        + FIT_TABLE.format(k10=0.30, k2=0.60)
        + "\n===== after = branch (def) =====\n"
        + FIT_TABLE.format(k10=0.20, k2=0.40)
        + "\n===== earlier: after = branch at 123 =====\n"
        + FIT_TABLE.format(k10=0.24, k2=0.44)
    )
    figures = check.parse_printout(text, "fit")
    assert figures["K=10 equal rounds, REBEL / LightGBM 1-thread CPU median"] == pytest.approx(0.22)
    assert figures["K=2 equal work, REBEL / LightGBM 1-thread CPU median"] == pytest.approx(0.42)
    baseline = BROWSER.format(cost=500.0, fps=10.0).replace(
        "== this tree /work/main", "== baseline /tmp/base"
    )
    browser = baseline + BROWSER.format(cost=300.0, fps=20) + BROWSER.format(cost=310.0, fps=22)
    figures = check.parse_printout(browser, "browser")
    assert figures == {"cost_edit median ms": 305.0, "play_fps median": 21.0, "scrub median ms": 34.6}


def _results(tmp_path, printouts: dict[str, str]):
    for name, text in printouts.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_last_recorded_printout_is_the_newest_that_holds_the_figure(tmp_path):
    results = _results(
        tmp_path,
        {
            "fit_2026-11-20.txt": FIT_TABLE.format(k10=0.40, k2=0.40),
            "fit_2026-11-25.txt": FIT_TABLE.format(k10=0.30, k2=0.30),
            "fit_2026-11-25b.txt": FIT_TABLE.format(k10=0.20, k2=0.20).split("Equal work")[0],  # K=10 only
            "fit_kernels_2026-11-30.txt": FIT_TABLE.format(k10=9.0, k2=9.0),  # another kind of printout
        },
    )
    assert [p.name for p in check.recorded_printouts("fit", results)] == [
        "fit_2026-11-20.txt",
        "fit_2026-11-25.txt",
        "fit_2026-11-25b.txt",
    ]
    k10 = "K=10 equal rounds, REBEL / LightGBM 1-thread CPU median"
    k2 = "K=2 equal work, REBEL / LightGBM 1-thread CPU median"
    assert check.last_recorded("fit", k10, results) == (results / "fit_2026-11-25b.txt", 0.20)
    assert check.last_recorded("fit", k2, results) == (results / "fit_2026-11-25.txt", 0.30)
    assert check.last_recorded("firstfit", k2, results) is None


def test_every_figure_more_than_15_percent_worse_is_printed_and_no_other(tmp_path):
    results = _results(
        tmp_path,
        {
            "coldstart_firstfit_2026-11-25.txt": FIRSTFIT.format(a=3.3, b=3.5),  # paper 3.4, vector 6.5
            "browser_1280x720_2026-11-29.txt": BROWSER.format(cost=265.0, fps=20.0),
        },
    )
    now = {"first fit paper, fit + predict CPU s": 3.92, "first fit vector leaves, fit + predict CPU s": 7.4}
    lines = check.compare("firstfit", {**now, "first fit new case, fit + predict CPU s": 1.0}, 0.15, results)
    assert len(lines) == 3
    assert lines[0].startswith("  WORSE +15%  first fit paper") and "3.92 now, 3.4 in coldstart" in lines[0]
    assert "vector leaves, fit + predict CPU s 7.4 (6.5" in lines[1] and "WORSE" not in lines[1]
    assert lines[2] == "  no recorded value: first fit new case, fit + predict CPU s"
    # Play's frame rate is better higher: 16.9 fps is 15.5 % worse than 20, 17.1 fps is within
    assert check.compare("browser", {"play_fps median": 16.9}, 0.15, results)[0].startswith("  WORSE +16%")
    assert "WORSE" not in check.compare("browser", {"play_fps median": 17.1}, 0.15, results)[0]
    assert "WORSE" not in check.compare("browser", {"cost_edit median ms": 200.0}, 0.15, results)[0]


def test_check_on_given_printouts_runs_nothing_and_exits_zero(tmp_path, capsys, monkeypatch):
    results = _results(tmp_path, {"fit_2026-11-25.txt": FIT_TABLE.format(k10=0.20, k2=0.40)})
    monkeypatch.setattr(check, "RESULTS", results)
    monkeypatch.setattr(check, "_run", lambda kind: (_ for _ in ()).throw(AssertionError("ran " + kind)))
    new = tmp_path / "fit_2026-12-02.txt"  # among the recorded ones: compared with the one before it
    new.write_text(FIT_TABLE.format(k10=0.30, k2=0.41))
    from benchmarks.__main__ import main

    assert main(["--check", "--printout", str(new)]) == 0
    out = capsys.readouterr().out
    assert "WORSE +50%  K=10 equal rounds" in out and "0.3 now, 0.2 in fit_2026-11-25.txt" in out
    assert "WORSE" not in out.split("K=2")[-1]
