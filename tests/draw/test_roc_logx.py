"""The log-x ROC view (roc_curve_logx, issue 54's CMS basics): eps_b on a log axis from the decade
below the smallest non-zero eps_b (1e-4 at the least) to 1, each curve's points with eps_b in that
range stored exactly under its own key (roc_logx/<split>), beside the linear roc_curve."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import plots
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.metrics.roc import binary_clf_curve


@pytest.mark.parametrize("n, low", [(300, 1e-3), (200_000, 1e-4)])
def test_log_x_roc_frame_and_points(n, low):
    rng = np.random.default_rng(2)
    y = rng.random(n) < 0.5
    s = rng.normal(np.where(y, 1.5, 0.0), 1.0)
    w = np.ones(n)
    curve = binary_clf_curve(s, y, w)
    smallest = curve.fpr[curve.fpr > 0].min()
    assert low == max(10.0 ** np.floor(np.log10(smallest)), 1e-4)  # the case each parameter is meant to be
    spec = plots.CurveSpec("roc/test", curve.fpr, curve.tpr, "Test", 1, 2)
    with cms_style(StyleOptions()):
        fig = plots.roc_logx_figure("roc_curve_logx", [spec], ["toy"])
    pad = fig.pads[0]
    assert pad.GetLogx() == 1 and pad.GetLogy() == 0
    frame = next(o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TH1"))
    assert frame.GetXaxis().GetXmin() == pytest.approx(low) and frame.GetXaxis().GetXmax() == pytest.approx(1.0)
    stored = fig.objects["roc_logx/test"]
    x = np.frombuffer(stored.GetX(), count=stored.GetN())
    keep = curve.fpr >= low
    assert x.min() == pytest.approx(curve.fpr[keep].min()) and x.max() == pytest.approx(1.0)
    fig.close()
