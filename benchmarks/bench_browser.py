"""What a person waits for in a real browser: the Playground's click-to-picture latency, Play's frame rate and the
first visit, measured in Debian's Chromium driven by Playwright.

Starts ``streamlit run app.py`` on a free localhost port (kernels compiled first, one throwaway visit so the
server is warm), opens the Playground at 1440 x 900 and repeats each interaction ``--repeat`` times (>= 7):

- ``cost_edit``: from the Enter that commits a new cost typed into the cost editor until the regions plot shows
  the retrained model (its regions, mistakes and numbers; moving to the cell and typing are the person's own time,
  not the app's); its "cost strip" figure ends with the frame that painted the strip's new curve (an edit
  computed in the page draws the strip a frame or more after the regions and numbers);
- ``scrub``: move the round t by one step until the regions plot shows round t;
- ``preset``: pick another preset (a click on its option in the opened selector) until the regions plot shows its
  model;
- ``toggle``: switch the two-step boundaries on/off until the regions plot shows them (or not);
- ``play_fps``: frames of the round replay actually painted per second after pressing Play;
- ``first_visit``: a new session's navigation start until the regions plot is painted; ``first_page``: until
  the whole first screen is drawn (the cost editor's cells and the sidebar's preset box, ``WHOLE_PAGE``; no target).

Each latency runs in the page: it starts at the browser's own input event (``keydown``/``pointerdown``, capture
phase, so Playwright's round trip is not counted) and ends when the frame that first shows the regions plot's
changed content (its data/layout signature, and for ``scrub`` its title reading ``t = <t>``), rendered visibly
(``checkVisibility``: Streamlit mounts a chart hidden until it has its size) and at its final size (the size of its
box: a chart first drawn at 450 px and then again at its box's height counts from the second), has been painted.
A mutation observer notes when the change enters the page; the frame that paints it is the one in whose animation
callbacks it was made, else the next one, and the latency ends at that frame's long-animation-frame entry's end,
else at the end of its rendering task (``B.paintOf``). Every time is one at which code ran, never a frame's time
stamp (under a long task a frame's stamp is hundreds of ms before its callbacks run). A task that runs after that
paint (another chart below the first screen, say) does not delay the picture and is not counted. Each figure also
prints two other ends: "polled", the end of the frame in which an animation-frame poll saw the change (a frame late
when the change is made in an animation callback, as a replay's step is; the third and fourth passes used it,
reading frame time stamps, which ended cost edits before the new chart was even in the page), and "next frame",
the next animation frame after the poll saw it (used before; it also counted tasks after the paint). A first
visit is timed by the poll. No sleeps decide when a plot is ready. Play counts the distinct pictures seen on
animation frames (title changes) per second of replay.

The page is found by stable hooks (widget keys as ``.st-key-*`` classes and labels): see ``HOOKS``. Both the
whole-page Playground (server-side scrubber and Play) and an in-browser replay (a plotly slider and a "Play"
button inside the regions figure) are driven.

Run: ``python -m benchmarks.bench_browser [--viewport 1280x720] [--repeat 9] [--runs 2] [--port 0]
[--baseline DIR] [--edits-only] [--present] [--classes 12 --points 1500] [--max-sizes]`` (``--classes K``: a
designed mixture of K classes on a circle, by its link, instead of the default preset; ``--max-sizes``: the
Playground's largest settings). Prints one line per figure (median, min, n and the 1-minute load average seen while it was
measured), each against its target (``TARGETS``), then one line
``browser latency (median ms): cost_edit=X scrub=Y preset=Z toggle=W; play_fps=F``. Timings on a shared 2-core
machine are noisy: compare medians of repeated runs, and a change against the code before it with ``--baseline
DIR`` (another checkout of the project): each on its own server, the two trees' measurements alternate one by one
(baseline, this, baseline, this, ... for every interaction and first visit), so both see the same load; both
tables are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._common import CHROMIUM, CHROMIUM_ARGS, free_port, healthy, server_command, stop_process

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1440, "height": 900}
PRESENT = {"on": False}  # --present: every page opens in presentation mode (``?present=1``)
LINK = {"query": "", "label": ""}  # --classes: every page opens this Playground link (``circle_link``)
CLASS_NAMES = ("apple", "banana", "cherry", "damson", "elderberry", "fig", "grape", "honeydew", "kiwi", "lemon",
               "mango", "nectarine")  # fmt: skip


def random_costs(k: int):
    """A random k x k cost matrix (costs 1-10 with one decimal, zero diagonal), the same every time."""
    import numpy as np

    C = np.round(np.random.default_rng(0).uniform(1, 10, (k, k)), 1)
    np.fill_diagonal(C, 0)
    return C


def circle_config(names, C, n_points: int = 600):
    """The Playground configuration of a designed mixture of the classes ``names`` on a circle of radius 3 (one
    round cluster each), ``n_points`` points, the cost matrix ``C`` and the app's default settings."""
    import math

    import pandas as pd

    from rebel.data import DatasetSpec
    from rebel.ui.config import DEFAULT_HYPER, Config

    K = len(names)
    rows = [
        {"class": name, "mean_x": round(3 * math.cos(math.tau * k / K), 2),
         "mean_y": round(3 * math.sin(math.tau * k / K), 2), "std_x": 0.8, "std_y": 0.8}
        for k, name in enumerate(names)
    ]  # fmt: skip
    return Config(DatasetSpec(pd.DataFrame(rows), int(n_points), 0.3, 1, 0.0), C, dict(DEFAULT_HYPER))


def largest_link(classes: int | None, points: int | None = None) -> dict:
    """``LINK``'s query and label for the Playground's largest settings: the default preset (or ``classes`` on a
    circle) with the most points the Playground takes (or ``points``) and every hyper-parameter at its largest."""
    import dataclasses

    from rebel.params import DATA_RANGES, INT_PARAMS
    from rebel.ui.config import DEFAULT_PRESET, QUERY_KEY, encode_query, preset_config

    n = points or DATA_RANGES["n_points"].high
    hyper = {name: p.app_high for name, p in INT_PARAMS.items()}
    if classes is None:
        cfg = preset_config(DEFAULT_PRESET, hyper)
        cfg = dataclasses.replace(cfg, spec=dataclasses.replace(cfg.spec, n_points=n))
        what = DEFAULT_PRESET
    else:
        cfg = dataclasses.replace(circle_config(CLASS_NAMES[:classes], random_costs(classes), n), hyper=hyper)
        what = f"{classes} classes on a circle"
    sizes = ", ".join(f"{k} {v}" for k, v in hyper.items())
    return {
        "query": f"?{QUERY_KEY}={encode_query(cfg)}",
        "label": f"{what} at its largest: {n} points, {sizes}",
    }


