"""`python -m pnetviz ...`: the same as the `pnetviz` command."""

import sys

from pnetviz.cli.main import main

sys.exit(main())
