"""The cut scan with expected yields (six legend entries, the longest 'Z_A (max 0.782 at 0.551)'):
its legend above the frame in as many columns as the labels' own widths allow (TLegend sizes each
column by its widest label), so that the frame keeps 5 cm at 8 cm; one column of six rows left
it 4.34 cm (the multi-class demo's signal_vs_ttX_cut_scan with --expected-yields), and the
optimum's dotted line is named in its curve's entry (no row of its own)."""

from __future__ import annotations

import numpy as np

from pnetviz.draw import plots
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.roc import binary_clf_curve

MIN_FRAME_CM = 5.0  # tests/draw/figlint_frames.py: a curve figure's frame at 8 cm


def test_expected_yields_cut_scan_keeps_a_5_cm_frame():
    rng = np.random.default_rng(3)
    n_s, n_b = 2000, 3000
    s = np.r_[np.clip(rng.normal(0.75, 0.1, n_s), 0, 1), np.clip(rng.normal(0.3, 0.12, n_b - 1), 0, 0.9), 0.999]
    y = np.r_[np.ones(n_s, bool), np.zeros(n_b, bool)]
    w = np.r_[rng.uniform(0.5, 1.5, n_s), rng.uniform(0.5, 1.5, n_b)]
    curve = binary_clf_curve(s, y, w)
    scan = wp.cut_scan(curve, 20.0, 500.0, wp.passing_background_events(s, y, w, curve.thresholds[1:]), 10.0)
    xtitle = "Cut on P(signal) / (P(signal) + P(t#bar{t}X))"
    with cms_style(StyleOptions(lumi=138.0)):
        fig = plots.cut_scan_figure("cut_scan", "cut_scan", scan, xtitle, ["Run3Mu, fold 0", "MHc130_MA90 vs t#bar{t}X"], "expected")
    c = fig.canvas
    frame_cm = (1 - c.GetTopMargin() - c.GetBottomMargin()) * c.GetWh() * 8.0 / c.GetWw()
    legends = [o for o in c.GetListOfPrimitives() if o.InheritsFrom("TLegend")]
    labels = [e.GetLabel() for leg in legends for e in leg.GetListOfPrimitives()]
    assert len(labels) == 6 and not [t for t in labels if "max at" in t.lower()], labels
    assert frame_cm >= MIN_FRAME_CM, (frame_cm, [leg.GetNColumns() for leg in legends])
    assert all(leg.GetX2NDC() <= 1 - c.GetRightMargin() + 1e-9 for leg in legends)  # within the frame's width
