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
    from pnetviz.jobs import binary  # noqa: PLC0415 - keeps --help free of ROOT start-up

    make = functools.partial(binary.BinaryJob, compare_subset=args.compare_subset)
    return common.evaluate_folds("binary", args, argv, make, binary.run,
                                 lambda j: (j.context(f"vs {j.display[1]}")[:2], f"{j.signal} vs {j.background}"),
                                 background=args.background)  # fmt: skip
