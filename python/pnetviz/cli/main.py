"""The `pnetviz` console command (and `python -m pnetviz`): one subcommand per task."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence

from pnetviz import __version__
from pnetviz.cli.commands import COMMANDS, alone, run_command

EXAMPLES = """\
examples:
  pnetviz demo --output results                         # a toy results tree in the trainer's layout
  pnetviz campaign --results-dir results --syst all     # every model, on all cores; summary in plots/campaign/
  pnetviz binary --results-dir results --channel Run1E2Mu --signal MHc130_MA90 --background nonprompt --fold all
  pnetviz binary --help                                 # every option of one subcommand, in groups

Exit codes: 0 done, 2 a user mistake (one line naming the file or option and the fix; nothing
published), 1 an internal error. The user guide: docs/README.md (inputs, output tree, campaigns and batch systems)."""


@functools.cache  # built once a process (~2 ms): only parsed with and printed, never changed
def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="pnetviz", formatter_class=argparse.RawDescriptionHelpFormatter,
                                  description="ROOT-native evaluation and plotting of HEP event classifiers, in CMS style.",
                                  epilog=EXAMPLES)  # fmt: skip
    top.add_argument("--version", action="version", version=f"pnetviz {__version__}")
    sub = top.add_subparsers(title="subcommands", dest="command", metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch `pnetviz <command> ...` to the subcommand, which parses the rest."""
    argv = list(sys.argv[1:] if argv is None else argv)
    top = parser()
    if not argv or argv[0] not in COMMANDS:
        if not argv:
            top.print_help(sys.stderr)
            return 2
        top.parse_args(argv[:1])  # --help, --version, or a usage error naming the choices (exit 2)
        return 2
    alone(argv[0])  # before anything starts ROOT: cling's level and malloc's policy for this whole process
    return run_command(argv[0], argv[1:])
