"""The command line's argument types and file handling: parameter checks (ranges from ``rebel.params``), input and
output paths, the input-size cap (``--max-bytes``), writing a file or standard output, and the progress bar. Below
the commands (``rebel.cli``, ``rebel.cli_methods``, ``rebel.ui.browser.scene_cli``), which take them from here.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .params import (
    MIN_SAMPLES_LEAF,
    N_ITER_NO_CHANGE,
    check_float,
    check_param,
)
from .textout import terminal

MAX_BYTES = 100_000_000  # default --max-bytes: the largest input file a command reads
COMPILE_SECONDS = 20  # a cold compile of the kernels (docs/REPRODUCTION.md: "about 20 s")
# A fit's serial and parallel kernels against its serial ones alone (``compile_fit_if_cold``), measured.
PARALLEL_COMPILE_FACTOR = 2.0
# The compiled round loop (or Newton grower) on top, which a big fit runs (``rebel.booster.round_driver``).
LOOP_COMPILE_SECONDS = 2
DEFAULT_SEED = 0


class ProgressBar:
    """``progress(done, total, label="")`` callback drawing a one-line bar on a stream (in place on a terminal).

    Follows the project's progress protocol: it returns None, so the run goes on.
    """

    def __init__(self, label: str, stream=None, width: int = 30, unit: str = "fits"):
        self.label, self.stream, self.width, self.unit = label, stream or sys.stderr, width, unit
        self.start = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_decile = -1

    def __call__(self, done: int, total: int, label: str = "") -> None:
        frac = done / total if total else 1.0
        decile = int(frac * 10)
        if not self.tty and decile == self._last_decile and done < total:
            return  # in logs, one line per 10 %
        self._last_decile = decile
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        line = f"{self.label} [{bar}] {done}/{total} {self.unit} {time.perf_counter() - self.start:6.1f}s"
        last = done >= total or not self.tty
        self.stream.write(("\r" if self.tty else "") + terminal(line) + ("\n" if last else ""))
        self.stream.flush()


# ------------------------------------------------------------------------------------ argument type functions
def _whole(value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number; got {value!r}.") from None


def param_type(name: str):
    """Argparse type of the integer hyper-parameter ``name``, with the engine's range from ``rebel.params``."""

    def parse(value: str) -> int:
        try:
            return check_param(name, _whole(value, name))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def param_list_type(name: str):
    """Comma-separated values of ``name`` (e.g. ``--depths 1,2,3``), each in the engine's range."""
    one = param_type(name)

    def parse(value: str) -> tuple:
        items = [v.strip() for v in value.split(",") if v.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"give at least one {name}, e.g. 1,2; got {value!r}.")
        return tuple(one(v) for v in items)

    parse.__name__ = f"{name} list"
    return parse


def float_param_type(name: str):
    """Argparse type of the real hyper-parameter ``name`` (``rebel.params.FLOAT_PARAMS``)."""

    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number; got {value!r}.") from None
        try:
            return check_float(name, number)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def early_stopping_type(value: str) -> int:
    """``--early-stopping N``: rounds without a lower validation cost (``rebel.params.N_ITER_NO_CHANGE``)."""
    try:
        return N_ITER_NO_CHANGE.check(_whole(value, "--early-stopping"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def min_samples_leaf_type(value: str) -> int:
    """``--min-samples-leaf N``: the fewest training rows a variant's split leaves a side
    (``rebel.params.MIN_SAMPLES_LEAF``)."""
    try:
        return MIN_SAMPLES_LEAF.check(_whole(value, "--min-samples-leaf"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def int_at_least(low: int, what: str):
    """Argparse type: a whole number >= ``low``."""

    def parse(value: str) -> int:
        n = _whole(value, what)
        if n < low:
            raise argparse.ArgumentTypeError(f"{what} must be at least {low}; got {n}.")
        return n

    parse.__name__ = what
    return parse


def count_or_names(value: str) -> str:
    """``--datasets``: a count >= 1 or comma-separated names (checked here; the runner resolves the names)."""
    text = value.strip()
    try:
        n = int(text)
    except ValueError:
        if not [v for v in text.split(",") if v.strip()]:
            raise argparse.ArgumentTypeError(
                f"give a number of datasets (>= 1) or comma-separated names; got {value!r}."
            ) from None
        return text
    if n < 1:
        raise argparse.ArgumentTypeError(f"the number of datasets must be at least 1; got {n}.")
    return str(n)


def input_file(value: str) -> Path:
    """Argparse type: an existing, readable file."""
    path = Path(value)
    if not path.is_file():
        why = "is a directory" if path.is_dir() else "does not exist"
        raise argparse.ArgumentTypeError(f"input file {value!r} {why}; check the path.")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"input file {value!r} is not readable; check its permissions.")
    return path


def output_file(value: str) -> Path:
    """Argparse type: a path a file can be written to, checked before any work starts."""
    path = Path(value)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"output {value!r} is a directory; give a file name inside it.")
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(
            f"cannot write {value!r}: the directory {str(parent)!r} does not exist; create it or choose "
            "another path."
        )
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {value!r}: permission denied; choose another path.")
    return path


# ----------------------------------------------------------------------------------------------- files
def check_size(path: Path, limit: int, what: str) -> None:
    """Refuse an input file larger than ``limit`` bytes before reading it."""
    size = path.stat().st_size
    if size > limit:
        raise ValueError(
            f"{what} {str(path)!r} is {size:,} bytes; the limit is {limit:,} (--max-bytes). Use a sample of "
            "the data, or raise --max-bytes if the machine has the memory."
        )


def refuse_overwrite(out, inputs: dict) -> None:
    """Refuse an output path that is one of ``inputs`` ({"the input X.csv": path}): writing it would destroy it."""
    if out is None:
        return
    for what, path in inputs.items():
        if path is None:
            continue
        same = os.path.samefile(out, path) if Path(out).exists() and Path(path).exists() else False
        if same or Path(out).resolve() == Path(path).resolve():
            raise ValueError(
                f"the output {str(out)!r} is {what} {str(path)!r}; writing it would destroy that file. "
                "Choose another output path."
            )


def drop_stdout() -> None:
    """Point standard output at the null device (after a closed pipe or a failed write), so that the flush at
    exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. captured output)
        pass


def write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` (None: standard output); a failed write is one clear error."""
    if path is None:
        try:
            for start in range(0, len(text), 1 << 16):  # in pieces, so a closed pipe is noticed at once
                sys.stdout.write(terminal(text[start : start + (1 << 16)]))
                sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            drop_stdout()
            raise ValueError(f"could not write to standard output: {exc.strerror or exc}.") from None
        return
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ValueError(f"could not write {str(path)!r}: {exc.strerror or exc}.") from None
