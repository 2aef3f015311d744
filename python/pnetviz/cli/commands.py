"""The `pnetviz` subcommands: name -> module and one-line summary, and the runner that the
campaign hands to its workers (a subcommand's main with an argv, as exit code)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from pnetviz.cli import common

COMMANDS = {
    "binary": ("pnetviz.cli.binary", "evaluate a binary classifier (signal vs one background), per fold"),
    "multiclass": ("pnetviz.cli.multiclass", "evaluate a multi-class classifier (likelihood-ratio pairs), per fold"),
    "compare": ("pnetviz.cli.compare", "binary models vs the multi-class likelihood-ratio score, per fold"),
    "campaign": ("pnetviz.cli.campaign", "every model of a results directory on Dask, plus the round's summary"),
    "render": ("pnetviz.cli.render", "write the PNG/PDF a run left to stored canvases (the PDFs for a note)"),
    "ga": ("pnetviz.cli.ga", "evaluate a whole GA hyperparameter search (every iteration and model): the true best model"),
    "diff": ("pnetviz.cli.diff", "round B against round A: matched models, delta AUC with paired fold tests, Holm-adjusted"),
    "datamc": ("pnetviz.cli.datamc", "data against the stacked simulation of an analysis' samples: verdicts, systematics, blinding"),
    "demo": ("pnetviz.cli.demo", "write the shipped demo: a toy results tree in the trainer's layout"),
}


def main_of(command: str):
    """The `main(argv, prog)` of a subcommand."""
    return importlib.import_module(COMMANDS[command][0]).main


def parser_of(command: str, prog: str | None = None):
    """The ArgumentParser of a subcommand (for checking a command line without running it)."""
    return importlib.import_module(COMMANDS[command][0]).parser(prog or f"pnetviz {command}")


def run_command(command: str, argv: Sequence[str], prog: str | None = None) -> int:
    """`pnetviz <command> <argv>` in this process: exit code 0, 1 or 2, one line per error."""
    main = main_of(command)
    return common.run(lambda a: main(a, prog=prog or f"pnetviz {command}"), list(argv))
