#!/usr/bin/env python3
"""The README's first image, docs/img/rejection-binary-vs-multiclass.png, made again from the demo
as its caption says: the README demo size (3000 events, five folds) for one signal point and
channel, `pnetviz compare --fold all`, the fold-mean rejection figure of the binary model and the
multi-class likelihood ratio against nonprompt (the comparison's folds/ set), written without
metadata at PNG's highest compression. Beside it a sidecar, rejection-binary-vs-multiclass.json:
the image's SHA-256 and the layout facts of the stored canvas it was drawn from (canvas size,
pads and margins, the lines of text above the main frame, the y title's size and offset);
tests/test_readme_image.py draws the same figure from a small demo and compares the facts, so a
change of layout that leaves the committed image stale fails a test.

  python benchmarks/readme_image.py --work /tmp/readme     # writes docs/img/ in this repository
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMAGE = REPO / "docs" / "img" / "rejection-binary-vs-multiclass.png"
SIDECAR = IMAGE.with_suffix(".json")
SIGNAL, CHANNEL, PAIR = "MHc160_MA85", "Run3Mu", "signal_vs_nonprompt"
CANVAS = f"{PAIR}_rejection_curve_folds"


def draw(work: Path, events: int, folds: int) -> Path:
    """A demo of one signal point and channel and its comparison over all folds; the folds/
    directory holding CANVAS (its plots.root and PNG)."""
    cli = [sys.executable, "-m", "pnetviz"]
    results, plots = work / "results", work / "plots"
    subprocess.run([*cli, "demo", "--output", str(results), "--events", str(events), "--folds", str(folds),
                    "--signals", SIGNAL, "--channels", CHANNEL, "--no-ga", "--no-samples"], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    subprocess.run([*cli, "compare", "--results-dir", str(results), "--channel", CHANNEL, "--signal", SIGNAL,
                    "--fold", "all", "--plots-dir", str(plots), "-q"], check=True)  # fmt: skip
    return next(p.parent for p in plots.rglob(f"folds/{CANVAS}.png"))


def layout_facts(root_file: Path, name: str = CANVAS) -> dict:
    """The layout of a stored canvas that does not depend on the data: its size, each pad's place
    and margins (NDC, 4 decimals), the lines of text above the main frame (distinct heights of the
    TLatex/TText primitives there: the CMS label's line alone, no context lines), the main y
    title's size and offset (3 decimals)."""
    import ROOT  # noqa: PLC0415

    ROOT.gROOT.SetBatch(True)
    f = ROOT.TFile.Open(str(root_file))
    try:
        canvas = f.Get(f"canvases/{name}")
        W, H = canvas.GetWw(), canvas.GetWh()
        pads = [o for o in canvas.GetListOfPrimitives() if o.InheritsFrom("TPad")] or [canvas]
        facts = {"size": [W, H], "pads": []}
        for pad in pads:
            box = [pad.GetXlowNDC(), pad.GetYlowNDC(), pad.GetXlowNDC() + pad.GetWNDC(), pad.GetYlowNDC() + pad.GetHNDC()]
            margins = [pad.GetLeftMargin(), pad.GetRightMargin(), pad.GetBottomMargin(), pad.GetTopMargin()]
            facts["pads"].append({"ndc": [round(v, 4) for v in box], "margins": [round(v, 4) for v in margins]})
        main = pads[0]
        top = main.GetYlowNDC() + main.GetHNDC() * (1 - main.GetTopMargin())  # the main frame's top, canvas NDC
        heights = set()
        for pad in {id(p): p for p in (canvas, *pads)}.values():
            for obj in pad.GetListOfPrimitives():
                if obj.InheritsFrom("TText") and obj.GetTitle():
                    y = obj.GetY() if pad is canvas else pad.GetYlowNDC() + obj.GetY() * pad.GetHNDC()
                    if y > top:
                        heights.add(round(y, 3))
        facts["lines_above_frame"] = len(heights)
        hframe = next(o for o in main.GetListOfPrimitives() if o.InheritsFrom("TH1"))
        axis = hframe.GetYaxis()
        facts["y_title"] = {"size": round(axis.GetTitleSize(), 3), "offset": round(axis.GetTitleOffset(), 3)}
        return facts
    finally:
        f.Close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="scratch directory (the demo and its plots)")
    parser.add_argument("--events", type=int, default=3000, help="events per fold (the README demo's: 3000)")
    parser.add_argument("--folds", type=int, default=5, help="folds (the demo's: 5)")
    args = parser.parse_args(argv)
    where = draw(args.work, args.events, args.folds)
    if shutil.which("convert"):  # ImageMagick: no metadata, the highest compression
        subprocess.run(["convert", str(where / f"{CANVAS}.png"), "-strip", "-define", "png:compression-level=9",
                        str(IMAGE)], check=True)  # fmt: skip
    else:
        shutil.copyfile(where / f"{CANVAS}.png", IMAGE)
    facts = layout_facts(where / "plots.root")
    SIDECAR.write_text(json.dumps({"sha256": sha256(IMAGE), "canvas": CANVAS, "layout": facts}, indent=1) + "\n")
    print(f"{IMAGE.relative_to(REPO)}: {IMAGE.stat().st_size} bytes; {SIDECAR.relative_to(REPO)}: {facts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
