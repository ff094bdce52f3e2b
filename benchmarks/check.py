"""``python -m benchmarks --check``: run the headline benchmarks and print every figure more than 15 % worse than
in the last recorded printout of its kind in ``benchmarks/results/``. A report for a person, not a test: nothing
is asserted, and the exit status is 0 whatever the figures (a slower machine or a busy one moves them too, so
each line carries the load average beside the figure, as the printouts do).

Headline figures (``HEADLINES``) and where they come from:

- ``firstfit``: a first fit on wine with an empty numba cache, fit + predict CPU seconds, per case (paper mode
  by default), from ``bench_coldstart --modes firstfit``; recorded as ``coldstart_firstfit_<date>.txt``;
- ``fit``: the fit time against LightGBM at 1 thread, REBEL / LightGBM CPU median, K=10 equal rounds and K=2 equal
  work, from ``bench_fit --cases rounds k2 --peers LightGBM``; recorded as ``fit_<date>.txt``;
- ``browser``: the Playground's click-to-picture medians (cost edit, scrub, preset, toggle, first visit, first
  page; ms) and Play's frame rate at 1280 x 720, from ``bench_browser --viewport 1280x720``; recorded as
  ``browser_1280x720_<date>.txt``.

Reading a printout: a figure is the median of every value of it in the printout. A printout that compares two
trees (section titles ``===== ... =====`` or ``== ...`` naming "before"/"baseline" and "after"/"this tree") is
read on its "after" / "this tree" sections only. The last recorded printout of a kind is the newest by the date
in its name (then its letter: ``2026-11-25b`` after ``2026-11-25``) that holds the figure.

Run: ``python -m benchmarks --check [--only firstfit fit browser] [--printout FILE ...] [--tolerance 0.15]``;
``--printout`` checks printouts already made (a kind each, told by the file's name) instead of running anything.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PEERS = ("LightGBM",)  # a first-fit printout's peer rows: beside REBEL's, not headline figures
RESULTS = Path(__file__).resolve().parent / "results"
TOLERANCE = 0.15
_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"


@dataclass(frozen=True)
class Headline:
    kind: str  # the benchmark step (firstfit, fit, browser)
    name: str  # the figure's name in the report
    pattern: (
        str  # a regex over one line of a printout; group 1 is the figure (``name`` may take a case: group 2)
    )
    lower_is_better: bool = True
    title: str | None = None  # the figure is read only in the tables whose title line matches this regex


HEADLINES = (
    Headline(
        "firstfit",
        "first fit {case}, fit + predict CPU s",
        r"^\s{2}(\S.*?)\s+import\s+[0-9.]+ CPU .*fit\+predict\s+" + _NUMBER + r" s CPU",
    ),
    Headline(
        "fit",
        "K=10 equal rounds, REBEL / LightGBM 1-thread CPU median",
        r"^LightGBM\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+" + _NUMBER + r"\s*$",
        title=r"^Equal rounds \(headline\).*1-thread CPU",
    ),
    Headline(
        "fit",
        "K=2 equal work, REBEL / LightGBM 1-thread CPU median",
        r"^LightGBM\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+" + _NUMBER + r"\s*$",
        title=r"^Equal work, K=2 .*1-thread CPU",
    ),
    *(
        Headline("browser", f"{m} median ms", rf"^{m}\s+median\s+{_NUMBER} ms")
        for m in ("cost_edit", "scrub", "preset", "toggle", "first_visit", "first_page")
    ),
    Headline("browser", "play_fps median", rf"^play_fps\s+median\s+{_NUMBER} fps", lower_is_better=False),
)

# kind -> (the recorded printouts' name pattern, the command that makes a new one)
KINDS = {
    "firstfit": (
        r"^coldstart_firstfit_(\d{4}-\d\d-\d\d)(.*)\.txt$",
        ["benchmarks.bench_coldstart", "--modes", "firstfit", "--cases", "paper", "--repeat", "3"],
    ),
    "fit": (r"^fit_(\d{4}-\d\d-\d\d)(.*)\.txt$", ["benchmarks.bench_fit", "--cases", "rounds", "k2", "--peers", "LightGBM"]),
    "browser": (r"^browser_1280x720_(\d{4}-\d\d-\d\d)(.*)\.txt$", ["benchmarks.bench_browser", "--viewport", "1280x720"]),
}  # fmt: skip

_TABLE_TITLE = re.compile(r" -- .*seconds")  # a benchmark table's title line (its rows follow)
_SECTION = re.compile(r"^(=====\s.*=====|==\s.*)$")
_BEFORE = re.compile(r"\b(before|baseline)\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(after|this tree)\b", re.IGNORECASE)


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """(title, lines) of a printout's sections; the lines before the first title have the title ''."""
    sections = [("", [])]
    for line in text.splitlines():
        if _SECTION.match(line):
            sections.append((line, []))
        else:
            sections[-1][1].append(line)
    return sections


def _lines_to_read(text: str) -> list[str]:
    """The lines a printout's figures are read from: its "after" / "this tree" sections when it compares two
    trees, else all of them."""
    sections = _sections(text)
    titles = [title for title, _ in sections]
    if any(_BEFORE.search(t) for t in titles) and any(_AFTER.search(t) for t in titles):
        sections = [(t, lines) for t, lines in sections if _AFTER.search(t)]
    return [line for _, lines in sections for line in lines]


