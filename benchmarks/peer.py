#!/usr/bin/env python3
"""pnetviz binary (or multiclass) vs the script a physicist would write instead (issue 55), side by side.

The peer pipeline (benchmarks/peer_pipeline.py, run in its own venv /work/venvs/peer, made here
if missing: uproot, scikit-learn, numpy, matplotlib, mplhep from the local index): uproot read of
the test split, scikit-learn roc_curve + roc_auc_score, numpy histograms, and the figures of ROC,
rejection and scores as PNG and PDF (mplhep's CMS style). pnetviz: `pnetviz binary` with default
options on the same ntuple (the demo's layout, its ttZ binary tree replaced by N events).
`--kind multiclass`: `pnetviz multiclass` with default options on the demo's grouped multi-class
model generated with N events (`pnetviz demo --events N`) against peer_multiclass.py (the binary
peer's three figures for each signal-background pair, on the likelihood-ratio score).

pnetviz's modules are byte-compiled first (`compileall`, as `pip install` does for the peer's
packages and a non-editable pnetviz): with PYTHONDONTWRITEBYTECODE set, an editable install would
otherwise compile ~110 modules from source in every process (~0.2 s).

Usage: python benchmarks/peer.py [--kind binary] [--sizes 1e5,1e6,1e7] [--repeat 3] [--peer-venv /work/venvs/peer]
Each command runs in a fresh process, pnetviz and the peer interleaved (the order alternating
per repetition); reported: CPU time (user+sys of the process and its children; the machine is
shared, wall time is not comparable) and peak RSS, the medians, and the median of the paired
CPU ratios. Prints a Markdown table for benchmarks/README.md. Data in benchmarks/data/ (ignored).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PNETVIZ = Path(sys.executable).parent / "pnetviz"
PEER_PACKAGES = ("uproot", "scikit-learn", "numpy", "matplotlib", "mplhep")
CHANNEL, SIGNAL, BACKGROUND = "Run3Mu", "MHc130_MA90", "ttZ"
MEASURE = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(u.ru_utime + u.ru_stime, u.ru_maxrss, r.returncode)\n"
)


def peer_python(venv: Path) -> Path:
    """The peer venv's python, the venv made first if missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True)
    return python


