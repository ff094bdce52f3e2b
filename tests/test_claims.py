"""Every win rate the README and the app quote is a recorded claim (docs/claims.json), quoted with its interval
and beside its baseline's cost; every recorded claim is in docs/REPRODUCTION.md's table with its command.

A "win-rate figure" is a percentage within ``WINDOW`` characters of win / wins / won / winning. Figures inside
an interval ("95 % CI 18–39 %") belong to the claim before them; format specifications (``{x:.0%}``) are
computed from the user's own run and carry no fixed number. Wherever a claim's figure is quoted, the words of
its ``scope`` (the method measured and its baseline) must be named beside it.

Scope of general sentences (``scope_rules`` in docs/claims.json): every sentence of the README, docs/*.md, the
pages and rebel/ui/ (string literals) that speaks of cost-sensitive training in general and gives a verdict must
name the method measured and, unless it is a question, the baseline and the setting.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORD = json.loads((ROOT / "docs" / "claims.json").read_text(encoding="utf-8"))
CLAIMS = RECORD["claims"]
RULES = RECORD["scope_rules"]
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
        return approx and "paper" in around.lower() and _names_scope(claim, around)
    lo, hi = claim["ci"]
    interval = re.compile(rf"CI\s+{re.escape(lo)}\s*(?:–|-|to)\s*{re.escape(hi)}")
    return (
        bool(interval.search(text[pos : pos + AFTER]))
        and claim["baseline_cost"] in around
        and _names_scope(claim, around)
    )


def _names_scope(claim: dict, around: str) -> bool:
    """Every word of the claim's scope (the method and its baseline) is named in the quote's window."""
    return all(re.search(w, around, re.IGNORECASE) for w in claim["scope"])


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


# ---------------------------------------------------------------------------------------------- general sentences
def _scope_sources() -> list:
    files = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "pages").glob("*.py")),
        *sorted((ROOT / "rebel" / "ui").rglob("*.py")),
    ]
    return [f for f in files if f.is_file()]


def _texts(path: Path) -> list:
    """The prose of a file: Markdown without code blocks, split at blocks (paragraphs, list items, table rows,
    headings); for Python, every string literal (adjacent literals are one)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
        return re.split(r"\n\s*\n|\n(?=\s*(?:[-*] |\||#|\d+\. ))", text)
    return [
        n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def sentences(text: str) -> list:
    text = re.sub(r"\s+", " ", text).strip()
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*\"(#])", text) if s]


def overgeneral(sentence: str) -> str | None:
    """What a sentence that generalises about cost-sensitive training fails to name, or None when it names
    enough (or does not generalise)."""
    flags = re.IGNORECASE
    if not (re.search(RULES["general"], sentence, flags) and re.search(RULES["verdict"], sentence, flags)):
        return None
    missing = (
        [] if re.search(RULES["method"], sentence) else ["the method measured (REBEL, cost-weighted ...)"]
    )
    if not sentence.rstrip("*# ").endswith("?"):
        missing += [w for w in ("baseline", "setting") if not re.search(RULES[w], sentence, flags)]
    return ", ".join(missing) or None


def test_the_scope_rule_flags_overgeneral_sentences_and_passes_scoped_ones():
    assert overgeneral(
        "No regime was found where cost-sensitive training beats the calibrated two-step method."
    )
    assert overgeneral("Where does cost-sensitive training win?")
    assert overgeneral("Training with the costs never pays off.")
    assert overgeneral("REBEL wins against the two-step method in every regime.")  # which regimes?
    assert not overgeneral(
        "On the regime map (trials of 11 regimes), REBEL trained with the costs beats the calibrated two-step "
        "method in none."
    )
    assert not overgeneral(
        "Which method wins in each regime: REBEL, cost-weighted training or a two-step method?"
    )
    assert not overgeneral("The two-step method is cheaper than plain argmax.")  # no general subject


@pytest.mark.parametrize("path", _scope_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_general_sentence_names_method_baseline_and_setting(path):
    rel = str(path.relative_to(ROOT))
    pending = {p["sentence"] for p in RULES["pending"] if p["file"] == rel}
    bad = []
    for text in _texts(path):
        for sentence in sentences(text):
            why = overgeneral(sentence)
            if why and sentence not in pending:
                bad.append(f"{rel}: {sentence[:160]!r} does not name {why}")
    assert not bad, "sentences broader than their evidence:\n" + "\n".join(bad)


def test_pending_sentences_still_exist_verbatim():
    """A pending entry names a sentence still to be reworded in a file owned elsewhere; once it is gone, the
    entry must go too (so the exception list never outlives its sentence)."""
    for p in RULES["pending"]:
        found = [s for t in _texts(ROOT / p["file"]) for s in sentences(t)]
        assert p["sentence"] in found, f"{p['file']} no longer says {p['sentence']!r}: drop its pending entry"
