"""What a pad shows, read back as points: every drawn line, marker, error bar and bar sampled
in NDC (drawn_items, drawn_points), for the free-corner search of draw.layout.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from pnetviz.draw import native
from pnetviz.rootenv import compiled, root
from pnetviz.draw.geometry import Figure, Frame, Margins, margins_of, margins_to_ndc


SAMPLE_STEP = 0.004  # NDC between the sampled points of a drawn line
MARKER_HALF = 0.012  # NDC half-size of a marker (size ~1.2)
ERROR_SAMPLES = 40  # points along an error bar: at most 0.02 NDC apart
ERROR_T = np.linspace(0.0, 1.0, ERROR_SAMPLES)  # where along the bar
MARKER_DX = np.array([0, -1, -1, 1, 1]) * MARKER_HALF  # a marker's centre and corners
MARKER_DY = np.array([0, -1, 1, -1, 1]) * MARKER_HALF
ERROR_T.flags.writeable = False


def drawn_items(fig: Figure, pad: int = 0, skip: frozenset[str] = frozenset()) -> list[tuple]:
    """What drawn_points samples, read once from the primitives of a pad, in data coordinates:
    ("line", x, y) polylines (graph lines and band outlines, histogram steps, TLines), ("markers",
    x, y, low, high) markers with their error bars (low/high None without), ("bars", x, low,
    high) vertical lines across the bars of a bar chart (the frame, and its copies RedrawAxis draws
    with option "sameaxis", are axes, not data). The same items give the points of any
    layout of the same frame (drawn_points with other margins), without drawing again. `skip`:
    names of objects left out (as if not drawn)."""
    p = fig.pads[pad]
    items: list[tuple] = []
    frame_hist = None  # the address of the pad's first histogram (of any dimension): the frame
    primitives = p.GetListOfPrimitives()
    cursor = root().TIter(primitives)  # TIter, not TObjLink: a class cppyy has set up already (~12 ms a new one)
    for _ in range(len(primitives)):
        obj = cursor.Next()
        class_name = obj.ClassName()
        kind = _kind(obj, class_name)
        if not kind:  # texts, legends, the TFrame
            continue
        option = (cursor.GetOption() or "").upper()  # the option of the object Next returned
        if kind == "hist":
            address = root().addressof(obj)  # two proxies of one object: the same address
            frame_hist = address if frame_hist is None else frame_hist
            is_frame = address == frame_hist
        if skip and obj.GetName() in skip:
            continue
        if kind == "graph" and obj.GetN() > 0:
            n = obj.GetN()
            x = np.frombuffer(obj.GetX(), dtype=np.float64, count=n).copy()
            y = np.frombuffer(obj.GetY(), dtype=np.float64, count=n).copy()
            if "F" in option:
                items.append(("line", np.r_[x, x[:1]], np.r_[y, y[:1]]))
            if "L" in option or "C" in option or not any(c in option for c in "FP"):
                items.append(("line", x, y))
            if "P" in option:
                low, high = _graph_y_errors(obj, class_name, n)
                items.append(("markers", x, y, None if low is None else y - low, None if high is None else y + high))
        elif kind == "hist" and not is_frame and obj.GetDimension() == 1 and "AXIS" not in option:
            ax, nb = obj.GetXaxis(), obj.GetNbinsX()
            edges = _linspace(ax.GetXmin(), ax.GetXmax(), nb + 1) if not ax.IsVariableBinSize() else \
                np.frombuffer(ax.GetXbins().GetArray(), dtype=np.float64, count=nb + 1).copy()  # fmt: skip
            c = bin_contents(obj, class_name, nb)
            if "B" in option:  # bars: filled rectangles, sampled as 12 vertical lines across each
                start = edges[:-1] + obj.GetBarOffset() * (edges[1:] - edges[:-1])
                across = np.linspace(start, start + obj.GetBarWidth() * (edges[1:] - edges[:-1]), 12, axis=1).ravel()
                items.append(("bars", across, np.repeat(np.minimum(0.0, c), 12), np.repeat(np.maximum(0.0, c), 12)))
            elif "E" in option or "P" in option:
                e = _bin_errors(obj, class_name, nb)
                shown = c != 0
                items.append(("markers", 0.5 * (edges[:-1] + edges[1:])[shown], c[shown], (c - e)[shown], (c + e)[shown]))
            else:
                items.append(("line", np.repeat(edges, 2)[1:-1], np.repeat(c, 2)))
        elif kind == "line" and not obj.TestBit(root().TLine.kLineNDC):
            items.append(("line", np.array([obj.GetX1(), obj.GetX2()]), np.array([obj.GetY1(), obj.GetY2()])))
    return items


Parts = tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray]


KINDS = (("graph", "TGraph"), ("hist", "TH1"), ("line", "TLine"))


def _kind(obj, class_name: str) -> str:
    """What drawn_items reads of `obj`, of class `class_name`: "graph" (a TGraph or derived), "hist"
    (a TH1 of any dimension), "line" (a TLine or derived), "" (nothing: texts, legends, frames).
    By the object's TObject::InheritsFrom, once per class and base (_inherits): TClass::GetClass, an
    overload set that cppyy resolves by compiling a call wrapper for each candidate, cost ~17 ms
    of CPU at its first call in a process (issue 55)."""
    return next((kind for kind, base in KINDS if _inherits(obj, class_name, base)), "")


def drawn_points(fig: Figure | None, frame: Frame, pad: int = 0, items: list[tuple] | None = None,
                 margins: Margins | None = None) -> np.ndarray:  # fmt: skip
    """(k, 2) NDC points along everything drawn so far in the frame of a pad: lines and band
    outlines of graphs sampled every SAMPLE_STEP, markers as their corners and centre, error bars,
    1-D histograms as steps or points, TLines; points outside the frame dropped. `items`
    (drawn_items) and `margins`: the same for a pad of these margins holding those items."""
    margins = margins_of(fig.pads[pad]) if margins is None else margins
    items = drawn_items(fig, pad) if items is None else items
    (X0, Y0, X1, Y1), xs, ys = drawn_parts(items, frame, margins)
    if X0.size:  # every segment sampled every SAMPLE_STEP from its start (its end excluded)
        n = np.maximum(np.ceil(np.hypot(X1 - X0, Y1 - Y0) / SAMPLE_STEP).astype(int), 1)
        start = np.repeat(np.arange(n.size), n)
        t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
        xs = np.concatenate([xs, X0[start] + t * (X1 - X0)[start]])
        ys = np.concatenate([ys, Y0[start] + t * (Y1 - Y0)[start]])
    points = np.column_stack((xs, ys))
    left, right, bottom, top = margins
    inside = (points[:, 0] >= left) & (points[:, 0] <= 1 - right) & (points[:, 1] >= bottom) & (points[:, 1] <= 1 - top)
    return points[inside & np.isfinite(points).all(axis=1)]


def drawn_parts(items: list[tuple], frame: Frame, margins: Margins) -> Parts:
    """What drawn_points samples, in NDC of a pad of `margins` showing `frame`: the segments
    (x0, y0, x1, y1) of every line (sampled every SAMPLE_STEP by drawn_points, or by the
    occupancy kernel of draw.layout) and the points (x, y) of markers, error bars and line ends;
    float64 arrays, unfiltered (outside the frame or not finite too)."""
    xs: list[np.ndarray] = []  # points
    ys: list[np.ndarray] = []
    ends: list[list[np.ndarray]] = [[], [], [], []]  # segments (x0, y0, x1, y1)

    def ndc(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return margins_to_ndc(margins, x, y, frame)

    def segments(*xy: np.ndarray) -> None:
        for store, values in zip(ends, xy):
            store.append(values)

    def sampled(x: np.ndarray, y: np.ndarray) -> None:
        """A polyline in data coordinates, as segments, its last point included."""
        X, Y = ndc(x, y)
        ok = np.isfinite(X) & np.isfinite(Y)
        X, Y = X[ok], Y[ok]
        if X.size >= 2:
            segments(X[:-1], Y[:-1], X[1:], Y[1:])
            X, Y = X[-1:], Y[-1:]
        xs.append(X)
        ys.append(Y)

    def markers(x: np.ndarray, y: np.ndarray, low: np.ndarray | None = None, high: np.ndarray | None = None) -> None:
        X, Y = ndc(x, y)
        xs.append((np.asarray(X, dtype=np.float64)[None, :] + MARKER_DX[:, None]).ravel())  # centre and corners
        ys.append((np.asarray(Y, dtype=np.float64)[None, :] + MARKER_DY[:, None]).ravel())
        if low is not None and len(x):  # error bars: ERROR_SAMPLES points each (a box is >= 0.05 NDC tall)
            t = ERROR_T
            bars = np.asarray(low, float)[:, None] + (np.asarray(high, float) - np.asarray(low, float))[:, None] * t[None, :]
            EX, EY = ndc(np.repeat(np.asarray(x, float)[:, None], ERROR_SAMPLES, axis=1).ravel(), bars.ravel())
            xs.append(EX)
            ys.append(EY)

    def bars(across: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        X0, Y0 = ndc(across, low)
        X1, Y1 = ndc(across, high)
        ok0, ok1 = np.isfinite(X0) & np.isfinite(Y0), np.isfinite(X1) & np.isfinite(Y1)
        segments(X0[ok0 & ok1], Y0[ok0 & ok1], X1[ok0 & ok1], Y1[ok0 & ok1])
        xs.extend([X1[ok1], X0[ok0 & ~ok1]])  # an end off a log axis: the other end alone
        ys.extend([Y1[ok1], Y0[ok0 & ~ok1]])

    with np.errstate(divide="ignore", invalid="ignore"):
        for kind, *arrays in items:
            {"line": sampled, "markers": markers, "bars": bars}[kind](*arrays)

    def joined(parts: list[np.ndarray]) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float64) if parts else np.zeros(0)

    return (joined(ends[0]), joined(ends[1]), joined(ends[2]), joined(ends[3])), joined(xs), joined(ys)


@dataclass(frozen=True)
class PackedItems:
    """drawn_items' items, each kind's arrays joined (float64) for the occupancy kernel: polylines
    (line_x, line_y; line_ends: where each ends), markers (mark_x, mark_y), the error bars of those
    that have them (error_x, error_low, error_high), bar lines (bar_x, bar_low, bar_high); the
    counts in `sizes` (lines, markers, error bars, bar lines). An empty array holds one NaN
    (cppyy passes no pointer for an empty array; the kernel is told the counts)."""

    line_x: np.ndarray
    line_y: np.ndarray
    line_ends: np.ndarray
    mark_x: np.ndarray
    mark_y: np.ndarray
    error_x: np.ndarray
    error_low: np.ndarray
    error_high: np.ndarray
    bar_x: np.ndarray
    bar_low: np.ndarray
    bar_high: np.ndarray
    sizes: tuple[int, int, int, int]
    error_inners: dict = field(default_factory=dict, compare=False, repr=False)  # (y lo, logy) -> the samples' inner values


_PACKED = ("line_x", "line_y", "mark_x", "mark_y", "error_x", "error_low", "error_high", "bar_x", "bar_low", "bar_high")


def pack_items(items: list[tuple]) -> PackedItems:
    """`items` (drawn_items) packed once for any number of frames (items_occupancy)."""
    parts: dict[str, list] = {key: [] for key in _PACKED}
    lengths: list[int] = []
    for kind, *arrays in items:
        if kind == "line":
            keys = ("line_x", "line_y")
            lengths.append(len(arrays[0]))
        elif kind == "markers":
            keys = ("mark_x", "mark_y")
            if arrays[2] is not None and len(arrays[0]):
                keys = ("mark_x", "mark_y", "error_x", "error_low", "error_high")
                arrays = [arrays[0], arrays[1], arrays[0], arrays[2], arrays[3]]
        else:
            keys = ("bar_x", "bar_low", "bar_high")
        for key, values in zip(keys, arrays):
            parts[key].append(values)
    joined = {key: doubles(np.concatenate(v, dtype=np.float64) if v else np.zeros(0)) for key, v in parts.items()}
    ends = np.cumsum(np.array(lengths or [0], dtype=np.int64))
    sizes = (len(lengths), sum(map(len, parts["mark_x"])), sum(map(len, parts["error_x"])), sum(map(len, parts["bar_x"])))
    return PackedItems(line_ends=ends, sizes=sizes, **joined)


def items_occupancy(packed: PackedItems, frame: Frame, margins: Margins, grid: np.ndarray) -> None:
    """Set in `grid` (macros/occupancy.h: (cells, words) uint64) the cells of what drawn_parts
    gives for these items in `frame` on a pad of `margins` (segments sampled every SAMPLE_STEP),
    those inside the frame and finite, the same bits: one C++ call (macros/occupancy_items.h), and
    one more where the error bars' log10 values are new to the packed items (_error_inners)."""
    left, right, bottom, top = margins
    view = np.array([*frame.x, frame.logx, *frame.y, frame.logy, left, right, bottom, top, SAMPLE_STEP, MARKER_HALF],
                    dtype=np.float64)  # fmt: skip
    p, (lines, marks, errors, bars) = packed, packed.sizes
    inners = _error_inners(packed, float(frame.y[0]), bool(frame.logy))
    _items_kernel().occupancy_items(p.line_x, p.line_y, p.line_ends, lines, p.mark_x, p.mark_y, marks, p.error_x,
                                    inners, errors, ERROR_SAMPLES, p.bar_x, p.bar_low, p.bar_high, bars, view,
                                    grid.shape[0], grid.shape[1], grid)  # fmt: skip


