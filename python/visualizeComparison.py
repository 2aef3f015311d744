#!/usr/bin/env python3
"""Compare binary models with the multi-class likelihood-ratio score per fold.

The same as `pnetviz compare` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import run_command, unoptimized

if __name__ == "__main__":
    unoptimized("compare")  # cling at level 0 for this process, as `pnetviz compare`
    sys.exit(run_command("compare", sys.argv[1:], prog="visualizeComparison.py"))
