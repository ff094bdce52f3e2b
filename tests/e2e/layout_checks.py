"""What a screen of the Playground must not do, measured in the browser: a text of the regions plot (the numbers,
the verdict, the legend, tick labels, axis titles, the strip's key, the round control) reaching past the plot's
box or the viewport's right edge, two of them overlapping, the numbers' headline overlapping the lesson bar above
the plot, the chart's toolbar (plotly's modebar) over a text of the plot, a class name in the cost grid split inside
a word ("harml ess"), an entry box or button of the costs' column cutting its text ("defect → o", "Cost …"), or the
cost strip's plotting area too short to read its curves in."""

from __future__ import annotations

PLOT = ".st-key-pg_plot .js-plotly-plot"

# Every visible text element of the regions plot (SVG ``text``; hidden ones, such as the slider's transparent
# step labels, left out) with its box, the plot's box and the viewport's width.
_PLOT_TEXTS = """sel => {
  const gd = document.querySelector(sel);
  if (!gd) return null;
  const r = e => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, width: b.width, height: b.height}; };
  const shown = e => {
    for (let a = e; a && a !== gd; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false;
    }
    const s = getComputedStyle(e);
    return parseFloat(s.fillOpacity) > 0 && !/rgba\\([^)]*,\\s*0\\)/.test(s.fill);
  };
  const texts = [...gd.querySelectorAll('svg text')]
    .filter(e => e.textContent.trim() && shown(e))
    .map(e => ({text: e.textContent.trim(), cls: e.getAttribute('class') || e.parentElement.getAttribute('class'),
                box: r(e)}))
    .filter(t => t.box.width > 0 && t.box.height > 0);
  return {plot: r(gd), viewport: window.innerWidth, texts};
}"""

# The words of the cost grid's class names (its captions: the header row and the rows' names), each with the
# boxes its characters take (``Range.getClientRects``: a word split across two lines has two), and the header
# row's words with their column.
_COST_WORDS = """() => {
  const editor = document.querySelector('.st-key-cost_editor');
  if (!editor) return null;
  const words = [];
  for (const cap of editor.querySelectorAll('[data-testid="stCaptionContainer"]')) {
    const walker = document.createTreeWalker(cap, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter(b => b.width > 0.5 && b.height > 0.5)
          .map(b => ({x: b.x, y: b.y, width: b.width, height: b.height}));
        words.push({word: m[0], rects});
      }
    }
  }
  const b = editor.getBoundingClientRect();
  return {editor: {x: b.x, y: b.y, width: b.width, height: b.height}, words};
}"""


def overlap(a: dict, b: dict, tol: float = 1.0) -> bool:
    return (
        a["x"] < b["x"] + b["width"] - tol
        and b["x"] < a["x"] + a["width"] - tol
        and a["y"] < b["y"] + b["height"] - tol
        and b["y"] < a["y"] + a["height"] - tol
    )


def inside(inner: dict, outer: dict, tol: float = 0.5) -> bool:
    return (
        inner["x"] >= outer["x"] - tol
        and inner["y"] >= outer["y"] - tol
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + tol
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + tol
    )


# The regions chart drawn for its box: at the box's width and, in presentation mode, in the layout the box's shape
# asks for (the narrow projector layout, its verdict in the numbers above the regions, when the box is narrower
# than ``NARROW_RATIO`` times its height; else the verdict beside them). After the sidebar opens or folds, the
# server draws the figure again for the new box; until then the old figure is stretched to it.
_FITS_BOX = """([sel, ratio]) => {
  const gd = document.querySelector(sel), box = document.querySelector('.st-key-pg_plot');
  if (!gd || !box || !gd._fullLayout || !gd.querySelector('.slider-container')) return false;
  const b = box.getBoundingClientRect();
  if (Math.abs(gd._fullLayout.width - b.width) > 1.5) return false;
  const tick = gd.querySelector('.xtick text');
  if (!tick || parseFloat(getComputedStyle(tick).fontSize) < 20) return true;  // not presentation mode
  const head = [...gd.querySelectorAll('.textpoint text')].find(e => e.textContent.includes('test cost per point'));
  return !!head && head.textContent.includes('costs ignored') === (b.width < ratio * b.height);
}"""


