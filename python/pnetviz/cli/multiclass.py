"""`pnetviz multiclass`: evaluate a multi-class classifier per fold."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pnetviz.cli import common
from pnetviz.errors import InputError

DESCRIPTION = ("Evaluate a multi-class classifier per fold: likelihood-ratio ROC curves and score distributions for "
               "signal vs each background, per-class score distributions, confusion matrices, precision/recall/F1 by "
               "class, training curves, summary report and one ROOT file.")  # fmt: skip
EXAMPLES = """\
  pnetviz multiclass --results-dir results --channel Run1E2Mu --signal MHc130_MA90 --fold all
  pnetviz multiclass --predictions trees/model.root --classes signal,nonprompt,diboson,ttX --output plots/mc"""


def parse_classes(text: str | None) -> tuple[str, ...] | None:
    """`--classes a,b,c` -> ('a', 'b', 'c'); InputError unless two or more distinct non-empty names."""
    if text is None:
        return None
    classes = tuple(c.strip() for c in text.split(","))
    if len(classes) < 2 or len(set(classes)) != len(classes) or not all(classes):
        raise InputError(f"--classes {text!r}: give at least two distinct, non-empty names, signal first.")
    from pnetviz.io.layout import check_name  # noqa: PLC0415

    for name in classes:  # class names are parts of output file names
        check_name(name, "class", f"--classes {text!r}", "give the score_<class> branch names.")
    return classes


def parser(prog: str | None = None):
    return common.evaluation_parser("multiclass", prog, DESCRIPTION, EXAMPLES)


def make_job(args):  # args: the run's request (requests.evaluation)
    """The job factory of `pnetviz multiclass` (driver.FoldJob's fields -> MultiClassJob)."""
    from pnetviz.jobs import multiclass  # noqa: PLC0415 - keeps --help free of ROOT start-up

    return functools.partial(multiclass.MultiClassJob, classes=parse_classes(args.classes), fit_score=args.fit_score,
                             score=args.score)


def what(job) -> tuple[list[str], str]:
    """The fold summary's context line and title head (common.evaluate_folds)."""
    return job.context("multi-class")[:2], f"{job.signal} multi-class"


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = common.evaluation_request("multiclass", parser(prog).parse_args(argv))  # the command line, once
    from pnetviz.jobs import multiclass  # noqa: PLC0415 - keeps --help free of ROOT start-up

    return common.evaluate_folds("multiclass", args, argv, make_job(args), multiclass.run, what)
