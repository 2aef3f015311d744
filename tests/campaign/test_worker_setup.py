"""campaign.execute.worker_setup: the start-up's objects frozen out of the garbage collector's
passes in a worker (gc.freeze), so that a full pass no longer walks ROOT's and cppyy's proxies."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import gc
from pnetviz.campaign.execute import worker_setup
before = gc.get_freeze_count()
worker_setup()
print(before, gc.get_freeze_count(), len(gc.get_objects()))
"""


def test_worker_setup_freezes_the_start_up_objects():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=dict(os.environ))
    before, frozen, tracked = map(int, done.stdout.split()[-3:])
    assert before == 0 and frozen > 20_000  # ROOT's, cppyy's and the modules' objects
    assert tracked < frozen / 10  # what a full pass still walks right after the set-up
