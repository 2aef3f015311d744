#!/usr/bin/env python3
"""Evaluate a whole GA hyperparameter search (every iteration, every model) and name the true best model.

The same as `pnetviz ga` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept beside the analysis' other visualize scripts.
"""

import sys

from pnetviz.cli.commands import run_command

if __name__ == "__main__":
    sys.exit(run_command("ga", sys.argv[1:], prog="visualizeGA.py"))
