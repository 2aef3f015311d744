"""The ntuple reader built once as a shared library (pnetviz.io.native) and its fallback to cling."""

from __future__ import annotations

import ctypes
import os
import shutil
import stat

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.errors import InputError
from pnetviz.io import native
from pnetviz.io.ntuple import branch_types, read_columns

# Without a C++ compiler the reader is cling's (the fallback every other reader test runs then)
pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CXX") or "c++") is None,
                                reason="no C++ compiler: the reader's library cannot be built, cling reads")

DTYPES = ("bool", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64")


@pytest.fixture
def use_cache(monkeypatch):
    """Point the library cache at `path` for this test (the entry point is looked up again)."""

    def point(path) -> None:
        monkeypatch.setenv("PNETVIZ_CACHE", str(path))
        native._native.cache_clear()

    yield point
    native._native.cache_clear()


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory):
    """A library cache where pnetviz.io.native built the reader once for the module's tests."""
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PNETVIZ_CACHE", str(cache))
        native._native.cache_clear()
        assert native._native() is not None  # built and loaded
    native._native.cache_clear()
    return cache


@pytest.fixture
def typed_file(tmp_path):
    rng = np.random.default_rng(11)
    cols = {f"x_{d}": (rng.random(5000) * 200 - 50).astype(d) for d in DTYPES}
    cols["x_int64"][:2] = [-(2**62) - 3, 2**62 + 5]
    cols["x_uint64"][:1] = [2**64 - 7]
    path = write_ntuple(tmp_path / "types.root", cols)
    types = branch_types(path, "Events")
    return path, cols, {k: types[k] for k in cols}


@pytest.mark.slow
def test_library_and_cling_read_the_same_values(tmp_path, use_cache, typed_file, built_cache):
    path, cols, types = typed_file
    cache = built_cache
    use_cache(cache)
    built = read_columns(path, "Events", types, 5000)
    assert native._native() is not None  # the library was built and loaded, not cling
    assert [p.suffix for p in cache.glob("reader-*.so")] == [".so"]
    use_cache(tmp_path / "types.root")  # a file where the directory would be: no library, cling
    assert native._native() is None
    jitted = read_columns(path, "Events", types, 5000)
    for name, values in cols.items():
        assert built[name].dtype == values.dtype and np.array_equal(built[name], values), name
        assert np.array_equal(jitted[name], values), name
    assert built["x_uint64"][0] == 2**64 - 7 and built["x_int64"][1] == 2**62 + 5


@pytest.mark.slow
def test_library_reader_reports_errors_as_cling_did(tmp_path, use_cache, typed_file, built_cache):
    path, _, types = typed_file
    use_cache(built_cache)
    pointers, sizes = np.zeros(1, np.uint64), np.array([4], np.int32)
    out = np.empty(10, np.float32)
    pointers[0] = out.ctypes.data
    error = native.read_columns(str(path), "Events", ["x_float64"], pointers, sizes, 10, 1, "", False)
    assert error == "branch 'x_float64' is not a flat scalar of the expected type"  # 8-byte leaf, 4-byte array
    assert native.read_columns(str(path), "Nope", ["x_float32"], pointers, sizes, 10, 1, "", False) == \
        "no TTree named 'Nope'"  # fmt: skip
    assert native.read_columns(str(path), "Events", ["x_float32"], pointers, sizes, 10, 1, "", False) == ""
    assert np.array_equal(out, typed_file[1]["x_float32"][:10])


def test_a_failed_build_is_recorded_and_not_retried(tmp_path, monkeypatch):
    calls = tmp_path / "calls"
    compiler = tmp_path / "cxx"
    compiler.write_text(f"#!/bin/sh\necho x >> {calls}\necho 'no such compiler feature' >&2\nexit 1\n")
    compiler.chmod(0o755)
    monkeypatch.setenv("CXX", str(compiler))
    cache = tmp_path / "cache"
    assert native.library(cache) is None
    assert native.library(cache) is None
    assert calls.read_text() == "x\n"  # built once, then the .failed record is trusted
    (failed,) = cache.glob("reader-*.failed")
    assert "no such compiler feature" in failed.read_text()
    assert not list(cache.glob("*.so")) and not list(cache.glob(".reader-*"))  # no half library left


def test_a_cache_others_may_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("CXX", "/bin/false")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert native.library(shared) is None
    assert not list(shared.iterdir())  # nothing built or recorded there
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if not os.access(readonly, os.W_OK):  # root ignores the mode
        assert native.library(readonly) is None


