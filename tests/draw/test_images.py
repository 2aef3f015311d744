"""Visual regression guard: every PNG of a small fixed-seed campaign (every kind of plot) keeps its
size, ink fraction and ink centroid (tests/draw/reference/image_stats.json). After an intended layout
change, look at the new images, then update the reference with

    PNETVIZ_UPDATE_IMAGES=1 ./run.sh test tests/draw/test_images.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.draw.imagestats import image_stats
from pnetviz.demo.trainertree import write_trainer_fold

pytestmark = pytest.mark.slow  # a campaign writing every image, compared with the reference

REFERENCE = Path(__file__).parent / "reference" / "image_stats.json"
INK_TOLERANCE, CENTROID_TOLERANCE = 0.004, 0.015  # absolute: a legend moved or a curve lost moves more


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    base = tmp_path_factory.mktemp("tree") / "results"
    for signal in ("MHc100_MA95", "MHc160_MA85"):
        for fold in (0, 1):
            write_trainer_fold(base, "Run1E2Mu", signal, fold, events=1500)
    out = tmp_path_factory.mktemp("plots")
    argv = ["--results-dir", str(base), "--plots-dir", str(out), "--workers", "0", "--images", "all", "--formats", "png",
            "--bootstrap", "20", "--syst", "all", "--score-shift", "background=0.02", "-q"]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, argv) == 0
    return {str(p.relative_to(out)): image_stats(p) for p in sorted(out.rglob("*.png"))}


def test_images_match_the_reference(images):
    if os.environ.get("PNETVIZ_UPDATE_IMAGES"):
        REFERENCE.write_text(json.dumps(images, indent=1, sort_keys=True) + "\n")
        pytest.skip(f"reference rewritten: {len(images)} images in {REFERENCE}")
    reference = json.loads(REFERENCE.read_text())
    assert sorted(images) == sorted(reference), "the set of images changed"
    problems = []
    for name, ref in reference.items():
        got = images[name]
        if (got["width"], got["height"]) != (ref["width"], ref["height"]):
            problems.append(f"{name}: size {got['width']}x{got['height']}, was {ref['width']}x{ref['height']}")
        if abs(got["ink"] - ref["ink"]) > INK_TOLERANCE:
            problems.append(f"{name}: ink {got['ink']}, was {ref['ink']}")
        if max(abs(got["x"] - ref["x"]), abs(got["y"] - ref["y"])) > CENTROID_TOLERANCE:
            problems.append(f"{name}: ink centroid ({got['x']}, {got['y']}), was ({ref['x']}, {ref['y']})")
    assert not problems, "\n".join(problems[:40])