def wait_plot_fits_box(page, timeout: int = 90_000) -> None:
    """Wait until the regions chart is drawn for its box (``_FITS_BOX``), then for the page to be idle."""
    from benchmarks import bench_browser as bb
    from rebel.ui.figures.replay_numbers import NARROW_RATIO

    page.wait_for_function(_FITS_BOX, arg=[PLOT, NARROW_RATIO], timeout=timeout)
    bb._settle(page)


def plot_text_problems(page) -> list[str]:
    """Texts of the regions plot out of the plot's box or past the viewport's right edge, and pairs of them that
    overlap; and the numbers' headline overlapping the lesson bar (when a lesson scene is open)."""
    found = page.evaluate(_PLOT_TEXTS, PLOT)
    assert found and found["texts"], "the regions plot has no text"
    plot, right, texts = found["plot"], found["viewport"], found["texts"]
    problems = []
    for t in texts:
        b = t["box"]
        if not inside(b, plot):
            problems.append(f"{t['text']!r} ({t['cls']}) {_px(b)} leaves the plot {_px(plot)}")
        if b["x"] + b["width"] > right + 0.5:
            problems.append(f"{t['text']!r} reaches past the viewport's right edge ({right} px)")
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            if overlap(a["box"], b["box"]):
                problems.append(f"{a['text']!r} {_px(a['box'])} overlaps {b['text']!r} {_px(b['box'])}")
    headline = next((t for t in texts if "test cost per point" in t["text"]), None)
    assert headline is not None, "the numbers' headline is missing"
    bar = page.locator(".st-key-lesson_bar")
    if bar.count():
        box = bar.first.bounding_box()
        if box and overlap(headline["box"], box):
            problems.append(f"the headline {_px(headline['box'])} overlaps the lesson bar {_px(box)}")
    return problems


def cost_name_problems(page) -> list[str]:
    """Class names of the cost grid split inside a word (a word whose characters take more than one line box) or
    reaching out of the cost editor, and header words of two columns overlapping."""
    found = page.evaluate(_COST_WORDS)
    if not found:
        return ["no cost editor"]
    problems = []
    for w in found["words"]:
        rects = w["rects"]
        if len(rects) > 1:
            problems.append(f"{w['word']!r} is split across {len(rects)} lines: {[_px(r) for r in rects]}")
        for r in rects:
            if r["x"] < found["editor"]["x"] - 0.5 or r["x"] + r["width"] > _right(found["editor"]) + 0.5:
                problems.append(f"{w['word']!r} {_px(r)} leaves the cost editor {_px(found['editor'])}")
    flat = [(w["word"], r) for w in found["words"] for r in w["rects"]]
    for i, (a, ra) in enumerate(flat):
        for b, rb in flat[i + 1 :]:
            if overlap(ra, rb):
                problems.append(f"cost names {a!r} {_px(ra)} and {b!r} {_px(rb)} overlap")
    return problems


# The cost strip's key (its texts with the lines' glyph "━") and the strip's plotting area (its drag rectangle).
_STRIP_KEY = """sel => {
  const gd = document.querySelector(sel);
  if (!gd) return null;
  const r = e => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, width: b.width, height: b.height}; };
  const area = gd.querySelector('.draglayer .x3y3 > .nsewdrag');
  const keys = [...gd.querySelectorAll('svg text')].filter(e => e.textContent.includes('\u2501'))
    .map(e => ({text: e.textContent.trim(), box: r(e)})).filter(k => k.box.width > 0 && k.box.height > 0);
  return {area: area ? r(area) : null, keys};
}"""


def strip_key_problems(page, required: bool = True) -> list[str]:
    """The cost strip's key lying over the strip's plotting area (where its curves run), or (``required``)
    missing."""
    found = page.evaluate(_STRIP_KEY, PLOT)
    if not found or found["area"] is None:
        return ["the regions plot has no cost strip"]
    problems = [] if found["keys"] or not required else ["the cost strip has no key"]
    for k in found["keys"]:
        if overlap(k["box"], found["area"], tol=0.0):
            problems.append(
                f"the strip's key {k['text']!r} {_px(k['box'])} lies over its curves {_px(found['area'])}"
            )
    return problems


