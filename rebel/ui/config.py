"""The Playground's configuration and its files: what a session file, a shared link and a CSV upload hold.

- ``Config``: the full shareable configuration (preset name, ``DatasetSpec``, cost matrix (K, K), hyper-
  parameters), with its JSON session file and URL query-string encodings (both validated on the way in).
- Cost-matrix tables (``cost_frame``, ``parse_cost_cell``), resizing a matrix when classes change, a cluster
  from a dragged box, the taxonomy tree text, CSV import/export of 2-D point datasets (on top of
  ``rebel.data.read_csv``/``to_csv``).
- ``content_key``/``dataset_key``: content hashes used as cache keys.

Every error is a ``ValueError`` whose message names the entry and the fix; pages show it with
``rebel.ui.components.show_error``. Nothing here imports streamlit.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rebel import budget
from rebel.costs import validate_cost_matrix
from rebel.data import (
    PRESETS,
    Dataset,
    DatasetSpec,
    make_dataset,
    mixture_classes,
    read_csv,
    to_csv,
    validate_mixture,
)
from rebel.params import APP_DEFAULTS, DATA_RANGES, INT_PARAMS, check_param
from rebel.ui.class_order import checked_order
from rebel.ui.plane_columns import pick_plane
from rebel.ui.schemas import SESSION_FORMAT, SESSION_VERSION, session_document, tree_document
from rebel.ui.variants import ENGINES

DEFAULT_PRESET = "airport"
DEFAULT_HYPER = APP_DEFAULTS  # the app's starting hyper-parameters (rebel.params)
MAX_UPLOAD_BYTES = budget.limit_of("file_bytes", app=True)  # the limits live in rebel.budget
MAX_POINTS = DATA_RANGES["n_points"].high  # points of a Playground dataset (it retrains on every change)
MAX_QUERY_CHARS = 20_000  # length of the ?cfg= link parameter
MAX_CONFIG_BYTES = 1024 * 1024  # decompressed size of a link's configuration
QUERY_KEY = "cfg"


# ---------------------------------------------------------------------------------------------------------------
# Configuration, session JSON and URL query string
# ---------------------------------------------------------------------------------------------------------------


def validate_hyper(hyper) -> dict:
    """Checked hyper-parameters ``{n_estimators, max_depth, n_thresholds}`` within the app's ranges of
    ``rebel.params`` (missing ones take the app defaults)."""
    if not isinstance(hyper, dict):
        raise ValueError(f"hyper-parameters are {hyper!r}; give a dict such as {DEFAULT_HYPER}.")  # noqa: TRY004
    unknown = set(hyper) - set(INT_PARAMS)
    if unknown:
        raise ValueError(f"hyper-parameters: unknown entry {min(unknown)!r}; allowed: {list(INT_PARAMS)}.")
    return {name: check_param(name, hyper.get(name, DEFAULT_HYPER[name]), app=True) for name in INT_PARAMS}


def content_key(*parts) -> str:
    """Hash of arrays and JSON-able values: the cache key of a training run (same content, same key)."""
    h = hashlib.sha1()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(str((part.dtype, part.shape)).encode())
            h.update(
                np.ascontiguousarray(part).tobytes()
                if part.dtype != object
                else "\x1f".join(map(str, part.ravel())).encode()
            )
        else:
            h.update(json.dumps(part, sort_keys=True, default=str).encode())
        h.update(b"\x1e")
    return h.hexdigest()[:20]


def dataset_key(ds: Dataset) -> str:
    return content_key(ds.X_train, ds.y_train, ds.X_test, ds.y_test, list(ds.classes))


@dataclass
class Config:
    """Everything that defines what the Playground shows: data, costs and hyper-parameters."""

    spec: DatasetSpec
    cost_matrix: np.ndarray
    hyper: dict = field(default_factory=lambda: dict(DEFAULT_HYPER))
    preset: str = ""
    engine: str = "paper"  # a key of rebel.ui.variants.ENGINES: the engine of both models
    order: tuple | None = None  # the classes in the order shown (``rebel.ui.class_order``); None: sorted

    def __post_init__(self):
        if not isinstance(self.spec, DatasetSpec):
            # A dict, or a spec made by a reloaded copy of rebel.data (streamlit re-imports edited modules).
            self.spec = DatasetSpec.from_dict(
                self.spec if isinstance(self.spec, dict) else self.spec.to_dict()
            )
        self.cost_matrix = validate_cost_matrix(self.cost_matrix, n_classes=len(self.classes))
        self.hyper = validate_hyper(self.hyper)
        self.preset = str(self.preset or "")
        if self.engine not in ENGINES:
            raise ValueError(f"engine is {self.engine!r}; choose one of {list(ENGINES)}.")
        self.order = checked_order(self.order, self.classes)
        for name, limits in DATA_RANGES.items():  # what the Playground's widgets can show
            value = getattr(self.spec, name)
            if value is not None:
                try:
                    limits.check(value)
                except ValueError as exc:
                    raise ValueError(f"{exc}.") from None

    @property
    def classes(self) -> tuple:
        return self.spec.classes

    def to_dict(self) -> dict:
        order = {} if self.order is None else {"order": list(self.order)}  # (the sorted order: no entry)
        return {
            "format": SESSION_FORMAT,
            "version": SESSION_VERSION,
            "preset": self.preset,
            "classes": list(self.classes),
            "spec": self.spec.to_dict(),
            "cost_matrix": self.cost_matrix.tolist(),
            "hyper": dict(self.hyper),
            "engine": self.engine,
            **order,
        }

    @classmethod
    def from_dict(cls, d, what: str = "session") -> Config:
        d = session_document(d, what)  # types and structure (InputError); ranges are checked below
        spec = DatasetSpec.from_dict(d["spec"])
        classes = mixture_classes(spec.mixture)
        if "classes" in d and list(map(str, d["classes"])) != list(classes):
            raise ValueError(
                f"session classes {d['classes']} do not match the mixture's classes {list(classes)}; "
                "fix the 'classes' entry or remove it."
            )
        hyper, engine = d.get("hyper", {}), d.get("engine", "paper")
        return cls(spec, d["cost_matrix"], hyper, d.get("preset", ""), engine, d.get("order"))

    def key(self) -> str:
        """Content hash of the configuration (changes whenever anything that affects the output changes)."""
        return hashlib.sha1(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


def preset_config(name: str, hyper: dict | None = None, engine: str = "paper") -> Config:
    """The configuration of a named preset (its dataset spec and suggested cost matrix)."""
    if name not in PRESETS:
        raise ValueError(f"preset is {name!r}; choose one of {list(PRESETS)}.")
    p = PRESETS[name]
    return Config(p.spec, p.cost_matrix.copy(), dict(hyper or DEFAULT_HYPER), name, engine)


def session_json(cfg: Config) -> str:
    """The configuration as an indented JSON session file (what the download button saves)."""
    return json.dumps(cfg.to_dict(), indent=2)


def parse_session_json(data) -> Config:
    """Read a session file (bytes or str); raise ``ValueError`` saying what is wrong with it."""
    if isinstance(data, bytes):
        if len(data) > MAX_UPLOAD_BYTES:
            raise ValueError(f"session file is {len(data)} bytes; at most {MAX_UPLOAD_BYTES} are accepted.")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                "session file is not UTF-8 text; upload a .json file saved by this app."
            ) from None
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"session file is not valid JSON ({exc.msg} at line {exc.lineno}); "
            "upload a .json file saved by this app."
        ) from None
    except (ValueError, RecursionError):  # nested too deeply, or a number with thousands of digits
        raise ValueError(
            "session file could not be read (nested too deeply or a number too long); "
            "upload a .json file saved by this app."
        ) from None
    return Config.from_dict(obj)


def pack_query(obj) -> str:
    """Compact URL-safe text for a query parameter: base64url of the zlib-compressed JSON of ``obj``."""
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def unpack_query(text: str, key: str = QUERY_KEY):
    """Inverse of ``pack_query`` for the link's parameter ``key``; raise ``ValueError`` for damaged or oversized
    text (at most ``MAX_QUERY_CHARS`` characters and ``MAX_CONFIG_BYTES`` decompressed)."""
    text = str(text)
    if len(text) > MAX_QUERY_CHARS:
        raise ValueError(
            f"the link's '{key}' parameter has {len(text)} characters; at most "
            f"{MAX_QUERY_CHARS} are read. Share a session file instead."
        )
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), MAX_CONFIG_BYTES)
        if inflate.unconsumed_tail:
            raise ValueError("too large")
        return json.loads(raw)
    except (ValueError, RecursionError, zlib.error):
        raise ValueError(
            f"the link's '{key}' parameter is damaged (could not decode it); "
            "copy the full address again or remove the parameter."
        ) from None


def encode_query(cfg: Config) -> str:
    """The configuration as the link's ``?cfg=`` text (``pack_query``)."""
    return pack_query(cfg.to_dict())