def measure(cmd: list[str]) -> tuple[float, float]:
    """(CPU seconds user+sys, peak RSS in MB) of `cmd` in a fresh child process."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *map(str, cmd)], capture_output=True, text=True, check=True)
    seconds, rss_kb, code = out.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed with exit code {code}")
    return float(seconds), int(rss_kb) / 1024


def write_tree(path: Path, n: int, seed: int = 55) -> None:
    """A binary ntuple of the trainer's layout with n events (signal is label 0, as the demo's)."""
    import ROOT  # noqa: PLC0415 - only when an ntuple is written

    rng = np.random.default_rng(seed)
    label = (rng.random(n) >= 0.42).astype(np.int32)
    p = np.where(label == 0, rng.beta(5, 2, n), rng.beta(2, 5, n)).astype(np.float32)
    split = rng.random(n)
    weight = (0.03 * rng.lognormal(0, 0.3, n)).astype(np.float32)
    columns = {"score_signal": p, "score_bg1": (1 - p).astype(np.float32), "true_label": label,
               "train_mask": split < 0.57, "valid_mask": (split >= 0.57) & (split < 0.8), "test_mask": split >= 0.8,
               "has_bjet": rng.random(n) < 0.6, "m_mumu": rng.normal(80, 15, n).astype(np.float32),
               "pt_lead": rng.exponential(40, n).astype(np.float32), "weight": weight,
               "weight__bkgShapeUp": (weight * np.where(label == 1, 1.1, 1.0)).astype(np.float32),
               "weight__bkgShapeDown": (weight * np.where(label == 1, 0.9, 1.0)).astype(np.float32)}  # fmt: skip
    scratch = path.with_suffix(".tmp.root")
    ROOT.RDF.FromNumpy(columns).Snapshot("Events", str(scratch))
    os.replace(scratch, path)


def dataset(n: int) -> tuple[Path, Path]:
    """(results directory, binary ntuple) with n events, made once in benchmarks/data/."""
    results = REPO / "benchmarks" / "data" / f"peer-{n:.0e}"
    trees = results / CHANNEL / "binary" / f"TTToHcToWAToMuMu-{SIGNAL}" / "fold-0" / "trees"
    if not trees.is_dir():
        subprocess.run([str(PNETVIZ), "demo", "--output", str(results), "--events", "1000", "--folds", "1",
                        "--signals", SIGNAL, "--channels", CHANNEL, "--no-ga"], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    tree = next(trees.glob(f"*-binary-{BACKGROUND}.root"))
    if not tree.with_suffix(".events").exists() or tree.with_suffix(".events").read_text() != str(n):
        write_tree(tree, n)
        tree.with_suffix(".events").write_text(str(n))
    return results, tree


def multiclass_dataset(n: int) -> tuple[Path, Path]:
    """(results directory, multi-class ntuple) of the demo generated with n events, made once."""
    results = REPO / "benchmarks" / "data" / f"peer-mc-{n:.0e}"
    trees = results / CHANNEL / "multiclass" / f"TTToHcToWAToMuMu-{SIGNAL}" / "fold-0" / "trees"
    if not trees.is_dir():
        subprocess.run([str(PNETVIZ), "demo", "--output", str(results), "--events", str(n), "--folds", "1",
                        "--signals", SIGNAL, "--channels", CHANNEL, "--no-ga", "--no-samples"], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    return results, next(trees.glob("*.root"))


def commands(kind: str, n: int, peer: Path, plots: Path) -> tuple[list, list]:
    """(pnetviz's command, the peer's command) for `kind` at n events."""
    if kind == "multiclass":
        results, tree = multiclass_dataset(n)
        ours = [PNETVIZ, "multiclass", "--results-dir", results, "--plots-dir", plots / "pnetviz", "--channel", CHANNEL,
                "--signal", SIGNAL, "--fold", "0", "--replace"]  # fmt: skip
        return ours, [peer, REPO / "benchmarks" / "peer_multiclass.py", tree, plots / "peer"]
    results, tree = dataset(n)
    ours = [PNETVIZ, "binary", "--results-dir", results, "--plots-dir", plots / "pnetviz", "--channel", CHANNEL,
            "--signal", SIGNAL, "--background", BACKGROUND, "--fold", "0", "--replace"]  # fmt: skip
    return ours, [peer, REPO / "benchmarks" / "peer_pipeline.py", tree, plots / "peer"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("binary", "multiclass"), default="binary")
    parser.add_argument("--sizes", default="1e5,1e6,1e7")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-venv", type=Path, default=Path("/work/venvs/peer"))
    args = parser.parse_args()
    peer = peer_python(args.peer_venv)
    import pnetviz  # noqa: PLC0415 - where this venv's pnetviz lives, to byte-compile it

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(pnetviz.__file__).parent)], check=True)
    cpu = next((line.split(":", 1)[1].strip() for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
                if line.startswith("Model name")), platform.processor())  # fmt: skip
    print(f"CPU: {cpu}, {os.cpu_count()} cores; load average at the start {os.getloadavg()[0]:.1f}\n")
    print(f"| events | pnetviz {args.kind} CPU | peer CPU | paired ratio | peak RSS pnetviz / peer |\n|---|---|---|---|---|")
    for size in args.sizes.split(","):
        n = int(float(size))
        plots = REPO / "benchmarks" / "data" / f"peer-plots-{args.kind}-{n:.0e}"
        ours_cmd, peer_cmd = commands(args.kind, n, peer, plots)
        ours, theirs = [], []
        for rep in range(args.repeat):
            pair = [(ours, ours_cmd), (theirs, peer_cmd)]
            for store, cmd in pair if rep % 2 == 0 else pair[::-1]:
                store.append(measure(cmd))
        a, b = np.array(ours), np.array(theirs)
        ratio = np.median(a[:, 0] / b[:, 0])
        print(f"| {n:.0e} | {np.median(a[:, 0]):.2f} s | {np.median(b[:, 0]):.2f} s | {ratio:.2f}x | "
              f"{np.median(a[:, 1]):.0f} / {np.median(b[:, 1]):.0f} MB |", flush=True)  # fmt: skip
        shutil.rmtree(plots, ignore_errors=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