# The cost strip's plotting area (its drag rectangle: where its curves run), as the browser lays it out.
_STRIP_AREA = """sel => {
  const gd = document.querySelector(sel);
  const area = gd && gd.querySelector('.draglayer .x3y3 > .nsewdrag');
  if (!area) return null;
  const b = area.getBoundingClientRect();
  return {x: b.x, y: b.y, width: b.width, height: b.height};
}"""
STRIP_MIN_PX = 80  # px: the presentation strip's plotting height a room can read its two curves in


def strip_height_problems(page, min_px: float = STRIP_MIN_PX) -> list[str]:
    """The cost strip's plotting area shorter than ``min_px`` (its curves squeezed flat), or no strip."""
    area = page.evaluate(_STRIP_AREA, PLOT)
    if area is None:
        return ["the regions plot has no cost strip"]
    if area["height"] < min_px:
        return [
            f"the cost strip's plotting area {_px(area)} is {area['height']:.0f} px high (under {min_px} px)"
        ]
    return []


# The read-only cost table (many classes): its plotting area, its cells' numbers and its row and column names,
# each with its box and computed font size.
_COST_TABLE = """() => {
  const gd = document.querySelector('.st-key-cost_editor .js-plotly-plot');
  if (!gd) return null;
  const r = e => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, width: b.width, height: b.height}; };
  const item = e => ({text: e.textContent.trim(), box: r(e), px: parseFloat(getComputedStyle(e).fontSize)});
  const area = gd.querySelector('.draglayer .xy > .nsewdrag');
  const ticks = new Set(gd.querySelectorAll('.xtick text, .ytick text'));
  const numbers = [...gd.querySelectorAll('.cartesianlayer text')].filter(e => !ticks.has(e) && e.textContent.trim());
  return {area: area ? r(area) : null, editor: r(document.querySelector('.st-key-cost_editor')),
          numbers: numbers.map(item), columns: [...gd.querySelectorAll('.xtick text')].map(item),
          rows: [...gd.querySelectorAll('.ytick text')].map(item)};
}"""


def _glyphs(label: dict) -> dict:
    """A label's glyphs: its text box cut to the font's size in height, around its middle."""
    b, px = label["box"], label["px"]
    top = b["y"] + b["height"] / 2 - min(px, b["height"]) / 2
    return {"x": b["x"], "y": top, "width": b["width"], "height": min(px, b["height"])}


