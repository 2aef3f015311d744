"""Figure captions on the web report (issue 33, item 1): the context a figure's frame had no room
for (signal point, channel, fold, ...) is its caption, recorded by the evaluation in the set's
summary_report.json (output.publish.with_captions) and shown under the figure's image or live
view, as HTML text.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import html
from pnetviz.io import readers
from pnetviz.output.publish import CAPTIONS


def captions(set_dir: Path) -> dict[str, str]:
    """Figure name -> caption of the output set `set_dir` ({} without a readable report or
    captions: a set written before captions were recorded shows none)."""
    path = Path(set_dir) / "summary_report.json"
    try:
        stat = os.stat(path)
    except OSError:
        return {}
    return _read(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int, size: int) -> dict[str, str]:
    """The captions of one version of a report (a page reads a set's report once per figure)."""
    try:
        report = readers.read_json(Path(path), "fold report", finite=False)
    except InputError:
        return {}
    found = report.get(CAPTIONS) if isinstance(report, dict) else None
    if not isinstance(found, dict):
        return {}
    return {str(name): str(text) for name, text in found.items() if isinstance(text, str) and text}


def caption_html(set_dir: Path, stem: str) -> str:
    """The figure's caption as an HTML line to put in its <figcaption> ("" without one)."""
    text = captions(set_dir).get(stem)
    return f'<br><span class="caption">{html(text)}</span>' if text else ""
