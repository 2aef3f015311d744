#!/usr/bin/env python3
"""Evaluate a binary classifier (signal vs one background) per fold.

The same as `pnetviz binary` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import alone, run_command

if __name__ == "__main__":
    alone("binary")  # cling at level 0 and malloc keeping freed memory for this process, as `pnetviz binary`
    sys.exit(run_command("binary", sys.argv[1:], prog="visualizeBinary.py"))