def decode_query(text: str) -> Config:
    """Inverse of ``encode_query``; raise ``ValueError`` for a damaged, oversized or foreign link."""
    return Config.from_dict(unpack_query(text), what="the link's configuration")


# ---------------------------------------------------------------------------------------------------------------
# Cost-matrix and mixture helpers
# ---------------------------------------------------------------------------------------------------------------


COST_INDEX_LABEL = "truth ↓ pred. →"
APP_MAX_COST = 1e6  # largest cost typed in the app; only ratios matter, and 1e6 : 1 already means "never"
LOG_COST_MIN, LOG_COST_MAX = 0.01, 1000.0
LOG_COST_STEPS = tuple(float(f"{m * 10.0**e:g}") for e in range(-2, 3) for m in (1, 2, 5)) + (1000.0,)


def format_cost(value: float) -> str:
    """A cost as the editor shows it: up to 6 significant digits, no exponent below 1e6."""
    return f"{float(value):.6g}"


def parse_cost_cell(text, truth: str, predicted: str) -> float:
    """One typed cost: a plain or scientific number (``5``, ``0.25``, ``1e3``) from 0 to ``APP_MAX_COST``.
    Raises ``ValueError`` naming the cell (truth, prediction), the typed text and the fix."""
    where = f"cost of predicting {predicted!r} when the truth is {truth!r}"
    fix = "enter a number >= 0 such as 5 or 1e3 (0 means the decision is free)"
    raw = "" if text is None else str(text).strip()
    if not raw:
        raise ValueError(f"{where} is empty; {fix}.")
    if "," in raw:
        raise ValueError(f"{where}: {raw!r} has a comma; write decimals with a dot (e.g. 2.5), or {fix}.")
    try:
        value = float(raw.replace("_", "#"))  # float() would accept 1_000; we do not
    except ValueError:
        raise ValueError(f"{where}: {raw!r} is not a number; {fix}.") from None
    if not np.isfinite(value):
        raise ValueError(f"{where}: {raw!r} is not a finite number; {fix}.")
    if value < 0:
        raise ValueError(f"{where}: {raw!r} is negative; {fix}.")
    if value > APP_MAX_COST:
        raise ValueError(
            f"{where}: {raw!r} is too large; the app takes costs of at most {APP_MAX_COST:,.0f}. Only ratios "
            "of costs matter, so divide all costs by a common factor instead."
        )
    return value