def circle_link(names, C, n_points: int = 600) -> str:
    """The address (query, from ``?``) of ``circle_config``."""
    from rebel.ui.config import QUERY_KEY, encode_query

    return f"?{QUERY_KEY}={encode_query(circle_config(names, C, n_points))}"


# Stable hooks (CSS selectors of Streamlit's ``st-key-<key>`` classes and widget labels). The first selector that
# matches wins, so a renamed key only needs its new spelling added here.
HOOKS = {
    "regions": ['[class*="st-key-regions"]', '[class*="st-key-w_regions"]'],
    "cost_editor": ['[class*="st-key-cost_editor"]', '[class*="st-key-w_costs"]'],
    # a cost cell's key is "w_costs_<editor version>_<truth>_<prediction>"
    "cost_cell": '[class*="st-key-w_costs_"][class*="_{i}_{j} "] input, [class*="st-key-w_costs_"][class$="_{i}_{j}"] input',
    "round_slider": ".st-key-t",
    "play_button": ".st-key-w_play button",
    "play_from_start": "from t = 0",  # an in-browser replay's button that plays from the first round
    "preset": "Preset",
    "toggle": "Two-step boundaries",
}
# Acceptance targets at 1280 x 720 (issue 21): (figure, "<=" or ">=", value). Printed beside each median.
TARGETS = {
    "cost_edit": ("<=", 60.0),  # computed in the browser (``browser_costs``); 300 on the server's path
    "scrub": ("<=", 30.0),  # a step of the replay painted in the page (``chart_in_place.scrubbable``)
    "preset": ("<=", 500.0),
    "first_visit": ("<=", 2500.0),
    # the replay's frames are 25 ms apart: at most every second frame of a 60 Hz screen
    "play_fps": (">=", 30.0),
}
# The whole first screen drawn: the cost editor's cells and the sidebar's preset box (``first_page``).
WHOLE_PAGE = 'body:has(.st-key-cost_editor input):has([data-testid="stSidebar"] [data-testid="stSelectbox"])'
COST_ENTRY = (2, 0)  # (truth, predicted) entry edited: weapon taken for harmless in the airport preset


def cost_value(k: int) -> str:
    """The k-th cost typed: alternately low and high and never repeated, so every edit retrains a new model (the
    app caches results, and going back to a value already seen would measure the cache)."""
    return f"{2 + 0.1 * k:.1f}" if k % 2 == 0 else str(20 + k)


# Whether a plot is drawn at its final size: the size of its chart's box (Streamlit draws a new chart at 450 px
# high first, then again at its box's height). Shared by ``_JS`` and ``_FIRST_PAINT_JS``.
_FINAL_JS = """(gd) => {
    const box = gd.closest('[data-testid="stPlotlyChart"]'), fl = gd._fullLayout;
    if (!box || !fl) return false;
    const r = box.getBoundingClientRect();
    return Math.abs(r.height - fl.height) <= 1.5 && Math.abs(r.width - fl.width) <= 1.5;
  }"""