def parse_printout(text: str, kind: str) -> dict[str, float]:
    """Headline figure name -> the median of its values in a printout of ``kind`` (figures it lacks are left
    out)."""
    values: dict[str, list[float]] = {}
    lines = _lines_to_read(text)
    for head in (h for h in HEADLINES if h.kind == kind):
        pattern = re.compile(head.pattern)
        in_table = head.title is None
        for line in lines:
            if head.title is not None and _TABLE_TITLE.search(line):
                in_table = re.search(head.title, line) is not None
                continue
            match = pattern.search(line) if in_table else None
            if match is None:
                continue
            if match.lastindex == 2:  # a case name, then the figure
                if match.group(1).strip() in PEERS:
                    continue
                name, value = head.name.format(case=match.group(1).strip()), match.group(2)
            else:
                name, value = head.name, match.group(1)
            values.setdefault(name, []).append(float(value))
    return {name: statistics.median(v) for name, v in values.items()}


def lower_is_better(name: str) -> bool:
    for head in HEADLINES:
        if head.name == name or ("{case}" in head.name and name.startswith(head.name.split("{case}")[0])):
            return head.lower_is_better
    return True


def recorded_printouts(kind: str, results: Path | None = None) -> list[Path]:
    """The recorded printouts of ``kind``, oldest first (by the date in the name, then the rest of the name)."""
    pattern = re.compile(KINDS[kind][0])
    results = RESULTS if results is None else results
    found = [(m.group(1), m.group(2), p) for p in results.iterdir() if (m := pattern.match(p.name))]
    return [p for *_, p in sorted(found)]


def last_recorded(
    kind: str, name: str, results: Path | None = None, skip: Path | None = None
) -> tuple[Path, float] | None:
    """The newest recorded printout of ``kind`` holding figure ``name`` (other than ``skip``), and the figure there
    (None: none)."""
    for path in reversed(recorded_printouts(kind, results)):
        if skip is not None and path.resolve() == skip.resolve():
            continue
        figures = parse_printout(path.read_text(encoding="utf-8", errors="replace"), kind)
        if name in figures:
            return path, figures[name]
    return None


def worse_by(name: str, now: float, before: float) -> float:
    """How much worse ``now`` is than ``before`` as a fraction of ``before`` (negative: better)."""
    if before == 0:
        return 0.0
    change = (now - before) / before
    return change if lower_is_better(name) else -change


def compare(
    kind: str,
    now: dict[str, float],
    tolerance: float = TOLERANCE,
    results: Path | None = None,
    skip: Path | None = None,
) -> list[str]:
    """Report lines: every figure of ``now`` more than ``tolerance`` worse than its last recorded value (in a
    printout other than ``skip``, the one ``now`` was read from), then one line for the figures within it and
    one for those with no recorded value."""
    results = RESULTS if results is None else results
    worse, within, unrecorded = [], [], []
    for name in sorted(now):
        last = last_recorded(kind, name, results, skip)
        if last is None:
            unrecorded.append(name)
            continue
        path, before = last
        change = worse_by(name, now[name], before)
        if change > tolerance:
            worse.append(f"  WORSE {change:+.0%}  {name}: {now[name]:g} now, {before:g} in {path.name}")
        else:
            within.append(f"{name} {now[name]:g} ({before:g} in {path.name})")
    lines = worse
    if within:
        lines.append(f"  within {tolerance:.0%} or better: " + "; ".join(within))
    if unrecorded:
        lines.append("  no recorded value: " + ", ".join(unrecorded))
    return lines


def _run(kind: str) -> str:
    """Run the benchmark of ``kind`` in a fresh process, echoing and returning its printout."""
    command = [sys.executable, "-m", *KINDS[kind][1]]
    print(f"$ {' '.join(command[1:])}   (load average {os.getloadavg()[0]:.1f})", flush=True)
    out = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=RESULTS.parent.parent) as proc:
        for line in proc.stdout:
            print(line, end="", flush=True)
            out.append(line)
    return "".join(out)


def kind_of(path: Path) -> str:
    for kind, (pattern, _) in KINDS.items():
        if re.match(pattern, path.name):
            return kind
    raise SystemExit(f"--printout {path}: cannot tell its kind from its name; name it as {_names()}")


def _names() -> str:
    return ", ".join(f"{k}: {p}" for k, (p, _) in KINDS.items())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks --check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=list(KINDS), choices=list(KINDS), help="benchmarks to run")
    ap.add_argument(
        "--printout", nargs="*", type=Path, default=None, help="check these printouts, run nothing"
    )
    ap.add_argument("--tolerance", type=float, default=TOLERANCE, help="a fraction (0.15: 15 %% worse)")
    args = ap.parse_args(argv)
    if args.printout is not None:
        jobs = [(kind_of(p), p.read_text(encoding="utf-8", errors="replace"), p) for p in args.printout]
    else:
        jobs = [(kind, _run(kind), None) for kind in args.only]
    print(f"\n===== check against the last recorded printouts (load average {os.getloadavg()[0]:.1f}) =====")
    for kind, text, path in jobs:
        figures = parse_printout(text, kind)
        print(f"{kind}:" if figures else f"{kind}: no headline figure in its printout")
        for line in compare(kind, figures, args.tolerance, skip=path):
            print(line)
    print(
        "(a report, not a test: figures move with the machine and its load; compare the loads printed above)"
    )
    return 0
