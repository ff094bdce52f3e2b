"""``python -m rebel.ui.launch APP [options]``: ``streamlit run APP [options]`` that starts getting the first page
ready at launch (what ``make run`` starts).

Streamlit runs the app's script only when a browser connects, so on a plain ``streamlit run`` the first visitor
waits for everything the first page needs: importing numba, scikit-learn, plotly and pandas (about 1.4 s) and
loading the kernels from the numba cache, or on a fresh install compiling them (about 10 s). Here a background
thread starts that at launch, while the browser is still loading Streamlit's page; the script then finds the
modules imported and the kernels ready (``rebel.warmup`` lets one caller in at a time, so the page's own
warm-up waits for this one instead of compiling twice). On a cold cache the fit's kernels compile in a helper
process started first, while this process imports and compiles the prediction kernels. After the first page,
the other kernels (the parallel drivers, the engine options') compile in a helper process at a lower priority,
if the cache lacks them; the helper stops when the server does. If the thread fails, the page meets the same failure itself and shows it as a message.

Measured (``benchmarks.bench_coldstart``): on an empty numba cache the first page comes about 0.5 s sooner than
with ``streamlit run`` (medians 14.81 -> 14.23-14.36 s); on a warm cache no sooner (importing is Python work,
and the server's own start needs the same interpreter lock), and the health check answers about 0.2 s later.
Since the first page waits only for its own kernels (``rebel.warmup.FIRST_PAGE``, the fit's in a helper
started before the imports): 21.3-22.6 -> 13.0-14.5 s CPU in the server and its helpers before the first paint
(docs/DESIGN.md section 5).
"""

from __future__ import annotations

import atexit
import logging
import sys
import threading
import time

LOG = logging.getLogger(__name__)
USAGE = "usage: python -m rebel.ui.launch APP.py [streamlit run options]"
# The engine options' kernels compile after the first page: app.py sets FIRST_PAGE_SERVED when its first run
# is over, and the helper starts BACKGROUND_AFTER seconds later (the browser is drawing that page, and would
# share the second core with the helper), or after BACKGROUND_WAIT seconds if nobody has visited by then.
FIRST_PAGE_SERVED = threading.Event()
BACKGROUND_AFTER = 3.0
BACKGROUND_WAIT = 60.0


def prepare() -> None:
    """Start compiling the paper's fit kernels in a helper process, import the first page's modules, compile or
    load the kernels the first page runs (``rebel.warmup.FIRST_PAGE``), then start compiling the other kernels
    (the parallel drivers, the engine options') in the background."""
    try:
        import rebel
        from rebel.warmup import FIRST_PAGE, start_early, warmup_in_background

        # On a cold cache the fit's kernels (the longer compile; the round loop itself runs interpreted until the
        # background helper compiles it) start in a helper now, while this process imports; the warm-up below compiles the prediction kernels here meanwhile, then waits.
        start_early(FIRST_PAGE[:1])
        import rebel.ui.guard
        import rebel.ui.playground.compute  # the default page's view layer

        rebel.warmup(groups=FIRST_PAGE)
        from rebel.ui.playground import warm_start

        warm_start.warm_from_env()  # a class's replica: the link's pair trained before the students come
        FIRST_PAGE_SERVED.wait(BACKGROUND_WAIT)
        time.sleep(BACKGROUND_AFTER)
        from rebel.ui.figures import replay

        replay.warm_point_stamps()  # ~0.3 s: the first cost edit's points image then costs ~30 ms, not ~0.1 s
        helper = warmup_in_background()
        if helper is not None:  # it stops with the server; what it had compiled by then stays in the cache
            atexit.register(_stop, helper)
    except Exception:  # the page imports and warms up again, and shows what fails
        LOG.exception("preparing the first page at launch failed; the page will try again")


def _stop(process) -> None:
    if process.poll() is None:
        process.terminate()


def start_preparing() -> threading.Thread:
    """``prepare`` in a daemon thread (it never holds the server up at exit)."""
    thread = threading.Thread(target=prepare, name="rebel-prepare", daemon=True)
    thread.start()
    return thread


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or not args[0].endswith(".py"):
        print(
            f"{USAGE}\n(got {args[:1] or 'no arguments'}: the first argument is the app's script)",
            file=sys.stderr,
        )
        return 2
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    from rebel.ui import chart_preload

    # app.py declares its pages with st.navigation. Left alone, Streamlit sees the pages/ folder and runs a
    # server's first session in its automatic multi-page mode, whose page list (with an extra "app" entry)
    # shows until app.py's st.navigation replaces it; this says up front that the app declares its own.
    PagesManager.uses_pages_directory = False
    chart_preload.install()  # the page fetches the chart's code from its <head>
    start_preparing()
    sys.argv = ["streamlit", "run", *args]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