_JS = r"""
(() => {
  const B = window.__bench = {};
  B.selectors = SELECTORS;
  B.plot = () => {
    for (const s of B.selectors) {
      const el = document.querySelector(s + ' .js-plotly-plot');
      if (el) return el;
    }
    return null;
  };
  // The round shown: an in-browser replay shows "t = <t>" as its slider's current value (or in a text trace
  // of each frame); a whole-page Playground in the figure title.
  B.title = (gd) => {
    if (!gd) return '';
    const current = gd.querySelector('.slider-group > text.slider-label');
    if (current && /t = \d+/.test(current.textContent)) return current.textContent;
    for (const el of gd.querySelectorAll('.textpoint text'))
      if (/t = \d+/.test(el.textContent)) return el.textContent;
    const el = gd.querySelector('.gtitle');
    return el ? el.textContent : '';
  };
  // The round a person can see: null while the plot is not rendered visibly (Streamlit mounts a chart hidden and
  // shows it once it has its size) or not yet at its final size (a chart drawn at 450 px, say, in a taller box,
  // which Streamlit then draws again at the box's height: ``B.final``).
  B.final = FINAL;
  B.roundOf = (gd) => {
    if (!gd || !gd.checkVisibility({checkVisibilityCSS: true}) || !B.final(gd)) return null;
    const m = /t = (\d+)/.exec(B.title(gd));
    return m ? Number(m[1]) : null;
  };
  const hash = (s) => {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return (h >>> 0).toString(16) + ':' + s.length;
  };
  let cache = {gd: null, data: null, layout: null, title: null, sig: null};
  B.sig = (gd) => {
    if (!gd) return 'none';
    const title = B.title(gd);
    // what an animation without a redraw changes in place (the same gd.data and gd.layout objects): the images'
    // sources and the traces' objects
    const touched = ((gd.layout && gd.layout.images) || []).map((im) => (im && im.source ? im.source.length + ':' +
      im.source.slice(-48) : '')).join('|');
    const traces = gd.data || [];
    if (cache.gd === gd && cache.data === gd.data && cache.layout === gd.layout && cache.title === title &&
        cache.touched === touched && cache.traces.length === traces.length &&
        cache.traces.every((tr, i) => tr === traces[i] && cache.texts[i] === String(traces[i].text) &&
                           cache.ys[i] === traces[i].y))
      return cache.sig;
    const body = JSON.stringify(gd.data || []) + JSON.stringify((gd.layout && gd.layout.images) || []);
    cache = {gd, data: gd.data, layout: gd.layout, title, touched, traces: traces.slice(),
             texts: traces.map((tr) => String(tr.text)), ys: traces.map((tr) => tr.y), sig: hash(title + body)};
    return cache.sig;
  };
  // When the frame that started at ``seen`` (an animation-frame time at which the change was first seen) was
  // painted: the end of its long-animation-frame entry if it was long (> 50 ms), else the next frame's start or
  // the start of the next long frame, whichever is earlier (a later task never counts).
  B.frames = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) B.frames.push([e.startTime, e.startTime + e.duration]);
    if (B.frames.length > 400) B.frames.splice(0, 200);
  }).observe({type: 'long-animation-frame', buffered: true});
  B.paintEnd = (seen, next) => {
    let end = next;
    for (const [start, stop] of B.frames) {
      if (start <= seen && seen <= stop) return stop;
      if (start > seen) end = Math.min(end, start);
    }
    return end;
  };
  // ``seen`` and ``next`` are times at which animation callbacks ran (``performance.now()``), not the frames' time
  // stamps: a frame's time stamp is when it was scheduled, which is long before its callbacks run when a long task
  // holds the main thread (the fourth pass's ends read the long frame before the one that painted the change).
  B.painted = (seen) => new Promise((resolve) => {
    requestAnimationFrame(() => {
      const next = performance.now();
      setTimeout(() => {
        B.nextFrame = next;
        resolve(B.paintEnd(seen, next));
      }, 100);  // long-animation-frame entries are reported after their frame
    });
  });
  // The change as it enters the page: a mutation observer, set when the action is armed, runs ``B.shows`` after
  // each change of the page and keeps the first time it holds (``B.entered``), and whether that was inside a
  // frame's animation callbacks. While an action is timed, each frame is timed from its animation callbacks (a
  // probe resized there makes a resize observer, which runs after them and before the paint, mark their end) to
  // the end of its rendering task (a message posted from the callbacks runs after it, ``B.frameEnds``: the
  // callbacks' time and that end). A change made in a frame's animation callbacks is painted by that frame; a
  // change made in a task between frames by the next frame (``B.paintOf``). The poll in ``B.wait`` sees a change made in an animation callback after its own (as
  // plotly's replay steps are) a frame late; its end is kept as ``B.polled`` and used when the observer did not
  // notice the change first (a change by attributes only).
  B.frameEnds = [];
  B.inRaf = false;
  const probe = document.createElement('div');
  probe.style.cssText = 'position: fixed; left: 0; top: 0; width: 1px; height: 1px; visibility: hidden; pointer-events: none';
  document.body.appendChild(probe);
  new ResizeObserver(() => { B.inRaf = false; }).observe(probe);
  const channel = new MessageChannel();
  channel.port1.onmessage = (e) => {
    B.frameEnds.push([e.data, performance.now()]);
    if (B.frameEnds.length > 400) B.frameEnds.splice(0, 200);
  };
  let flip = 0;
  B.framing = false;
  const frame = () => {
    B.inRaf = true;
    flip = 1 - flip;
    probe.style.width = (1 + flip) + 'px';
    channel.port2.postMessage(performance.now());
    if (B.framing) requestAnimationFrame(frame);
  };
  B.startFraming = () => { if (!B.framing) { B.framing = true; requestAnimationFrame(frame); } };
  // When a change that entered the page at ``entered`` (``inRaf``: in a frame's callbacks) was painted: the
  // painting frame's long-animation-frame end when it was long, else the end of its rendering task (its message
  // may wait behind a later task: no later than the next frame's callbacks).
  B.paintOf = (entered, inRaf) => {
    const ends = B.frameEnds;
    let k = -1;
    for (let i = 0; i < ends.length; i++) {
      if (inRaf ? ends[i][0] <= entered : ends[i][0] > entered) { k = i; if (!inRaf) break; }
    }
    if (k < 0) return null;
    const [raf, done] = ends[k];
    for (const [start, stop] of B.frames) if (start <= raf && raf <= stop) return stop;
    return k + 1 < ends.length ? Math.min(done, ends[k + 1][0]) : done;
  };
  B.shows = (gd, wantRound) => {
    if (!gd) return false;
    if (wantRound !== null) {
      const m = /t = (\d+)/.exec(B.title(gd));
      if (!m || Number(m[1]) !== wantRound || B.beforeRound === wantRound) return false;
    } else if (B.sig(gd) === B.before) return false;
    return B.roundOf(gd) !== null;
  };
  // The second end of a cost edit: the first animation frame whose page holds a new picture in the regions
  // image (its ``href``); that frame paints it. Null when the image did not change.
  B.regionsHref = (gd) => {
    const el = gd && [...gd.querySelectorAll('image')].find((e) => e.__data__ && e.__data__.name === 'regions');
    return el ? el.getAttribute('href') : null;
  };
  B.watchImage = () => {
    const before = B.regionsHref(B.plot()), armed = performance.now();
    B.imageMs = null;
    const look = () => {
      const href = B.regionsHref(B.plot());
      if (B.t0 !== null && href !== null && href !== before) { B.imageMs = performance.now() - B.t0; return; }
      if (performance.now() - armed < 60000) requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  };
  // A third end of a cost edit: the frame that painted the cost strip's new REBEL curve (the page draws the
  // regions, the mistakes and the numbers first, the strip in a later frame): a mutation observer notes when the
  // curve's path changes, ``B.stripDone`` turns that into the end of the frame that painted it (``B.paintOf``).
  B.stripPath = (gd) => {
    const i = gd && gd.data ? gd.data.findIndex((t) => t.name === 'REBEL test cost') : -1;
    const cd = i >= 0 && gd.calcdata ? gd.calcdata[i] : null;
    const g = cd && cd[0] && cd[0].node3 && cd[0].node3.node && cd[0].node3.node();
    const path = g && g.querySelector('path.js-line');
    return path ? path.getAttribute('d') : null;
  };
  B.watchStrip = () => {
    const gd = B.plot(), before = B.stripPath(gd);
    B.stripEntered = null;
    if (B.stripObserver) B.stripObserver.disconnect();
    if (!gd || before === null) { B.stripObserver = null; return; }
    B.stripObserver = new MutationObserver(() => {
      if (B.t0 === null || B.stripEntered !== null) return;
      const d = B.stripPath(B.plot());
      if (d !== null && d !== before) {
        B.stripEntered = performance.now();
        B.stripInRaf = B.inRaf;
        B.stripObserver.disconnect();
      }
    });
    B.stripObserver.observe(gd, {subtree: true, childList: true, attributes: true, attributeFilter: ['d']});
  };
  // ms from the input event to the end of the frame that painted the strip's change (null: no strip or no change
  // within timeoutMs); stops the frame timing.
  B.stripDone = (timeoutMs) => new Promise((resolve) => {
    const start = performance.now();
    const look = () => {
      if (B.stripObserver && B.stripEntered === null && performance.now() - start < timeoutMs) {
        requestAnimationFrame(look);
        return;
      }
      setTimeout(() => {  // (long-animation-frame entries are reported after their frame)
        B.framing = false;
        const end = B.stripEntered === null ? null : B.paintOf(B.stripEntered, B.stripInRaf);
        resolve(end === null ? null : end - B.t0);
      }, 100);
    };
    look();
  });
  B.arm = (wantRound = null, strip = false) => {
    B.t0 = null;
    B.watchImage();
    B.stripWatching = strip;
    if (strip) B.watchStrip();
    const gd = B.plot();
    B.before = B.sig(gd);
    B.beforeRound = B.roundOf(gd);
    B.entered = null;
    const mark = () => { if (B.t0 === null) B.t0 = performance.now(); };
    for (const type of ['keydown', 'pointerdown', 'mousedown'])
      window.addEventListener(type, mark, {capture: true, once: true});
    if (B.observer) B.observer.disconnect();
    B.observer = new MutationObserver(() => {
      if (B.t0 === null || B.entered !== null) return;
      if (B.shows(B.plot(), wantRound)) {
        B.entered = performance.now();
        B.enteredInRaf = B.inRaf;
        B.observer.disconnect();
      }
    });
    B.observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    B.startFraming();
  };
  // Resolves with the ms from the armed input event to the frame painted after the plot changed.
  B.wait = (wantRound, timeoutMs) => new Promise((resolve, reject) => {
    const start = performance.now();
    const tick = (now) => {
      const gd = B.plot();
      // A plot that is (re)mounted shows no round yet: only a painted plot with its round counts as changed.
      const shown = B.roundOf(gd);
      const changed = shown !== null && B.sig(gd) !== B.before;
      const roundOk = wantRound === null || shown === wantRound;
      if (B.t0 !== null && changed && roundOk) {
        const polledAt = performance.now();
        B.painted(polledAt).then((end) => {
          B.observer.disconnect();
          if (!B.stripWatching) B.framing = false;
          B.polled = end - B.t0;
          // the observer's time only when it noticed the change before the poll did (not by a later change)
          const noticed = B.entered !== null && B.entered <= polledAt;
          const paint = noticed ? B.paintOf(B.entered, B.enteredInRaf) : null;
          resolve(paint === null ? B.polled : paint - B.t0);
        });
        return;
      }
      if (performance.now() - start > timeoutMs)
        reject(new Error('plot did not change: title ' + B.title(gd) + ', input seen ' + (B.t0 !== null)));
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  // Distinct pictures painted per second while a replay runs: counts title changes seen on animation frames.
  B.countFrames = (durationMs, lastRound) => new Promise((resolve) => {
    const seen = [];
    let last = B.title(B.plot());
    let first = null;
    const tick = (ts) => {
      const gd = B.plot();
      const title = B.title(gd);
      if (title !== last) {
        last = title;
        seen.push(ts);
        if (first === null) first = ts;
      }
      const done = (first !== null && ts - first > durationMs) || B.roundOf(gd) === lastRound;
      if (done && seen.length) resolve(seen);
      else if (first === null && performance.now() > 30000 + (B.countStart || 0)) resolve(seen);
      else requestAnimationFrame(tick);
    };
    B.countStart = performance.now();
    requestAnimationFrame(tick);
  });
})();
"""


