#!/usr/bin/env python3
"""Evaluate a multi-class classifier per fold (likelihood-ratio pairs).

The same as `pnetviz multiclass` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import alone, run_command

if __name__ == "__main__":
    alone("multiclass")  # cling at level 0 and malloc keeping freed memory for this process, as `pnetviz multiclass`
    sys.exit(run_command("multiclass", sys.argv[1:], prog="visualizeMultiClass.py"))
