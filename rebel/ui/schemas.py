"""Typed, validated schemas (pydantic) for what users hand the app: the session file, the ``?cfg=`` link and the
taxonomy tree.

The schemas check structure and types strictly (no numbers as text, no ``true`` for 1, no NaN or infinity, no
unknown keys, bounded sizes and nesting); the range and consistency checks with their detailed messages stay
where the data is used (``DatasetSpec``, ``validate_cost_matrix``, ``rebel.params``). ``session_document`` and
``tree_document`` return plain dicts ready for those checks, or raise ``InputError`` (a ValueError, the one
error class the pages catch) naming the entry, the bad value (shortened) and the fix.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
)

from rebel.names import MAX_NAME_CHARS, clean_name
from rebel.params import DATA_RANGES, MAX_CLASSES
from rebel.schema import short

SESSION_FORMAT = "rebel-explorer-session"
SESSION_VERSION = 1
MAX_TREE_NODES = 500
MAX_TREE_DEPTH = 12


class InputError(ValueError):
    """A session file, link or tree the app cannot use; the message names the entry and the fix."""


Finite = Annotated[float, Field(strict=True, allow_inf_nan=False)]
# a class or preset name: through the name door (rebel.names), refused when it holds control characters
Name = Annotated[StrictStr, Field(max_length=MAX_NAME_CHARS), AfterValidator(clean_name)]


def _in_range(name: str):
    """The Playground's range of the dataset setting ``name`` (``rebel.params.DATA_RANGES``, which its widget
    shows too): a link or session file holds nothing the widget cannot show."""
    return AfterValidator(DATA_RANGES[name].check)


_STRICT = ConfigDict(strict=True, extra="forbid", populate_by_name=True)


class MixtureRow(BaseModel):
    """One Gaussian component of a mixture (a row of the clusters table)."""

    model_config = _STRICT

    label: Name = Field(alias="class")
    mean_x: Finite
    mean_y: Finite
    std_x: Finite
    std_y: Finite
    corr: Finite | None = None  # an empty optional cell takes the default
    angle: Finite | None = None
    weight: Finite | None = None
    count: Finite | None = None  # an alias of weight (the ranges are checked by validate_mixture)


class SpecDocument(BaseModel):
    """A ``DatasetSpec`` as JSON (``DatasetSpec.to_dict``): its settings within the Playground's ranges
    (``rebel.params.DATA_RANGES``); the mixture's sizes and ranges are checked by ``DatasetSpec``."""

    model_config = _STRICT

    mixture: list[MixtureRow]
    n_points: Annotated[StrictInt, _in_range("n_points")] | None = None
    test_fraction: Annotated[Finite, _in_range("test_fraction")] | None = None
    seed: Annotated[StrictInt, _in_range("seed")] | None = None
    label_noise: Annotated[Finite, _in_range("label_noise")] | None = None


class SessionDocument(BaseModel):
    """A session file, and what a ``?cfg=`` link holds (the same document, compressed). The hyper-parameter
    values are checked against ``rebel.params`` by ``validate_hyper``; format and version before this model."""

    model_config = _STRICT

    format: StrictStr = SESSION_FORMAT
    version: StrictInt = SESSION_VERSION
    preset: Name = ""
    classes: Annotated[list[Name], Field(max_length=MAX_CLASSES)] | None = None
    spec: SpecDocument
    cost_matrix: Annotated[
        list[Annotated[list[Finite], Field(max_length=MAX_CLASSES)]], Field(max_length=MAX_CLASSES)
    ]
    hyper: Annotated[dict[Name, Any], Field(max_length=10)] = Field(default_factory=dict)
    engine: Name = "paper"  # a key of rebel.ui.variants.ENGINES (checked by Config)
    # the classes in the order shown (``rebel.ui.class_order``); absent: sorted
    order: Annotated[list[Name], Field(max_length=MAX_CLASSES)] | None = None


# What each kind of pydantic error means for a user, and a hint per part of the document (longest prefix wins).
_PLAIN = {
    "model_type": "should be a JSON object",
    "dict_type": "should be a JSON object",
    "model_attributes_type": "should be a JSON object",
    "list_type": "should be a list",
    "int_type": "should be a whole number",
    "float_type": "should be a number",
    "finite_number": "should be a finite number",
    "string_type": "should be text in quotes",
    "extra_forbidden": "is not a known entry (remove it)",
}
_HINTS = {
    ("spec",): "The dataset spec must be a dict with a 'mixture' entry (a list of component rows).",
    ("spec", "mixture"): 'Each mixture row is an object like {"class": "a", "mean_x": 0, "mean_y": 0, '
    '"std_x": 1, "std_y": 1}.',
    (
        "cost_matrix",
    ): "cost_matrix must be a K x K table of finite numbers (rows = truth, columns = prediction).",
    ("hyper",): 'hyper holds whole numbers such as {"n_estimators": 100}.',
}


def _hint(loc: tuple) -> str:
    keys = [k for k in _HINTS if loc[: len(k)] == k]
    return " " + _HINTS[max(keys, key=len)] if keys else ""


