"""pnetviz as an installed package: the wheel's contents run from outside the checkout, the
console command and `python -m pnetviz`, and one line (exit 2) without PyROOT."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import REPO, contract_columns, write_ntuple

pytestmark = pytest.mark.slow  # a wheel built and run in subprocesses

# A meta-path finder that makes `import ROOT` fail, as in an environment without PyROOT.
NO_ROOT = ("import sys\n"
           "class NoROOT:\n"
           "    def find_spec(self, name, path=None, target=None):\n"
           "        if name.split('.')[0] in ('ROOT', 'cppyy'):\n"
           "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
           "sys.meta_path.insert(0, NoROOT())\n")  # fmt: skip


@pytest.fixture(scope="module")
def wheel_site(tmp_path_factory) -> Path:
    """The package as `pip install .` would install it: the wheel built from the checkout, unpacked."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
                   check=True, capture_output=True)  # fmt: skip
    site = out / "site"
    with zipfile.ZipFile(next(out.glob("pnetviz-*.whl"))) as whl:
        whl.extractall(site)
    return site


def test_wheel_holds_the_kernels_and_the_entry_point(wheel_site):
    assert {p.name for p in (wheel_site / "pnetviz" / "macros").iterdir()} >= {
        "weighted_roc.h", "column_reader.h", "class_tables.h", "error_guard.h", "weighted_roc.cxx"}  # fmt: skip
    entry = next(wheel_site.glob("pnetviz-*.dist-info")) / "entry_points.txt"
    assert "pnetviz = pnetviz.cli.main:main" in entry.read_text()
    metadata = next(wheel_site.glob("pnetviz-*.dist-info")) / "METADATA"
    requires = [line for line in metadata.read_text().splitlines() if line.startswith("Requires-Dist:")]
    plain = [r for r in requires if "extra ==" not in r]
    assert not any(r.split()[1].lower().startswith("root") for r in plain)  # ROOT only through the extra
    assert any(r.startswith("Requires-Dist: ROOT") and 'extra == "root"' in r for r in requires)


def test_installed_package_gives_sklearns_auc_from_anywhere(wheel_site, tmp_path):
    cols = contract_columns(n=2000, n_classes=2)
    path = write_ntuple(tmp_path / "toy.root", cols)
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(wheel_site)}
    where = subprocess.run([sys.executable, "-c", "import pnetviz, pnetviz.rootenv as r; print(pnetviz.__file__); print(r.MACRO_DIR)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    assert all(Path(p).is_relative_to(wheel_site) for p in where)  # not the checkout
    proc = subprocess.run([sys.executable, "-m", "pnetviz", "binary", "--predictions", str(path), "--output", "out",
                           "--formats", "png", "--bootstrap", "0", "-q"], cwd=work, env=env, capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads((work / "out" / "summary_report.json").read_text())
    test = cols["test_mask"]
    w = np.abs(cols["weight"][test])
    expected = roc_auc_score(cols["true_label"][test] == 0, cols["score_signal"][test], sample_weight=w)
    assert report["auc"]["test"] == pytest.approx(expected, abs=1e-9)


READ = ("import sys, numpy as np\n"
        "from pnetviz.io import native\n"
        "from pnetviz.io.ntuple import read_columns\n"
        "data = read_columns(sys.argv[1], 'Events', {'score_signal': 'Float_t', 'true_label': 'Int_t'}, int(sys.argv[2]))\n"
        "print(native._native() is not None, float(data['score_signal'].sum()), int(data['true_label'].sum()))\n")  # fmt: skip


def test_installed_reader_builds_its_library_in_the_cache_only(wheel_site, tmp_path):
    if shutil.which(os.environ.get("CXX") or "c++") is None:
        pytest.skip("no C++ compiler: the reader's library cannot be built, cling reads")
    cols = contract_columns(n=3000, n_classes=2)
    path = write_ntuple(tmp_path / "toy.root", cols)
    installed = sorted(p for p in wheel_site.rglob("*"))
    expected = [str(float(cols["score_signal"].astype(np.float32).sum(dtype=np.float32))), str(int(cols["true_label"].sum()))]
    runs = {}
    for name, cache in (("library", tmp_path / "cache"), ("cling", path)):  # a file as the cache: no library
        env = {**os.environ, "PYTHONPATH": str(wheel_site), "PNETVIZ_CACHE": str(cache)}
        out = subprocess.run([sys.executable, "-c", READ, str(path), "3000"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, check=True).stdout.split()  # fmt: skip
        runs[name] = out
    assert runs["library"][0] == "True" and runs["cling"][0] == "False"
    assert runs["library"][1:] == runs["cling"][1:] and runs["library"][2] == expected[1]
    assert float(runs["library"][1]) == pytest.approx(float(expected[0]), rel=1e-6)
    assert len(list((tmp_path / "cache").glob("reader-*.so"))) == 1
    assert sorted(p for p in wheel_site.rglob("*")) == installed  # nothing written into the installed package


def test_console_command_lists_subcommands_and_grouped_options():
    exe = Path(sys.executable).parent / "pnetviz"
    if not exe.exists():
        pytest.skip(f"no console command beside {sys.executable} (pnetviz not pip-installed in this environment)")
    top = subprocess.run([str(exe), "--help"], capture_output=True, text=True, check=True).stdout
    for command in ("binary", "multiclass", "compare", "campaign", "demo"):
        assert f"    {command}" in top
    sub = subprocess.run([sys.executable, "-m", "pnetviz", "compare", "--help"], capture_output=True, text=True, check=True).stdout
    for group in ("inputs (", "outputs (", "physics (", "style (", "execution"):
        assert group in sub
    assert "examples:" in sub and "--subset" in sub and "--hull" in sub and "--signal-scale" in sub


def test_without_pyroot_one_line_and_exit_2(tmp_path):
    path = write_ntuple(tmp_path / "toy.root", contract_columns(n=300, n_classes=2))
    code = NO_ROOT + ("from pnetviz.cli.main import main\n"
                      f"sys.exit(main(['binary', '--predictions', {str(path)!r}, '--output', {str(tmp_path / 'o')!r}]))\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "PyROOT cannot be imported" in proc.stderr and "pnetviz[root]" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_named_scripts_need_no_path_edits():
    for script in ("visualizeBinary", "visualizeMultiClass", "visualizeComparison", "visualizeCampaign", "visualizeGA", "makeDemo"):
        text = (REPO / "python" / f"{script}.py").read_text()
        assert "sys.path" not in text and "PYTHONPATH" not in text
        proc = subprocess.run([sys.executable, str(REPO / "python" / f"{script}.py"), "--help"], capture_output=True,
                              text=True, cwd=shutil.os.path.expanduser("~"))  # fmt: skip
        assert proc.returncode == 0 and f"usage: {script}.py" in proc.stdout