def _error_inners(packed: PackedItems, lo: float, log: bool) -> np.ndarray:
    """The inner values (log10(v / lo) or v - lo) of the error bars' samples on a y axis starting
    at `lo`: computed once per such axis (boxed_figure tries frames of one start and more headroom)."""
    if not packed.sizes[2]:
        return packed.error_low  # its placeholder
    inners = packed.error_inners.get((lo, log))
    if inners is None:
        inners = packed.error_inners[(lo, log)] = np.empty(packed.sizes[2] * ERROR_SAMPLES)
        _items_kernel().occupancy_error_inners(packed.error_low, packed.error_high, packed.sizes[2], ERROR_T, ERROR_SAMPLES,
                                               lo, log, inners)  # fmt: skip
    return inners


@functools.cache
def _items_kernel():
    """The compiled library's kernels (draw.native), else macros/occupancy_items.h declared to cling."""
    built = native.kernels()
    return built if built is not None else compiled('#include "occupancy_items.h"', "occupancy_items.h").pnetviz


def doubles(values: np.ndarray) -> np.ndarray:
    """`values` as a contiguous float64 array for a kernel (one NaN for none: cppyy passes no
    pointer for an empty array; the kernel is told the count)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    return values if values.size else np.full(1, np.nan)


def _graph_y_errors(graph, class_name: str, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(low, high) y errors of a TGraphErrors or TGraphAsymmErrors, (None, None) for a TGraph."""
    if _inherits(graph, class_name, "TGraphAsymmErrors"):
        low, high = graph.GetEYlow(), graph.GetEYhigh()
    elif _inherits(graph, class_name, "TGraphErrors"):
        low = high = graph.GetEY()
    else:
        return None, None
    return np.frombuffer(low, dtype=np.float64, count=n).copy(), np.frombuffer(high, dtype=np.float64, count=n).copy()