def apply_cost_cell(cost_matrix, i: int, j: int, typed, classes) -> tuple:
    """The cost matrix with ``typed`` entered at (truth i, prediction j).

    Returns ``(C, message)``: an accepted entry takes the typed value (``message`` None); a refused one leaves
    a copy of ``cost_matrix`` unchanged and ``message`` says why (``parse_cost_cell``) and which value stays. An
    entry that would leave no positive cost is refused too."""
    names = [str(c) for c in classes]
    C = np.array(cost_matrix, dtype=np.float64)
    try:
        value = parse_cost_cell(typed, names[i], names[j])
    except ValueError as exc:
        return C, f"{exc} It stays {format_cost(C[i, j])}."
    new = C.copy()
    new[i, j] = value
    if not (new > 0).any():
        return C, (
            f"with {format_cost(value)} for predicting {names[j]!r} when the truth is {names[i]!r} every cost "
            f"is 0, so there is nothing to learn; give at least one mistake a positive cost. It stays "
            f"{format_cost(C[i, j])}."
        )
    return new, None


def resize_cost_matrix(cost_matrix, old_classes, new_classes) -> np.ndarray:
    """Follow a change of classes: keep the costs between classes present before, 0-1 costs for new ones."""
    old = {str(c): i for i, c in enumerate(old_classes)}
    new = [str(c) for c in new_classes]
    C = 1.0 - np.eye(len(new))
    M = np.asarray(cost_matrix, dtype=np.float64)
    for i, a in enumerate(new):
        for j, b in enumerate(new):
            if a in old and b in old:
                C[i, j] = M[old[a], old[b]]
    if not (C > 0).any():
        C = 1.0 - np.eye(len(new))
    return C


def add_box_cluster(mixture, cls: str, x_range, y_range, weight: float | None = None) -> pd.DataFrame:
    """Mixture with one more Gaussian of class ``cls`` at a dragged box: mean = centre, std = half the box side.

    ``weight`` defaults to the mean weight of the existing components, so the new cluster gets a typical share.
    """
    df = validate_mixture(mixture)
    (x0, x1), (y0, y1) = sorted(map(float, x_range)), sorted(map(float, y_range))
    if not all(np.isfinite([x0, x1, y0, y1])):
        raise ValueError("the dragged box has no finite corners; drag a box inside the plot.")
    span = max(float(df["std_x"].mean()), 1e-3) * 0.05  # boxes thinner than this become a small round blob
    row = {
        "class": str(cls).strip(),
        "mean_x": round((x0 + x1) / 2, 3),
        "mean_y": round((y0 + y1) / 2, 3),
        "std_x": round(max((x1 - x0) / 2, span), 3),
        "std_y": round(max((y1 - y0) / 2, span), 3),
        "corr": 0.0,
        "angle": 0.0,
        "weight": float(df["weight"].mean() if weight is None else weight),
    }
    if not row["class"]:
        raise ValueError("choose the class of the new cluster before dragging a box.")
    return validate_mixture(pd.concat([df, pd.DataFrame([row])], ignore_index=True))


