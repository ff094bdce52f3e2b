"""No text reaches Streamlit's markdown except a literal or ``plain(...)`` (``rebel.ui.text``), checked on the
source of ``pages/``, ``app.py`` and ``rebel/ui/``.

Every call of a Streamlit function whose text is rendered as markdown (bodies, titles, labels, help, metric
values, tab labels, radio and pill options, progress texts: ``TEXT_ARGS``) must pass each of those arguments
as a string literal, ``plain(x)`` or ``md("literal template", ...)``; an f-string, a variable, a concatenation or
any other call fails. Options rendered as markdown need ``format_func=plain`` (or a lambda returning a safe
text) unless they are literal strings. Also checked: a sink is never taken as a value (``b = st.button``), a
``getattr(st, kind)(...)`` call passes a safe text, ``md`` is only called with a literal template and
``Markdown`` is only built in ``rebel/ui/text.py``; ``st.html`` and ``unsafe_allow_html`` are refused.

Receivers are matched by method name (``col.caption``, ``where.error``, ``st.sidebar.slider``...), except the
loggers and files listed in ``NOT_STREAMLIT``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "rebel" / "ui").rglob("*.py")])
SAFE_CALLS = {"plain", "md"}  # rebel.ui.text: the escaper and the literal-template formatter
NOT_STREAMLIT = {
    "LOG",
    "log",
    "logger",
    "logging",
    "warnings",
    "sys",
    "fh",
    "handle",
    "buffer",
    "out",
    "parser",
    "ap",
}

LABEL = (0, "label", "help")
BODY = (0, "body", "help")
# method -> the positions and keywords of its markdown arguments ("*" = every positional argument).
TEXT_ARGS: dict[str, tuple] = {
    **dict.fromkeys(("markdown", "caption", "title", "header", "subheader", "latex"), BODY),
    **dict.fromkeys(("success", "info", "warning", "error", "toast"), (0, "body")),
    "write": ("*",),
    "metric": (0, 1, 2, "label", "value", "delta", "help"),
    "tabs": (0, "tabs"),
    "expander": (0, "label"),
    "popover": LABEL,
    "status": (0, "label"),
    "spinner": (0, "text"),
    "progress": (1, "text"),
    "dialog": (0, "title"),
    # st.page_link's first argument is the page; without a label it shows the page's title, st.Page's
    "page_link": ("label", "help"),
    "Page": ("title",),
    **dict.fromkeys(
        (
            "button",
            "download_button",
            "link_button",
            "form_submit_button",
            "checkbox",
            "toggle",
            "radio",
            "selectbox",
            "multiselect",
            "select_slider",
            "slider",
            "number_input",
            "text_input",
            "text_area",
            "date_input",
            "time_input",
            "color_picker",
            "file_uploader",
            "camera_input",
            "pills",
            "segmented_control",
            "feedback",
        ),
        LABEL,
    ),
}
CAPTIONS = {"radio": "captions"}
MARKDOWN_OPTIONS = {"radio", "select_slider", "pills", "segmented_control"}  # options shown as markdown
FORBIDDEN = {"html"}  # raw HTML from a non-literal is never allowed


def _name(node: ast.AST) -> str | None:
    """The called name: ``f`` for ``f(...)`` and ``x.y.f(...)``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def is_safe(node: ast.AST) -> bool:
    """A literal string (or number/None), ``plain(...)``, ``md("literal", ...)``, or a choice of those."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.IfExp):
        return is_safe(node.body) and is_safe(node.orelse)
    if isinstance(node, ast.JoinedStr):  # an f-string without fields is a literal
        return all(isinstance(v, ast.Constant) for v in node.values)
    if isinstance(node, ast.Call) and _name(node.func) in SAFE_CALLS:
        if _name(node.func) == "md":
            return (
                bool(node.args)
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            )
        return True
    return False


def _is_safe_list(node: ast.AST) -> bool:
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(is_safe(e) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return is_safe(node.elt)
    return is_safe(node)


def _is_safe_formatter(node: ast.AST) -> bool:
    if _name(node) in SAFE_CALLS and isinstance(node, (ast.Name, ast.Attribute)):
        return True
    return isinstance(node, ast.Lambda) and is_safe(node.body)


def _text_args(call: ast.Call, spec: tuple):
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    for where in spec:
        if where == "*":
            yield from call.args
        elif isinstance(where, int):
            if where < len(call.args):
                yield call.args[where]
        elif where in kw:
            yield kw[where]


def static_names(tree: ast.Module) -> set:
    """Module-level names bound to fixed text: literals, f-strings and ``+`` of literals and such names (a
    style sheet or script written in the source). Nothing a user gives can reach them."""
    names: set = set()

    def static(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.JoinedStr):
            return all(
                isinstance(v, ast.Constant) or (isinstance(v, ast.FormattedValue) and static(v.value))
                for v in node.values
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return static(node.left) and static(node.right)
        return False

    for stmt in tree.body:
        named = isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)
        if named and static(stmt.value):
            names.update(t.id for t in stmt.targets)
    return names


def _is_fixed(node: ast.AST, fixed: set) -> bool:
    """A literal, a module-level name of fixed text, or a choice of those (what ``st.html`` may take)."""
    if isinstance(node, ast.IfExp):
        return _is_fixed(node.body, fixed) and _is_fixed(node.orelse, fixed)
    if isinstance(node, ast.Name):
        return node.id in fixed
    return is_safe(node) and not isinstance(node, ast.Call)


def _is_script(node: ast.AST) -> bool:
    """``script_element(...)`` (``rebel.ui.text``): data as escaped JSON in a script element, the only HTML
    built from values that ``st.html`` may take."""
    return isinstance(node, ast.Call) and _name(node.func) == "script_element"


def problems(source: str, path: str = "<source>") -> list[str]:
    """Every markdown call of ``source`` that could carry unescaped text."""
    tree = ast.parse(source)
    fixed = static_names(tree)
    out = []
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}

    def flag(node: ast.AST, why: str) -> None:
        out.append(f"{path}:{node.lineno}: {why}: {ast.unparse(node)[:120]}")

    for node in ast.walk(tree):
        taken = isinstance(node, ast.Attribute) and id(node) not in called and isinstance(node.ctx, ast.Load)
        if taken and node.attr in TEXT_ARGS and _root(node) == "st":
            flag(node, "a markdown function taken as a value (call it directly)")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        for k in node.keywords:
            if k.arg == "unsafe_allow_html":
                flag(node, "unsafe_allow_html")
        if _name(func) == "md" and not is_safe(node):
            flag(node, "md() needs a literal template")
        if _name(func) == "Markdown" and not path.endswith("rebel/ui/text.py"):
            flag(node, "Markdown() built outside rebel/ui/text.py (use md)")
        if isinstance(func, ast.Call) and _name(func.func) == "getattr":  # getattr(st, kind)(text)
            if node.args and not is_safe(node.args[0]):
                flag(node, "dynamic call with unescaped text")
            continue
        if not isinstance(func, ast.Attribute) or _root(func) in NOT_STREAMLIT:
            continue
        method = func.attr
        if method in FORBIDDEN and not all(_is_fixed(a, fixed) or _is_script(a) for a in node.args):
            flag(node, f"st.{method} with a non-literal")
        if method.endswith("Column") and _root(func) == "st":
            spec: tuple | None = LABEL
        else:
            spec = TEXT_ARGS.get(method)
        if spec is None:
            continue
        for arg in _text_args(node, spec):
            ok = _is_safe_list(arg) if method == "tabs" else is_safe(arg)
            if not ok:
                flag(arg, f".{method}() text is not a literal or plain(...)")
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if method in CAPTIONS and CAPTIONS[method] in kw and not _is_safe_list(kw[CAPTIONS[method]]):
            flag(kw[CAPTIONS[method]], f".{method}() captions are not literals or plain(...)")
        if method in MARKDOWN_OPTIONS:
            options = kw.get("options", node.args[1] if len(node.args) > 1 else None)
            if "format_func" in kw:
                if not _is_safe_formatter(kw["format_func"]):
                    flag(
                        kw["format_func"],
                        f".{method}() options are markdown: format_func must return plain(...)",
                    )
            elif options is not None and not (
                isinstance(options, (ast.List, ast.Tuple))
                and all(isinstance(e, ast.Constant) for e in options.elts)
            ):
                flag(options, f".{method}() options are markdown: pass format_func=plain")
    return out


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_markdown_calls_take_literals_or_plain(path: Path):
    found = problems(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, (
        "Text reaching markdown unescaped (wrap it in plain(...) or use md(...)):\n" + "\n".join(found)
    )


def test_the_scan_covers_the_app():
    names = {str(p.relative_to(ROOT)) for p in FILES}
    assert "app.py" in names and "rebel/ui/components.py" in names
    assert sum(n.startswith("pages/") for n in names) >= 9


BAD = [
    'st.success(f"No {cls} prediction")',
    'st.caption("Sweeping " + pred)',
    "st.caption(text)",
    "col.markdown(build(x))",
    'st.info(f"{a}")',
    "st.metric('Cost', value)",
    "st.metric(label, 3)",
    "st.tabs([name, 'b'])",
    "st.tabs(names)",
    "st.expander(title)",
    'st.button(label, help="h")',
    'st.slider("x", 0, 1, help=p.help)',
    "st.radio('Source', options)",
    "st.radio('Source', ['a'], format_func=labels.get)",
    "st.radio('Source', ['a'], captions=caps)",
    "st.segmented_control('m', opts, format_func=lambda m: m.replace('_', ' '))",
    "bar.progress(0.5, text=label)",
    "st.spinner(msg)",
    "getattr(where or st, kind)(message)",
    "b = st.form_submit_button if form else st.button",
    "st.markdown(x, unsafe_allow_html=True)",
    "st.html(page)",
    "CSS = make_css()\nst.html(CSS)",
    "CSS = '<style>' + user\nst.html(CSS)",
    "st.html(side.CSS)",
    "md(template, x)",
    "md(f'{x}')",
    "Markdown(x)",
    "st.column_config.TextColumn(name)",
    "st.write('a', x)",
    "st.metric('Bayes', 'n/a' if b is None else f'{b:.3f}')",
    "st.toast(body=msg)",
    "st.html(script[1], unsafe_allow_javascript=True)",
    "st.sidebar.selectbox(label, [1])",
]
GOOD = [
    "TOP = '1rem'\nCSS = '<style>' + f'a {{h: {TOP}}}' + '</style>'\nst.html(CSS)",
    "A = 'x'\nB = A + 'y'\nst.html(B if p else A)",
    "st.success('No prediction')",
    "st.caption(plain(text))",
    "st.caption(ui.plain(problem_caption(p)))",
    "st.caption(md('**{}** rounds', n))",
    "st.metric('Cost', plain(f'{v:.3f}'))",
    "st.tabs(['a', 'b'])",
    "st.tabs([plain(n) for n in names])",
    "st.radio('Source', options, format_func=plain)",
    "st.radio('Source', options, format_func=lambda s: plain(LABELS[s]))",
    "st.radio('Part', ['test', 'train'])",
    "st.selectbox('Class', names, format_func=names.__getitem__)",  # selectbox options are plain text
    "getattr(where or st, kind)(plain(message))",
    "LOG.info('%s', x)",
    "logging.warning(msg)",
    "panel.title",
    "name.title()",
    "st.dataframe(table)",
    "bar.progress(i / n, text=plain(label))",
    "st.metric('Bayes', 'n/a' if b is None else md('{:.3f}', b))",
    "st.html(script_element('__data', payload, [code]), unsafe_allow_javascript=True)",
]


def test_script_element_data_cannot_end_the_element_or_start_markup():
    from rebel.ui.text import script_element

    hostile = {"name": "</script><img src=x onerror=alert(1)>&amp;\u2028", "n": [1.5, None]}
    html = script_element("__data", hostile, ["run();"])
    body = html[len("<script>") : -len("</script>")]
    assert "<" not in body and ">" not in body and "&" not in body
    assert html.endswith("\nrun();\n</script>")
    import json

    assert json.loads(body.split(" = ", 1)[1].split(";\n", 1)[0]) == hostile
    with pytest.raises(ValueError, match="JavaScript identifier"):
        script_element("a;alert(1)", {})


@pytest.mark.parametrize("source", BAD)
def test_the_check_catches(source):
    assert problems(source), f"not caught: {source}"


@pytest.mark.parametrize("source", GOOD)
def test_the_check_allows(source):
    assert not problems(source), problems(source)
