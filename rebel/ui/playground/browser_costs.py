"""Cost edits computed in the browser: the Playground's side of ``rebel/ui/browser/playground_costs.js``.

On the paper engine with no overlay on the regions plot, a cost edit does not need the server: the 0-1 model, the
two-step method's and the Bayes rule's posteriors depend only on the data, and REBEL retrains in a Web Worker in
milliseconds at the Playground's sizes. The server sends once per dataset and settings (``scene_payload``, sent
again only when the chart's model changes) what the page needs: the training points and settings (the browser
engine's problem), the test points, the grid, the 0-1 model's posteriors on the test points after every round, the
known mixture's posteriors there, the 0-1 model's most likely classes (the "costs ignored" number) and the browser
engine's text. The page's script retrains on Enter in a cost cell, repaints the chart and writes the new matrix into
a hidden text box (``INPUT``); its callback stores the costs (links, session files, other pages) and notes that the
browser drew them (``PAINTED``) and acknowledges the edit (``ACK``: the page sends an edit again until a run
acknowledges it; ``_acknowledge`` stores each edit once). Then only the message tray's verdict reruns (``verdict``,
a fragment of its own, ``TAIL``): it makes the costs' pair current and writes the link, and nothing else is run or
sent (no figure, no payload); with many classes, the one-entry editor's table of every cost reruns too (a fragment of
its own, ``components.table_fragment``). When something else on the page shows the costs (``_rest_of_page``: a
detail view, a lesson scene, the calibrated two-step, a cost warning, the preset's story note, the log control's
entry), the main area reruns instead and keeps the chart as it is: the figure is
made from the pair it was first drawn from (``figure_pair``), which Streamlit's chart does not draw again. The
edited cell keeps its text in the browser (the page stops its commit on leaving it, which would rerun the main area
for a value already stored); its session value is brought up to date by the editor's next run.

Everything else keeps the server's path: a variant engine, an overlay (boosting weights, two-step or Bayes
boundaries, disagreement, a dragged box), too many posteriors to send, classes shown in the user's order, the narrow
projector layout (sidebar open), ``REBEL_BROWSER_COSTS=0`` in the server's environment, and a session whose browser
failed to retrain (the page says so once, ``tell``). With "Replay after retraining" on (presentation mode's default)
the page plays the replay from t = 0 after painting an edit, as the server's new figure plays itself (``REPLAY``:
the page's copy of that switch).

The run that follows a computed edit trains nothing (``pair_for``): its pair is a ``deferred.DeferredPair`` with the
page's test costs for the message tray, trained only when something asks for more (a detail view, a lesson's checks,
an overlay or a server-path edit).
"""

from __future__ import annotations

import base64
import json
import os
import re
import warnings

import numpy as np
import streamlit as st

from rebel.ui import components as ui
from rebel.ui.browser.engine import HERE, MAX_POINTS, engine_source, problem_payload
from rebel.ui.browser.scene import MAX_STAGED_NUMBERS
from rebel.ui.config import APP_MAX_COST, dataset_key
from rebel.ui.figures.palette import region_rgb
from rebel.ui.figures.style import esc
from rebel.ui.playground import present
from rebel.ui.playground.order import InOrder
from rebel.ui.text import script_element

