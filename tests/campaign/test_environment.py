"""A campaign against a cluster that cannot run pnetviz stops before sending any job: one line,
exit 2 (instead of a traceback or one "deserialization" failure per job)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold

# A scheduler and one worker in one process where `import pnetviz` fails, as on a batch node
# whose Python lacks the package.
CLUSTER = """
import sys, time
class NoPnetviz:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'pnetviz':
            raise ModuleNotFoundError(f'No module named {name!r}', name=name)
sys.meta_path.insert(0, NoPnetviz())
from distributed import LocalCluster
cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol='tcp://', host='127.0.0.1', dashboard_address=None)
print(cluster.scheduler_address, flush=True)
time.sleep(300)
"""


@pytest.fixture
def foreign_scheduler():
    proc = subprocess.Popen([sys.executable, "-c", CLUSTER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("tcp://127.0.0.1:"), address
        yield address
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_scheduler_without_pnetviz_is_one_line(foreign_scheduler, tmp_path, capsys):
    results = tmp_path / "results"
    write_trainer_fold(results, "Run3Mu", "MHc130_MA90", 0, events=300)
    argv = ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--scheduler", foreign_scheduler,
            "--kinds", "binary", "-q"]  # fmt: skip
    start = time.monotonic()
    assert run(load_script("visualizeCampaign").main, argv) == 2
    assert time.monotonic() - start < 60
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "the scheduler" in err and "has no pnetviz" in err
    assert not (tmp_path / "plots").exists()  # no job ran, no summary was written
