"""Files: labelled points as CSV (read and write); where ``sample_data/`` is (its presets and scikit-learn's
bundled datasets are read by ``rebel.data.samples``).

A CSV file holds numeric feature columns, a label column and optionally a ``split`` column of "train"/"test";
``read_csv`` returns a ``Dataset`` (X_train (N, d) float64, y_train (N,) labels, X_test, y_test, class names)
and ``to_csv`` writes one back exactly. The presets' points and recipes live in ``sample_data/`` at the top of
the repository; an installed package carries the same files as ``rebel/_sample_data`` (``sample_dir`` finds
either). Limits: ``MAX_ROWS`` lines, ``MAX_FEATURES`` features, ``rebel.params.MAX_CLASSES`` classes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from rebel import budget
from rebel.data.mixture import Dataset, _check_fraction
from rebel.names import clean_name, clean_names
from rebel.params import check_n_classes
from rebel.textout import csv_text

MAX_ROWS = budget.limit_of("rows")  # rows of an imported CSV file (the limits live in rebel.budget)
MAX_FEATURES = budget.limit_of("columns")  # feature columns of an imported CSV file
LABEL_COLUMN = "label"
SPLIT_COLUMN = "split"
REPO_SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


def sample_dir() -> Path:
    """The folder of the presets' sample files: ``rebel/_sample_data`` inside an installed package, else the
    repository's top-level ``sample_data/`` (a source checkout or an editable install)."""
    try:
        packaged = resources.files("rebel") / "_sample_data"
        if packaged.is_dir():
            return Path(str(packaged))
    except (ModuleNotFoundError, TypeError, NotADirectoryError):  # e.g. rebel imported from a zip file
        pass
    return REPO_SAMPLE_DIR


SAMPLE_DIR = sample_dir()

# ---------------------------------------------------------------------------------------------------------------
# CSV files: feature columns + a label column (+ an optional train/test split column)
# ---------------------------------------------------------------------------------------------------------------


