"""CMakeLists.txt: find_package(ROOT) through the wheel, compiled core == cling core (a check:
pnetviz itself loads no CMake-built library), and ctest's tests: one per folder of tests/, each
a pytest run of its own temporary directory (so `ctest -j2` runs them side by side)."""

from __future__ import annotations

import ctypes
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pnetviz.metrics.roc import binary_clf_curve

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # configures and compiles with CMake


# -DPNETVIZ_PYTEST_ARGS: every registered test runs the fast tier, narrowed here to the tests of
# tests/test_escape.py: the ctest run below proves that a registered test runs pytest and passes,
# not the suite a second time (this pytest run is the suite)
FAST = ["-m", "not slow", "-k", "test_escape"]


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    build = tmp_path_factory.mktemp("build")
    bindir = Path(sys.executable).parent
    cmake = shutil.which("cmake", path=str(bindir)) or shutil.which("cmake")
    assert cmake, "cmake is in the test extra; ./run.sh test installs it"
    gen = ["-G", "Ninja"] if shutil.which("ninja", path=str(bindir)) else []
    env_path = f"{bindir}:{Path(cmake).parent}"
    subprocess.run([cmake, "-S", str(REPO), "-B", str(build), *gen, f"-DPython3_EXECUTABLE={sys.executable}",
                    f"-DPNETVIZ_PYTEST_ARGS={';'.join(FAST)}"], check=True, capture_output=True, env={"PATH": env_path + ":/usr/bin:/bin"})  # fmt: skip
    subprocess.run([cmake, "--build", str(build)], check=True, capture_output=True,
                   env={"PATH": env_path + ":/usr/bin:/bin"})  # fmt: skip
    ctest = subprocess.run([Path(cmake).parent / "ctest", "--test-dir", str(build), "--show-only=json-v1"],
                           check=True, capture_output=True, text=True)  # fmt: skip
    return build, json.loads(ctest.stdout)["tests"], Path(cmake).parent / "ctest"


@pytest.fixture(scope="module")
def library(build):
    return ctypes.CDLL(str(build[0] / "libpnetviz_roc.so"))


def test_ctest_runs_each_test_folder_apart_and_every_test_file_once(build):
    tests = build[1]
    folders = sorted(d.name for d in (REPO / "tests").iterdir() if d.is_dir() and list(d.rglob("test_*.py")))
    assert len(folders) >= 8
    assert [t["name"] for t in tests] == [f"tests/{d}" for d in folders] + ["tests/top-level"]
    covered, basetemps = [], set()
    for test in tests:
        command = test["command"]
        assert command[:4] == [sys.executable, "-m", "pytest", "-q"] and command[5:10] == ["no:cacheprovider", *FAST]
        basetemp = next(arg for arg in command if arg.startswith("--basetemp="))
        basetemps.add(basetemp)
        assert Path(basetemp.split("=", 1)[1]).parent == build[0]  # pytest makes it, not its parents
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        assert Path(properties["WORKING_DIRECTORY"]) == REPO and "RUN_SERIAL" not in properties
        assert properties["SKIP_RETURN_CODE"] == 5  # a folder whose tests are all deselected is skipped, not failed
        for arg in command[command.index(basetemp) + 1:]:
            path = REPO / arg
            covered += sorted(path.rglob("test_*.py")) if path.is_dir() else [path]
    assert len(basetemps) == len(tests)  # no two pytest runs share (and wipe) a temporary directory
    assert sorted(covered) == sorted((REPO / "tests").rglob("test_*.py"))  # each file in exactly one test


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


def test_ctest_runs_the_top_level_test_files(build):
    """One registered test run by ctest (the top-level test files with the -DPNETVIZ_PYTEST_ARGS
    filter: the tests of test_escape.py): it passes, and pytest ran those tests and left out the rest."""
    done = subprocess.run([build[2], "--test-dir", str(build[0]), "-R", "^tests/top-level$", "--verbose"],
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1/1 Test #" in done.stdout and "tests/top-level" in done.stdout and "Passed" in done.stdout
    ran = re.search(r"(\d+) passed, (\d+) deselected", done.stdout)
    assert ran, done.stdout[-3000:]
    escape_tests = (REPO / "tests" / "test_escape.py").read_text().count("\ndef test_")
    assert int(ran[1]) >= escape_tests > 0 and int(ran[2]) > 0