@pytest.mark.slow
def test_library_describes_the_tree_as_pyroot_does(tmp_path, use_cache, typed_file, monkeypatch, built_cache):
    """Branch types and basket tables from the one C call equal the PyROOT look-ups they replace."""
    from pnetviz.io import ntuple, treefile

    path, _, _ = typed_file
    use_cache(built_cache)
    info = native.describe(str(path), "Events")
    assert info is not None and info.entries == 5000
    assert info.branches["x_float64"].type_name == "Double_t" and info.branches["x_float64"].size == 8
    assert info.branches["x_bool"].flat and info.branches["x_bool"].first[0] == 0
    assert native.describe(str(path), "Nope") is None  # PyROOT's path then words the error
    assert treefile._described(path, "Events") == info  # what branch_types and _basket_tables use below
    sizes = {name: b.size for name, b in info.branches.items()}
    described = ntuple.branch_types(path, "Events"), ntuple._basket_tables(path, "Events", sizes, 5000)
    monkeypatch.setattr(treefile, "_described", lambda *_: None)  # the PyROOT look-ups
    assert described == (ntuple.branch_types(path, "Events"), ntuple._basket_tables(path, "Events", sizes, 5000))
    assert described[1] and all(t.first[-1] == 5000 for t in described[1])


@pytest.fixture(scope="module")
def compressed_files(tmp_path_factory):
    """The same columns written with zlib (ROOT's default), LZ4 and ZSTD; baskets of ~8000
    entries, so that three threads start and end inside baskets."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    n, rng = 200_003, np.random.default_rng(21)
    cols = {"f": rng.random(n).astype(np.float32), "d": rng.normal(size=n), "i": rng.integers(-5, 5, n).astype(np.int32),
            "b": rng.random(n) < 0.3, "s": rng.integers(0, 9, n).astype(np.int16)}  # fmt: skip
    data = {k: np.ascontiguousarray(v) for k, v in cols.items()}
    top, paths = tmp_path_factory.mktemp("compressed"), {}
    for name, setting in (("zlib", 101), ("lz4", 404), ("zstd", 505)):
        opts = ROOT.RDF.RSnapshotOptions()
        opts.fCompressionAlgorithm, opts.fCompressionLevel = setting // 100, setting % 100
        ROOT.RDF.FromNumpy(data).Snapshot("Events", str(top / f"{name}.root"), "", opts)
        paths[name] = top / f"{name}.root"
    return paths, cols


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 3])
def test_libdeflate_and_root_inflate_the_same_values(compressed_files, use_cache, built_cache, monkeypatch, threads):
    """zlib baskets inflated by libdeflate straight into the arrays (every basket: the strict
    mode refuses any other) equal ROOT's own reading and the written values; LZ4 and ZSTD baskets
    are not libdeflate's (strict: an error naming the branch) and ROOT reads them."""
    try:
        ctypes.CDLL("libdeflate.so.0")  # the system library the reader loads
    except OSError:
        pytest.skip("no libdeflate.so.0 on this machine: ROOT inflates every basket")
    paths, cols = compressed_files
    use_cache(built_cache)
    types = {k: branch_types(paths["zlib"], "Events")[k] for k in cols}
    n = len(cols["f"])
    got = {}
    for mode in ("libdeflate", "root", "auto"):
        monkeypatch.setenv("PNETVIZ_INFLATE", mode)
        got[mode] = read_columns(paths["zlib"], "Events", types, n, threads=threads)
        for name, values in cols.items():
            assert got[mode][name].dtype == values.dtype and np.array_equal(got[mode][name], values), (mode, name)
    for algorithm in ("lz4", "zstd"):
        monkeypatch.setenv("PNETVIZ_INFLATE", "libdeflate")
        with pytest.raises(InputError, match=r"branch '\w': entry \d+ not read by libdeflate"):
            read_columns(paths[algorithm], "Events", types, n, threads=threads)
        monkeypatch.setenv("PNETVIZ_INFLATE", "auto")
        read = read_columns(paths[algorithm], "Events", types, n, threads=threads)
        assert all(np.array_equal(read[name], values) for name, values in cols.items()), algorithm