def split_dataset(X, y, test_fraction: float = 0.25, seed=0, feature_names=None, name: str = "") -> Dataset:
    """Random train/test split (stratified when every class has 2+ points) of labelled data into a Dataset."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    test_fraction = _check_fraction(test_fraction, "test_fraction", 1.0)
    classes, counts = np.unique(y, return_counts=True)
    if test_fraction == 0:
        X_train, X_test, y_train, y_test = X, X[:0], y, y[:0]
    else:
        stratify = y if counts.min() >= 2 and round(test_fraction * len(y)) >= len(classes) else None
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=test_fraction, random_state=seed, stratify=stratify
        )
    names = tuple(feature_names) if feature_names is not None else tuple(f"x{j}" for j in range(X.shape[1]))
    return Dataset(X_train, y_train, X_test, y_test, tuple(classes.tolist()), names, name)


def _read_bytes(source) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    if isinstance(source, (str, Path)):
        try:
            return Path(source).read_bytes()
        except OSError as exc:
            raise ValueError(
                f"CSV file {str(source)!r} could not be read ({exc.strerror}); check the path."
            ) from None
    if hasattr(source, "read"):
        data = source.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    raise ValueError(f"source is a {type(source).__name__}; give a file path, bytes or an open file.")


def _decode(data: bytes) -> str:
    try:  # line ends CR LF, or CR alone (old Mac files), made LF
        return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"the CSV file is not UTF-8 text (byte {exc.start} is {data[exc.start]:#x}); save it as UTF-8 CSV."
        ) from None


def _check_header(text: str) -> list:
    """The stripped column names of the first line, checked in time linear in the header: its length and
    column count first (``rebel.budget``), before the file is split or parsed, then names, duplicates (a set)
    and whether the line looks like data."""
    end = text.find("\n")
    first = text if end < 0 else text[:end]
    budget.check("header_chars", len(first))
    if first.count('"') % 2:  # a quoted name holds a line break: read on, as far as a header may go
        first = text[: budget.limit_of("header_chars")]
    try:
        header = next(csv.reader(io.StringIO(first)), None)
    except csv.Error as exc:
        raise ValueError(
            f"the CSV header could not be parsed ({exc}); check the quoting of the first line."
        ) from None
    if not header or not any(h.strip() for h in header):
        raise ValueError(
            "the CSV file is empty; give a header line with column names and one line per point."
        )
    header = [clean_name(h.strip(), "CSV column name") for h in header]  # refused, not stripped (names.py)
    names = set(header)
    n_features = len(header) - 1 - (SPLIT_COLUMN in names)  # one column is the label
    if n_features > MAX_FEATURES:
        _too_many_features(n_features)
    if "" in names:
        raise ValueError(f"CSV column {header.index('') + 1} has no name; give every column a header.")
    if len(names) < len(header):
        seen: set = set()
        dupe = next(h for h in header if h in seen or seen.add(h))
        raise ValueError(f"CSV column name {dupe!r} appears twice; give every column a distinct name.")
    if pd.to_numeric(pd.Series(header), errors="coerce").notna().all():
        raise ValueError(
            f"the first line {header} looks like data, not column names; add a header line (e.g. x,y,label)."
        )
    return header


def _too_many_features(n: int) -> None:
    raise budget.BudgetError(
        f"the CSV file has {n} feature columns; at most MAX_FEATURES = "
        f"{MAX_FEATURES} are supported ({budget.LIMITS['columns'].reason}). {budget.LIMITS['columns'].fix}"
    )


def _parse_table(text: str, max_rows: int) -> pd.DataFrame:
    try:
        df = pd.read_csv(
            io.StringIO(text), dtype=str, keep_default_na=False, nrows=max_rows + 1, skipinitialspace=True
        )
    except pd.errors.ParserError as exc:
        raise ValueError(
            f"the CSV file could not be parsed ({exc}); every line needs the same number of "
            "comma-separated fields as the header."
        ) from None
    df.columns = [clean_name(c.strip(), "CSV column name") for c in df.columns]
    if len(df) == 0:
        raise ValueError("the CSV file has a header but no data lines; add one line per point.")
    if len(df) > max_rows:
        raise ValueError(
            f"the CSV file has more than {max_rows} data lines (MAX_ROWS); use a sample of the data."
        )
    return df


def _numeric_features(
    df: pd.DataFrame, columns: list, first_line: int = 2, drop_flag: bool = False
) -> np.ndarray:
    """The ``columns`` of ``df`` as float64 (N, len(columns)); ``first_line``: the file line of df's first row;
    ``drop_flag``: a bad value's message names ``--drop`` (the command line's ``fit``) as the way to leave the
    column out."""
    X = np.empty((len(df), len(columns)))
    for j, col in enumerate(columns):
        raw = df[col].str.strip()
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            what = "empty" if raw.iloc[i] in ("", "nan", "NaN", "NA") else f"{raw.iloc[i]!r}"
            drop = f"leave the column out with --drop {col!r}" if drop_flag else "drop the column"
            raise ValueError(
                f"CSV line {i + first_line}, column {col!r}: the value is {what}; features must be finite "
                f"numbers (fill in or delete the line, or {drop})."
            )
        X[:, j] = values
    return X


def _parse_labels(raw: pd.Series, label_column: str, first_line: int = 2) -> np.ndarray:
    raw = raw.str.strip()
    empty = np.flatnonzero((raw == "").to_numpy())
    if empty.size:
        raise ValueError(
            f"CSV line {int(empty[0]) + first_line}: the label ({label_column!r}) is empty; give every point a class."
        )
    as_num = pd.to_numeric(raw, errors="coerce")
    if as_num.notna().all() and np.all(np.mod(as_num, 1) == 0):
        return as_num.to_numpy(dtype=np.int64)  # integer labels sort numerically (2 before 10)
    return clean_names(raw.to_numpy(dtype=object), f"column {label_column!r}: the class label")


class MissingLabelColumn(ValueError):
    """A CSV file has no ``label`` column and no label column was named; ``columns`` lists the file's columns."""

    def __init__(self, columns: list, fix: str = "(from Python: or pass label_column=NAME)"):
        self.columns = list(columns)
        hint = ""
        if len(self.columns) == 1 and ";" in self.columns[0]:
            hint = " The file seems to separate its columns with ';'; save it with commas."
        super().__init__(
            f"the CSV file has no {LABEL_COLUMN!r} column; its columns are {_shorten(self.columns)}. Name the "
            f"column of classes {LABEL_COLUMN!r} {fix}; no column is guessed.{hint}"
        )


