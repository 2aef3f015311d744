"""`pnetviz binary`: evaluate a binary classifier (signal vs one background) per fold."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pnetviz.cli import common
from pnetviz.errors import InputError

DESCRIPTION = ("Evaluate a binary classifier (signal vs one background) per fold: ROC, PR, score distributions, "
               "confusion matrix, training curves, HEP metrics, summary report and one ROOT file.")  # fmt: skip
EXAMPLES = """\
  pnetviz binary --results-dir results --channel Run1E2Mu --signal MHc130_MA90 --background nonprompt --fold all
  pnetviz binary --predictions trees/model.root --output plots/mymodel        # one ntuple, its trainer JSON beside it
  pnetviz binary --predictions trees/big.root --output plots/big --stream     # in chunks: memory bounded, fewer outputs"""


def parser(prog: str | None = None):
    return common.evaluation_parser("binary", prog, DESCRIPTION, EXAMPLES)


def make_job(args):  # args: the run's request (requests.evaluation)
    """The job factory of `pnetviz binary` (driver.FoldJob's fields -> BinaryJob)."""
    from pnetviz.jobs import binary  # noqa: PLC0415 - keeps --help free of ROOT start-up

    return functools.partial(binary.BinaryJob, compare_subset=args.compare_subset, stream=args.stream,
                             memory_budget=args.memory_budget)  # fmt: skip


def what(job) -> tuple[list[str], str]:
    """The fold summary's context line and title head (common.evaluate_folds)."""
    return job.context(f"vs {job.display[1]}")[:2], f"{job.signal} vs {job.background}"


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = common.evaluation_request("binary", parser(prog).parse_args(argv))  # the command line, once
    if args.stream and args.predictions is None and not (args.fold or "").strip().isdigit():
        raise InputError(f"--stream evaluates one fold at a time (--fold {args.fold or 'all'}): the fold summary needs "
                         "every fold's events; give --fold K, or evaluate in memory.")  # fmt: skip
    from pnetviz.jobs import binary  # noqa: PLC0415 - keeps --help free of ROOT start-up

    return common.evaluate_folds("binary", args, argv, make_job(args), binary.run, what, background=args.background)
