"""Every win rate the README and the app quote is a recorded claim (docs/claims.json), quoted with its interval
and beside its baseline's cost; every recorded claim is in docs/REPRODUCTION.md's table with its command.

A "win-rate figure" is a percentage within ``WINDOW`` characters of win / wins / won / winning. Figures inside
an interval ("95 % CI 18–39 %") belong to the claim before them; format specifications (``{x:.0%}``) are
computed from the user's own run and carry no fixed number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = json.loads((ROOT / "docs" / "claims.json").read_text(encoding="utf-8"))["claims"]
WINDOW = 60
AFTER = 220  # where the interval and the baseline's cost must appear after a measured figure
PERCENT = re.compile(r"(?<![\d.:{–-])(~?)(\d+(?:\.\d+)?)\s?%")
WIN = re.compile(r"\bw(?:in|ins|on|inning)\b|win_rate|\bbeat(?:s|en)?\b|outperform", re.IGNORECASE)


def _sources() -> list:
    files = [
        ROOT / "README.md",
        *sorted((ROOT / "pages").glob("*.py")),
        *sorted((ROOT / "rebel").rglob("*.py")),
    ]
    return [f for f in files if f.is_file()]


def win_rate_figures(text: str) -> list:
    """(position, value, approximate) of every percentage near a win word, skipping interval bounds and the
    confidence level itself ("95 % CI")."""
    out = []
    for m in PERCENT.finditer(text):
        before, after = text[max(0, m.start() - WINDOW) : m.start()], text[m.end() : m.end() + WINDOW]
        if after.lstrip().startswith(("CI", "interval", "confidence")) or re.search(r"CI\s*$", before):
            continue
        if re.search(r"CI [\d.]+\s*$", before):  # "CI 18–39 %": the upper bound
            continue
        if WIN.search(before) or WIN.search(after[:40]):
            out.append((m.start(), m.group(2), bool(m.group(1))))
    return out


def _matches(claim: dict, text: str, pos: int, value: str, approx: bool) -> bool:
    if claim["win_rate"] != value:
        return False
    around = text[max(0, pos - 400) : pos + AFTER]
    if claim.get("source") == "paper":
        return approx and "paper" in around.lower()
    lo, hi = claim["ci"]
    interval = re.compile(rf"CI\s+{re.escape(lo)}\s*(?:–|-|to)\s*{re.escape(hi)}")
    return bool(interval.search(text[pos : pos + AFTER])) and claim["baseline_cost"] in around


def test_the_detector_finds_win_rates_and_skips_intervals_and_format_specs():
    text = (
        "REBEL wins 29 % (95 % CI 18–39 %) of trials, and it won f'{share:.0%}' of yours. The labels were "
        "flipped on a share of 12 % of the points."
    )
    assert [(v, a) for _, v, a in win_rate_figures(text)] == [("29", False)]
    assert [v for _, v, _ in win_rate_figures("The paper says REBEL wins ~90 % of trials")] == ["90"]


def test_a_bare_win_rate_would_fail():
    text = "vector leaves beat the two-step method and win 74 % of held-out trials"
    ((pos, value, approx),) = win_rate_figures(text)
    assert not any(_matches(c, text, pos, value, approx) for c in CLAIMS)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quoted_win_rate_is_a_recorded_claim_with_interval_and_baseline(path):
    text = path.read_text(encoding="utf-8")
    bad = []
    for pos, value, approx in win_rate_figures(text):
        if not any(_matches(c, text, pos, value, approx) for c in CLAIMS):
            line = text.count("\n", 0, pos) + 1
            bad.append(f"{path.name}:{line}: {value} % {text[pos : pos + 80]!r}")
    assert not bad, "win rates without a recorded claim, its interval or its baseline's cost:\n" + "\n".join(
        bad
    )


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.get("source") != "paper"], ids=lambda c: c["id"])
def test_reproduction_md_records_each_claim_with_command_interval_and_strongest_baseline(claim):
    doc = (ROOT / "docs" / "REPRODUCTION.md").read_text(encoding="utf-8")
    table = doc[doc.index("## Claims and their evidence") : doc.index("## What the protocol fixes")]
    lo, hi = claim["ci"]
    rows = [
        r for r in table.splitlines() if r.startswith("|") and f"{claim['win_rate']} % ({lo}–{hi} %)" in r
    ]
    assert rows, f"no row of the claims table has {claim['id']}'s win rate and interval"
    row = rows[0]
    assert claim["baseline_cost"] in row and claim["rebel_cost"] in row and claim["strongest_cost"] in row
    assert any(claim["command"] in r or "| same |" in r for r in rows)