def _shorten(names: list, limit: int = 12) -> str:
    """A list of column names for a message: the first ``limit`` and how many there are."""
    if len(names) <= limit:
        return str(list(names))
    return f"{list(names[:limit])[:-1]} ... and {len(names) - limit + 1} more ({len(names)} columns)"


def _pick_label_column(header: list, label_column) -> str:
    """The label column: ``label_column`` when given (it must exist), else ``label``; never guessed."""
    if label_column is None:
        if LABEL_COLUMN not in header:
            raise MissingLabelColumn(header)
        return LABEL_COLUMN
    if label_column not in header:
        raise ValueError(
            f"label_column {label_column!r} is not a column of the CSV file; choose one of {_shorten(header)}."
        )
    return label_column


def _split_mask(df: pd.DataFrame, split_column: str) -> np.ndarray:
    values = df[split_column].str.strip().str.lower()
    bad = np.flatnonzero(~values.isin(["train", "test"]).to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"CSV line {i + 2}, column {split_column!r}: the value is {df[split_column].iloc[i]!r}; "
            "use 'train' or 'test' (or drop the column to split at random)."
        )
    return (values == "test").to_numpy()


def _check_classes(y: np.ndarray, where: str) -> None:
    if len(y) == 0:
        raise ValueError(
            f"{where} has no rows; mark some rows 'train' in the {SPLIT_COLUMN!r} column (or drop the column)."
        )
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(
            f"{where} has a single class {classes[0]!r}; a classifier needs points of at least 2 classes."
        )
    check_n_classes(len(classes), where)


def read_csv(
    source,
    label_column: str | None = None,
    test_fraction: float = 0.25,
    seed=0,
    max_rows: int = MAX_ROWS,
    name: str = "",
) -> Dataset:
    """Read labelled points from a CSV file (path, bytes or open file) into a Dataset.

    Columns: numeric features, a label column (``label_column``, default "label"; a file without it is refused
    with the list of its columns, never guessed; labels may be strings, stripped of surrounding spaces; whole
    numbers stay integers) and optionally
    a ``split`` column of "train"/"test". Without it the points are split at random (``test_fraction``,
    ``seed``). Limits: ``MAX_ROWS`` lines (or ``max_rows``), ``MAX_FEATURES`` features, ``MAX_CLASSES``.
    """
    text = _decode(_read_bytes(source))
    header = _check_header(text)
    label_column = _pick_label_column(header, label_column)
    df = _parse_table(text, int(max_rows))
    features = [c for c in df.columns if c not in (label_column, SPLIT_COLUMN)]
    if not features:
        raise ValueError(
            f"the CSV file has no feature column besides the label {label_column!r}; add at least "
            "one numeric column."
        )
    X = _numeric_features(df, features)
    y = _parse_labels(df[label_column], label_column)
    _check_classes(y, f"the label column {label_column!r}")
    name = clean_name(name, "the file name", strip=True) if name else ""
    if SPLIT_COLUMN not in df.columns:
        return split_dataset(X, y, test_fraction, seed, features, name)
    test = _split_mask(df, SPLIT_COLUMN)
    _check_classes(y[~test], "the training split")
    classes = tuple(np.unique(y).tolist())
    return Dataset(X[~test], y[~test], X[test], y[test], classes, tuple(features), name)


