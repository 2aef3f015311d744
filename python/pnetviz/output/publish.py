"""Writing one output set into a (staging) directory: images, the ROOT file and the reports.

The directory is a staging directory of `output.transaction`, which verifies the set and
publishes it whole; this module only writes, and turns ROOT's printed write errors into an
OutputError.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pnetviz.draw import canvas
from pnetviz.escape import plain_text
from pnetviz.io.layout import root_literal, root_path
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
              extra_files: dict[str, str] | None = None, root_name: str = ROOT_FILE,
              only: Callable[[str], bool] | None = None) -> list[Path]:  # fmt: skip
    """Draw (inside the CMS style), save every figure in every format, write plots.root,
    summary_report.json/.txt and `extra_files` (name -> text) into `directory`. Returns the
    files written; OutputError if ROOT reported an error or a file is missing. ROOT is handed
    `directory` by a name it takes literally (layout.root_path) and files by plain names,
    renamed afterwards, so that `#`, `$`, `?`, `|`, spaces or unicode in a path are only
    characters; a file name that would leave `directory` is refused. With `only` (output.imageset),
    only the figures it accepts get images (every canvas is in the ROOT file all the same)."""
    directory = Path(directory)
    for name in [root_name, *(extra_files or {})]:
        check_file_name(name)
    with cms_style(style):
        figs = make_figures()
        try:
            for fig in figs:
                check_file_name(fig.name)
            with root_path(directory, directory=True) as where, native_stderr() as printed, root_errors() as errors:
                for fig in figs:
                    save_literal(fig, directory, where, formats if only is None or only(fig.name) else ())
                write_root_literal(directory, where, root_name, figs, title)
        finally:
            for fig in figs:
                fig.close()
    if errors.count:
        raise OutputError(root_failure(errors.summary().replace(f"{where}/", "")))
    if printed.text:  # not an error: pass on what the libraries printed
        sys.stderr.write(printed.text)
    write_reports(directory, with_captions(report, figs), title)
    for name, text in (extra_files or {}).items():
        (directory / name).write_text(text)
    expected = [f"{fig.name}.{fmt}" for fig in figs if only is None or only(fig.name) for fmt in formats] + [root_name, *REPORTS, *(extra_files or {})]
    missing = [name for name in expected if not (directory / name).is_file()]
    if missing:
        raise OutputError(f"{', '.join(missing[:3])}: not written (ROOT printed no error). Nothing was published. "
                          "Fix: check the output path's length and free disk space.")  # fmt: skip
    return [directory / name for name in sorted(set(expected))]


CAPTIONS = "figure_captions"  # summary_report.json: figure name -> its caption (web.sitepages shows it)


def with_captions(report: dict, figs: Sequence[canvas.Figure]) -> dict:
    """`report` with the caption of every figure that has one (the context its frame had no room
    for, draw.layout), as plain text: what the web report shows under the figure."""
    captions = {fig.name: "; ".join(plain_text(line) for line in fig.caption) for fig in figs if fig.caption}
    return {**report, CAPTIONS: captions} if captions else report


# Where ROOT's messages come from when a file could not be written (else: drawing went wrong).
WRITE_WORDS = ("write", "writing", "space", "quota", "file too large", "cannot open", "can not open", "cannot create",
               "syserror", "tfile", "tkey", "tbasket", "tbuffer", "writeimage", "tpdf", "tpostscript", "tsvg",
               "timagedump", "fsync", "close")  # fmt: skip


def root_failure(summary: str) -> str:
    """The one-line message for ROOT's errors while saving: a failed write (disk, quota, size
    limit) or a failed drawing (a plot or label ROOT could not paint), told apart by the message."""
    summary = " ".join(summary.split())  # ROOT's messages may span lines: one line
    if any(word in summary.lower() for word in WRITE_WORDS):
        return (f"writing the plots failed; {summary}. Nothing was published. Fix: check free disk space, quotas, the "
                "file-size limit and the output path's length.")  # fmt: skip
    return (f"drawing the plots failed; {summary}. Nothing was published. Fix: check --labels and the names in the "
            "input (ROOT could not paint a text or object); if they look right, report this with the command line.")  # fmt: skip


def check_file_name(name: str) -> None:
    """OutputError unless `name` is one plain file name inside the set (no `/`, not `.`/`..`)."""
    if not name or "/" in name or "\0" in name or name in (".", ".."):
        raise OutputError(f"{name!r}: not a plain file name, it would be written outside the output set; nothing "
                          "was published. Fix: rename the class or model whose name it contains.")  # fmt: skip


def save_literal(fig: canvas.Figure, directory: Path, where: str, formats: Sequence[str]) -> None:
    """canvas.save into `where` (directory's literal name); a figure whose name ROOT would
    interpret is saved under a plain temporary name and renamed (a .C macro keeps its name
    only for plain names: its function is named after the file)."""
    if root_literal(fig.name):
        canvas.save(fig, Path(where), formats)
        return
    name = fig.name
    fig.name = f"pnetviz-figure-{secrets.token_hex(4)}"
    try:
        canvas.save(fig, Path(where), formats)
        for fmt in formats:
            if (directory / f"{fig.name}.{fmt}").exists():
                os.rename(directory / f"{fig.name}.{fmt}", directory / f"{name}.{fmt}")
    finally:
        fig.name = name


def write_root_literal(directory: Path, where: str, root_name: str, figs: list[canvas.Figure], title: str) -> None:
    """write_root_file into `where` under a plain name, renamed to `root_name` after."""
    plain = root_name if root_literal(root_name) else f"pnetviz-{secrets.token_hex(4)}.root"
    write_root_file(Path(where) / plain, figs, context=title)
    if plain != root_name:
        os.rename(directory / plain, directory / root_name)