INPUT = "pg_browser_costs"  # the hidden text box the page writes a computed edit into
BOX = "pg_browser_box"  # its hidden container (with the payload's script)
HIDE_BOX = f"<style>div.st-key-{BOX} {{display: none !important;}}</style>"
BASE = "_browser_base"  # the pair the chart on the page was drawn from
PAINTED = "_browser_painted"  # (that pair's key, the costs' bytes, their test costs) the browser drew on it
SENT = "_browser_sent"  # what the page holds (a scene's key, or why the browser path is off)
SCRIPT = "_browser_script"  # (what it sends, the payload, the scripts after it): made once per scene
FAILED = "_browser_failed"  # why this session's browser could not retrain (then the server path, for good)
TOLD = "_browser_told"  # the last reason the page was told
REPLAY = (
    "__rebelPgReplay"  # the page's copy of "Replay after retraining" (true: play a computed edit from t = 0)
)
ENV = "REBEL_BROWSER_COSTS"  # "0": every cost edit on the server
TAIL = "pg_verdict"  # the key of the tray's verdict fragment (a computed edit reruns it alone)
QUIET = "_browser_quiet"  # the costs a computed edit stored for the verdict's run alone (``verdict``)
ACK = "_browser_ack"  # {"page", "n"}: the last computed edit stored, as the page numbered it (``ack``)
ACK_NAME = "__rebelPgAck"  # the page's copy of it
ACK_BOX = "pg_browser_ack"  # its hidden container in the verdict's fragment
HIDE_ACK = f"<style>div.st-key-{ACK_BOX} {{display: none !important;}}</style>"
PAGE_ID = re.compile(r"[0-9a-z]{1,16}")  # a page's id (playground_costs.js: ``P.page``)
SCRIPTS = [HERE / "scene_core.js", HERE / "chart_in_place.js", HERE / "playground_costs.js"]
VARIANT = (
    "Cost edits run on the server with a variant engine: the browser computes them for the paper engine only."
)


def why_not(engine: str, pair, show: dict, narrow: bool = False) -> str | None:
    """Why a cost edit of this view goes to the server (None: the browser computes it). ``show``: the view
    toggles (``widgets.view_toggles``); ``narrow``: the narrow projector layout (its numbers are laid out by the
    server only)."""
    if os.environ.get(ENV, "1") == "0":
        return "off"
    if st.session_state.get(FAILED):
        return st.session_state[FAILED]
    if engine != "paper":
        return VARIANT
    if isinstance(pair, InOrder):  # classes shown in the user's order: the server renumbers them
        return "class order"
    if narrow:
        return "narrow layout"
    if any(show.get(k) for k in ("weights", "two", "dis", "bayes", "box")):
        return "overlay"  # the overlays follow the costs too: drawn by the server
    ds = pair.dataset
    K, n_test = len(ds.classes), ds.X_test.shape[0]
    if (pair.n_rounds + 1) * n_test * K > MAX_STAGED_NUMBERS or ds.X_train.shape[0] > MAX_POINTS:
        return "size"
    return None


def figure_pair(pair, reason: str | None):
    """The pair to draw the regions figure from: the one the chart was drawn from when the browser has drawn
    ``pair``'s costs on it (the same figure again: Streamlit's chart keeps what the browser painted), else
    ``pair`` (which becomes the chart's)."""
    ss = st.session_state
    tell(reason)
    base, painted = ss.get(BASE), ss.get(PAINTED)
    if (
        reason is None
        and base is not None
        and painted is not None
        and painted[:2] == (base.key, np.asarray(pair.cost_matrix, dtype=np.float64).tobytes())
        and _same_scene(base, pair)
    ):
        return base
    ss[BASE] = pair
    ss.pop(PAINTED, None)
    return pair


def pair_for(dataset, cost_matrix, hyper: dict, cache, engine: dict):
    """The pair of these costs for this run: untrained (``deferred.DeferredPair``, trained when something asks)
    when the browser has drawn exactly them on the chart's pair of this data, else ``train_pair``'s."""
    from rebel.ui.playground import deferred

    ss = st.session_state
    base, painted = ss.get(BASE), ss.get(PAINTED)
    C = np.asarray(cost_matrix, dtype=np.float64)
    known = None
    if base is not None and painted is not None and painted[:2] == (base.key, C.tobytes()):
        same_data = base.dataset is dataset or dataset_key(base.dataset) == dataset_key(dataset)
        known = painted[2] if same_data else None
    return deferred.deferred_or_trained(dataset, C, hyper, cache, engine, base, known)


FIGURE = "_browser_figure"  # (what the last regions figure was made of, the figure)


