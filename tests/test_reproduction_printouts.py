"""docs/REPRODUCTION.md's Fig. 3 readings and convergence tables hold the numbers of the stored printouts they
cite (benchmarks/results/), cell by cell: a table edited without a new run, or a run stored without its table,
fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "REPRODUCTION.md").read_text(encoding="utf-8")
RESULTS = ROOT / "benchmarks" / "results"
READING = re.compile(
    r"REBEL wins (?P<rate>[\d.]+) % \(95 % CI (?P<lo>[\d.]+)–(?P<hi>[\d.]+) %\) of \d+ trials.*?"
    r"mean cost REBEL (?P<rebel>[\d.]+), two-step (?P<two>[\d.]+)"
)


def readings_rows(printout: str) -> dict:
    """{stumps: (cells, REBEL's cost)} of a ``reproduce fig3 --readings`` printout, its readings in printed order;
    each cell ``(rate, lo, hi, two-step cost)``."""
    rows, stumps = {}, None
    for line in printout.splitlines():
        if m := re.fullmatch(r"(\d+) stumps:", line.strip()):
            stumps = int(m.group(1))
            rows[stumps] = ([], None)
        elif stumps is not None and (m := READING.search(line)):
            cells, _ = rows[stumps]
            cells.append((m["rate"], m["lo"], m["hi"], m["two"]))
            rows[stumps] = (cells, m["rebel"])
    return rows


def test_the_readings_table_is_the_printouts():
    rows = readings_rows((RESULTS / "fig3_readings_2026-12-02.txt").read_text(encoding="utf-8"))
    assert sorted(rows) == [5, 10, 25, 100]
    for stumps, (cells, rebel) in rows.items():
        assert len(cells) == 5
        row = " | ".join([str(stumps), *(f"{r} % ({lo}–{hi} %; {c})" for r, lo, hi, c in cells), rebel])
        assert f"| {row} |" in DOC, f"no row of REPRODUCTION.md reads: | {row} |"


def test_the_convergence_table_is_the_printouts():
    printout = (RESULTS / "convergence_2026-12-02.txt").read_text(encoding="utf-8")
    table = {}
    for line in printout.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[0].isdigit() and parts[1] == "8":
            rounds, _, loss, mapped, loss_below, cost, two, cost_below = parts
            table[int(rounds)] = (loss, mapped, loss_below, cost, two, cost_below)
    shown = (25, 100, 400, 1600, 3200)
    assert set(shown) <= set(table)
    loss = " | ".join(table[t][0] for t in shown)
    cost = " | ".join(table[t][3] for t in shown)
    assert f"| REBEL training loss L (mean) | {loss} | {table[3200][1]} |" in DOC
    assert f"| training cost (mean) | {cost} | {table[3200][4]} |" in DOC
    below = [table[t][2] for t in shown]
    assert (
        f"| trials with REBEL's loss below the mapped model's | {below[0]} of 8 | {' | '.join(below[1:])} | |"
        in DOC
    )
    below = [table[t][5] for t in shown]
    assert (
        f"| trials with REBEL's training cost below the two-step's | {below[0]} of 8 | {' | '.join(below[1:])} | |"
        in DOC
    )


def test_the_readings_parser_reads_a_printout_line():
    text = (
        "5 stumps:\n  SAMME raw: REBEL wins 91.5 % (95 % CI 89.0–94.5 %) of 200 trials (ties 3); mean cost REBEL "
        "0.3360, two-step 0.5288, REBEL - two-step -0.1928\n"
    )
    assert readings_rows(text) == {5: ([("91.5", "89.0", "94.5", "0.5288")], "0.3360")}
