"""Writing one output set: images, the ROOT file and the reports, all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from . import draw
from .cli import staged_output
from .report import write_reports
from .rootfile import write_root_file
from .style import StyleOptions, cms_style

ROOT_FILE = "plots.root"


def publish(output: Path, formats: Sequence[str], style: StyleOptions,
            make_figures: Callable[[], list[draw.Figure]], report: dict, title: str,
            extra_files: dict[str, str] | None = None) -> list[Path]:  # fmt: skip
    """Draw (inside the CMS style), save every figure in every format, write plots.root and
    summary_report.json/.txt (and `extra_files`: name -> text) into a staging directory, then move them into `output`.
    On any error `output` keeps exactly what it had. Returns the files written."""
    with staged_output(output) as stage, cms_style(style):
        figs = make_figures()
        try:
            for fig in figs:
                draw.save(fig, stage, formats)
            write_root_file(stage / ROOT_FILE, figs)
            write_reports(stage, report, title)
            for name, text in (extra_files or {}).items():
                (stage / name).write_text(text)
            written = sorted(p.name for p in stage.iterdir())
        finally:
            for fig in figs:
                fig.close()
    return [Path(output) / name for name in written]