_BIN_TYPES = {"TH1D": np.float64, "TH1F": np.float32, "TH1I": np.int32, "TH1S": np.int16, "TH1C": np.int8}


def bin_contents(hist, class_name: str, nb: int) -> np.ndarray:
    """Contents of bins 1..nb as float64 (from the histogram's array where its type is known)."""
    dtype = _BIN_TYPES.get(class_name)
    if dtype is None or hist.GetBuffer():
        return np.array([hist.GetBinContent(i) for i in range(1, nb + 1)])
    return np.frombuffer(hist.GetArray(), dtype=dtype, count=nb + 2)[1:-1].astype(np.float64)


def _bin_errors(hist, class_name: str, nb: int) -> np.ndarray:
    """Errors of bins 1..nb, as TH1::GetBinError: sqrt(sum of w^2), else sqrt(|content|)."""
    if class_name not in _BIN_TYPES or hist.GetBinErrorOption() != _k_normal() or hist.GetBuffer():
        return np.array([hist.GetBinError(i) for i in range(1, nb + 1)])
    sumw2 = hist.GetSumw2()
    if sumw2.fN:
        return np.sqrt(np.frombuffer(sumw2.GetArray(), dtype=np.float64, count=nb + 2)[1:-1])
    return np.sqrt(np.abs(bin_contents(hist, class_name, nb)))


@functools.cache
def _k_normal() -> int:
    """TH1::kNormal (looked up once: 1.5 us a lookup)."""
    return int(root().TH1.kNormal)


_INHERITS: dict[tuple[str, str], bool] = {}  # (class name, base) -> whether the class derives from base


def _inherits(obj, class_name: str, base: str) -> bool:
    """Whether objects of `class_name` (that of `obj`) are `base`s: TObject::InheritsFrom, once per pair."""
    key = (class_name, base)
    found = _INHERITS.get(key)
    if found is None:
        found = _INHERITS[key] = bool(obj.InheritsFrom(base))
    return found


def _linspace(start: float, stop: float, num: int) -> np.ndarray:
    """np.linspace(start, stop, num) for float ends, the same doubles by numpy's own arithmetic
    (its steps from the difference, the last point `stop`), without its 12 us of overhead."""
    if num < 2:
        return np.linspace(start, stop, num)
    delta = float(stop) - float(start)
    step = delta / (num - 1)
    y = np.arange(num, dtype=np.float64)
    if step == 0:  # numpy's way for denormal steps
        y /= num - 1
        y *= delta
    else:
        y *= step
    y += start
    y[-1] = stop
    return y