def _where(loc: tuple) -> str:
    """The path of an entry, e.g. ``spec.mixture.0.class`` (long keys cut)."""
    parts = [str(p) if isinstance(p, int) or len(str(p)) <= 40 else f"{str(p)[:30]}…" for p in loc]
    return ".".join(parts) or "the document"


def _problem(what: str, exc: ValidationError, fix: str) -> InputError:
    # the shallowest problem first: a missing top-level entry says more than a detail inside another one
    errors = sorted(exc.errors(include_url=False), key=lambda e: len(e["loc"]))
    err = errors[0]
    loc = tuple(err["loc"])
    where = _where(loc)
    more = f" ({len(errors) - 1} more problem{'s' * (len(errors) > 2)})" if len(errors) > 1 else ""
    if err["type"] == "missing":
        text = f"{what}: {where} is missing{more}."
    elif (
        err["type"] == "value_error"
    ):  # a range of rebel.params or the name door: it names the value and the fix
        message = err["msg"].removeprefix("Value error, ").rstrip(".")
        return InputError(f"{what}: {where}: {message}{more}. {fix}")
    else:
        meaning = _PLAIN.get(err["type"], err["msg"].removeprefix("Value error, "))
        text = f"{what}: {where} is {short(err.get('input'))}: {meaning}{more}."
    return InputError(f"{text}{_hint(loc)} {fix}")


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of lists/dicts, counting no further than ``limit + 1`` (no recursion)."""
    depth, level = 0, [value]
    while level and depth <= limit:
        level = [
            child
            for item in level
            if isinstance(item, (dict, list))
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        depth += 1
    return depth


def session_document(obj: Any, what: str = "session") -> dict:
    """The checked session document as a dict (``Config.from_dict`` input), or ``InputError``."""
    if not isinstance(obj, dict):
        raise InputError(
            f"{what} must be a JSON object with 'spec', 'cost_matrix' and 'hyper' entries; got "
            f"{type(obj).__name__} {short(obj)}. Save a session from the app to see one."
        )
    fmt, version = obj.get("format", SESSION_FORMAT), obj.get("version", SESSION_VERSION)
    if fmt != SESSION_FORMAT:
        raise InputError(f"{what} format is {short(fmt)}; expected {SESSION_FORMAT!r}.")
    if type(version) is not int or version != SESSION_VERSION:
        raise InputError(f"{what} version is {short(version)}; this app reads version {SESSION_VERSION}.")
    if _depth(obj, 5) > 5:
        raise InputError(f"{what} nests lists or objects too deeply; save a session from the app to see one.")
    try:
        doc = SessionDocument.model_validate(obj)
    except ValidationError as exc:
        raise _problem(what, exc, "Save a session from the app to see a valid one.") from None
    out = doc.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)  # "classes": null = absent
    out["spec"] = doc.spec.model_dump(by_alias=True, exclude_unset=True)
    out["spec"]["mixture"] = [row.model_dump(by_alias=True, exclude_unset=True) for row in doc.spec.mixture]
    return out


def _tree_problem(where: str, item: Any) -> InputError:
    return InputError(
        f"the class tree {where} holds {short(item)}; a tree maps each class or group name (text in quotes, "
        f"at most {MAX_NAME_CHARS} characters) to its parent, a list of children, a sub-tree or null. "
        + TREE_EXAMPLE
    )


TREE_EXAMPLE = 'Write it like {"duck": "bird", "goose": "bird", "cat": "mammal"}.'


def tree_document(obj: Any) -> dict:
    """The checked taxonomy tree, or ``InputError``: a non-empty JSON object whose keys are names and whose values
    are a name (the parent), null, a list of names and sub-trees, or a sub-tree; at most ``MAX_TREE_DEPTH``
    levels and ``MAX_TREE_NODES`` entries. Checked iteratively, so no input can exhaust the stack."""
    if not isinstance(obj, dict) or not obj:
        raise InputError(f"the class tree must be a non-empty JSON object; got {short(obj)}. {TREE_EXAMPLE}")
    stack, seen = [(obj, "at the top", 1)], 0
    while stack:
        node, where, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise InputError(f"the class tree nests more than {MAX_TREE_DEPTH} levels. {TREE_EXAMPLE}")
        seen += len(node)
        if seen > MAX_TREE_NODES:
            raise InputError(f"the class tree has more than {MAX_TREE_NODES} entries. {TREE_EXAMPLE}")
        for key, value in node.items():
            if not isinstance(key, str) or not key or len(key) > MAX_NAME_CHARS:
                raise _tree_problem(where, key)
            _tree_name(key, where)
            inside = f"under {short(key)}"
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict) and item:
                    stack.append((item, inside, depth + 1))
                elif (
                    isinstance(item, list)
                    or (item is not None and not isinstance(item, (str, dict)))
                    or isinstance(item, str)
                    and len(item) > MAX_NAME_CHARS
                ):
                    raise _tree_problem(inside, item)
                elif isinstance(item, str):
                    _tree_name(item, inside)
    return obj


def _tree_name(name: str, where: str) -> None:
    """A name of the tree checked at the door (``rebel.names``): control characters are refused."""
    try:
        clean_name(name, "a name")
    except ValueError as exc:
        raise InputError(f"the class tree {where}: {exc} {TREE_EXAMPLE}") from None
