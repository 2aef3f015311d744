#!/usr/bin/env python3
"""Every figure kind as a reader of a note sees it (issue 33): one PDF per figure kind of a plots
directory, each included 8 cm wide in a LaTeX page of 16 cm text width (two per row), compiled
with pdflatex and rendered with pdftoppm; prints the main (and ratio) frame height of each kind at
8 cm, measured on its stored canvas in plots.root (the figure linter's `frame` rule: >= 5.0 cm on
curves and histograms, >= 4.0 cm on 4:3 matrices and maps, ratio panel >= 1.3 cm).

Usage: python benchmarks/figure_page.py PLOTS_DIR OUT_DIR   (PLOTS_DIR from
`pnetviz campaign ... --formats pdf`, e.g. one channel and one signal point of `pnetviz demo`);
writes OUT_DIR/figures.tex, figures.pdf and figures-<page>.png.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

from pnetviz.escape import latex
from pnetviz.rootenv import root

FIGURE_WIDTH_CM = 8.0
KIND = re.compile(r"Run\w+?_|MHc\d+_MA\d+_?|iter\d+_model\d+|signal_vs_\w+?_(?=(roc|rejection|cut|lr|p\w+_dist|auc))"
                  r"|(?<=^map_)(\w+?)_(binary|multiclass|difference)_.*")


def kind_of(stem: str) -> str:
    """A figure's kind from its file stem: names of channels, signal points, backgrounds and GA
    models taken out ("signal_vs_ttZ_roc_comparison" -> "roc_comparison")."""
    return KIND.sub(lambda m: f"{m.group(2)}_{m.group(3)}" if m.group(2) else "", stem)


def one_per_kind(plots: Path) -> dict[str, Path]:
    """The first PDF (sorted paths) of every figure kind under `plots`."""
    pdfs = sorted(plots.rglob("*.pdf"))
    kinds = {kind_of(pdf.stem) for pdf in pdfs}
    found: dict[str, Path] = {}
    for pdf in pdfs:
        kind = kind_of(pdf.stem)
        per_class = kind.split("_", 1)[-1]  # "diboson_calibration" -> "calibration" when that is a kind too
        found.setdefault(per_class if per_class in kinds and per_class != kind else kind, pdf)
    return found


def frame_heights(pdf: Path) -> list[float]:
    """Frame heights in cm at FIGURE_WIDTH_CM of the stored canvas behind `pdf` (main first, then
    a ratio panel), from the plots.root (or campaign.root) beside it; [] if not found."""
    ROOT = root()
    for name in ("plots.root", "campaign.root"):
        path = pdf.parent / name
        if not path.exists():
            continue
        f = ROOT.TFile.Open(str(path))
        try:
            d = f.GetDirectory("canvases")
            keys = [k.GetName() for k in d.GetListOfKeys()] if d else []
            key = next((k for k in keys if unquote(k) == pdf.stem), None)
            if key is None:
                continue
            canvas = d.Get(key)
            W, H = canvas.GetWw(), canvas.GetWh()
            pads = [p for p in canvas.GetListOfPrimitives() if p.InheritsFrom("TPad")] or [canvas]
            pads.sort(key=lambda p: -p.GetAbsYlowNDC())
            heights = [(1 - p.GetTopMargin() - p.GetBottomMargin()) * p.GetAbsHNDC() * H * FIGURE_WIDTH_CM / W for p in pads]
            canvas.Close()
            return heights
        finally:
            f.Close()
    return []


def page(figures: dict[str, Path]) -> str:
    """The LaTeX page: each figure 8 cm wide with its kind as caption, two per row."""
    cells = [f"\\begin{{minipage}}[t]{{8cm}}\\includegraphics[width=8cm]{{{pdf}}}\\\\[-1ex]\\centering\\scriptsize {latex(kind)}\\end{{minipage}}"
             for kind, pdf in figures.items()]  # fmt: skip
    rows = ["%\n".join(cells[i:i + 2]) + "\\par\\medskip" for i in range(0, len(cells), 2)]
    return ("\\documentclass[10pt]{article}\n\\usepackage[a4paper,textwidth=16cm,top=1.5cm,bottom=1.5cm]{geometry}\n"
            "\\usepackage{graphicx}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0pt}\n\\begin{document}\n"
            + "\n".join(rows) + "\n\\end{document}\n")  # fmt: skip


def main(argv: list[str]) -> int:
    plots, out = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    figures = one_per_kind(plots)
    if not figures:
        raise SystemExit(f"{plots}: no PDF found; run the campaign with --formats pdf")
    (out / "figures.tex").write_text(page(figures))
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "figures.tex"], cwd=out, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    subprocess.run(["pdftoppm", "-r", "100", "-png", "figures.pdf", "figures"], cwd=out, check=True)  # 100 dpi: 8 pt text readable
    print(f"| figure kind | frame height at {FIGURE_WIDTH_CM:g} cm (cm) |\n|---|---|")
    for kind, pdf in figures.items():
        heights = frame_heights(pdf)
        print(f"| `{kind}` | {' / '.join(f'{h:.2f}' for h in heights) or '-'} |")
    print(f"\n{len(figures)} kinds; page(s): {', '.join(p.name for p in sorted(out.glob('figures*.png')))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