def kept_figure(made_of: tuple, make):
    """The regions figure ``make()`` returns for ``made_of`` (its pair first, then everything else it is made of),
    or the session's last one when it was made of the same (the same pair object): a run that keeps the chart,
    such as the one after a computed cost edit, builds no figure (~50-70 ms of the server's CPU on airport)."""
    ss = st.session_state
    kept = ss.get(FIGURE)
    if kept is not None and kept[0][0] is made_of[0] and kept[0][1:] == made_of[1:]:
        return kept[1]
    from rebel.ui.work_slots import heavy_work

    with heavy_work("a regions figure"):  # its per-round numbers and frames: one per core at once
        fig = make()
    ss[FIGURE] = (made_of, fig)
    return fig


def _same_scene(a, b) -> bool:
    """Whether two pairs differ at most by their costs: the same data, settings and grid."""
    same_data = a.dataset is b.dataset or dataset_key(a.dataset) == dataset_key(b.dataset)
    return same_data and a.hyper == b.hyper and a.grid.shape == b.grid.shape


def mark(fig, pair, reason: str | None) -> None:
    """Name the chart's scene in its ``layout.meta`` when the browser computes its cost edits (``reason`` None):
    the page's script paints only a chart of its scene."""
    if reason is not None:
        return
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    meta["browser_scene"] = pair.key
    fig.layout.meta = meta


