"""output.rootkeys: the C++ walk of a staged ROOT file's keys names what the PyROOT walk it
replaced named (written out here): every key whose record ends beyond a given size, with its
directory path, sub-directories walked."""

from __future__ import annotations

from pnetviz.output import rootkeys
from pnetviz.rootenv import root


def reference(directory, size: int, prefix: str = "") -> list[str]:
    bad = []
    for key in directory.GetListOfKeys():
        name = f"{prefix}{key.GetName()}"
        if key.GetSeekKey() + key.GetNbytes() > size:
            bad.append(name)
        elif key.GetClassName() in ("TDirectoryFile", "TDirectory"):
            sub = key.ReadObj()
            bad += reference(sub, size, name + "/") if sub else [name]
    return bad


def test_keys_beyond_a_size_as_the_pyroot_walk(tmp_path):
    ROOT = root()
    path = tmp_path / "k.root"
    f = ROOT.TFile.Open(str(path), "RECREATE")
    for i in range(4):
        f.WriteTObject(ROOT.TNamed(f"top{i}", "x" * (200 * i)), f"top{i}")
    sub = f.mkdir("roc")
    deeper = sub.mkdir("t%3Bx \u00e9")
    for i in range(3):
        sub.WriteTObject(ROOT.TNamed(f"s{i}", "y" * 300), f"s{i}")
        deeper.WriteTObject(ROOT.TNamed(f"d{i}", "z" * 300), f"d{i}")
    f.Close()
    f = ROOT.TFile.Open(str(path), "READ")
    size = f.GetEND()
    try:
        assert rootkeys.unreadable_keys(f, size) == [] == reference(f, size)
        seen = set()
        for cut in range(0, size, 97):
            got = rootkeys.unreadable_keys(f, cut)
            assert got == reference(f, cut), cut
            seen.update(got)
        assert {"top3", "roc/s2", "roc/t%3Bx \u00e9/d1"} <= seen
    finally:
        f.Close()
