"""What a curve or score figure draws, as plain records: a curve's exact points and style
(CurveSpec), a score histogram and its style (HistSpec); draw.plots draws them, draw.scorelegend
builds their legend entries."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CurveSpec:
    """One line on a curve plot: exact points (decimated here for drawing) and its style."""

    key: str  # object name in the ROOT file, e.g. "roc/test"
    x: np.ndarray
    y: np.ndarray
    label: str
    color: int
    line_style: int = 1


@dataclass(frozen=True)
class HistSpec:
    key: str
    hist: object  # TH1D
    label: str
    color: int
    points: bool  # test style (points with errors) vs train style (line)
    line_style: int = 1  # of a line (style.ENCODINGS: e.g. all / with / without a flag)
