"""`pnetviz render`: the PNG/PDF of output sets written without images (--formats none)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import common

DESCRIPTION = ("Write the images of every canvas stored in the plots.root of pnetviz output sets (evaluations run "
               "with --formats none or with images of the web report's figures only, as campaigns by default), as the run would have written them (the PDFs "
               "for a note: docs/note-figures.md); "
               "each set is republished with them, all or nothing.")  # fmt: skip
EXAMPLES = """\
  pnetviz render plots/results/Run3Mu/binary/MHc130_MA90            # every set below this directory
  pnetviz render plots --formats pdf                                # a whole round's PDFs, for a note"""


def parser(prog: str | None = None):
    parser, groups = common.parser_for("render", prog, DESCRIPTION, EXAMPLES)
    groups["inputs"].add_argument("paths", nargs="+", type=Path, help="output directories (searched below) or plots.root files")
    groups["outputs"].add_argument("--formats", default="png,pdf", help="image formats, comma-separated (default: %(default)s)")
    groups["execution"].add_argument("--wait", action="store_true", help="wait for a run writing the same set instead of stopping")
    groups["execution"].add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    from pnetviz.requests.outputs import from_namespace  # noqa: PLC0415

    args = from_namespace("render", parser(prog).parse_args(argv))  # the command line, once, typed
    formats = [f for f in common.parse_formats(args.formats) if f not in ("root", "c")]
    from tqdm import tqdm  # noqa: PLC0415

    from pnetviz.output.render import output_sets, render_set  # noqa: PLC0415 - keeps --help free of ROOT start-up

    sets = output_sets(args.paths)
    images = 0
    for directory in tqdm(sets, unit="set", desc="render", disable=args.quiet):
        images += render_set(directory, formats, wait=args.wait)
    if not args.quiet:
        print(f"[pnetviz render] {images} images in {len(sets)} output sets")
    return 0
