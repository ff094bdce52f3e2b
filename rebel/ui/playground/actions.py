"""What the Playground's controls do to the shared ``AppState`` (no streamlit here, so tests call them directly).

Each action validates first and changes the state only when everything is valid; it raises ``ValueError``
naming the problem (the page shows it and nothing changes) or returns a note for the user (or None).

- ``apply_config``: a session file or a link becomes current (dataset, costs, hyper-parameters);
  ``apply_preset``: the same for a preset chosen in the list, keeping the costs last used with its classes.
- ``set_spec``: a new dataset drawn from an edited mixture or edited sampling settings.
- ``use_csv`` / ``back_to_mixture``: uploaded points replace the drawn ones (kept in the upload store, so a link
  names them: ``rebel.ui.uploads``), and back; ``use_link_upload``: the uploaded points a link names;
  ``pick_columns``: the two columns of a wider file that are drawn (``rebel.ui.plane_columns``).
- ``costs_for_classes``: the costs to use when the classes change: the ones last used with exactly these class
  names (remembered per class names in ``AppState.costs_by_classes``), else the preset's suggested costs when the
  data is an unchanged preset, else the old costs kept between the classes present before (0-1 for new ones; a
  renamed class keeps its costs, and its place in the order shown: ``rebel.ui.class_order``).
- ``cost_preset_matrix``: the matrix of a cost preset for the current classes.
- ``costs_story_note``: whether the costs differ from the preset's story.
"""

from __future__ import annotations

import numpy as np

from rebel.cost_presets import make_costs
from rebel.costs import validate_cost_matrix
from rebel.data import PRESETS, Dataset, DatasetSpec
from rebel.ui import upload_store, uploads
from rebel.ui.class_order import followed, renamed
from rebel.ui.config import (
    Config,
    dataset_from_config,
    dataset_from_spec,
    parse_tree_json,
    read_points_csv,
    resize_cost_matrix,
)
from rebel.ui.plane_columns import pick_plane
from rebel.ui.state import AppState


def costs_for_classes(state: AppState, classes, old_classes=None) -> tuple:
    """``(C, note)``: the costs for a change of classes (see the module docstring) and a note saying which."""
    remembered = state.remembered_costs(classes)
    if remembered is not None:
        return remembered, None
    preset = PRESETS.get(state.preset)
    if preset is not None and tuple(map(str, preset.classes)) == tuple(map(str, classes)):
        return preset.cost_matrix.copy(), None
    old = state.classes if old_classes is None else old_classes
    rename = renamed(old, classes)  # a renamed class keeps its costs
    C = resize_cost_matrix(state.cost_matrix, [rename.get(str(c), c) for c in old], classes)
    note = (
        f"Classes are now {', '.join(map(str, classes))}: the cost matrix kept the costs between existing "
        "classes and gave new ones 0-1 costs."
    )
    return C, note


def _use_dataset(state: AppState, ds: Dataset, source: str) -> str | None:
    old = state.classes
    note = None
    if tuple(ds.classes) != tuple(old):
        C, note = costs_for_classes(state, ds.classes, old)
        state.dataset, state.data_source = ds, source
        state.set_costs(C)
        state.class_order = followed(state.class_order, old, ds.classes)  # a renamed class keeps its place
    else:
        state.dataset, state.data_source = ds, source
    return note


def apply_config(state: AppState, cfg: Config) -> None:
    """Make a validated configuration current; nothing changes if its dataset cannot be drawn."""
    ds = dataset_from_config(cfg)
    state.spec, state.preset, state.hyper, state.engine = cfg.spec, cfg.preset, dict(cfg.hyper), cfg.engine
    state.class_order = cfg.order
    state.dataset, state.data_source = ds, "mixture"
    state.set_costs(cfg.cost_matrix)


def apply_preset(state: AppState, cfg: Config) -> str | None:
    """A preset chosen in the list: its data and hyper-parameters, and the costs last used with its classes if
    there are any (a preset detour keeps your costs), else its suggested ones. Returns a note when your costs
    came back."""
    remembered = state.remembered_costs(cfg.classes)
    apply_config(state, cfg)
    if remembered is None or np.array_equal(remembered, cfg.cost_matrix):
        return None
    state.set_costs(remembered)
    return (
        "Your earlier costs for these classes are back. Choose “Preset's suggested costs” and Apply for the "
        "preset's own."
    )


def set_spec(state: AppState, spec: DatasetSpec, preset: str | None = None) -> str | None:
    """Draw a new dataset from ``spec`` (``preset`` "" when the mixture was edited); the costs follow the
    classes. Returns a note when the classes changed."""
    ds = dataset_from_spec(spec, (state.preset if preset is None else preset) or "custom")
    state.spec = spec
    if preset is not None:
        state.preset = preset
    return _use_dataset(state, ds, "mixture")


