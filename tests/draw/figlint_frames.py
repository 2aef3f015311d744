"""Frame rules of the figure linter (figlint.py): what the reader of a note sees of the data when
the figure is printed FIGURE_WIDTH_CM wide. Plain ROOT only (runs in figlint's worker).

* Frame height (rule `frame`): the main frame (the frame of the canvas, or of the upper pad of a
  main pad over a ratio panel) is (1 - top - bottom margin) x pad height x H pixels high; at
  FIGURE_WIDTH_CM / W cm per pixel it must be >= MIN_FRAME_CM["curve"] on curve and histogram
  figures and >= MIN_FRAME_CM["matrix"] on 4:3 canvases (matrices and maps).
* Ratio panel (rule `frame`): the frame of the lower pad >= MIN_RATIO_FRAME_CM.
* Tick labels (rule `ticklabel`): every y tick label (the values TGaxis writes, THLimitsFinder's
  divisions, the ones ChangeLabel hides left out) lies inside its pad: a label is centred on its
  tick, label size x min(pad w, pad h) pixels high, so the top (bottom) one needs half that
  between its tick and the pad's top (bottom) edge; the x labels below the frame must end above
  the pad's bottom edge.
* Legends in the frame (rule `legend`): a legend whose box (pave and painted labels, figlint's
  box) lies in the frame's height (more than FRAME_EDGE_TOLERANCE_PX of it) stays within the
  frame's left and right edges (FRAME_EDGE_TOLERANCE_PX): a legend past the frame's right edge
  overlays the margin and the axis, although it is inside its pad. A legend wholly above the frame
  (the band of layout.legend_above) is not in the frame's height.
* Fractions (rule `zrange`): a 2-D histogram drawn with a palette whose z title names a fraction
  ("Fraction ...", "efficiency") is drawn on exactly [0, 1].
"""

from __future__ import annotations

import ctypes
import math

FIGURE_WIDTH_CM = 8.0
MIN_FRAME_CM = {"curve": 5.0, "matrix": 4.0}
MIN_RATIO_FRAME_CM = 1.3
TICK_TOLERANCE_PX = 1.0
FRAME_EDGE_TOLERANCE_PX = 1.0
FRACTION_WORDS = ("fraction", "efficiency")


def frame_pads(canvas, subpads: list) -> list:
    """The pads holding a frame histogram, highest first (the canvas itself without sub-pads)."""
    pads = [p for p in ([canvas] if not subpads else subpads) if _frame_hist(p) is not None]
    return sorted(pads, key=lambda p: -p.GetAbsYlowNDC())


