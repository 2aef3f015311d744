#!/usr/bin/env python3
"""Write the shipped demo results tree (the trainer's layout, toy physics).

The same as `pnetviz demo` (options and outputs identical; `--help` lists them). Needs pnetviz
installed (`pip install .` or `./run.sh`); kept under the name the analysis and its spec use.
"""

import sys

from pnetviz.cli.commands import run_command

if __name__ == "__main__":
    sys.exit(run_command("demo", sys.argv[1:], prog="makeDemo.py"))