def edited_table(table, edits) -> pd.DataFrame:
    """``table`` with a data editor's edits (``{"edited_rows": {row: {column: value}}, "deleted_rows": [row],
    "added_rows": [{column: value}]}``, rows counted from 0 in ``table``) applied in Streamlit's order: cells,
    deleted rows, added rows. Columns ``table`` lacks are ignored; check the result (``validate_mixture``)."""
    df = pd.DataFrame(table).reset_index(drop=True).astype(object)
    edits = edits if isinstance(edits, dict) else {}
    for row, cells in (edits.get("edited_rows") or {}).items():
        for column, value in (cells or {}).items():
            if column in df.columns and 0 <= int(row) < len(df):
                df.loc[int(row), column] = value
    deleted = [int(r) for r in edits.get("deleted_rows") or [] if 0 <= int(r) < len(df)]
    df = df.drop(index=deleted).reset_index(drop=True)
    added = [{c: v for c, v in (r or {}).items() if c in df.columns} for r in edits.get("added_rows") or []]
    return pd.concat([df, pd.DataFrame(added, columns=df.columns)], ignore_index=True) if added else df


def default_tree_json(classes) -> str:
    """A starting class tree for the taxonomy preset: the first half of the classes under "group 1", the rest
    under "group 2" (as a JSON parent map the user can edit)."""
    names = [str(c) for c in classes]
    half = (len(names) + 1) // 2
    return json.dumps(
        {name: ("group 1" if i < half else "group 2") for i, name in enumerate(names)}, indent=1
    )


def parse_tree_json(text) -> dict:
    """Read the taxonomy tree typed by the user (a JSON parent map or nested mapping, see ``taxonomy_costs``)."""
    try:
        tree = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:  # ValueError includes JSONDecodeError
        raise ValueError(
            f"the class tree is not valid JSON ({getattr(exc, 'msg', exc)}); write it like "
            '{"duck": "bird", "goose": "bird", "cat": "mammal"}.'
        ) from None
    if not isinstance(tree, dict):
        raise ValueError(  # noqa: TRY004 - every user-input problem is a ValueError the page shows
            "the class tree must be a JSON object mapping each class to its parent group."
        )
    return tree_document(tree)


# ---------------------------------------------------------------------------------------------------------------
# Point datasets as CSV (x, y, label, split)
# ---------------------------------------------------------------------------------------------------------------


def dataset_to_csv(ds: Dataset) -> str:
    """Training and test points as CSV (columns x, y, label, split), via ``rebel.data.to_csv``."""
    return to_csv(ds)


def parse_dataset_csv(
    data, test_fraction: float = 1 / 3, seed: int = 0, name: str = "uploaded", columns=None
) -> Dataset:
    """``read_points_csv`` on the two feature columns the Playground draws: ``columns``, default the first two
    (``rebel.ui.plane_columns``)."""
    return pick_plane(read_points_csv(data, test_fraction, seed, name), columns)


def read_points_csv(data, test_fraction: float = 1 / 3, seed: int = 0, name: str = "uploaded") -> Dataset:
    """Read an uploaded point dataset with ``rebel.data.read_csv`` (CSV text only, never pickle), every feature
    column, and check what the Playground needs: training points in every class.

    Without a split column the points are split at random (``test_fraction``, ``seed``). Raises ``ValueError``
    naming the line, column or limit to fix.
    """
    if isinstance(data, bytes) and len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"CSV file is {len(data)} bytes; at most {MAX_UPLOAD_BYTES} are accepted.")
    ds = read_csv(
        data.encode() if isinstance(data, str) else data,
        test_fraction=test_fraction,
        seed=seed,
        max_rows=MAX_POINTS,
        name=name,
    )
    missing = sorted(set(ds.classes) - set(ds.y_train.tolist()), key=str)
    if missing:
        raise ValueError(
            f"class {missing[0]!r} has no training points in the CSV file; add some or relabel them."
        )
    return ds


def dataset_from_config(cfg: Config) -> Dataset:
    """Sample the configuration's dataset; check that every class has training points."""
    return dataset_from_spec(cfg.spec, cfg.preset or "custom")


def dataset_from_spec(spec: DatasetSpec, name: str = "custom") -> Dataset:
    """Sample a spec's train/test points; raise ``ValueError`` if a class gets no training points."""
    ds = make_dataset(spec, name)
    missing = sorted(set(ds.classes) - set(ds.y_train))
    if missing:
        raise ValueError(
            f"class {missing[0]!r} got no training points; raise its cluster weights or the number of points."
        )
    return ds
