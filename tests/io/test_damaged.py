"""Damaged ntuples (issue 22, item 3): the structural check, the guarded child, and the
byte-flip corpus of tests/data/damaged/ through the command line (one line, exit 2, no
traceback, bounded time)."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, contract_columns, write_ntuple
from pnetviz.errors import InputError, PnetvizWarning
from pnetviz.io import guard, ntuple, structure
from pnetviz.io.ntuple import branch_types, read_columns, read_predictions
from pnetviz.rootenv import root

CORPUS = REPO / "tests" / "data" / "damaged"
BINARY = {"classes": ("signal", "nonprompt"), "score_classes": ("signal",), "binary": True}
EXPECTED = {  # corpus file -> what the one error line says
    "keyname_traceback.root": r"not a readable ROOT file \(damaged: the key '.vents': the keys list and the record",
    "streamerinfo_length_error.root": r"damaged: the StreamerInfo record at byte \d+ \(-\d+ bytes\) lies outside",
    "keyslist_heap_corruption.root": r"damaged: the key 'Events' \(byte \d+, \d+ bytes\) runs past the end of the data",
    "basket_version_segv.root": r"damaged: basket 0 of branch 'score_signal' \(byte \d+\): its header is damaged",
    "basket_title_bad_array.root": r"damaged: basket 0 of branch 'weight' \(byte \d+\): its header is damaged",
    "uncompressed_tree_segv.root": r"ROOT crashed reading it \(SIGSEGV\): the file is damaged\. Fix: re-create it",
}


def _cli(path: Path, out: Path) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pnetviz", "binary", "--predictions", str(path), "--output", str(out),
                           "-q"], capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    return proc, time.monotonic() - start


@pytest.mark.slow
def test_corpus_through_the_command_line(tmp_path):
    """Every damaged file: exit 2, exactly one `pnetviz: error:` line naming it, no traceback, no
    ROOT crash dump, nothing published, within 60 s (two at a time: the whole corpus in ~10 s)."""
    assert sorted(p.name for p in CORPUS.glob("*.root")) == sorted(EXPECTED)
    with ThreadPoolExecutor(2) as pool:
        runs = dict(zip(EXPECTED, pool.map(lambda n: _cli(CORPUS / n, tmp_path / n), EXPECTED)))
    for name, (proc, seconds) in runs.items():
        lines = proc.stderr.splitlines()
        errors = [line for line in lines if line.startswith("pnetviz: error:")]
        assert proc.returncode == 2, (name, proc.returncode, proc.stderr[-2000:])
        assert len(errors) == 1 and str(CORPUS / name) in errors[0], (name, proc.stderr[-2000:])
        assert re.search(EXPECTED[name], errors[0]), (name, errors[0])
        assert "Traceback" not in proc.stderr and "*** Break ***" not in proc.stderr, (name, proc.stderr[-2000:])
        assert lines == errors, (name, lines)  # nothing else: no ROOT messages, no glibc "malloc(): ..."
        assert seconds < 60 and not (tmp_path / name / "summary_report.json").exists()


@pytest.mark.parametrize("name", [n for n in EXPECTED if n != "uncompressed_tree_segv.root"])
def test_corpus_is_caught_before_root_reads_it(name, monkeypatch):
    """The compressed corpus files are refused by the structural checks in-process: no child."""
    monkeypatch.setattr(guard, "run", lambda *a, **k: pytest.fail("the guarded child was started"))
    with pytest.raises(InputError, match=EXPECTED[name]):
        read_predictions(CORPUS / name, **BINARY)


def test_healthy_file_is_verified_and_read_in_process(ntuple_factory, monkeypatch):
    path = ntuple_factory(n=400)
    check = ntuple.check_structure(path, "Events")
    assert check.verified and check.unverified == "" and check.tree.class_name == "TTree"
    assert check.size == path.stat().st_size and check.keys == (("Events", "TTree"),)
    monkeypatch.setattr(guard, "run", lambda *a, **k: pytest.fail("the guarded child was started"))
    assert read_predictions(path).n_events == 400


def _snapshot(path: Path, cols: dict, algorithm: int, level: int, tree: str = "Events") -> Path:
    opts = root().RDF.RSnapshotOptions()
    opts.fCompressionAlgorithm, opts.fCompressionLevel = algorithm, level
    root().RDF.FromNumpy({k: np.ascontiguousarray(v) for k, v in cols.items()}).Snapshot(tree, str(path), "", opts)
    return path


@pytest.mark.slow
def test_unverifiable_file_is_read_in_the_guarded_child_with_the_same_values(tmp_path):
    """Uncompressed (no checksum): types and columns come from the child, equal to the in-process
    read of the same columns written with zlib; the score block is one matrix again."""
    cols = contract_columns(n=300)
    raw = _snapshot(tmp_path / "raw.root", cols, 1, 0)
    zlib = _snapshot(tmp_path / "zlib.root", cols, 1, 1)
    check = ntuple.check_structure(raw, "Events")
    assert not check.verified and "stored uncompressed" in check.unverified
    assert ntuple.check_structure(zlib, "Events").verified
    assert branch_types(raw, "Events") == branch_types(zlib, "Events")
    child, here = read_predictions(raw), read_predictions(zlib)
    for c in child.classes:
        assert np.array_equal(child.scores[c], here.scores[c])
    assert np.array_equal(child.label, here.label) and np.array_equal(child.weight, here.weight)
    rows = [child.scores[c] for c in child.classes]
    assert rows[0].base is rows[1].base and rows[0].base.shape == (4, 300)


def test_zstd_without_checksum_is_not_verified(tmp_path):
    path = _snapshot(tmp_path / "zstd.root", contract_columns(n=50), 5, 5)
    check = structure.check_file(path, "Events")
    assert not check.verified and "zstd without a checksum" in check.unverified


@pytest.mark.parametrize("algorithm", [1, 2, 4])  # zlib, lzma, lz4: every record has a checksum
def test_checksummed_algorithms_are_verified(tmp_path, algorithm):
    assert structure.check_file(_snapshot(tmp_path / "c.root", contract_columns(n=50), algorithm, 5), "Events").verified


def test_tree_in_a_directory_and_cycles(tmp_path):
    path = tmp_path / "dir.root"
    root().gInterpreter.ProcessLine(
        f'{{ TFile f("{path}", "RECREATE"); auto d = f.mkdir("sub"); d->cd(); TTree t("Events", ""); float x;'
        ' t.Branch("x", &x, "x/F"); for (int i = 0; i < 1000; ++i) { x = i; t.Fill(); if (i == 500) t.AutoSave(); }'
        ' t.Write(); }'
    )  # fmt: skip
    latest, first = structure.check_file(path, "sub/Events"), structure.check_file(path, "sub/Events;1")
    assert latest.verified and latest.tree.cycle == 2 and first.tree.cycle == 1 and latest.tree.seek != first.tree.seek
    assert read_columns(path, "sub/Events", {"x": "Float_t"}, 1000)["x"][-1] == 999.0
    with pytest.raises(InputError, match=r"no TTree named 'Events'; the file holds: sub \(TDirectory\)"):
        branch_types(path, "Events")


def test_truncated_and_foreign_files(tmp_path, ntuple_factory):
    good = ntuple_factory().read_bytes()
    cut = tmp_path / "cut.root"
    cut.write_bytes(good[: len(good) - 100])
    expected = rf"the header says it ends at byte {len(good)} but it has {len(good) - 100} bytes: truncated"
    with pytest.raises(InputError, match=rf"cut\.root: not a readable ROOT file \(damaged: {expected}"):
        read_predictions(cut)
    text = tmp_path / "notes.root"
    text.write_text("hello")
    with pytest.raises(InputError, match=r"notes\.root: not a readable ROOT file \(it does not start with 'root'"):
        read_predictions(text)
    with pytest.raises(InputError, match=r"a directory, not a ROOT file"):
        read_predictions(tmp_path)


def test_permission_denied_is_not_called_corrupt(ntuple_factory, monkeypatch):
    path = ntuple_factory()
    real_open = os.open

    def denied(name, *args, **kwargs):
        if os.fspath(name) == str(path):
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(structure.os, "open", denied)
    with pytest.raises(InputError, match=r"pred0\.root: permission denied: pnetviz may not read this file\. Fix: make "
                                         r"it readable \(chmod u\+r\)") as err:  # fmt: skip
        read_predictions(path)
    assert "corrupt" not in str(err.value) and "damaged" not in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod-000 file")
def test_chmod_000_file(ntuple_factory):
    path = ntuple_factory()
    path.chmod(0)
    try:
        with pytest.raises(InputError, match="permission denied"):
            read_predictions(path)
    finally:
        path.chmod(0o644)


def test_basket_table_disagreeing_with_the_file(ntuple_factory):
    path = ntuple_factory(n=400)
    tables = ntuple._basket_tables(path, "Events", {"weight": 8, "true_label": 4}, 400)
    assert [t.name for t in tables] == ["weight", "true_label"] and tables[0].first[-1] == 400
    structure.check_baskets(path, tables)
    weight = tables[0]
    shifted = structure.BranchBaskets("weight", 8, [s + 1 for s in weight.seeks], weight.nbytes, weight.first, 400)
    with pytest.raises(structure.Damaged, match=r"basket 0 of branch 'weight'"):
        structure.check_baskets(path, [shifted])
    wrong_size = structure.BranchBaskets("weight", 4, weight.seeks, weight.nbytes, weight.first, 400)
    with pytest.raises(structure.Damaged, match=r"says 400 entries of 8 bytes .* the tree 400 entries of 4 bytes"):
        structure.check_baskets(path, [wrong_size])
    beyond = structure.BranchBaskets("weight", 8, [10**9], weight.nbytes, weight.first, 400)
    with pytest.raises(structure.Damaged, match=r"outside the file"):
        structure.check_baskets(path, [beyond])


@pytest.mark.slow
def test_guard_maps_a_crash_to_one_error():
    with pytest.raises(InputError, match=r"^x\.root: ROOT crashed reading it \(SIGSEGV\): the file is damaged\. Fix:"):
        guard.run(ctypes.string_at, 0, subject=Path("x.root"))


@pytest.mark.slow
def test_guard_stops_a_hang_at_its_timeout():
    start = time.monotonic()
    with pytest.raises(InputError, match=r"^x\.root: ROOT did not finish reading it within 2 s \(it hangs\)"):
        guard.run(time.sleep, 60, subject=Path("x.root"), timeout=2)
    assert time.monotonic() - start < 6


@pytest.mark.slow
def test_guard_bounds_the_childs_memory():
    with pytest.raises(InputError, match=r"^x\.root: ROOT failed reading it \(MemoryError"):
        guard.run(bytearray, 64 << 30, subject=Path("x.root"))


@pytest.mark.slow
def test_guard_returns_values_errors_and_warnings(tmp_path):
    assert guard.run(sorted, [3, 1, 2], subject=Path("x.root")) == [1, 2, 3]
    with pytest.raises(InputError, match=r"nope\.root: no such file"):
        guard.run(ntuple.check_structure, tmp_path / "nope.root", "Events", subject=tmp_path / "nope.root")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        guard.run(warnings.warn, "odd scores", PnetvizWarning, subject=Path("x.root"))
    assert [(str(w.message), w.category) for w in caught] == [("odd scores", PnetvizWarning)]


def test_guard_child_ignores_the_working_directory(tmp_path, monkeypatch):
    """`python -P`: a module in the working directory is not imported by the child."""
    (tmp_path / "numpy.py").write_text("raise SystemExit('imported from the working directory')\n")
    monkeypatch.chdir(tmp_path)
    assert guard.run(sorted, [2, 1], subject=Path("x.root")) == [1, 2]
    assert not list(tmp_path.glob("core*"))


@pytest.mark.slow
def test_corpus_regenerates_the_same_failures(tmp_path):
    """make_damaged.py re-creates every corpus file; the flips land on the same fields."""
    proc = subprocess.run([sys.executable, str(CORPUS.parent / "make_damaged.py"), str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    for name, pattern in EXPECTED.items():
        if name == "uncompressed_tree_segv.root":
            continue  # the guarded child: covered above
        with pytest.raises(InputError, match=pattern):
            read_predictions(tmp_path / name, **BINARY)