def start_app(port: int, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` of the project at ``root`` on localhost after compiling the kernels; returns the
    process and its URL.

    The server's output goes to a temporary file (``proc.log``), shown if it exits early; ``stop_app`` closes it.
    """
    root = Path(root)
    cache = os.environ.get("NUMBA_CACHE_DIR") if root == ROOT else None
    env = dict(os.environ, NUMBA_CACHE_DIR=cache or str(root / ".numba_cache"))
    others = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != ROOT]
    env["PYTHONPATH"] = os.pathsep.join([str(root), *others])
    subprocess.run([sys.executable, "-c", "import rebel; rebel.warmup()"], cwd=root, env=env, check=True)
    log = tempfile.TemporaryFile()  # noqa: SIM115 (open as long as the server runs; closed with it)
    proc = subprocess.Popen(
        server_command("app.py", port),
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    proc.log = log
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"streamlit exited early:\n{log.read().decode(errors='replace')[-2000:]}")
        if healthy(url):
            return proc, url
        time.sleep(0.3)
    stop_app(proc)
    raise RuntimeError(f"streamlit did not answer {url}/_stcore/health within 120 s")


def stop_app(proc: subprocess.Popen) -> None:
    stop_process(proc)
    proc.log.close()


# ----------------------------------------------------------------------------------------------- the page
def _install(page) -> None:
    import json

    page.evaluate(_JS.replace("SELECTORS", json.dumps(HOOKS["regions"])).replace("FINAL", _FINAL_JS))


# A first visit's recorder, run before the page's own scripts: the animation-frame time at which a regions plot
# is first visibly showing a round at its final size (as ``B.roundOf``), and the long animation frames
# (``B.painted`` turns the first into a paint time).
_FIRST_PAINT_JS = r"""
(() => {
  const F = window.__firstPaint = {seen: null, frames: []};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) F.frames.push([e.startTime, e.startTime + e.duration]);
  }).observe({type: 'long-animation-frame', buffered: true});
  const tick = () => {
    for (const gd of document.querySelectorAll(SELECTORS.map((s) => s + ' .js-plotly-plot').join(', '))) {
      const label = gd.querySelector('.slider-group > text.slider-label');
      const final = FINAL;
      if (label && /t = \d+/.test(label.textContent) && final(gd) && gd.checkVisibility({checkVisibilityCSS: true})) {
        F.seen = performance.now();  // when the callback ran, not the frame's time stamp (see ``B.painted``)
        requestAnimationFrame(() => { F.next = performance.now(); });
        return;
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const whole = () => {
    if (document.querySelector(WHOLE)) F.whole = performance.now(); else requestAnimationFrame(whole);
  };
  requestAnimationFrame(whole);
})();
"""


def open_playground(context, url: str, size: tuple | None = None):
    """A new Playground tab at ``size`` (width, height; default ``VIEWPORT``), waited till the regions plot is
    painted; returns (page, ms from navigation to the end of the frame first showing it with its round)."""
    import json

    page = context.new_page()
    page.set_viewport_size(VIEWPORT if size is None else {"width": size[0], "height": size[1]})
    if LINK["query"] and "?" not in url:
        url += "/" + LINK["query"]
    if PRESENT["on"] and "present=" not in url:
        url += ("&" if "?" in url else "/?") + "present=1"
    page.add_init_script(
        _FIRST_PAINT_JS.replace("SELECTORS", json.dumps(HOOKS["regions"]))
        .replace("FINAL", _FINAL_JS)
        .replace("WHOLE", json.dumps(WHOLE_PAGE))
    )
    page.goto(url, wait_until="commit")
    selector = ", ".join(
        f"{s} .js-plotly-plot :is(.gtitle, .textpoint text, .slider-group > text.slider-label)"
        for s in HOOKS["regions"]
    )
    page.wait_for_function(
        "sel => [...document.querySelectorAll(sel)].some(e => /t = \\d+/.test(e.textContent))",
        arg=selector,
        timeout=240_000,
    )
    page.wait_for_function("window.__firstPaint.next !== undefined", timeout=60_000)
    page.wait_for_timeout(100)  # long-animation-frame entries are reported after their frame
    _install(page)
    ms, next_frame = page.evaluate(
        "(() => { const F = window.__firstPaint; window.__bench.frames.push(...F.frames);"
        " return [window.__bench.paintEnd(F.seen, F.next), F.next]; })()"
    )  # ms since navigation
    painted = Painted(ms, next_frame)
    _settle(page)
    return page, painted


def _settle(page, quiet_ms: int = 400, timeout_ms: int = 90_000) -> None:
    """Wait until Streamlit is idle (no running indicator, and no first page's hidden button: the rest of that page
    has come) and the regions plot is unchanged for quiet_ms."""
    page.wait_for_function(
        """([quiet, started]) => {
             const running = document.querySelector('[data-testid="stStatusWidget"], .st-key-pg_rest');
             const gd = window.__bench.plot();
             const sig = window.__bench.roundOf(gd) === null ? 'not shown' : window.__bench.sig(gd);
             const now = performance.now();
             if (running || sig === 'not shown' || sig !== window.__bench.lastSig) {
               window.__bench.lastSig = sig; window.__bench.stableSince = now; return false;
             }
             return now - (window.__bench.stableSince || now) >= quiet;
           }""",
        arg=[quiet_ms, 0],
        polling=50,
        timeout=timeout_ms,
    )


class Painted(float):
    """ms to the painted change (the end of the frame that painted it), with ``next_frame``: ms to the next
    animation frame after it, the end this benchmark used before its third pass (it also counted whatever long
    task came right after the paint, e.g. a chart below the first screen), and ``polled``: the end as the
    animation-frame poll sees it, the end used from the third to the fourth pass (a frame late when the change is
    made in an animation callback, as a replay's step is; see ``B.paintOf``). A first visit has no ``polled``."""

    def __new__(
        cls,
        ms: float,
        next_frame: float,
        polled: float | None = None,
        image: float | None = None,
        strip: float | None = None,
    ):
        obj = super().__new__(cls, ms)
        obj.next_frame = float(next_frame)
        obj.polled = None if polled is None else float(polled)
        obj.image = None if image is None else float(image)  # the regions image's first new picture
        obj.strip = None if strip is None else float(strip)  # the frame that painted the cost strip's change
        return obj


def _measure(page, action, want_round=None, prepare=None, strip: bool = False) -> Painted:
    """ms from the input event of ``action`` to the painted change of the regions plot; ``prepare()`` runs
    before timing starts and may return the action (e.g. ``edit_cost`` types a value, the timed action commits
    it). ``strip``: also the ms to the frame that painted the cost strip's change (``Painted.strip``)."""
    if prepare is not None:
        action = prepare()
    page.evaluate("([r, s]) => window.__bench.arm(r, s)", [want_round, strip])
    action()
    try:
        ms = page.evaluate("([r, t]) => window.__bench.wait(r, t)", [want_round, 60_000])
    except Exception:
        shot = Path(tempfile.gettempdir()) / "bench_browser_failure.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"the plot did not change; screenshot of the page: {shot}", file=sys.stderr)
        raise
    next_frame, polled = page.evaluate(
        "[window.__bench.nextFrame - window.__bench.t0, window.__bench.polled]"
    )
    strip_ms = page.evaluate("t => window.__bench.stripDone(t)", 10_000) if strip else None
    _settle(page)
    return Painted(ms, next_frame, polled, page.evaluate("window.__bench.imageMs"), strip_ms)


def in_browser_replay(page) -> bool:
    """True when the regions figure carries its own slider (the replay runs in the browser)."""
    return bool(
        page.evaluate(
            "(() => { const gd = window.__bench.plot(); "
            "return !!(gd && gd.layout && gd.layout.sliders && gd.layout.sliders.length); })()"
        )
    )


def _current_round(page) -> tuple[int, int]:
    text = page.evaluate("window.__bench.title(window.__bench.plot())")
    import re

    m = re.search(r"t = (\d+)(?: of (\d+))?", text)
    if not m:
        raise RuntimeError(f"the regions plot's title does not show the round t: {text!r}")
    return int(m.group(1)), int(m.group(2) or m.group(1))


def edit_cost(page, value: str):
    """Type ``value`` into the cost editor at COST_ENTRY (a per-cell input if there is one, the one-entry editor's
    box once that entry is picked, else the grid's cell editor) without committing it; returns the commit (pressing
    Enter), which ``_measure`` times."""
    i, j = COST_ENTRY
    cell = page.locator(HOOKS["cost_cell"].format(i=i, j=j))
    grid = ", ".join(f"{e} canvas" for e in HOOKS["cost_editor"])
    entry = f"{HOOKS['cost_editor'][0]} [data-testid='stSelectbox']"  # the one-entry editor (many classes)
    page.locator(f"{HOOKS['cost_cell'].format(i=i, j=j)}, {grid}, {entry}").first.wait_for(timeout=120_000)
    if not cell.count() and page.locator(entry).count():  # its Truth and Prediction picked: the entry's box
        for label, k in (("Truth", i), ("Prediction", j)):
            page.get_by_label(label, exact=True).first.click()
            page.get_by_role("option").nth(k).click()
            _settle(page)
        cell.first.wait_for(timeout=60_000)
    if cell.count():
        cell.first.fill(value)
        return lambda: cell.first.press("Enter")
    row_h = 35  # Streamlit's data editor: a 35 px header and 35 px rows; column 0 holds the row's class name
    for _ in range(3):  # a grid redrawn under the click loses the selection: open the cell again
        box = _first(page, HOOKS["cost_editor"]).locator("canvas").first.bounding_box()
        page.mouse.click(box["x"] + 8, box["y"] + row_h * (i + 1) + row_h / 2)
        for _ in range(j + 1):
            page.keyboard.press("ArrowRight")
        page.keyboard.press(
            "Enter"
        )  # opens the cell editor over the canvas (an input or textarea .gdg-input)
        cell_input = page.locator(".gdg-input:not([disabled])").first
        try:
            cell_input.wait_for(timeout=3_000)
        except Exception:  # noqa: BLE001 (Playwright's timeout: the class-name cell opened read-only)
            page.keyboard.press("Escape")
            continue
        cell_input.fill(value)
        return lambda: cell_input.press("Enter")
    raise RuntimeError(f"could not open cost cell {COST_ENTRY} of the cost editor")


def _first(page, selectors):
    for s in selectors:
        loc = page.locator(s)
        if loc.count():
            return loc.first
    raise RuntimeError(f"none of {selectors} is on the page")


def ticks_apart(page) -> float:
    """Pixels between two neighbouring steps of an in-browser replay's slider (inf for the whole-page one)."""
    if not in_browser_replay(page):
        return float("inf")
    ticks = _first(page, HOOKS["regions"]).locator(".slider-tick-rect")
    first, second = ticks.nth(0).bounding_box(), ticks.nth(1).bounding_box()
    return abs(second["x"] - first["x"])


def scrub(page, target: int) -> None:
    """Move the round to ``target`` one step from the current one (keyboard on a slider, click on a plotly one)."""
    if in_browser_replay(page):
        plot = _first(page, HOOKS["regions"])
        tick = plot.locator(".slider-tick-rect").nth(target).bounding_box()  # one tick per step (round)
        rail = plot.locator(".slider-rail-rect").first.bounding_box()
        page.mouse.click(tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2)
        return
    thumb = page.locator(HOOKS["round_slider"]).get_by_role("slider").first
    t, _ = _current_round(page)
    thumb.press("ArrowRight" if target > t else "ArrowLeft")


def preset_names(page) -> tuple[str, list]:
    """The selected preset and the options of the preset selector (opened and closed again)."""
    box = page.get_by_label(HOOKS["preset"], exact=True).first
    box.click()
    options = page.get_by_role("option").all_text_contents()
    selected = page.locator('[role="option"][aria-selected="true"]')
    current = selected.first.text_content() if selected.count() else ""
    page.keyboard.press("Escape")
    return current, options


def open_preset(page, name: str):
    """Open the preset selector and find the option ``name`` without picking it; returns the pick (a click on the
    option), which ``_measure`` times: opening the list and finding a name are the person's own time, as moving
    to a cost cell is for ``cost_edit``."""
    page.get_by_label(HOOKS["preset"], exact=True).first.click()
    option = page.get_by_role("option", name=name, exact=True).first
    option.wait_for()
    return option.click


def pick_preset(page, name: str) -> None:
    open_preset(page, name)()


def flip_toggle(page) -> None:
    page.locator('[data-testid="stCheckbox"] label', has_text=HOOKS["toggle"]).first.click()


def play_fps(page, seconds: float = 6.0) -> float:
    """Press Play, count the pictures painted per second, stop the replay."""
    t, T = _current_round(page)
    from_start = None  # replay from the beginning, as a person would
    if in_browser_replay(page):
        menu = _first(page, HOOKS["regions"]).locator(".updatemenu-button")
        from_start = menu.filter(has_text=HOOKS["play_from_start"])
        button = from_start.first if from_start.count() else menu.filter(has_text="Play").first
    else:
        button = page.locator(HOOKS["play_button"]).first
    if t > 0 and not (from_start and from_start.count()):
        scrub_to_start(page)
    page.evaluate(
        "([d, last]) => { window.__bench.counting = window.__bench.countFrames(d, last); }",
        [seconds * 1000, T],
    )
    button.click()
    stamps = page.evaluate("window.__bench.counting")
    if not in_browser_replay(page) and page.locator(HOOKS["play_button"], has_text="Pause").count():
        page.locator(HOOKS["play_button"]).first.click()
    _settle(page, timeout_ms=60_000)
    if len(stamps) < 2:
        return 0.0
    return (len(stamps) - 1) / ((stamps[-1] - stamps[0]) / 1000.0)


def scrub_to_start(page) -> None:
    if in_browser_replay(page):
        scrub(page, 0)
    else:
        page.locator(HOOKS["round_slider"]).get_by_role("slider").first.press("Home")
    page.wait_for_function("window.__bench.roundOf(window.__bench.plot()) === 0", timeout=30_000)
    _settle(page)


# ------------------------------------------------------------------------------------------------- a run
def load1() -> float:
    """The 1-minute load average now (the machine is shared: printed beside every figure)."""
    return os.getloadavg()[0]


def server_cpu(proc) -> float | None:
    """CPU seconds (user + system) the server process has used so far (Linux ``/proc``), or None."""
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def run_steps(context, url: str, repeat: int, out: dict, cpu=None, edits_only: bool = False):
    """One page, every interaction ``repeat`` times, adding ``(value, load average)`` to ``out[name]``; yields
    after each measurement (so two trees' measurements can alternate, see ``--baseline``). ``cpu()``: the server's
    CPU seconds so far; each cost edit's share (from its key press to the page settled) goes to
    ``out["server_cpu_per_edit"]`` in ms. ``edits_only``: the cost edits alone."""
    page, _ = open_playground(context, url)
    for name in ("cost_edit", "scrub", "preset", "toggle", "play_fps", "server_cpu_per_edit"):
        out.setdefault(name, [])
    yield
    for k in range(repeat):
        value = cost_value(k)
        before = cpu() if cpu else None
        painted = _measure(page, None, prepare=lambda v=value: edit_cost(page, v), strip=True)
        out["cost_edit"].append((painted, load1()))
        after = cpu() if cpu else None
        phases = page.evaluate("window.__rebelPg && window.__rebelPg.phases")  # an edit the page computed
        if phases:
            page.evaluate("window.__rebelPg.phases = null")
            for phase, ms in phases.items():
                out.setdefault(f"page: {phase}", []).append((float(ms), load1()))
        if before is not None and after is not None:
            out["server_cpu_per_edit"].append((1000 * (after - before), load1()))
        yield
    if edits_only:
        page.close()
        return
    _, T = _current_round(page)
    # ticks a pixel or less apart (1,000 rounds): a click lands near its tick, not on it; then the scrub goes 10
    # rounds back and forth and ends at whichever round the click moved to
    exact = ticks_apart(page) >= 3
    for k in range(repeat):
        target = T if k % 2 else T - 1 if exact else T - 10
        want = target if exact else None
        out["scrub"].append((_measure(page, lambda x=target: scrub(page, x), want_round=want), load1()))
        yield
    for k in range(repeat):
        out["toggle"].append((_measure(page, lambda: flip_toggle(page)), load1()))
        yield
    if repeat % 2:
        flip_toggle(page)
        _settle(page)
    current, options = (None, []) if PRESENT["on"] else preset_names(page)  # (the sidebar folds away)
    others = [o for o in options if o != current]  # each preset once: a new dataset and model every time
    for k in range(repeat if others else 0):
        name = others[k % len(others)]
        out["preset"].append((_measure(page, None, prepare=lambda n=name: open_preset(page, n)), load1()))
        yield
    out["play_fps"].append((play_fps(page), load1()))
    page.close()


def run_once(context, url: str, repeat: int) -> dict:
    """One page, every interaction ``repeat`` times; returns {name: [(value, load average), ...]}."""
    out: dict = {}
    for _ in run_steps(context, url, repeat, out):
        pass
    return out


def first_visit_steps(browser, url: str, n: int, out: list, whole: list | None = None):
    """ms from navigation start to the painted regions plot, each in a new browser context (a new session),
    added to ``out`` as ``(ms, load average)``, and to the whole first screen drawn (``WHOLE_PAGE``, the first
    animation frame that has it) to ``whole``; yields after each."""
    for _ in range(n):
        context = browser.new_context(viewport=VIEWPORT)
        page, painted = open_playground(context, url)
        out.append((painted, load1()))
        if whole is not None:
            page.wait_for_function("window.__firstPaint.whole !== undefined", timeout=60_000)
            whole.append((page.evaluate("window.__firstPaint.whole"), load1()))
        context.close()
        yield


def first_visits(browser, url: str, n: int) -> list:
    """``first_visit_steps`` run to the end: [(ms, load average), ...]."""
    out: list = []
    for _ in first_visit_steps(browser, url, n, out):
        pass
    return out


# a cost edit computed in the page, from Enter to the chart painted: the worker's training, the decisions and
# numbers, the regions image, plotly's repaint (``window.__rebelPg.phases``)
PAGE_PHASES = ("fit", "decide", "image", "plot", "strip")


def _summary(name: str, samples: list, unit: str = "ms") -> str:
    """One figure: median, min, n, the load averages seen while measuring it and its target (met or not)."""
    values = [v for v, _ in samples]
    loads = [la for _, la in samples]
    med = statistics.median(values)
    line = (
        f"{name:<12} median {med:8.1f} {unit}  min {min(values):8.1f} {unit}  n={len(values):<3d} "
        f"load {min(loads):.2f}-{max(loads):.2f}"
    )
    if all(getattr(v, "polled", None) is not None for v in values):
        line += f"  (polled: median {statistics.median(v.polled for v in values):.1f})"
    if all(getattr(v, "image", None) is not None for v in values):
        line += f"  (regions image: median {statistics.median(v.image for v in values):.1f})"
    if all(getattr(v, "strip", None) is not None for v in values):
        line += f"  (cost strip: median {statistics.median(v.strip for v in values):.1f})"
    if all(hasattr(v, "next_frame") for v in values):
        line += f"  (next frame: median {statistics.median(v.next_frame for v in values):.1f})"
    if name in TARGETS:
        op, target = TARGETS[name]
        met = med <= target if op == "<=" else med >= target
        line += f"  target {op} {target:g} {unit}: {'met' if met else 'NOT met'}"
    return line


def tree_steps(browser, root: Path, args, results: dict):
    """One run on a new server of the project at ``root``: first visits, then every interaction; yields after
    each measurement (``alternate``)."""
    proc, url = start_app(args.port or free_port(), root)
    try:
        warm = browser.new_context(viewport=VIEWPORT)
        open_playground(warm, url)[0].close()  # the throwaway visit: the server is warm afterwards
        warm.close()
        yield
        if not args.edits_only:
            yield from first_visit_steps(
                browser,
                url,
                args.visits,
                results.setdefault("first_visit", []),
                results.setdefault("first_page", []),
            )
        context = browser.new_context(viewport=VIEWPORT)
        yield from run_steps(context, url, args.repeat, results, lambda: server_cpu(proc), args.edits_only)
        context.close()
    finally:
        stop_app(proc)


def alternate(steps: list) -> None:
    """Run the generators ``steps`` one step each in turn until all are done: with a baseline, its measurement
    and this tree's of the same interaction are taken one after the other, under the same load."""
    steps = list(steps)
    while steps:
        for g in list(steps):
            try:
                next(g)
            except StopIteration:
                steps.remove(g)


def report(label: str, results: dict) -> None:
    mode = ", presentation mode" if PRESENT["on"] else ""
    if LINK["label"]:
        mode += f", {LINK['label']}"
    print(f"== {label} (viewport {VIEWPORT['width']}x{VIEWPORT['height']}{mode})")
    for name in ("cost_edit", "scrub", "preset", "toggle", "first_visit", "first_page"):
        if results.get(name):
            print(_summary(name, results[name]))
    if results.get(
        "server_cpu_per_edit"
    ):  # (the page's own reruns included: its text boxes, the costs stored)
        cpu = results["server_cpu_per_edit"]  # (whole clock ticks of /proc: the mean resolves finer than one)
        print(_summary("server CPU", cpu, "ms/edit") + f"  (mean {statistics.fmean(v for v, _ in cpu):.1f})")
    for name in PAGE_PHASES:  # where a cost edit computed in the page spent its time (playground_costs.js)
        if results.get(f"page: {name}"):
            print(_summary(f"  {name}", results[f"page: {name}"]))
    if results.get("play_fps"):
        print(_summary("play_fps", results["play_fps"], "fps"))


def viewport_size(ap, text: str) -> tuple[int, int]:
    """``--viewport``'s WIDTHxHEIGHT as two ints; ``ap.error`` (argparse's exit, naming the argument) otherwise.
    The browser benchmarks parse their ``--viewport`` here."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        ap.error(f"argument --viewport: {text!r} is not WIDTHxHEIGHT; use e.g. 1280x720.")
    return width, height


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9, help="repetitions of each interaction per run (>= 7)")
    ap.add_argument("--runs", type=int, default=2, help="independent runs (each a new page)")
    ap.add_argument("--visits", type=int, default=3, help="first visits measured per run (new sessions)")
    ap.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    ap.add_argument("--viewport", default="1440x900", help="browser window WIDTHxHEIGHT (e.g. 1280x720)")
    ap.add_argument(
        "--baseline",
        default=None,
        help="another checkout of the project (e.g. the code before a change), on its own server: its "
        "measurements alternate one by one with this tree's, and both tables are printed",
    )
    ap.add_argument(
        "--edits-only",
        action="store_true",
        help="measure the cost edits alone (with the server's CPU per edit and the page's phases): no first "
        "visits, scrubs, preset changes, toggles or Play",
    )
    ap.add_argument(
        "--present",
        action="store_true",
        help="presentation mode (?present=1) on every page; the preset changes are then not measured (the "
        "sidebar folds away)",
    )
    ap.add_argument(
        "--classes",
        type=int,
        default=None,
        help=f"open a designed mixture of this many classes (2-{len(CLASS_NAMES)}, on a circle, a random cost "
        "matrix) instead of the default preset",
    )
    ap.add_argument(
        "--points",
        type=int,
        default=None,
        help="with --classes: its number of points (train + test; default 1500); with --max-sizes: instead of the "
        "most the Playground takes",
    )
    ap.add_argument(
        "--max-sizes",
        action="store_true",
        help="the Playground's largest settings (the most points, rounds and thresholds, the deepest trees) on "
        "the default preset, or with --classes on its mixture",
    )
    args = ap.parse_args(argv)
    PRESENT["on"] = args.present
    if args.points is not None:
        from rebel.params import DATA_RANGES

        low, high = DATA_RANGES["n_points"].low, DATA_RANGES["n_points"].high
        if not low <= args.points <= high:
            ap.error(f"argument --points: {args.points} is outside {low}-{high}; use e.g. --points 1500.")
    if args.classes is not None:
        if not 2 <= args.classes <= len(CLASS_NAMES):
            ap.error(
                f"argument --classes: {args.classes} is outside 2-{len(CLASS_NAMES)}; use e.g. --classes 12."
            )
        k, n = args.classes, args.points or 1500
        if not args.max_sizes:
            LINK.update(
                query=circle_link(CLASS_NAMES[:k], random_costs(k), n),
                label=f"{k} classes on a circle, {n} points",
            )
    if args.max_sizes:
        LINK.update(largest_link(args.classes, args.points))
    width, height = viewport_size(ap, args.viewport)
    VIEWPORT.update(width=width, height=height)
    if args.repeat < 7:
        ap.error(f"argument --repeat: at least 7 repetitions are needed for a median; got {args.repeat}.")
    if not Path(CHROMIUM).exists():
        ap.error(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium).")
    baseline = None
    if args.baseline:
        baseline = Path(args.baseline).resolve()
        if not (baseline / "app.py").is_file():
            ap.error(f"argument --baseline: {args.baseline!r} has no app.py; give a checkout of the project.")
    from playwright.sync_api import sync_playwright

    results: dict = {}
    base_results: dict = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for run in range(
            args.runs
        ):  # a new server per run: nothing measured comes from an earlier run's cache
            trees = [(baseline, base_results)] if baseline is not None else []
            alternate([tree_steps(browser, root, args, res) for root, res in [*trees, (ROOT, results)]])
            print(f"run {run + 1}/{args.runs} done (load {load1():.2f})", flush=True)
        browser.close()
    if baseline is not None:
        report(f"baseline {baseline}", base_results)
    report(f"this tree {ROOT}", results)
    med = {k: statistics.median(v for v, _ in samples) for k, samples in results.items() if samples}
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"load average at the end (1, 5, 15 min): {load}; the machine has {os.cpu_count()} cores")
    nan = float("nan")
    print(f"first visit on a warm server (median ms): {med.get('first_visit', nan):.0f}")
    print(
        f"browser latency (median ms): cost_edit={med['cost_edit']:.0f} scrub={med.get('scrub', nan):.0f} "
        f"preset={med.get('preset', nan):.0f} toggle={med.get('toggle', nan):.0f}; "
        f"play_fps={med.get('play_fps', nan):.1f}"
    )
    return results if baseline is None else {"this": results, "baseline": base_results}


if __name__ == "__main__":
    main()
