"""A cheap statistic of a PNG image for the visual regression guard (tests/draw/test_images.py): its
size, the fraction of non-white pixels and their centroid, read with ROOT's TASImage (no extra
dependency). A plot that empties, fills or shifts changes them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pnetviz.rootenv import quiet_root, root


def image_stats(path: Path) -> dict[str, float]:
    """{"width", "height", "ink" (non-white fraction), "x", "y" (ink centroid, fractions of the size)}."""
    with quiet_root():
        image = root().TASImage.Open(str(path))
    width, height = int(image.GetWidth()), int(image.GetHeight())
    argb = np.frombuffer(image.GetArgbArray(), dtype=np.uint32, count=width * height).reshape(height, width)
    ink = (argb & 0xFFFFFF) != 0xFFFFFF
    rows, cols = np.nonzero(ink)
    n = rows.size
    return {"width": width, "height": height, "ink": round(n / ink.size, 4),
            "x": round(float(cols.mean()) / width, 4) if n else 0.0, "y": round(float(rows.mean()) / height, 4) if n else 0.0}  # fmt: skip