def _b64(values, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def scene_payload(
    pair, projector: bool, title: str, costs_key: str, tie: float, calibrated: bool = False
) -> dict:
    """What the page needs to compute a cost edit of ``pair``'s chart (JSON-able; floats the page decides on as
    base64 of float64 bytes); ``calibrated``: the calibrated two-step's test posteriors too (its cost is in the
    numbers line)."""
    from rebel.ui.playground import calibrated as cal

    ds = pair.dataset
    X_test = ds.X_test
    posteriors = pair.posteriors_kept(X_test) if X_test.shape[0] else []
    bayes = pair.bayes_test_posteriors if pair.has_bayes and X_test.shape[0] else None
    return {
        "key": pair.key,
        "costsKey": costs_key,
        "input": INPUT,
        "problem": problem_payload(ds.X_train, pair.y_train_idx, pair.cost_matrix, pair.hyper),
        "testX": X_test.ravel().tolist(),
        "testY": np.asarray(pair.y_test_idx).tolist(),
        "grid": {"xs": pair.grid.xs.tolist(), "ys": pair.grid.ys.tolist()},
        "twoStep": [_b64(P, "<f8") for P in posteriors],
        "bayes": None if bayes is None else _b64(bayes, "<f8"),
        "calibrated": _b64(cal.test_posteriors(pair)[1], "<f8") if calibrated and X_test.shape[0] else None,
        "blind": _b64(pair.blind_test, "u1"),
        "palette": region_rgb(len(ds.classes)).ravel().tolist(),
        "title": f"<b>{esc(title)}</b>" if title else "",
        "projector": bool(projector),
        "tie": float(tie),
        "maxCost": APP_MAX_COST,
    }


OFF_SCRIPT = "if (window.__rebelPg) window.__rebelPg.scene = null;"  # the browser path off: drop the scene


def _code(data: dict | None) -> list:
    """The page's scripts that follow the payload (or its absence: the browser path off)."""
    return [p.read_text(encoding="utf-8") for p in SCRIPTS] if data is not None else [OFF_SCRIPT]


def send(pair, reason: str | None, projector: bool, calibrated: bool = False) -> None:
    """The hidden box: the text box a computed edit comes back in, and the payload for the chart of ``pair``
    (``reason``: why the browser path is off, or None; ``calibrated``: the numbers line shows the calibrated
    two-step's cost) in every run until the page has shown it holds it (an edit
    of that scene came back): a run the browser never saw (one replaced by a newer run) cannot lose it."""
    from rebel.ui.playground import compute as pg
    from rebel.ui.playground import widgets as side

    ss = st.session_state
    with st.container(key=BOX):
        st.html(HIDE_BOX)
        st.text_input(
            "Costs computed in the browser",
            key=INPUT,
            on_change=ui.guarded_callback(_on_edit),
            label_visibility="collapsed",
        )
        # the page's copy of "Replay after retraining" (a computed edit then plays from t = 0), every run
        st.html(script_element(REPLAY, bool(ss.get("w_autoplay"))), unsafe_allow_javascript=True)
        ack()
        sent = (pair.key, projector, calibrated) if reason is None else reason
        if ss.get(SENT) != sent:
            script = ss.get(SCRIPT)
            if script is None or script[0] != sent:
                data = None
                if reason is None:
                    data = scene_payload(pair, projector, pg.REPLAY_TITLE, side.COSTS, pg.TIE, calibrated)
                    data["engine"] = engine_source()
                    _remember_classes(pair)
                script = ss[SCRIPT] = (sent, data, _code(data))
            st.html(script_element("__rebelPgData", script[1], script[2]), unsafe_allow_javascript=True)
            if reason is not None:
                ss[SENT] = sent  # (no data to lose)


def ack() -> None:
    """The page's copy of the last computed edit stored (``ACK``), in every run that shows the hidden box or the
    verdict: the page sends an edit again while it is not acknowledged (``playground_costs.js``'s ``deliver``)."""
    st.html(script_element(ACK_NAME, st.session_state.get(ACK)), unsafe_allow_javascript=True)


def _acknowledge(msg: dict) -> bool:
    """Note the page's edit ``msg`` as handled (``ACK``); False when it was already (sent again: the server's run
    that acknowledges it had not reached the page) or carries no valid number."""
    ss = st.session_state
    page, n = msg.get("page"), msg.get("n")
    if not (isinstance(page, str) and PAGE_ID.fullmatch(page) and type(n) is int and 0 < n < 2**31):
        return False
    last = ss.get(ACK)
    if last is not None and last["page"] == page and last["n"] >= n:
        return False
    ss[ACK] = {"page": page, "n": n}
    return True


def tell(reason: str | None) -> None:
    """Say once, in the message tray, that cost edits run on the server for a variant engine (a failure is said
    when it comes back, ``_on_edit``)."""
    ss = st.session_state
    if reason != ss.get(TOLD):
        ss[TOLD] = reason
        if reason == VARIANT:
            ui.flash("info", reason)


def failure_note() -> None:
    """In the message tray, on every run once the browser could not retrain REBEL: why cost edits now go to the
    server (a message shown once could be drawn over by a run that replaced the one showing it)."""
    if st.session_state.get(FAILED):
        ui.show_message("warning", st.session_state[FAILED])


def _on_edit() -> None:
    """The page computed a cost edit (or could not): store the costs; note whether the browser drew them. When it
    drew them and nothing else on the page shows them (``_rest_of_page``), only the verdict reruns (``TAIL``)."""
    ss = st.session_state
    try:
        msg = json.loads(ss.get(INPUT) or "")
        C = np.array(msg["C"], dtype=np.float64)
    except (ValueError, TypeError, KeyError):
        return  # not the page's message: nothing to store
    if not isinstance(msg, dict) or ("page" in msg and not _acknowledge(msg)):
        return  # not the page's message, or an edit stored already (this run acknowledges it again)
    # (a message without a page id: a page script loaded before the acknowledgements, which sends each edit once)
    from rebel.ui.playground import widgets as side
    from rebel.ui.playground.deferred import known_costs
    from rebel.ui.state import get_state

    A = get_state()
    base = ss.get(BASE)
    if base is None or msg.get("key") != base.key:
        # typed into a chart no longer shown (the classes or data changed while the page computed it): the cell
        # typed goes to the costs shown now, by its classes' names (the main area reruns and draws it)
        then = ss.get(SCENE_CLASSES, {}).get(str(msg.get("key")))
        C, message = late_cell_costs(A.cost_matrix, A.classes, msg.get("cell"), then)
        if message is not None:
            ui.flash("warning", message)
        if C is not None:
            A.set_costs(C)
            ss[f"{side.COSTS}_base"] = C.copy()
        return
    K = len(base.dataset.classes)
    ok = C.shape == (K, K) and np.isfinite(C).all() and (C >= 0).all() and (C <= APP_MAX_COST).all()
    if not ok or not (C > 0).any():
        return  # not a cost matrix: the editor keeps the stored costs
    before = _rest_of_page(A)
    if msg.get("failed"):  # said in the message tray from now on (``failure_note``)
        ss[FAILED] = ss[TOLD] = (
            f"The browser could not retrain REBEL ({msg['failed']}); the server computes cost edits now."
        )
    A.set_costs(C)
    # the editor's stored matrix; its next run draws the cells that differ as new cells (``components._cell``: a
    # value written into a cell the browser still holds would come back as that cell's change and undo the edit)
    ss[f"{side.COSTS}_base"] = C.copy()
    ss[SENT] = (
        base.key,
        msg.get("projector"),
        bool(msg.get("calibrated")),
    )  # the page holds this scene: no need to send it again
    known = known_costs(msg, base.has_bayes, APP_MAX_COST)
    if not msg.get("painted") or msg.get("failed"):
        return
    ss[PAINTED] = (base.key, C.tobytes(), known)
    if known is None or before is None or before != _rest_of_page(A):
        return  # the main area reruns
    from streamlit.errors import StreamlitAPIException

    ss[QUIET] = (dataset_key(A.dataset), C.tobytes())
    # the verdict alone, instead of the main area; and the one-entry editor's table of every cost (many classes)
    table = [ui.table_fragment(side.COSTS)] if ui.uses_entry_editor(K, present.on()) else []
    try:
        st.rerun([TAIL, *table])
    except StreamlitAPIException:  # (no verdict drawn: the main area reruns)
        ss.pop(QUIET, None)


LATE_TEXT_CHARS = 40  # of a late cell's text quoted back (a cost the page accepted is a short number)
SCENE_CLASSES = "_browser_scene_classes"  # {scene key: its class names} of the scenes sent to the page
SCENES_KEPT = 8


def _remember_classes(pair) -> None:
    """Keep the class names of a scene sent to the page (the last ``SCENES_KEPT``): a late edit names its cell by
    its row and column in the scene it was typed into, and the names live on the server only (they are user text,
    never sent inside the page's script)."""
    kept = st.session_state.setdefault(SCENE_CLASSES, {})
    kept[pair.key] = tuple(str(c) for c in pair.dataset.classes)
    while len(kept) > SCENES_KEPT:
        kept.pop(next(iter(kept)))


def late_cell_costs(cost_matrix, classes, cell, then) -> tuple:
    """``(C, message)`` for a cost cell the page computed on a chart no longer shown: ``cell`` (from the page:
    ``{"i", "j", "text"}``, its row and column in that chart's scene, whose classes were ``then``, and the text
    typed) entered into ``cost_matrix`` (of ``classes``) at the places of the same two classes, as the editor enters
    a cell (``config.apply_cost_cell``). ``C`` is None when nothing changes: not a cell, a scene not known, a class no
    longer there (``message`` says so, so the user types it again) or a refused text (``message`` says why)."""
    from rebel.ui.config import apply_cost_cell

    if not isinstance(cell, dict):
        return None, None
    text = str(cell.get("text", ""))[:LATE_TEXT_CHARS]
    names = [str(c) for c in classes]
    try:
        i, j = int(cell["i"]), int(cell["j"])
        if not (0 <= i < len(then) and 0 <= j < len(then)):
            raise IndexError(i, j)
        truth, pred = then[i], then[j]
    except (TypeError, KeyError, ValueError, IndexError):
        return (
            None,
            f"The cost {text!r} typed as the classes changed was not applied. Type it again in the cost matrix.",
        )
    if truth not in names or pred not in names:
        return None, (
            f"The cost {text!r} typed for predicting {pred!r} when the truth is {truth!r} was not applied: the "
            f"classes changed to {', '.join(names)} as it was typed. Type it again in the cost matrix."
        )
    C, message = apply_cost_cell(cost_matrix, names.index(truth), names.index(pred), text, names)
    return (None, message) if message is not None else (C, None)


# What else the page shows that follows the costs: the detail view shown unless it is how to read the page, an open
# lesson scene (its checks), the calibrated two-step (widgets.view_toggles' "cal"), the log control of the cost panel
LOG_KEY, CAL_KEY, DETAILS_KEY = "w_log", "w_show_cal", "w_details"


def _rest_of_page(A):
    """What the page shows of the costs besides the regions chart and the verdict: the cost warnings, the note
    that the costs no longer tell the preset's story and the log control's entry; None when a part shown follows
    every cost (``LOG_KEY``'s comment) or is not known."""
    from rebel.costs import CostWarning, validate_cost_matrix
    from rebel.ui import lesson_widgets as lessons
    from rebel.ui.playground import actions as act
    from rebel.ui.playground.link import DEFAULT_DETAIL_VIEW

    ss = st.session_state
    if (ss.get(DETAILS_KEY) or DEFAULT_DETAIL_VIEW) != DEFAULT_DETAIL_VIEW or ss.get(CAL_KEY):
        return None
    if lessons.shown_scene() is not None:
        return None
    names = [str(c) for c in A.classes]
    entry = ss.get(ui.log_entry_key(LOG_KEY, names))
    C = np.asarray(A.cost_matrix, dtype=np.float64)
    try:
        i, j = (int(v) for v in entry)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CostWarning)
            validate_cost_matrix(C, n_classes=len(names), classes=names)
        return tuple(str(w.message) for w in caught), act.costs_story_note(A), float(C[i, j])
    except (TypeError, ValueError, IndexError):
        return None


