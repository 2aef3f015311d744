"""CMakeLists.txt: find_package(ROOT) through the wheel, compiled core == cling core."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pnetviz.metrics.roc import binary_clf_curve

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    build = tmp_path_factory.mktemp("build")
    bindir = Path(sys.executable).parent
    cmake = shutil.which("cmake", path=str(bindir)) or shutil.which("cmake")
    assert cmake, "cmake is in the test extra; ./run.sh test installs it"
    gen = ["-G", "Ninja"] if shutil.which("ninja", path=str(bindir)) else []
    env_path = f"{bindir}:{Path(cmake).parent}"
    subprocess.run([cmake, "-S", str(REPO), "-B", str(build), *gen, f"-DPython3_EXECUTABLE={sys.executable}"],
                   check=True, capture_output=True, env={"PATH": env_path + ":/usr/bin:/bin"})  # fmt: skip
    subprocess.run([cmake, "--build", str(build)], check=True, capture_output=True,
                   env={"PATH": env_path + ":/usr/bin:/bin"})  # fmt: skip
    ctest = subprocess.run([Path(cmake).parent / "ctest", "--test-dir", str(build), "-N"],
                           check=True, capture_output=True, text=True)  # fmt: skip
    assert "pytest" in ctest.stdout
    return ctypes.CDLL(str(build / "libpnetviz_roc.so"))


def test_compiled_library_links_root_and_matches_cling(library):
    assert library.pnetviz_root_version_code() >= (6 << 16) + (40 << 8)
    rng = np.random.default_rng(3)
    n = 10_000
    s = np.round(rng.random(n), 3).astype(np.float32)
    y = (rng.random(n) < 0.4).astype(np.uint8)
    w = rng.exponential(size=n)
    tps, fps, thr = (np.empty(n + 1) for _ in range(3))
    auc = np.empty(1)
    ptr = np.ctypeslib.as_ctypes
    fn = library.pnetviz_roc_curve_f32
    fn.restype = ctypes.c_size_t
    m = fn(ptr(s), ptr(w), ptr(y), ctypes.c_size_t(n), ptr(tps), ptr(fps), ptr(thr), ptr(auc))
    jit = binary_clf_curve(s, y, w)
    np.testing.assert_array_equal(tps[:m], jit.tps)
    np.testing.assert_array_equal(thr[:m], jit.thresholds)
    assert auc[0] == jit.auc
