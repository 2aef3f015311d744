#!/usr/bin/env python3
"""Compare binary models with the multi-class likelihood-ratio score per fold.

The same as `pnetviz compare` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import alone, run_command

if __name__ == "__main__":
    alone("compare")  # cling at level 0 and malloc keeping freed memory for this process, as `pnetviz compare`
    sys.exit(run_command("compare", sys.argv[1:], prog="visualizeComparison.py"))
