#!/usr/bin/env python3
"""Evaluate every model of a results directory on Dask, then the round's summary.

The same as `pnetviz campaign` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import run_command

if __name__ == "__main__":
    sys.exit(run_command("campaign", sys.argv[1:], prog="visualizeCampaign.py"))
