"""Writing one output set into a (staging) directory: images, the ROOT file and the reports.

The directory is a staging directory of `output.transaction`, which verifies the set and
publishes it whole; this module only writes, and turns ROOT's printed write errors into an
OutputError.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pnetviz.draw import canvas
from pnetviz.output.atomic import OutputError
from pnetviz.output.report import write_reports
from pnetviz.rootenv import root_errors
from pnetviz.draw.rootfile import write_root_file
from pnetviz.draw.style import StyleOptions, cms_style

ROOT_FILE = "plots.root"
REPORTS = ("summary_report.json", "summary_report.txt")


@dataclass
class Printed:
    text: str = ""


@contextlib.contextmanager
def native_stderr() -> Iterator[Printed]:
    """Collect what C libraries (libpng, ...) print on file descriptor 2 inside the block, so a
    failed write is reported in one pnetviz line; the caller passes it on otherwise."""
    sys.stderr.flush()
    saved = os.dup(2)
    printed = Printed()
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield printed
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            printed.text = sink.read().decode(errors="replace")


def write_set(directory: Path, formats: Sequence[str], style: StyleOptions,
              make_figures: Callable[[], list[canvas.Figure]], report: dict, title: str,
              extra_files: dict[str, str] | None = None, root_name: str = ROOT_FILE) -> list[Path]:  # fmt: skip
    """Draw (inside the CMS style), save every figure in every format, write plots.root,
    summary_report.json/.txt and `extra_files` (name -> text) into `directory`. Returns the
    files written; OutputError if ROOT reported a write error or a file is missing."""
    directory = Path(directory)
    with cms_style(style):
        figs = make_figures()
        try:
            with native_stderr() as printed, root_errors() as errors:
                for fig in figs:
                    canvas.save(fig, directory, formats)
                write_root_file(directory / root_name, figs, context=title)
        finally:
            for fig in figs:
                fig.close()
    if errors.count:
        what = errors.summary().replace(f"{directory}/", "")
        raise OutputError(f"writing the plots failed; {what}. Nothing was published. Fix: check free disk space, "
                          "quotas, the file-size limit and the output path's length.")  # fmt: skip
    if printed.text:  # not an error: pass on what the libraries printed
        sys.stderr.write(printed.text)
    write_reports(directory, report, title)
    for name, text in (extra_files or {}).items():
        (directory / name).write_text(text)
    expected = [f"{fig.name}.{fmt}" for fig in figs for fmt in formats] + [root_name, *REPORTS, *(extra_files or {})]
    missing = [name for name in expected if not (directory / name).is_file()]
    if missing:
        raise OutputError(f"{', '.join(missing[:3])}: not written (ROOT printed no error). Nothing was published. "
                          "Fix: check the output path's length and free disk space.")  # fmt: skip
    return [directory / name for name in sorted(set(expected))]
