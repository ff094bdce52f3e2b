"""Uploaded points named in the Playground's link: ``?upload=`` carries the upload's key in the store every
replica reads (``rebel.ui.upload_store``), how its points were split (test share and seed) and the costs,
hyper-parameters and engine in use and the two columns drawn (``encode_link`` / ``decode_link``). A replica that gets the link (a student
moved off a replica that died, or a shared link) reads the file back and splits it the same way; when the store
does not have it, the page says the upload is gone and asks for the file again (``MissingUpload``), never a
silent switch to a preset. No streamlit here.
"""

from __future__ import annotations

from rebel.params import DATA_RANGES
from rebel.ui.config import pack_query, unpack_query, validate_hyper
from rebel.ui.plane_columns import check_columns
from rebel.ui.upload_store import check_key
from rebel.ui.variants import ENGINES

QUERY_KEY = "upload"


class MissingUpload(LookupError):
    """The link names an upload the store does not have (any more)."""


def encode_link(
    key: str, test_fraction: float, seed: int, cost_matrix, hyper: dict, engine: str, columns=None
) -> str:
    """The link's ``?upload=`` text: the upload's key, how its points are split (test share and seed, as when
    it was read), the costs, hyper-parameters and engine in use, and the two columns drawn (``columns``)."""
    doc = {} if columns is None else {"columns": [str(c) for c in columns]}
    return pack_query(
        {
            **doc,
            "upload": check_key(key),
            "test_fraction": float(test_fraction),
            "seed": int(seed),
            "cost_matrix": [[float(v) for v in row] for row in cost_matrix],
            "hyper": dict(hyper),
            "engine": str(engine),
        }
    )


def decode_link(text: str) -> dict:
    """Inverse of ``encode_link``, checked: the key, a test share and seed within the Playground's ranges, the
    hyper-parameters and the engine (the cost matrix is checked against the classes once the file is read)."""
    doc = unpack_query(text, QUERY_KEY)
    if not isinstance(doc, dict) or not isinstance(doc.get("cost_matrix"), list):
        raise ValueError(  # noqa: TRY004 (a bad link is a ValueError, as every bad input here)
            f"the link's '{QUERY_KEY}' parameter is not an upload's description; copy the full address again."
        )
    out = {"upload": check_key(doc.get("upload"))}
    for name in ("test_fraction", "seed"):
        value = doc.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(  # noqa: TRY004
                f"the link's {name} is {str(value)[:20]!r}, not a number; copy the full address again."
            )
        out[name] = DATA_RANGES[name].check(int(value) if name == "seed" else float(value))
    out["hyper"] = validate_hyper(doc.get("hyper") if isinstance(doc.get("hyper"), dict) else {})
    if doc.get("engine") not in ENGINES:
        raise ValueError(f"the link's engine is {str(doc.get('engine'))[:20]!r}; known: {list(ENGINES)}.")
    out["engine"], out["cost_matrix"] = doc["engine"], doc["cost_matrix"]
    columns = doc.get("columns")  # older links: none (the first two); checked against the file's columns
    out["columns"] = None if columns is None else check_columns(columns, [str(c) for c in columns])
    return out
