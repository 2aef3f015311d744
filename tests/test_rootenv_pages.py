"""rootenv: cling's module files' pages dropped from the resident set, ROOT working as before."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pnetviz.rootenv import release_module_pages, root


def module_mappings() -> list[tuple[int, int]]:
    """(mapped bytes, resident bytes) of each read-only mapping of a `*.pcm` file in this process."""
    out, current = [], None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:  # a mapping's header: address perms offset dev inode [path]
            low, high = (int(x, 16) for x in fields[0].split("-"))
            current = [high - low, 0] if fields[1] == "r--p" and fields[-1].endswith(".pcm") else None
            if current is not None:
                out.append(current)
        elif current is not None and fields[0] == "Rss:":
            current[1] = int(fields[1]) * 1024
    return [tuple(m) for m in out]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps and madvise: Linux")
def test_module_pages_are_released_and_cling_still_works():
    ROOT = root()
    mapped = module_mappings()
    assert mapped, "cling maps its C++ module files (*.pcm)"
    ROOT.gInterpreter.Declare("namespace pnetviz_pages { int twice(int x) { return 2 * x; } }")
    assert ROOT.pnetviz_pages.twice(21) == 42  # reading declarations brings some pages back
    released = release_module_pages()
    assert released == sum(size for size, _ in module_mappings())
    resident = sum(rss for _, rss in module_mappings())
    assert resident < 0.05 * released
    # everything still reads from the files: a new declaration, a call, a histogram, a class looked up
    ROOT.gInterpreter.Declare("namespace pnetviz_pages { double half(double x) { return x / 2; } }")
    assert ROOT.pnetviz_pages.half(3.0) == 1.5 and ROOT.pnetviz_pages.twice(4) == 8
    hist = ROOT.TH1D("pnetviz_pages_h", "", 4, 0.0, 1.0)
    hist.Fill(0.3, 2.0)
    assert hist.GetBinContent(2) == 2.0 and ROOT.TGraph(3).GetN() == 3