def verdict(pair) -> None:
    """The message tray's last line, the verdict after all rounds of ``pair``, as a fragment of its own (``TAIL``):
    after a cost edit the page computed, it reruns alone (``_on_edit``) for the costs stored."""
    st.fragment(ui.guarded(_verdict), key=TAIL)(pair)


def _verdict(pair) -> None:
    from rebel.ui.playground import compute as pg

    quiet = st.session_state.pop(QUIET, None)
    if quiet is not None:
        pair = _adopt(quiet) or pair
    with st.container(key=ACK_BOX):  # (hidden: the tray's layout does not change)
        st.html(HIDE_ACK)
        ack()
    st.markdown(ui.md("**After all {} rounds:** {}", pair.n_rounds, pg.verdict(pair, pair.n_rounds)))


def _adopt(quiet: tuple):
    """In the verdict's run alone: the pair of the costs the page computed (``quiet``: their data's key and bytes,
    still the state's) made current as the main area's run makes a new pair current (``pages/1_Playground``'s
    ``_training``; no replay from t = 0: the chart keeps the page's picture), and the link written. None when the
    state moved on."""
    from rebel.ui.playground import links
    from rebel.ui.playground import widgets as side
    from rebel.ui.state import get_state
    from rebel.ui.variants import engine_options

    A = get_state()
    C = np.asarray(A.cost_matrix, dtype=np.float64)
    if A.dataset is None or quiet != (dataset_key(A.dataset), C.tobytes()):
        return None
    pair = pair_for(A.dataset, C, A.hyper, A.models, engine_options(A.engine))
    A.models.put(pair.key, pair, "pair")
    if A.pair_key != pair.key:
        A.pair_key = pair.key
        st.session_state["t"] = side.first_round(pair.n_rounds)
    links.sync_url(A)
    return pair
