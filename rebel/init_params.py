"""scikit-learn's rule for an estimator's ``__init__``, in one place for every estimator of the package: each
parameter is stored unchanged as the attribute of its name (no checks, no copies: ``fit`` checks them), so that
``get_params``, ``set_params`` and ``clone`` see exactly what the caller gave."""

from __future__ import annotations


def store_params(estimator, given: dict) -> None:
    """``estimator.<name> = value`` for every parameter of the running ``__init__``: called as its first statement,
    ``store_params(self, locals())``, when ``locals()`` holds just the parameters (and ``self``, and ``__class__``
    where the method calls ``super()``). A subclass whose ``__init__`` takes fewer parameters and calls this one
    still gets all of them stored."""
    for name, value in given.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)