def cost_table_problems(page, min_font: float, numbers: bool = True) -> list[str]:
    """What makes the read-only cost table hard to read: a cost wider than its cell (or reaching into the next),
    column or row names overlapping each other (their glyphs: a box of the font's size around each label's
    middle, as presentation mode's rows of 20 px names 25 px apart read clear; a label's text box also holds the
    font's line gap) or leaving the cost editor, a column named by a number instead of its class, and any shown
    text under ``min_font`` px. ``numbers``: whether the costs must be written in (presentation mode hides them
    where they would not fit: ``cost_table.numbers_fit_px``)."""
    found = page.evaluate(_COST_TABLE)
    if found:  # costs hidden by the page have no box
        found["numbers"] = [n for n in found["numbers"] if n["box"]["width"] > 0]
    if not found or not found["area"] or (numbers and not found["numbers"]):
        return ["no cost table" + (" with its costs written in" if numbers else "")]
    area, K = found["area"], len(found["rows"])
    cell = area["width"] / max(K, 1)
    problems = []
    for n in found["numbers"]:
        b = n["box"]
        j = int((b["x"] + b["width"] / 2 - area["x"]) // cell)
        left, right = area["x"] + j * cell, area["x"] + (j + 1) * cell
        if b["x"] < left + 0.5 or _right(b) > right - 0.5:
            problems.append(f"cost {n['text']!r} {_px(b)} does not fit its cell [{left:.0f}..{right:.0f}]")
    for kind in ("columns", "rows"):
        labels = found[kind]
        for i, a in enumerate(labels):
            if not inside(a["box"], found["editor"]):
                problems.append(f"{kind[:-1]} name {a['text']!r} {_px(a['box'])} leaves the cost editor")
            for b in labels[i + 1 :]:
                if overlap(_glyphs(a), _glyphs(b)):
                    problems.append(f"{kind[:-1]} names {a['text']!r} and {b['text']!r} overlap")
    problems += [
        f"column named {c['text']!r}, not by its class" for c in found["columns"] if c["text"].isdigit()
    ]
    for kind in ("numbers", "columns", "rows"):
        small = min((t["px"] for t in found[kind]), default=None)
        if small is not None and small < min_font:
            problems.append(f"the table's {kind} are {small:g} px (under {min_font:g} px)")
    return problems


# Plotly's toolbar (modebar) of the regions chart: its buttons' boxes (laid out while hidden too: it shows on hover).
_MODEBAR = """sel => {
  const gd = document.querySelector(sel);
  if (!gd) return null;
  return [...gd.querySelectorAll('.modebar-btn')].map(e => {
    const b = e.getBoundingClientRect();
    return {name: e.getAttribute('data-title') || '', box: {x: b.x, y: b.y, width: b.width, height: b.height}};
  }).filter(b => b.box.width > 0 && b.box.height > 0);
}"""


def modebar_problems(page) -> list[str]:
    """Buttons of the regions chart's toolbar (plotly's modebar, top right, shown on hover) lying over a text of
    the plot (the heading "REBEL's minimum-risk class", the numbers, the legend)."""
    buttons = page.evaluate(_MODEBAR, PLOT)
    if buttons is None:
        return ["no regions plot"]
    texts = page.evaluate(_PLOT_TEXTS, PLOT)["texts"]
    return [
        f"the toolbar's {b['name']!r} button {_px(b['box'])} lies over {t['text']!r} {_px(t['box'])}"
        for b in buttons
        for t in texts
        if overlap(b["box"], t["box"])
    ]


# The costs' column's controls that show one line of text in a box: the entry boxes' values (the log control's
# "harmless → liquid", the many-class editor's truth and prediction) and the buttons' labels ("Cost presets"),
# with the width their text needs and the width shown; a label cut with an ellipsis shows less than it needs.
_CONTROL_TEXTS = """() => {
  const col = document.querySelector("[data-testid='stColumn']:has(.st-key-cost_editor)");
  if (!col) return null;
  const shown = e => e.getBoundingClientRect().width > 0;
  const inputs = [...col.querySelectorAll("[data-testid='stSelectbox'] input")].filter(shown)
    .map(e => ({text: e.value, need: e.scrollWidth, has: e.clientWidth}));
  const labels = [...col.querySelectorAll('button [data-testid="stMarkdownContainer"]')].filter(shown)
    .map(e => ({text: e.textContent.trim(), need: e.scrollWidth, has: e.clientWidth}));
  return [...inputs, ...labels];
}"""


def control_text_problems(page) -> list[str]:
    """Entry boxes and buttons of the costs' column whose text is cut ("defect → o", "Cost …")."""
    found = page.evaluate(_CONTROL_TEXTS)
    if found is None:
        return ["no costs' column"]
    return [
        f"{c['text']!r} needs {c['need']} px and shows {c['has']} px (cut)"
        for c in found
        if c["need"] > c["has"] + 1
    ]


def assert_screen_is_clean(page, when: str) -> None:
    """No clipped or overlapping plot text, no headline over the lesson bar, no class name split inside a word,
    no toolbar button over a text of the plot, no cut text in the costs' entry boxes and buttons."""
    wait_plot_fits_box(page)
    problems = plot_text_problems(page) + cost_name_problems(page)
    problems += modebar_problems(page) + control_text_problems(page)
    assert not problems, f"{when}:\n  " + "\n  ".join(problems)


def _right(b: dict) -> float:
    return b["x"] + b["width"]


def _px(b: dict) -> str:
    return f"[{b['x']:.0f}..{_right(b):.0f} x {b['y']:.0f}..{b['y'] + b['height']:.0f}]"


# Presentation mode's cost table: its box's width (the width its container query reads), how many costs are shown
# and written in all, and the colour (computed fill) of each column's square and each row's square.
_PRESENT_TABLE = """() => {
  const box = document.querySelector('[class*="st-key-w_costs_table_box"]');
  const gd = box && box.querySelector('.js-plotly-plot');
  if (!gd) return null;
  const ticks = new Set(gd.querySelectorAll('.xtick text, .ytick text'));
  const costs = [...gd.querySelectorAll('.cartesianlayer text')].filter(e => !ticks.has(e) && e.textContent.trim());
  const fill = e => { const t = e.querySelector('tspan'); return t ? getComputedStyle(t).fill : null; };
  return {width: box.clientWidth, costs: costs.length,
          shown: costs.filter(e => e.getBoundingClientRect().width > 0).length,
          columns: [...gd.querySelectorAll('.xtick text')].map(fill),
          rows: [...gd.querySelectorAll('.ytick text')].map(e => [e.textContent, fill(e)])};
}"""


def present_table_problems(page, cost_matrix, classes, colors) -> list[str]:
    """What presentation mode's cost table gets wrong: a column's or row's square not in its class's colour
    (``colors``, hex, in the order of ``classes``), a row not named by its class, and its costs shown in a box
    narrower than ``cost_table.numbers_fit_px`` (where a cost at 20 px spills out of its cell) or hidden in a box
    that holds them (from the page's step at or above that width, ``screen.costs_fit_step``)."""
    from rebel.ui.figures import cost_table as ct
    from rebel.ui.playground import screen

    found = page.evaluate(_PRESENT_TABLE)
    if not found:
        return ["no presentation cost table"]
    rgb = [f"rgb({int(c[1:3], 16)}, {int(c[3:5], 16)}, {int(c[5:7], 16)})" for c in colors]
    problems = []
    if found["columns"] != rgb:
        problems.append(f"the columns' squares {found['columns']} are not the classes' colours {rgb}")
    rows = [text for text, _ in found["rows"]]
    if [fill for _, fill in found["rows"]] != rgb:
        problems.append(f"the rows' squares {found['rows']} are not the classes' colours {rgb}")
    chars = ct.present_name_chars(len(classes))
    named = [f"{ct.SWATCH} " + (c if len(c) <= chars else c[: chars - 1] + "…") for c in classes]
    if rows != named:
        problems.append(f"the rows read {rows}, not {named}")
    fit = ct.numbers_fit_px(cost_matrix, classes)
    step = screen.costs_fit_step(fit)  # (the page's style sheet for the step at or above it)
    want = found["costs"] if step is not None and found["width"] >= step else 0
    if found["costs"] != len(classes) ** 2 or found["shown"] != want:
        problems.append(
            f"{found['shown']} of {found['costs']} costs shown in a box {found['width']} px wide (they fit from"
            f" {fit} px, shown from {step} px: {want} should show)"
        )
    return problems


# every text of the costs' column on the first screen (elements with text of their own, and the inputs' values)
# under ``min`` px: [text, px] pairs
SMALL_COSTS_TEXTS = """min => { const col = document.querySelector('.st-key-cost_editor')?.closest("[data-testid='stColumn']");
  if (!col) return [['(no costs column)', 0]];
  const out = [];
  for (const e of col.querySelectorAll('*')) {
    const own = e.tagName === 'INPUT' ? e.value : [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!own.trim() || r.width <= 0 || r.height <= 0 || r.top >= innerHeight || cs.visibility === 'hidden') continue;
    if (/Material/.test(cs.fontFamily)) continue;  // an icon's ligature, not text
    const px = parseFloat(cs.fontSize);
    if (px < min) out.push([own.trim().slice(0, 40), px]);
  }
  return out; }"""


def wait_projector_ticks(page, px: float = 17, timeout: int = 60_000) -> None:
    """Wait until the regions plot's x ticks are at least ``px`` high: the chart drawn in presentation mode's large
    type (17 px and more at 1280x720; 20 px in a lesson scene)."""
    page.wait_for_function(
        "px => { const t = document.querySelector('.st-key-pg_plot .xtick text');"
        " return !!t && parseFloat(getComputedStyle(t).fontSize) >= px; }",
        arg=px,
        timeout=timeout,
    )
