"""``python -m rebel export-scene``: a lesson scene or a saved Playground configuration as one offline HTML file
(``rebel.ui.browser.scene``). Kept apart from it so that the command line's parser imports nothing heavy."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_command(sub) -> None:
    """Add ``export-scene`` to the subparsers ``sub`` of ``python -m rebel``."""
    from rebel.cli_args import input_file, output_file

    p = sub.add_parser(
        "export-scene",
        help="write a lesson scene or a saved Playground configuration as one HTML file that runs offline",
        description=(
            "Write one self-contained HTML file (data, engine, styles; no network, no server) in which students "
            "edit the costs, see REBEL's regions and the test costs recomputed, and play the replay."
        ),
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--scene", type=int, metavar="N", help="the lesson path's scene N (1 = the first)")
    which.add_argument(
        "--config", type=input_file, metavar="SESSION.json", help="a configuration saved by the Playground"
    )
    p.add_argument("-o", "--out", type=output_file, required=True, metavar="scene.html")


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``export-scene``; bad input is a ValueError naming it (``rebel.__main__`` reports it)."""
    from rebel.ui.browser.scene import export_scene
    from rebel.ui.config import parse_session_json
    from rebel.ui.lessons import SCENES

    if args.scene is not None:
        if not 1 <= args.scene <= len(SCENES):
            raise ValueError(f"--scene is {args.scene}; the lesson path has scenes 1 to {len(SCENES)}.")
        s = SCENES[args.scene - 1]
        cfg, text = s.config, {"title": s.title, "notice": s.notice, "question": s.question}
    else:
        cfg, text = parse_session_json(Path(args.config).read_bytes()), {}
    export_scene(cfg, args.out, **text)
    print(f"scene written to {args.out} (open it in a browser; it needs no network)")
    return 0
