#!/usr/bin/env python3
"""Evaluate a binary classifier (signal vs one background) per fold.

The same as `pnetviz binary` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import run_command, unoptimized

if __name__ == "__main__":
    unoptimized("binary")  # cling at level 0 for this process, as `pnetviz binary`
    sys.exit(run_command("binary", sys.argv[1:], prog="visualizeBinary.py"))