def _frame_hist(pad):
    return next((o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TH1")), None)


def frame_height_cm(pad, W: int, H: int) -> float:
    """Height of the frame of `pad` in cm when the W-pixel-wide figure is printed FIGURE_WIDTH_CM wide."""
    px = (1.0 - pad.GetTopMargin() - pad.GetBottomMargin()) * pad.GetAbsHNDC() * H
    return px * FIGURE_WIDTH_CM / W


def check_frames(canvas, subpads: list, W: int, H: int) -> list[tuple[str, str, str]]:
    """Rule `frame`: main frame and ratio panel heights at FIGURE_WIDTH_CM."""
    pads = frame_pads(canvas, subpads)
    if not pads:
        return []
    kind = "matrix" if abs(W / H - 4.0 / 3.0) < 0.03 else "curve"
    out = []
    main = frame_height_cm(pads[0], W, H)
    if main < MIN_FRAME_CM[kind] - 1e-6:
        out.append(("frame", "main frame", f"{main:.2f} cm high at {FIGURE_WIDTH_CM:g} cm width, "
                                           f"< {MIN_FRAME_CM[kind]:g} cm ({kind} figure)"))  # fmt: skip
    for pad in pads[1:]:
        ratio = frame_height_cm(pad, W, H)
        if ratio < MIN_RATIO_FRAME_CM - 1e-6:
            out.append(("frame", "ratio frame", f"{ratio:.2f} cm high at {FIGURE_WIDTH_CM:g} cm width, < {MIN_RATIO_FRAME_CM:g} cm"))
    return out


def _hidden_labels(axis) -> set[int]:
    """1-based label numbers (negative: from the end) that ChangeLabel drew at size 0 or as empty text."""
    hidden = set()
    mods = axis.GetModifiedLabels()
    for mod in (mods or []):
        if mod.GetSize() == 0 or mod.GetText() == "":
            hidden.add(mod.GetLabNum())
    return hidden


def y_label_values(ROOT, lo: float, hi: float, ndivisions: int) -> list[float]:
    """The values TGaxis labels on a linear axis from lo to hi (THLimitsFinder's primary divisions)."""
    low, high, n, step = ctypes.c_double(), ctypes.c_double(), ctypes.c_int(), ctypes.c_double()
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        return []
    ROOT.THLimitsFinder.Optimize(lo, hi, max(abs(ndivisions) % 100, 1), low, high, n, step, "")
    if not step.value > 0:
        return []
    tol = 1e-9 * (hi - lo)
    return [v for v in (low.value + k * step.value for k in range(n.value + 1)) if lo - tol <= v <= hi + tol]


def check_tick_labels(ROOT, pad, W: int, H: int) -> list[tuple[str, str, str]]:
    """Rule `ticklabel`: the top and bottom y tick labels, and the x labels, inside the pad."""
    frame = _frame_hist(pad)
    if frame is None or frame.GetDimension() != 1:
        return []
    pad_w, pad_h = pad.GetAbsWNDC() * W, pad.GetAbsHNDC() * H
    out = []
    yaxis = frame.GetYaxis()
    if yaxis.GetLabelSize() > 0 and not pad.GetLogy():
        lo, hi = pad.GetUymin(), pad.GetUymax()
        values = y_label_values(ROOT, lo, hi, yaxis.GetNdivisions())
        hidden = _hidden_labels(yaxis)
        half = 0.5 * yaxis.GetLabelSize() * min(pad_w, pad_h)
        frame_px = (1 - pad.GetTopMargin() - pad.GetBottomMargin()) * pad_h
        for k, value in enumerate(values, start=1):
            if k in hidden or k - len(values) - 1 in hidden:
                continue
            above = pad.GetTopMargin() * pad_h + (hi - value) / (hi - lo) * frame_px  # px from the pad's top edge
            below = pad.GetBottomMargin() * pad_h + (value - lo) / (hi - lo) * frame_px
            if min(above, below) + TICK_TOLERANCE_PX < half:
                edge = "top" if above < below else "bottom"
                out.append(("ticklabel", f"y label {value:g}",
                            f"half of a {2 * half:.0f} px label is {half:.0f} px, only {min(above, below):.0f} px to the pad's {edge} edge: cut"))  # fmt: skip
    xaxis = frame.GetXaxis()
    if xaxis.GetLabelSize() > 0:
        size = xaxis.GetLabelSize() * min(pad_w, pad_h) * (0.66666 if xaxis.GetLabels() and xaxis.GetLabelFont() % 10 != 3 else 1.0)
        need = xaxis.GetLabelOffset() * pad_h + size
        room = pad.GetBottomMargin() * pad_h
        if need > room + TICK_TOLERANCE_PX:
            out.append(("ticklabel", "x labels", f"need {need:.0f} px below the frame, the pad has {room:.0f} px: cut"))
    return out


def check_fraction_z(pad) -> list[tuple[str, str, str]]:
    """Rule `zrange`: a fraction on a palette is drawn on [0, 1]."""
    out = []
    for obj in pad.GetListOfPrimitives():
        if not (obj.InheritsFrom("TH2") and obj.GetZaxis()):
            continue
        title = obj.GetZaxis().GetTitle().lower()
        if any(word in title for word in FRACTION_WORDS) and "difference" not in title and "ratio" not in title:
            lo, hi = obj.GetMinimum(), obj.GetMaximum()
            if abs(lo) > 1e-9 or abs(hi - 1.0) > 1e-9:
                out.append(("zrange", obj.GetName(), f"z range [{lo:.3g}, {hi:.3g}] of a fraction: must be [0, 1]"))
    return out


def frame_px(pad, W: int, H: int) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the frame of `pad` in absolute canvas pixels (y downwards)."""
    x0, w = pad.GetAbsXlowNDC() * W, pad.GetAbsWNDC() * W
    y0, h = (1 - pad.GetAbsYlowNDC() - pad.GetAbsHNDC()) * H, pad.GetAbsHNDC() * H
    return (x0 + pad.GetLeftMargin() * w, y0 + pad.GetTopMargin() * h,
            x0 + (1 - pad.GetRightMargin()) * w, y0 + (1 - pad.GetBottomMargin()) * h)


def check_legends_in_frame(pad, boxes: list, W: int, H: int) -> list[tuple[str, str, str]]:
    """Rule `legend`: each legend box of `pad` (figlint's (label, box) pairs, absolute pixels) in
    the frame's height stays between the frame's left and right edges."""
    if _frame_hist(pad) is None:
        return []
    left, top, right, bottom = frame_px(pad, W, H)
    out = []
    for label, (x1, y1, x2, y2) in boxes:
        if not label.startswith("legend") or min(y2, bottom) - max(y1, top) <= FRAME_EDGE_TOLERANCE_PX:
            continue
        beyond = {"right": x2 - right, "left": left - x1}
        side = max(beyond, key=beyond.get)
        if beyond[side] > FRAME_EDGE_TOLERANCE_PX:
            cm = beyond[side] * FIGURE_WIDTH_CM / W
            out.append(("legend", label, f"reaches {beyond[side]:.1f} px ({cm:.2f} cm at {FIGURE_WIDTH_CM:g} cm) past "
                                         f"the frame's {side} edge, inside the frame's height"))  # fmt: skip
    return out
