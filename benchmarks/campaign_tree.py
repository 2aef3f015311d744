"""Shared by the campaign benchmarks (bench_campaign.py, bench_images.py): the trainer-faithful
tree they run on (2 channels x 3 signal points x 5 folds x 4 models, 3000 events each), the
command of each evaluation run as its own process, a wall-clock timer, and the work directory."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHANNELS = ("Run1E2Mu", "Run3Mu")
SIGNALS = ("MHc100_MA95", "MHc130_MA90", "MHc160_MA85")
FOLDS = range(5)
EVENTS = 3000


def make_tree(base: Path) -> None:
    from pnetviz.demo.trainertree import write_trainer_fold

    for channel in CHANNELS:
        for signal in SIGNALS:
            for fold in FOLDS:
                write_trainer_fold(base, channel, signal, fold, events=EVENTS)


def commands(base: Path, out: Path, channels, signals, folds) -> list[str]:
    """One shell command per model-fold evaluation (3 binary models and the multi-class one)."""
    py, scripts = sys.executable, REPO / "python"
    cmds = []
    for channel in channels:
        for signal in signals:
            for fold in folds:
                common = f"--results-dir {base} --channel {channel} --signal {signal} --fold {fold} --plots-dir {out} -q"
                for bkg in ("nonprompt", "diboson", "ttZ"):
                    cmds.append(f"{py} {scripts / 'visualizeBinary.py'} {common} --background {bkg}")
                cmds.append(f"{py} {scripts / 'visualizeMultiClass.py'} {common}")
    return cmds


def timed(cmd: list[str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, text=True, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def parser(doc: str) -> argparse.ArgumentParser:
    """A benchmark's command line (its docstring's first paragraph as description), with --keep."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="work directory to keep (default: a temporary one)")
    return parser


def work_tree(keep: Path | None, prefix: str) -> tuple[Path, Path]:
    """(work directory, results tree in it), the tree generated unless it is there already."""
    work = keep or Path(tempfile.mkdtemp(prefix=prefix))
    base = work / "results"
    if not base.exists():
        make_tree(base)
    return work, base
