"""cli.commands.keep_freed_memory: a command's freed memory is reused, not given back to the system and
faulted in again (issue 55: page faults cost ~3-5 us each in a virtual machine). Checked by the page
faults a process takes to fill a 64 MB array a second time, with and without the setting."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = """
import resource, sys
import numpy as np
from pnetviz.cli.commands import keep_freed_memory
print(keep_freed_memory() if sys.argv[1] == "keep" else "off")
a = np.ones(8 << 20)  # 64 MB
del a
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
b = np.ones(8 << 20)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> tuple[str, int]:
    env = os.environ | {"NUMPY_MADVISE_HUGEPAGE": "0"}  # 4 KB pages, as the commands have them (commands.small_pages)
    out = subprocess.run([sys.executable, "-c", CODE, mode], capture_output=True, text=True, check=True, env=env).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_freed_array_is_filled_again_without_page_faults() -> None:
    setting, kept = _faults("keep")
    _, given_back = _faults("off")
    assert setting == "True"
    assert given_back >= (64 << 20) // 4096 // 2  # mmap'ed and unmapped: every page faulted in again
    assert kept < 100  # the heap's freed block reused as it is
