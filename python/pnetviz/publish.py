"""Writing one output set into a (staging) directory: images, the ROOT file and the reports.

The directory is a staging directory of `output.transaction`, which verifies the set and
publishes it whole; this module only writes, and turns ROOT's printed write errors into an
OutputError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from . import draw
from .output import OutputError
from .report import write_reports
from .rootenv import root_errors
from .rootfile import write_root_file
from .style import StyleOptions, cms_style

ROOT_FILE = "plots.root"
REPORTS = ("summary_report.json", "summary_report.txt")


def write_set(directory: Path, formats: Sequence[str], style: StyleOptions,
              make_figures: Callable[[], list[draw.Figure]], report: dict, title: str,
              extra_files: dict[str, str] | None = None) -> list[Path]:  # fmt: skip
    """Draw (inside the CMS style), save every figure in every format, write plots.root,
    summary_report.json/.txt and `extra_files` (name -> text) into `directory`. Returns the
    files written; OutputError if ROOT reported a write error or a file is missing."""
    directory = Path(directory)
    with cms_style(style):
        figs = make_figures()
        try:
            with root_errors() as errors:
                for fig in figs:
                    draw.save(fig, directory, formats)
                write_root_file(directory / ROOT_FILE, figs)
        finally:
            for fig in figs:
                fig.close()
    if errors.count:
        raise OutputError(f"{directory.name}: writing the plots failed; {errors.summary()}. Nothing was published. "
                          "Fix: check free disk space, quotas, the file-size limit and the output path's length.")  # fmt: skip
    write_reports(directory, report, title)
    for name, text in (extra_files or {}).items():
        (directory / name).write_text(text)
    expected = [f"{fig.name}.{fmt}" for fig in figs for fmt in formats] + [ROOT_FILE, *REPORTS, *(extra_files or {})]
    missing = [name for name in expected if not (directory / name).is_file()]
    if missing:
        raise OutputError(f"{', '.join(missing[:3])}: not written (ROOT printed no error). Nothing was published. "
                          "Fix: check the output path's length and free disk space.")  # fmt: skip
    return [directory / name for name in sorted(set(expected))]