def use_csv(state: AppState, data: bytes, store=None) -> str:
    """Uploaded CSV points replace the drawn ones (the spec stays for ``back_to_mixture``) and go to the upload
    store (``store``, default ``upload_store.store()``) under their key, which the link carries."""
    spec = state.spec
    full = read_points_csv(data, spec.test_fraction, int(spec.seed or 0), name="uploaded CSV")
    ds = pick_plane(full)
    try:
        key, kept = (store or upload_store.store()).put(data), ""
    except upload_store.StoreError as exc:
        key = upload_store.upload_key(data)
        kept = f" Only this server holds them: {exc} If it restarts, upload the file again."
    note = _use_upload(state, full, ds, (key, spec.test_fraction, int(spec.seed or 0)))
    loaded = (
        f"Loaded {len(ds.y_train)} training and {len(ds.y_test)} test points ({len(ds.classes)} classes) "
        f"from the CSV file.{kept}"
    )
    if len(full.feature_names) > 2:
        loaded += (
            f" It has {len(full.feature_names)} feature columns: the plot shows {ds.feature_names[0]!r} and "
            f"{ds.feature_names[1]!r} (choose others under the upload)."
        )
    return loaded if note is None else f"{loaded} {note}"


def _use_upload(state: AppState, full: Dataset, ds: Dataset, split: tuple) -> str | None:
    """Uploaded points ``full`` (every column), drawn as ``ds`` (two), become current; ``split``: (store key,
    test share, seed)."""
    note = _use_dataset(state, ds, "csv")
    state.upload_table, state.upload = full, (*split, tuple(ds.feature_names))
    return note


def pick_columns(state: AppState, columns) -> None:
    """The uploaded file's two columns ``columns`` are drawn (the same rows, split and costs)."""
    if state.data_source != "csv" or state.upload_table is None:
        raise ValueError("no uploaded points are in use; upload a CSV file first.")
    ds = pick_plane(state.upload_table, columns)
    state.dataset = ds
    state.upload = (*state.upload[:3], tuple(ds.feature_names))


def use_link_upload(state: AppState, text: str, store=None) -> str | None:
    """The uploaded points a link's ``?upload=`` names (``uploads.decode_link``), read from the store and split as
    when they were uploaded, with the link's costs, hyper-parameters and engine. Raises ``uploads.MissingUpload``
    when the store does not have them (any more), ``ValueError`` for a damaged link; returns a note when the
    link's costs do not fit the classes (the costs then follow the classes)."""
    link = uploads.decode_link(text)
    data = (store or upload_store.store()).get(link["upload"])
    if data is None:
        raise uploads.MissingUpload(link["upload"])
    full = read_points_csv(data, link["test_fraction"], link["seed"], name="uploaded CSV")
    ds = pick_plane(full, link["columns"])
    state.hyper, state.engine = link["hyper"], link["engine"]
    note = _use_upload(state, full, ds, (link["upload"], link["test_fraction"], link["seed"]))
    try:
        state.set_costs(validate_cost_matrix(link["cost_matrix"], n_classes=len(ds.classes)))
    except ValueError as exc:
        return f"The link's costs were not used ({exc})." + (f" {note}" if note else "")
    return None


def back_to_mixture(state: AppState) -> str | None:
    return set_spec(state, state.spec)


def upload_link(state: AppState) -> str | None:
    """The link's ``?upload=`` text for the uploaded points in use (None when the points are drawn)."""
    if state.data_source != "csv" or not state.upload:
        return None
    key, test_fraction, seed, columns = state.upload
    return uploads.encode_link(
        key, test_fraction, seed, state.cost_matrix, state.hyper, state.engine, columns
    )


def cost_preset_matrix(state: AppState, kind: str, cls=None, m: float = 10.0, seed: int = 0, tree: str = ""):
    """The cost matrix of preset ``kind`` ("suggested", a ``rebel.costs.COST_PRESETS`` name or "taxonomy")."""
    ds = state.dataset
    if kind == "suggested":
        preset = PRESETS.get(state.preset)
        if preset is None or tuple(preset.classes) != tuple(ds.classes) or state.data_source != "mixture":
            raise ValueError(
                "the current data is not an unchanged preset, so there is no suggested matrix; "
                "pick another cost preset."
            )
        return preset.cost_matrix.copy()
    spec: dict = {"preset": kind}
    if kind in ("fn", "fp"):
        # By index: class names from a CSV file may be numbers, which make_costs reads as indices.
        spec.update(c=list(ds.classes).index(cls), m=float(m))
    elif kind == "random":
        spec["rng"] = int(seed)
    elif kind == "taxonomy":
        spec["tree"] = parse_tree_json(tree)
    return make_costs(spec, ds.classes)


def costs_story_note(state: AppState) -> str | None:
    """A note when the data is an unchanged preset whose story the current costs no longer tell, else None."""
    preset = PRESETS.get(state.preset)
    if preset is None or state.data_source != "mixture" or tuple(preset.classes) != state.classes:
        return None
    if np.array_equal(np.asarray(state.cost_matrix), preset.cost_matrix):
        return None
    return (
        "Your costs differ from this preset's suggested ones, so the preset's story (below) describes its "
        "costs, not yours. Choose “Preset's suggested costs” and Apply to return to it."
    )
