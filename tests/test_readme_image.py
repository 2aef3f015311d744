"""The README's first image is the figure pnetviz draws today, in layout: its sidecar
(docs/img/rejection-binary-vs-multiclass.json, written with it by benchmarks/readme_image.py)
holds the committed PNG's SHA-256 and the layout facts of the canvas it came from; the same
figure drawn here from a small demo (300 events, two folds: the layout does not depend on the
data) must have the same facts (canvas size, pads, margins, one line of text above the frame, the
y title's size and offset). A layout change without the image made again fails here."""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("readme_image", REPO / "benchmarks" / "readme_image.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sidecar_describes_the_committed_image():
    script = _script()
    sidecar = json.loads(script.SIDECAR.read_text())
    data = script.IMAGE.read_bytes()
    assert sidecar["sha256"] == script.sha256(script.IMAGE), "the image changed without its sidecar: run benchmarks/readme_image.py"
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # IHDR
    assert [width, height] == sidecar["layout"]["size"]
    assert len(data) < 40_000  # small: optimised PNG (13.9 kB when made)
    assert sidecar["layout"]["lines_above_frame"] == 1  # the CMS label's line; the context is the caption's


@pytest.mark.slow
def test_committed_image_has_todays_layout(tmp_path):
    script = _script()
    committed = json.loads(script.SIDECAR.read_text())["layout"]
    drawn = script.layout_facts(script.draw(tmp_path, events=300, folds=2) / "plots.root")
    assert drawn == committed, "the README image is stale in layout: run benchmarks/readme_image.py"
