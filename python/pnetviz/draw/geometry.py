"""Figure geometry shared by every drawing module: the Figure and Frame records, data to NDC,
pad scales, and where ROOT puts tick labels and y titles (a pixel model of font 42).
"""

from __future__ import annotations

import ctypes
import math
import functools
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pnetviz.rootenv import root


def unique(name: str) -> str:
    """ROOT object names are global: make one unique while keeping it readable."""
    return f"{name}_{uuid.uuid4().hex[:8]}"


@dataclass
class Figure:
    """A canvas, the objects drawn on it (by key for the ROOT file) and its legend entries."""

    name: str  # output file stem, e.g. "roc_curve"
    canvas: object
    pads: list = field(default_factory=list)
    objects: dict[str, object] = field(default_factory=dict)
    legend: list[tuple[object, str, str]] = field(default_factory=list)
    extras: list = field(default_factory=list)  # legends, texts, lines: kept alive, not written
    labels: dict[str, str] = field(default_factory=dict)  # key -> legend label (titles in the ROOT file)
    caption: list[str] = field(default_factory=list)  # context the frame had no room for: the figure's caption
    optional: list = field(default_factory=list)  # unlabelled extras a frame equal to this one leaves out (a ROC's chance line)
    axis_fit: object = None  # frame -> what the canvas decided from the frame's y range (figures.reframe); None: not movable

    def keep(self, key: str, obj: object, label: str | None = None) -> object:
        self.objects[key] = obj
        if label:
            self.labels[key] = label
        return obj

    def close(self) -> None:
        """Close the canvas and hand it to Python to delete: ROOT owns a TCanvas (PyROOT leaves it
        to gROOT's list of canvases), and Close() only takes it off that list, so every closed
        figure stayed in memory (a warm worker grew by ~0.3 MB per multi-class evaluation; ~0.1 MB
        with this, measured over 35 evaluations)."""
        self.canvas.Close()
        root().SetOwnership(self.canvas, True)


Margins = tuple[float, float, float, float]  # left, right, bottom, top of a pad (NDC)


@dataclass(frozen=True)
class Frame:
    """Axis ranges and titles of one pad."""

    x: tuple[float, float]
    y: tuple[float, float]
    xtitle: str
    ytitle: str
    logy: bool = False
    logx: bool = False


# Where ROOT puts a y-axis title, font 42 (measured with the figure linter's ink rule on this ROOT):
# its near edge Y_TITLE_STEP x offset x T - Y_TITLE_DESCENT x T from the axis, its far edge
# Y_TITLE_THICK x T further, T the title's height in pixels (a pad's T scaled back to the canvas).
Y_TITLE_STEP, Y_TITLE_DESCENT, Y_TITLE_THICK = 1.6, 0.45, 0.9
Y_TITLE_SUB_DESCENT = 0.55  # the near edge of a title with a subscript ("1/#varepsilon_{b}"): measured 0.53-0.54 T
SUPERSCRIPT_WIDTH = 0.3  # of the label height per superscript character: "10^{3}" inks 1.33 T, "10^{#minus4}" 1.66 T
Y_TITLE_GAP = 3  # pixels between the widest tick label's advance box and the y title (the ink has more)
TITLE_EDGE_PX = 4  # pixels at least between a y title and the canvas's left edge
GLYPH_WIDTH = {".": 0.278, "-": 0.584}  # of the text height, Helvetica (font 42); digits 0.556


def tick_labels(lo: float, hi: float, ndivisions: int, max_digits: int = 5) -> list[str]:
    """The labels TGaxis writes on a linear axis from lo to hi with `ndivisions` (its primary
    divisions optimised by THLimitsFinder, as TGaxis does): one step's decimals, trailing zeros
    dropped ("0.91", "0.915", "1"); values needing more than `max_digits` digits (TGaxis's
    MaxDigits), or as many decimals, are written as TGaxis does, divided by a power of ten (a
    multiple of 3) shown once beside the axis: "2" ... "12" for 2000 ... 12000, "0.02" ... "0.1"
    for 0.00002 ... 0.0001. Empty for a range without divisions (NaN, reversed, empty)."""
    return list(_tick_labels(lo, hi, ndivisions, max_digits))


@functools.lru_cache(maxsize=1024)
def _tick_labels(lo: float, hi: float, ndivisions: int, max_digits: int) -> tuple[str, ...]:
    """tick_labels, cached: a pure function of its arguments, asked for the same frames by every
    figure of a kind (each figure twice: the divisions, then the title's offset)."""
    low, high, n, step = ctypes.c_double(), ctypes.c_double(), ctypes.c_int(), ctypes.c_double()
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        return ()
    root().THLimitsFinder.Optimize(lo, hi, max(abs(ndivisions) % 100, 1), low, high, n, step, "")
    if not step.value > 0:
        return ()
    tol = 1e-9 * (hi - lo)
    values = np.array([low.value + k * step.value for k in range(n.value + 1)])
    values = values[(values >= lo - tol) & (values <= hi + tol)]
    def decimals_of(step_value: float) -> int:
        return next((d for d in range(12) if abs(round(step_value, d) - step_value) < 1e-9 * max(1.0, abs(step_value))), 12)

    top = float(np.max(np.abs(values))) if values.size else 0.0
    step_value = step.value
    if top >= 10.0**max_digits:  # TGaxis's exponent (a multiple of 3): 2000 ... 12000 -> 2 ... 12 x10^3
        scale = 10.0 ** (3 * math.floor(math.log10(top) / 3))
        values, step_value = values / scale, step_value / scale
    elif top > 0 and decimals_of(step_value) >= max_digits:  # 0.00002 ... 0.0001 -> 0.02 ... 0.1 x10^-3
        scale = 10.0 ** (3 * math.ceil(math.log10(top) / 3))
        values, step_value = values / scale, step_value / scale
    decimals = decimals_of(step_value)
    labels = [f"{v:.{decimals}f}" for v in values]
    labels = [text.rstrip("0").rstrip(".") if "." in text else text for text in labels]
    return tuple("0" if text in ("-0", "") else text for text in labels)