@pytest.mark.slow
def test_a_damaged_zlib_basket_is_the_same_read_error_both_ways(compressed_files, use_cache, built_cache, tmp_path,
                                                                monkeypatch):  # fmt: skip
    """A flipped byte inside a zlib stream (headers intact: the structural checks pass) fails
    zlib's checksum in libdeflate as in ROOT: one InputError 'damaged: read error at entry E' (the
    basket's first entry) either way."""
    from pnetviz.io import treefile  # noqa: PLC0415

    paths, cols = compressed_files
    use_cache(built_cache)
    info = treefile._described(paths["zlib"], "Events")
    branch = info.branches["d"]
    data = bytearray(paths["zlib"].read_bytes())
    seek, nbytes = branch.seeks[3], branch.nbytes[3]
    data[seek + nbytes - 40] ^= 0x55  # inside the deflate stream of basket 3 (its last bytes: data, then adler32)
    damaged = tmp_path / "damaged.root"
    damaged.write_bytes(bytes(data))
    messages = []
    for mode in ("auto", "root"):
        monkeypatch.setenv("PNETVIZ_INFLATE", mode)
        with pytest.raises(InputError, match=r"damaged: read error at entry \d+") as err:
            read_columns(damaged, "Events", {"d": "Double_t"}, len(cols["d"]), threads=1)
        messages.append(str(err.value))
    first = f"damaged: read error at entry {branch.first[3]}"  # ROOT's path adds the errors ROOT printed
    assert all(first in m for m in messages) and messages[0].split(first)[0] == messages[1].split(first)[0]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_class_sums_equal_bincount(dtype, use_cache, built_cache):
    """Events and sum of |w| per class in one pass equal numpy's bincount (bit for bit: the same
    order of additions); labels outside [0, n_classes) are counted apart, not summed."""
    use_cache(built_cache)
    rng = np.random.default_rng(8)
    labels = rng.integers(0, 4, 10_001).astype(dtype)
    weights = rng.normal(0.3, 1.0, labels.size)
    counts, sums, outside = native.class_sums(labels, weights, 4)
    assert outside == 0 and counts.tolist() == np.bincount(labels.astype(np.intp), minlength=4).tolist()
    assert sums.tolist() == np.bincount(labels.astype(np.intp), weights=np.abs(weights), minlength=4).tolist()
    labels[[5, 70]] = [3, 200] if np.dtype(dtype).kind == "u" or np.dtype(dtype).itemsize > 1 else [3, 100]
    if np.dtype(dtype).kind == "i":
        labels[9] = -1
    counts, sums, outside = native.class_sums(labels, weights, 4)
    kept = (labels >= 0) & (labels < 4)
    assert outside == int((~kept).sum()) == (2 if np.dtype(dtype).kind == "i" else 1)
    assert counts.tolist() == np.bincount(labels[kept].astype(np.intp), minlength=4).tolist()
    assert np.allclose(sums, np.bincount(labels[kept].astype(np.intp), weights=np.abs(weights[kept]), minlength=4), rtol=1e-12)
    assert native.class_sums(labels.astype(np.float32), weights, 4) is None  # not integers: numpy's path


@pytest.mark.slow
def test_validate_with_and_without_the_library_gives_the_same_errors(use_cache, built_cache, tmp_path, monkeypatch):
    """ntuple.validate: an empty class, zero total weight and labels outside the list are the same
    InputError through the library's class sums and through numpy's bincount."""
    from pnetviz.io.ntuple import Predictions, validate  # noqa: PLC0415

    def preds(label, weight):
        n = len(label)
        return Predictions(tmp_path / "p.root", ("signal", "bkg"), np.array(label, np.int32), {"signal": np.full(n, 0.5, np.float32)},
                           np.array(weight, float), {"train": np.ones(n, bool), "test": np.ones(n, bool)})  # fmt: skip

    cases = [(([0, 0, 0], [1.0, 1.0, 1.0]), r"class 'bkg' \(true_label == 1\) has no events"),
             (([0, 1, 1], [1.0, 0.0, 0.0]), "class 'bkg' has zero total weight"),
             (([0, 1, 5, -2], [1.0] * 4), "values -2, 5 outside the class list")]  # fmt: skip
    use_cache(built_cache)
    library, answers = native.class_sums, []
    for sums in (lambda *args: answers.append(library(*args)) or answers[-1], lambda *args: None):  # the library, numpy
        monkeypatch.setattr(native, "class_sums", sums)
        for (label, weight), message in cases:
            with pytest.raises(InputError, match=message):
                validate(preds(label, weight))
        validate(preds([0, 1, 1], [1.0, -2.0, 0.5]))  # valid: signed weights
    assert len(answers) == 4 and all(a is not None for a in answers)  # the library answered each time
    assert answers[-1][0].tolist() == [1, 2] and answers[-1][1].tolist() == [1.0, 2.5]


@pytest.mark.skipif(native._libc_trim() is None, reason="no glibc malloc_trim")
def test_trim_heap_returns_freed_heap_pages():
    """Freed chunks between live ones stay resident until the heap is trimmed (glibc keeps them for
    reuse); trim_heap gives their pages back."""
    def resident() -> int:
        return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    chunks = [bytearray(64 * 1024) for _ in range(2000)]  # 128 MiB in 64 KiB heap chunks, every page touched
    del chunks[::2]  # 64 MiB freed in holes between live chunks: not at the heap's top
    before = resident()
    native.trim_heap()
    assert before - resident() > 32 * 2**20
    assert all(len(c) == 64 * 1024 and not any(c[:16]) for c in chunks)  # the live chunks are untouched
