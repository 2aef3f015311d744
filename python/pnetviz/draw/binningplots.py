"""Figures of the binning for the fit (issue 39): the objective against the number of bins, and
the score histograms of signal and background in the chosen binning (yields, for a datacard)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.draw import canvas
from pnetviz.draw.plots import CurveSpec, split_style
from pnetviz.draw.style import color
from pnetviz.rootenv import root, set_title

OBJECTIVE_TITLES = {"binned_fip": "Binned FIP", "asimov": "Asimov Z", "asimov_mc": "Asimov Z (MC error)"}
BASELINE_LABELS = {"uniform": "Uniform", "flat_signal": "Flat signal", "transfo_d": "TransfoD"}  # TransfoD: z_s = z_b = K/2
# each binning strategy its own colour and line style, none of them signal blue (the optimum's) or
# background red: (colour, ROOT line style: 3 dotted, 4 dash-dot, 9 long dashes)
BASELINE_STYLES = {"uniform": ("#a96b59", 3), "flat_signal": ("#832db6", 4), "transfo_d": ("#e76300", 9)}


def objective_figure(name: str, key: str, doc: dict, context: Sequence[str]) -> canvas.Figure:
    """The objective on the test split against K: the optimum chosen on train (its train value
    dashed), the baselines, the unbinned limit as a horizontal line and the chosen K (binning.json's
    chosen_k) as a dotted vertical one; the y title the objective's name (its definition: docs); context and legend inside
    the frame (canvas.boxed_figure), below the plateau the curves rise to, or above it with headroom."""
    def series(rows: list[dict], field: str) -> tuple[np.ndarray, np.ndarray]:
        ok = [r for r in rows if r[field] is not None and np.isfinite(r[field])]
        return np.array([r["k"] for r in ok], float), np.array([r[field] for r in ok], float)

    curves = [CurveSpec(f"{key}/optimum_test", *series(doc["by_k"], "test"), "Optimum (test)", color("signal"), split_style("test")),
              CurveSpec(f"{key}/optimum_train", *series(doc["by_k"], "train"), "Optimum (train)", color("signal"),
                        split_style("train"))]  # fmt: skip
    for kind, rows in doc["baselines"].items():
        hex_color, line_style = BASELINE_STYLES[kind]
        curves.append(CurveSpec(f"{key}/{kind}_test", *series(rows, "test"), f"{BASELINE_LABELS[kind]} (test)", color(hex_color),
                                line_style))  # fmt: skip
    curves = [c for c in curves if c.x.size > 1]
    limit = doc.get("unbinned_limit")
    top = max([float(c.y.max()) for c in curves] + ([limit] if limit else []) + [1e-12])
    frames = [canvas.Frame((1.0, float(doc["k_max"])), (0.0, top * room), "Number of bins K",
                           OBJECTIVE_TITLES.get(doc["objective"], doc["objective"])) for room in (1.08, 1.6)]  # fmt: skip

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        for c in curves:
            canvas.add_graph(fig, c.key, c.x, c.y, c.label, line_color=c.color, line_style=c.line_style)
        if limit:
            canvas.add_line(fig, 1.0, limit, float(doc["k_max"]), limit, "Unbinned limit",
                            line_color=color("reference"), line_style=2)  # fmt: skip
        chosen = doc.get("chosen_k")
        if chosen is not None and 1.0 <= chosen <= float(doc["k_max"]):  # the K the fit takes: marked, chosen on train
            canvas.add_line(fig, float(chosen), frame.y[0], float(chosen), top, f"Chosen K = {chosen} (train)",
                            line_color=color("all_events"), line_style=3)  # fmt: skip

    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, cms_pos=0, y_title_offset=1.4), frames, draw, context,
                               corners=("lower right", "lower left", "upper right", "upper left"))  # fmt: skip


def fit_histogram(name: str, edges: Sequence[float], sum_w: np.ndarray, sum_w2: np.ndarray, title: str) -> object:
    """A TH1D with the variable `edges`, contents sum_w and errors sqrt(sum_w2): as a fit takes it."""
    ROOT = root()
    e = np.ascontiguousarray(edges, dtype=np.float64)
    hist = ROOT.TH1D(name, "", e.size - 1, e)
    set_title(hist, title)
    hist.Sumw2()
    # every cell at once (under- and overflow 0): what SetBinContent/SetBinError bin by bin set,
    # the statistics then recomputed by ResetStats as after them
    contents, errors = np.zeros(e.size + 1), np.zeros(e.size + 1)
    contents[1:-1], errors[1:-1] = sum_w, np.sqrt(sum_w2)
    hist.SetContent(contents)
    hist.SetError(errors)
    hist.ResetStats()
    return hist


def _contents(hist) -> np.ndarray:
    """The bin contents of a TH1D (fit_histogram's), read in one call."""
    return np.frombuffer(hist.GetArray(), dtype=np.float64, count=hist.GetNcells())[1:-1].copy()


def histograms_figure(name: str, key: str, hists: Sequence[tuple[str, object, str, int]], ytitle: str,
                      context: Sequence[str]) -> canvas.Figure:  # fmt: skip
    """`hists` = [(process, TH1, label, colour)]: each process's yield per bin of the chosen binning
    (stored as `key`/process), lines on a log y axis, the context and legend inside the frame (a decade of headroom at most)."""
    contents = np.concatenate([_contents(h) for _, h, _, _ in hists])
    positive = contents[contents > 0]
    lo, hi = (float(positive.min()) * 0.5, float(positive.max())) if positive.size else (0.1, 10.0)
    frames = [canvas.Frame((0.0, 1.0), (lo, hi * room), "Score (chosen binning)", ytitle, logy=True) for room in (5.0, 10.0)]

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        for process, hist, label, col in hists:
            canvas.add_hist(fig, f"{key}/{process}", hist, None, hist_color=col, points=False)
            fig.legend.append((hist, label, "l"))

    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, cms_pos=0, extra_space=0.03), frames, draw, context,
                               corners=("upper left", "upper right", "upper center", "lower center"),
                               reframe=canvas.reframe)  # the drawing is the same in both frames: moved, not drawn again # fmt: skip
