"""The house's size limits over the whole tree the app and the engine are made of: every module under ``rebel/``
and ``app.py`` at most 500 lines, every page under ``pages/`` at most 300 (docs/DESIGN.md section 4).

Files over the limit today are listed in ``OVERSIZED`` with their length today as a ceiling: none may grow, and
the list only shrinks (an entry whose file is back within the limit, or gone, fails until it is removed). Any
file not listed obeys the limit, new files included.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE_LINES, PAGE_LINES = 500, 300

# Over the limit today, to be split by what the code does; the number is a ceiling, never to be raised.
OVERSIZED: dict[str, int] = {}


def limited_files(root: Path = ROOT) -> dict[str, int]:
    """Every file the limits cover (path relative to ``root``) -> its line limit."""
    files = {path: MODULE_LINES for path in root.glob("rebel/**/*.py")}
    files.update({path: PAGE_LINES for path in root.glob("pages/*.py")})
    files[root / "app.py"] = MODULE_LINES
    return {path.relative_to(root).as_posix(): limit for path, limit in files.items() if path.is_file()}


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def violations(root: Path = ROOT, oversized: dict[str, int] = OVERSIZED) -> list[str]:
    """What breaks the limits: files over their limit that are not listed, listed files that grew past their
    ceiling, and listed entries that are no longer needed (within the limit, or gone)."""
    found = []
    limits = limited_files(root)
    for rel, limit in sorted(limits.items()):
        lines = line_count(root / rel)
        ceiling = oversized.get(rel)
        if ceiling is None and lines > limit:
            found.append(f"{rel}: {lines} lines, over the limit of {limit}; split it by what the code does")
        elif ceiling is not None and lines > ceiling:
            found.append(
                f"{rel}: {lines} lines, grew past its ceiling of {ceiling} (limit {limit}); split it"
            )
        elif ceiling is not None and lines <= limit:
            found.append(f"{rel}: {lines} lines, within the limit of {limit}; remove it from OVERSIZED")
        elif ceiling is not None and lines < ceiling:
            found.append(f"{rel}: {lines} lines; lower its OVERSIZED ceiling from {ceiling} to {lines}")
    for rel in sorted(set(oversized) - set(limits)):
        found.append(f"{rel}: listed in OVERSIZED but not in the tree; remove it")
    return found


def test_every_module_and_page_is_within_the_house_limits():
    assert len(limited_files()) > 80
    problems = violations()
    assert not problems, "house limits:\n" + "\n".join(problems)


def _tree(tmp_path: Path, lengths: dict[str, int]) -> Path:
    for rel, n in lengths.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * n)
    return tmp_path


def test_a_new_file_over_the_limit_fails_and_a_listed_one_may_not_grow(tmp_path):
    root = _tree(
        tmp_path,
        {"app.py": 40, "rebel/a.py": 500, "rebel/ui/b.py": 501, "pages/1_P.py": 301, "rebel/big.py": 700},
    )
    assert violations(root, {"rebel/big.py": 700}) == [
        "pages/1_P.py: 301 lines, over the limit of 300; split it by what the code does",
        "rebel/ui/b.py: 501 lines, over the limit of 500; split it by what the code does",
    ]
    assert violations(root, {"rebel/big.py": 699, "rebel/ui/b.py": 501, "pages/1_P.py": 301}) == [
        "rebel/big.py: 700 lines, grew past its ceiling of 699 (limit 500); split it"
    ]


def test_the_list_of_oversized_files_only_shrinks(tmp_path):
    root = _tree(tmp_path, {"app.py": 40, "rebel/big.py": 650, "rebel/split.py": 480})
    assert violations(root, {"rebel/big.py": 700, "rebel/split.py": 560, "rebel/gone.py": 900}) == [
        "rebel/big.py: 650 lines; lower its OVERSIZED ceiling from 700 to 650",
        "rebel/split.py: 480 lines, within the limit of 500; remove it from OVERSIZED",
        "rebel/gone.py: listed in OVERSIZED but not in the tree; remove it",
    ]
