"""`pnetviz binary`: evaluate a binary classifier (signal vs one background) per fold."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pnetviz.cli import common

DESCRIPTION = ("Evaluate a binary classifier (signal vs one background) per fold: ROC, PR, score distributions, "
               "confusion matrix, training curves, HEP metrics, summary report and one ROOT file.")  # fmt: skip
EXAMPLES = """\
  pnetviz binary --results-dir results --channel Run1E2Mu --signal MHc130_MA90 --background nonprompt --fold all
  pnetviz binary --predictions trees/model.root --output plots/mymodel        # one ntuple, its trainer JSON beside it"""


def parser(prog: str | None = None):
    return common.evaluation_parser("binary", prog, DESCRIPTION, EXAMPLES)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = parser(prog).parse_args(argv)
    from pnetviz.jobs import binary, driver  # noqa: PLC0415 - keeps --help free of ROOT start-up

    make = functools.partial(binary.BinaryJob, compare_subset=args.compare_subset)
    todo, missing, summary = common.fold_jobs(args, "binary", make, background=args.background)
    first = todo[0]
    context = [f"{first.display[0]} vs {first.display[1]}", first.channel] + ([f"subset: {args.subset}"] if args.subset else [])
    title = f"pnetviz fold summary: {first.signal} vs {first.background}, {first.channel}" + (f", {first.model}" if first.model else "")
    driver.run_jobs("binary", todo, binary.run, summary, missing, args.quiet, title, context, wait=args.wait,
                    meta=common.provenance("binary", argv))  # fmt: skip
    return 0
