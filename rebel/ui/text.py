"""The one way text reaches Streamlit's markdown: ``plain`` escapes it, ``md`` fills our own templates.

Streamlit renders the body of ``st.markdown/caption/success/info/warning/error/toast``, titles, expander, tab
and popover labels, metric labels and values, the labels and help of every widget, radio and pill options and
progress texts as GitHub-flavoured markdown with autolinks (``https://...``, ``www.``, ``a@b.c``) and its own
directives (``:red[...]``, ``:material/icon:``, emoji shortcodes ``:smile:``, ``$...$`` LaTeX). Every such
call in ``pages/``, ``app.py`` and ``rebel/ui/`` passes either a string literal or ``plain(value)``;
``tests/test_markdown_calls.py`` fails the build on anything else.

- ``plain(value)``: ``value`` as inert text. A ``Markdown`` (made by ``md`` from a literal template) is
  returned as it is; anything else is cut (long words, long texts), autolinks and directives are broken with
  an invisible word joiner (U+2060) after every ``:`` and around ``@`` that could start one, after a ``.``
  between a word and a letter (a domain label), between ``www`` and its dot and between two slashes, then
  every ASCII punctuation character that markdown reads (all but ``, ; ? % ' " ( )``, ``. +`` before a digit
  and ``-`` inside a line) is backslash-escaped and newlines become line breaks. The joiner is needed because
  Streamlit's autolink transform runs on the text *after* backslash escapes are resolved, so escaping alone
  leaves ``https\\:\\/\\/evil\\.example`` clickable.
- ``md(template, *values)``: our own markdown with values filled in: ``template`` must be a string literal
  (the AST test checks it) and every value is formatted (``{:.3f}`` works) then passed through ``plain``.
  ``Markdown`` concatenation and ``join`` keep the type and escape whatever is not ``Markdown``.

No streamlit here: view-model modules build their texts with ``md`` too.
"""

from __future__ import annotations

import re
import string

MAX_WORD = 60  # characters of one unbroken word quoted in a message; longer ones are cut
MAX_MESSAGE = 900  # characters of a whole message
JOINER = "\u2060"  # WORD JOINER: invisible, no line break; breaks the autolink and directive patterns
# Punctuation markdown gives no meaning to once "[", "]", "<" are escaped: left as typed (so are ".+" before a
# digit); "-" and ")" are escaped where they start a line (a list item, a rule, an underline, "1)").
_INERT = ",;?%'\"-()"
_PUNCT = re.compile(
    "([" + re.escape("".join(c for c in string.punctuation if c not in _INERT)) + r"])(?!(?<=[.+])\d)"
)
_LINE_START = re.compile(r"(?m)^([ \t]*(?:\d{1,9}(?=\))|(?=-[\s-]|-$)))([-)])")
_LONG_WORD = re.compile(r"\S{" + str(MAX_WORD + 1) + ",}")
# Where a joiner goes: after ":" or "@" followed by text (schemes "https:", "mailto:", directives ":red[",
# ":material/", shortcodes ":smile:", e-mail domains), before "@" (e-mail local parts), after a "." between a
# word and a label made of letters (a top-level domain: "evil.example", "evil.com"), between "www" and its dot
# and between two slashes (protocol-relative "//host").
_BREAKS = re.compile(r"(?<=[:@])(?=\S)|(?=@)|(?<=\w\.)(?=[^\W\d_])|(?<=www)(?=\.)|(?<=/)(?=/)", re.IGNORECASE)


class Markdown(str):
    """Markdown this program wrote: made only by ``md`` (from a literal template, values escaped), passed
    through ``plain`` unchanged. Adding or joining keeps the type and escapes what is not ``Markdown``."""

    __slots__ = ()

    def __add__(self, other) -> Markdown:
        return Markdown(str.__add__(self, plain(other)))

    def join(self, parts) -> Markdown:
        return Markdown(str.join(self, [plain(p) for p in parts]))


def _cut(match: re.Match) -> str:
    word = match.group(0)
    return f"{word[: MAX_WORD - 20]}…{word[-8:]} ({len(word)} characters)"


def plain(value) -> str:
    """``value`` as inert markdown (see the module docstring); a ``Markdown`` is returned unchanged."""
    if isinstance(value, Markdown):
        return value
    s = _LONG_WORD.sub(_cut, str(value))
    if len(s) > MAX_MESSAGE:
        s = s[:MAX_MESSAGE] + " … (message cut)"
    s = _BREAKS.sub(JOINER, s)
    s = _LINE_START.sub(r"\1\\\2", _PUNCT.sub(r"\\\1", s))
    return s.replace("\n", "  \n")


def visible(markdown: str) -> str:
    """What a reader sees of ``plain``'s output (escapes resolved, joiners dropped): for tests and logs."""
    return re.sub(r"\\(.)", r"\1", str(markdown)).replace("  \n", "\n").replace(JOINER, "")


class _Escaping(string.Formatter):
    def format_field(self, value, format_spec: str) -> str:
        if isinstance(value, Markdown) and not format_spec:
            return value  # our own markdown, nested
        return plain(format(value, format_spec))


_FORMATTER = _Escaping()


def md(template: str, /, *values, **named) -> Markdown:
    """Our markdown ``template`` (a string literal) with ``{}`` fields filled by ``values``/``named``, each
    formatted with its spec and then made inert by ``plain``."""
    return Markdown(_FORMATTER.vformat(template, values, named))


_JS_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def script_element(name: str, data, code=()) -> str:
    """The one way data reaches a page script: one ``<script>`` element that sets ``window[name]`` to ``data``
    as JSON (``<``, ``>`` and ``&`` written as ``\\u`` escapes, and JSON's ASCII output escapes U+2028/U+2029,
    so no value can end the element or start markup), then runs ``code``: the project's own script texts, never
    user text. ``st.html`` takes it (``tests/test_markdown_calls.py``)."""
    import json

    if not _JS_NAME.fullmatch(name):
        raise ValueError(f"name is {name!r}; give a JavaScript identifier.")
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return "<script>\n" + "\n".join([f"window.{name} = {text};", *code]) + "\n</script>"
