"""An analysis page's own settings in its link (seed, trials, options), the way ``rebel.ui.playground.link`` keeps
the Playground's view: each page declares its settings (``Setting``: the name in the link, the widget key and the
values the widget accepts, taken from the same limits the widget is drawn with), ``restore`` puts a link's values
into the widgets once per visit, before they are drawn, and ``sync`` writes the current values back into the
address bar, so a copied link reopens the page as it is. A value the widget would not accept is ignored with a
note naming it and the accepted values; a link without these parameters (an older link) opens the defaults.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from rebel.ui import components as ui

S = st.session_state


@dataclass(frozen=True)
class Setting:
    """One widget's value in the link: ``name`` in the query string, the widget's ``key``, and what it accepts:
    ``kind`` "int" or "float" in [low, high], "bool" (0 / 1), "choice" (one of ``choices``) or "choices"
    (comma-separated, each one of ``choices``)."""

    name: str
    key: str
    kind: str
    low: float = 0
    high: float = 0
    choices: tuple = ()
    step: int = 1  # "int": the widget's step (values low, low + step, ...)

    def decode(self, text: str):
        """The widget value of ``text``, or a ValueError saying what is accepted."""
        text = str(text).strip()
        if self.kind in ("int", "float"):
            try:
                value = int(text) if self.kind == "int" else float(text)
            except ValueError:
                value = math.nan
            on_step = self.kind != "int" or (value - self.low) % self.step == 0
            if not (self.low <= value <= self.high and on_step):  # also refuses NaN
                kind = "a whole number" if self.kind == "int" else "a number"
                every = f" in steps of {self.step}" if self.step != 1 else ""
                raise ValueError(f"{self.name} must be {kind} from {self.low:g} to {self.high:g}{every}")
            return value
        if self.kind == "bool":
            if text not in ("0", "1"):
                raise ValueError(f"{self.name} must be 0 or 1")
            return text == "1"
        names = [s.strip() for s in text.split(",") if s.strip()] if self.kind == "choices" else [text]
        wanted = {str(c): c for c in self.choices}
        unknown = [s for s in names if s not in wanted]
        if unknown or (self.kind == "choice" and len(names) != 1):
            known = ", ".join(wanted)
            raise ValueError(f"{self.name} must be {'one' if self.kind == 'choice' else 'some'} of {known}")
        return [wanted[s] for s in names] if self.kind == "choices" else wanted[names[0]]

    def encode(self, value) -> str:
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "choices":
            return ",".join(str(v) for v in value)
        if self.kind == "float":
            return f"{float(value):g}"
        return str(value)


def decode(params, settings) -> tuple:
    """``(values, problems)``: widget key -> value for every setting in ``params`` that is understood, and one
    sentence per setting whose value was not (it is ignored)."""
    values, problems = {}, []
    for s in settings:
        text = params.get(s.name)
        if text is None:
            continue
        try:
            values[s.key] = s.decode(text)
        except ValueError as exc:
            problems.append(f"{exc}; got {str(text)[:20]!r}, kept the default")
    return values, problems


def restore(page: str, settings) -> None:
    """Put the link's values of ``settings`` into their widgets, once per visit of ``page`` (before the widgets
    are drawn); a value not understood is ignored with a note (shown where this is called)."""
    flag = f"_link_restored_{page}"
    if S.get(flag):
        return
    S[flag] = True
    values, problems = decode({s.name: st.query_params.get(s.name) for s in settings}, settings)
    S.update(values)
    for problem in problems:
        ui.show_message("warning", f"The link's settings: {problem}.")


def sync(settings) -> None:
    """Write the current values of ``settings`` into the address bar (only those that changed)."""
    for s in settings:
        if s.key not in S or S[s.key] is None:
            continue
        text = s.encode(S[s.key])
        if st.query_params.get(s.name) != text:
            st.query_params[s.name] = text