def log_tick_labels(lo: float, hi: float) -> list[str]:
    """The labels TGaxis writes on a log axis from lo to hi (no intermediate labels): one per decade,
    "1", "10", else "10^{n}" (a negative exponent with #minus). Empty for a range without a decade."""
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        return []
    first, last = math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9)
    return ["1" if k == 0 else "10" if k == 1 else f"10^{{{k}}}".replace("-", "#minus") for k in range(first, last + 1)]


_SUPERSCRIPT = re.compile(r"\^\{([^{}]*)\}")


def label_width_px(labels: Sequence[str], height_px: float) -> float:
    """Width in pixels of the widest of `labels` (digits, '.', '-', superscripts "^{...}" of a log
    axis at SUPERSCRIPT_WIDTH per character, #minus as '-') at a text height of `height_px`."""

    def width(text: str) -> float:
        text = text.replace("#minus", "-")
        sup = sum(len(m) for m in _SUPERSCRIPT.findall(text))
        return sum(GLYPH_WIDTH.get(ch, 0.556) for ch in _SUPERSCRIPT.sub("", text)) + SUPERSCRIPT_WIDTH * sup

    return max((height_px * width(text) for text in labels), default=0.0)


def fit_y_title_offset(frame: Frame, offset: float, title_px: float, label_px: float, label_offset_px: float,
                       ndivisions: int = 510, max_digits: int = 5) -> float:  # fmt: skip
    """The y title offset (ROOT's, in title sizes) on a 600 px wide pad: `offset`, or more where
    the widest tick label (a linear axis's, or a log axis's decades "10^{3}" with their
    superscripts) would reach within Y_TITLE_GAP of the title's near edge (its subscript's, for a
    title with one: Y_TITLE_SUB_DESCENT)."""
    if title_px <= 0:
        return offset
    labels = log_tick_labels(*frame.y) if frame.logy else tick_labels(*frame.y, ndivisions, max_digits)
    need = label_width_px(labels, label_px) + label_offset_px + Y_TITLE_GAP
    return max(offset, (need + title_descent(frame.ytitle) * title_px) / (Y_TITLE_STEP * title_px))


def title_descent(title: str) -> float:
    """Of the title height: how far a y title's ink reaches from its baseline towards the axis."""
    return Y_TITLE_SUB_DESCENT if "_{" in title else Y_TITLE_DESCENT


def y_title_far_px(offset: float, title_px: float) -> float:
    """Pixels from the axis to the far edge of a y title at this offset."""
    return (Y_TITLE_STEP * offset - Y_TITLE_DESCENT + Y_TITLE_THICK) * title_px


@functools.lru_cache(maxsize=4096)
def visible_length(text: str) -> int:
    """Characters a TLatex line shows: a #command (#pm, #mu, #varepsilon) is one glyph, braces,
    sub- and superscript marks none, a #kern[dx] or #lower[dy] shift none (cached: the legend
    search measures the same lines for every box it tries)."""
    return len(_COMMAND.sub("x", _SHIFT.sub("", text)).replace("{", "").replace("}", "").replace("_", "").replace("^", ""))


_COMMAND = re.compile(r"#[a-zA-Z]+")
_SHIFT = re.compile(r"#(kern|lower)\[[^\]]*\]")


def to_ndc(fig: Figure, x: float, y: float, frame: Frame, pad: int = 0) -> tuple[float, float]:
    """Data coordinates of `frame` (linear or log axes) to the pad's NDC."""
    return margins_to_ndc(margins_of(fig.pads[pad]), x, y, frame)


def margins_of(pad) -> Margins:
    return pad.GetLeftMargin(), pad.GetRightMargin(), pad.GetBottomMargin(), pad.GetTopMargin()


def margins_to_ndc(margins: Margins, x, y, frame: Frame):
    left, right, bottom, top = margins

    def frac(v: float, lo: float, hi: float, log: bool) -> float:
        return (np.log10(v / lo) / np.log10(hi / lo)) if log else (v - lo) / (hi - lo)

    return (left + frac(x, *frame.x, frame.logx) * (1 - left - right),
            bottom + frac(y, *frame.y, frame.logy) * (1 - bottom - top))  # fmt: skip


def pad_scale(fig: Figure, pad: int = 0) -> float:
    """Texts and vertical NDC lengths sized for the whole canvas, times this in pad `pad`: ROOT
    sizes a pad's texts on its smaller side, so a pad lower than the canvas needs larger values
    for the same printed size (1 for the canvas itself)."""
    p = fig.pads[pad]
    if p.InheritsFrom("TCanvas"):
        return 1.0
    W, H = fig.canvas.GetWw(), fig.canvas.GetWh()
    return min(W, H) / max(min(p.GetAbsWNDC() * W, p.GetAbsHNDC() * H), 1.0)


def text_width(text: str, size: float) -> float:
    """Width in pixels of a font-42 TLatex `text` of `size` in the current pad."""
    latex = root().TLatex(0, 0, text)
    latex.SetTextFont(42)
    latex.SetTextSize(size)
    w, h = ctypes.c_uint(0), ctypes.c_uint(0)
    latex.GetBoundingBox(w, h)
    return float(w.value)