# ---------------------------------------------------------------------------------------------------------------
# The command line's reading: a model's features matched by name, the train or test rows of a labelled file
# ---------------------------------------------------------------------------------------------------------------


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_table(source, header: bool = True, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """The cells of a CSV file as text, one column per name (``df.attrs["first_line"]``: the file line of the
    first row). ``header=False``: every line is data and the columns are named "1", "2", ... by position; with
    a header, a first line of numbers only is refused (it is data, not names)."""
    text = _decode(_read_bytes(source))
    end = text.find("\n")
    budget.check("header_chars", len(text) if end < 0 else end)  # before the first line is split (linear)
    first = next(csv.reader(io.StringIO(text[: end + 1 or None])), None) if text else None
    if not first or not any(c.strip() for c in first):
        raise ValueError("the CSV file is empty; give one line per point (after a header line of names).")
    if not header:
        if len(first) > MAX_FEATURES + 2:  # a label and a split column besides the features
            _too_many_features(len(first))
        names = ",".join(str(j + 1) for j in range(len(first)))
        df = _parse_table(names + "\n" + text, max_rows)
        df.attrs["first_line"] = 1
        return df
    if all(_is_number(c.strip()) for c in first):
        raise ValueError(
            f"the first line {_shorten([c.strip() for c in first])} looks like data, not column names; add a "
            "header line naming the columns, or read the file as having none (--no-header)."
        )
    _check_header(text)
    df = _parse_table(text, max_rows)
    df.attrs["first_line"] = 2
    return df


def match_features(columns: list, feature_names, n_features: int, exclude=(LABEL_COLUMN, SPLIT_COLUMN)):
    """``(features, ignored)``: the columns to read, in the model's order, and the other columns left unread.

    With ``feature_names`` (a model fitted on named columns) every name must be a column (any order; a missing
    one is an error naming it); without (a model of positional features, or a file read with ``header=False``)
    the columns not in ``exclude`` are the features in file order and there must be ``n_features`` of them.
    """
    skip = set(exclude)
    others = [c for c in columns if c not in skip]
    if feature_names is None:
        if len(others) != n_features:
            raise ValueError(
                f"the CSV file has {len(others)} feature columns {_shorten(others)}; the model was trained on "
                f"{n_features}. Give the same feature columns in the same order (columns "
                f"{_shorten(list(exclude))} are not features)."
            )
        return others, []
    names = [str(n) for n in feature_names]
    present, wanted = set(columns), set(names)  # sets: linear in the number of columns
    missing = [n for n in names if n not in present]
    if missing:
        raise ValueError(
            f"the CSV file lacks the feature column(s) {_shorten(missing)} the model was trained on; its "
            f"columns are {_shorten(list(columns))}. Give every feature of the model by name "
            f"({_shorten(names)}, in any order)."
        )
    return names, [c for c in others if c not in wanted]


def read_features(source, feature_names=None, n_features: int | None = None, header: bool = True):
    """``(X, ignored)``: the feature columns of a CSV file in the model's order (see ``match_features``) as
    float64 (N, d), and the names of the columns left unread. ``header=False``: every column is a feature, by
    position."""
    df = read_table(source, header)
    if not header:
        feature_names = None
    n = len(feature_names) if n_features is None else n_features
    exclude = (LABEL_COLUMN, SPLIT_COLUMN) if header else ()
    features, ignored = match_features(list(df.columns), feature_names, n, exclude)
    return _numeric_features(df, features, df.attrs["first_line"]), ignored


@dataclass
class LabelledRows:
    """What ``read_labelled`` read: features, labels, the feature names, the columns left unread, and which
    rows these are (``rows``, a phrase such as "the 'test' rows")."""

    X: np.ndarray
    y: np.ndarray
    features: list
    ignored: list
    rows: str


def read_labelled(
    source,
    label_column: str | None = None,
    rows: str = "train",
    feature_names=None,
    n_features: int | None = None,
    header: bool = True,
    drop=(),
) -> LabelledRows:
    """The ``rows`` ("train" or "test") of a labelled CSV file: with a ``split`` column its rows of that kind
    (there must be some), else every row. Features: every other column in file order, or those of a model
    (``feature_names``/``n_features``, see ``match_features``). The label column is ``label_column`` or
    ``label`` (never guessed: ``MissingLabelColumn`` lists the columns); without a header it is a column
    number ("3"). ``drop``: columns that are not features (an id): each must be a column other than the label."""
    df = read_table(source, header)
    columns = list(df.columns)
    for name in drop:
        if name not in columns:
            raise ValueError(
                f"--drop names column {name!r}, which the file does not have; its columns are {_shorten(columns)}."
            )
    if not header and label_column is None:
        raise ValueError(
            f"a file without a header has no {LABEL_COLUMN!r} column; give the number of the label column "
            f"(1 to {len(columns)}) as the label column."
        )
    label = _pick_label_column(columns, label_column)
    split = SPLIT_COLUMN if header and SPLIT_COLUMN in columns else None
    if label in drop:
        raise ValueError(
            f"--drop names the label column {label!r}; drop only columns that are not the label."
        )
    exclude = ((label, split) if split else (label,)) + tuple(drop)
    if feature_names is None and n_features is None:
        features, ignored = [c for c in columns if c not in exclude], []
        if not features:
            raise ValueError(
                f"the CSV file has no feature column besides the label {label!r}; add at least one numeric column."
            )
        if len(features) > MAX_FEATURES:
            raise ValueError(
                f"the CSV file has {len(features)} feature columns; at most MAX_FEATURES = {MAX_FEATURES} "
                "are supported."
            )
    else:
        n = len(feature_names) if n_features is None else n_features
        features, ignored = match_features(columns, None if not header else feature_names, n, exclude)
    first = df.attrs["first_line"]
    # every row checked: a bad cell is named by its file line (and, in fit, where every column is a feature
    # unless dropped, by the --drop that leaves its column out)
    X = _numeric_features(df, features, first, drop_flag=feature_names is None and n_features is None)
    y = _parse_labels(df[label], label, first)
    if split is None:
        which = "every row (the file has no split column)"
    else:
        test = _split_mask(df, split)
        keep = test if rows == "test" else ~test
        which = f"the {rows!r} rows of its split column"
        if not keep.any():
            raise ValueError(
                f"the CSV file's {SPLIT_COLUMN!r} column marks no row {rows!r}; mark some rows {rows!r} or drop "
                "the column to use every row."
            )
        X, y = X[keep], y[keep]
    if rows == "train":
        _check_classes(y, f"the label column {label!r}" if split is None else "the training split")
    return LabelledRows(X, y, features, ignored, which)


def to_csv(dataset: Dataset, path_or_buffer=None) -> str | None:
    """Write a Dataset as CSV: feature columns, ``label``, ``split`` (train/test). Returns the text if no path.

    Floats are written with full precision, so ``read_csv(to_csv(ds))`` gives back identical arrays (a text
    label starting like a spreadsheet formula comes back with a leading quote: ``rebel.textout.csv_text``).
    """
    clash = {LABEL_COLUMN, SPLIT_COLUMN} & set(dataset.feature_names)
    if clash:
        raise ValueError(
            f"feature name {min(clash)!r} is reserved for the label/split columns; rename the feature."
        )
    frames = []
    for X, y, split in (
        (dataset.X_train, dataset.y_train, "train"),
        (dataset.X_test, dataset.y_test, "test"),
    ):
        part = pd.DataFrame(np.asarray(X, dtype=np.float64), columns=list(dataset.feature_names))
        part[LABEL_COLUMN] = np.asarray(y, dtype=object)
        part[SPLIT_COLUMN] = split
        frames.append(part)
    text = csv_text(pd.concat(frames, ignore_index=True))  # formula-like labels get a leading quote
    if path_or_buffer is None:
        return text
    if isinstance(path_or_buffer, (str, Path)):
        Path(path_or_buffer).write_text(text, encoding="utf-8")
    else:
        path_or_buffer.write(text)
    return None
