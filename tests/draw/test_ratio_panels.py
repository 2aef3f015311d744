"""Ratio panels under curve comparisons and the fold-overlaid training curves: the drawn ratio is
the computed one, the layout is a main pad over a ratio pad, and both figures pass the figure
linter; the best epoch is the lowest validation loss when the trainer recorded none."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import figlint  # tests/draw is on sys.path (see test_figure_lint.py)
from pnetviz.draw import canvas, plots, training
from pnetviz.draw.style import StyleOptions, cms_style, color
from pnetviz.io.history import TrainingHistory
from pnetviz.metrics import folds
from pnetviz.metrics.curvesums import curve_sums
from pnetviz.metrics.roc import binary_clf_curve
from pnetviz.rootenv import root


def _history(seed: int, best: int | None = None) -> TrainingHistory:
    rng = np.random.default_rng(seed)
    epochs = np.arange(20.0)
    valid = 0.5 + 0.002 * (epochs - 12.0) ** 2 + rng.normal(0, 0.003, 20)
    columns = {"epoch": epochs, "train_loss": 0.9 * np.exp(-epochs / 6) + 0.3, "valid_loss": valid,
               "train_acc": np.full(20, 0.8), "valid_acc": np.full(20, 0.78)}  # fmt: skip
    return TrainingHistory(Path(f"h{seed}.json"), columns, {} if best is None else {"best_epoch": best})


def test_best_epoch_is_the_lowest_validation_loss_unless_recorded():
    h = _history(3)
    assert training.best_epoch(h) == int(np.argmin(h.columns["valid_loss"]))
    assert training.best_epoch(_history(3, best=5)) == 5


def _figures():
    rng = np.random.default_rng(7)
    n = 6000
    y = rng.random(n) < 0.4
    w = rng.uniform(0.5, 1.5, n)
    s_ref, s_other = rng.normal(1.2 * y, 1), rng.normal(1.6 * y, 1)
    ref, other = binary_clf_curve(s_ref, y, w), binary_clf_curve(s_other, y, w)
    sums_ref, sums_other = curve_sums(ref, s_ref, y, w), curve_sums(other, s_other, y, w)
    roc = [plots.CurveSpec("t/roc_a", ref.fpr, ref.tpr, "Binary", color("binary"), 2),
           plots.CurveSpec("t/roc_b", other.fpr, other.tpr, "Multi-class LR", color("multiclass"), 2)]
    ratio = folds.roc_ratio(other, ref, sums_other)
    panel = plots.RatioPanel("binary", [plots.RatioSpec("t/roc_ratio_a", folds.roc_ratio(ref, ref, sums_ref), color("binary"), 2, True),
                                        plots.RatioSpec("t/roc_ratio_b", ratio, color("multiclass"), 2)])  # fmt: skip
    ok_a, ok_b = ref.fpr > 0, other.fpr > 0
    rej = [plots.CurveSpec("t/rej_a", ref.tpr[ok_a], 1 / ref.fpr[ok_a], "Binary", color("binary"), 2),
           plots.CurveSpec("t/rej_b", other.tpr[ok_b], 1 / other.fpr[ok_b], "Multi-class LR", color("multiclass"), 2)]
    rej_panel = plots.RatioPanel("binary", [
        plots.RatioSpec("t/rej_ratio_a", folds.rejection_ratio(ref, ref, sums_ref), color("binary"), 2, True),
        plots.RatioSpec("t/rej_ratio_b", folds.rejection_ratio(other, ref, sums_other), color("multiclass"), 2)])  # fmt: skip
    ctx = ["m(H^{+}) = 130 GeV, m(A) = 90 GeV", "vs t#bar{t}Z, 3#mu, fold 0, test"]
    figs = [plots.roc_figure("roc_ratio", roc, ctx, ratio=panel), plots.rejection_figure("rejection_ratio", rej, ctx, ratio=rej_panel),
            training.fold_training_figure({k: _history(k) for k in range(3)}, ctx[:1])]  # fmt: skip
    return figs, ratio


@pytest.mark.slow
def test_ratio_panel_draws_the_computed_ratio_and_passes_the_linter(tmp_path):
    with cms_style(StyleOptions()):
        figs, ratio = _figures()
        roc = figs[0]
        assert len(roc.pads) == 2 and roc.pads[1].GetAbsHNDC() < figlint.RATIO_PANEL_MAX_HEIGHT
        drawn = roc.objects["t/roc_ratio_b"]
        ok = np.isfinite(ratio.ratio)
        x = np.frombuffer(drawn.GetX(), dtype=np.float64, count=drawn.GetN())
        y = np.frombuffer(drawn.GetY(), dtype=np.float64, count=drawn.GetN())
        np.testing.assert_allclose(x, ratio.x[ok])
        np.testing.assert_allclose(y, ratio.ratio[ok])
        frame = next(o for o in roc.pads[1].GetListOfPrimitives() if o.InheritsFrom("TH1"))
        assert 0.0 <= frame.GetMinimum() < 1.0 < frame.GetMaximum()  # a physical range holding 1
        out = root().TFile(str(tmp_path / "plots.root"), "RECREATE")
        out.mkdir("canvases").cd()
        for fig in figs:
            canvas.save(fig, tmp_path, ["png"])
            fig.canvas.Write(fig.name)
        out.Close()
    assert [f.name for f in figs] == ["roc_ratio", "rejection_ratio", "training_loss_folds"]
    violations = figlint.lint_paths([tmp_path / "plots.root"], jobs=1, redraw=True)
    assert violations == [], "\n".join(violations)


def test_ratio_range_ends_on_round_steps():
    """Ratios from 0.68 to 1.34 (1st-99th percentile 0.687-1.333): 10 % margins give 0.622-1.398,
    widened to round ends at most plots.RATIO_STEPS steps apart (0.2: 0.6-1.4), so that ROOT
    labels round values, not 0.601, 0.803, ... (seen on a b-jet comparison); a ratio of 1 alone:
    0.99-1.01 (margins of the 0.1 minimum span), already round."""
    x = np.linspace(0.0, 1.0, 11)
    spec = plots.RatioSpec("k", folds.CurveRatio(x, np.linspace(0.68, 1.34, 11), np.full(11, np.nan), np.full(11, np.nan)), 1)
    assert plots.ratio_range([spec], (0.0, 1.0)) == (0.6, 1.4)
    flat = plots.RatioSpec("k", folds.CurveRatio(x, np.ones(11), np.full(11, np.nan), np.full(11, np.nan)), 1)
    assert plots.ratio_range([flat], (0.0, 1.0)) == (0.99, 1.01)


def test_rejection_ratio_range_holds_where_readers_look():
    """One background event at the top: below eps_s 0.4 the rejection ratio reaches ~10; the panel's
    y range (window from READ_FROM_EPS_S) holds the ratios over [0.4, 1] with the 10 % margins."""
    from pnetviz.draw.ratiopanel import READ_FROM_EPS_S, RatioPanel, RatioSpec

    x = np.linspace(0.0, 1.0, 101)
    far = np.where(x < 0.3, 10.0, 1.0 + 0.2 * x)  # the ratio of one background event below 0.3
    spec = RatioSpec("t/r", folds.CurveRatio(x, far, far - 0.05, far + 0.05), 1, 1)
    whole = plots.ratio_range([spec], (0.0, 1.0))
    read = plots.ratio_range([spec], (READ_FROM_EPS_S, 1.0))
    assert whole[1] >= 10.0 and read[1] <= 1.5  # 1.2 and a margin, on a round step
    assert read[0] <= 0.9 and read[1] >= 1.2
    assert RatioPanel("test", [spec], (READ_FROM_EPS_S, 1.0)).ytitle() == "Ratio"  # the main y title keeps its size


def test_lowest_main_label_hidden_only_where_it_would_meet_the_panel():
    """The upper frame's lowest y label is hidden only where it sits less than a label's height
    above the frame's bottom (it would touch the panel's top label): a loss axis from 0.42 keeps
    its '0.6' (hiding it left the lower third of the axis unlabelled), one from 0 hides '0'."""
    from pnetviz.draw.ratio import lowest_label_height

    loss = canvas.Frame((0.0, 30.0), (0.42, 1.72), "Epoch", "Loss")
    assert lowest_label_height(loss, 510) == pytest.approx((0.6 - 0.42) / 1.3)  # labels every 0.2 from 0.6
    unit = canvas.Frame((0.0, 1.0), (0.0, 1.05), "x", "Signal efficiency")
    assert lowest_label_height(unit, 510) == 0.0
    rejection = canvas.Frame((0.0, 1.0), (1.0, 2e3), "x", "Rejection", logy=True)
    assert lowest_label_height(rejection, 510) == 0.0  # "1" on the bottom edge
    assert lowest_label_height(canvas.Frame((0.0, 1.0), (0.5, 2e3), "x", "R", logy=True), 510) == pytest.approx(
        math.log10(2.0) / math.log10(4e3))
    with cms_style(StyleOptions()):
        figs = [canvas.ratio_figure(name, main, canvas.Frame(main.x, (0.55, 0.97), main.xtitle, "Accuracy"))
                for name, main in (("kept", loss), ("hidden", unit))]
    kept, hidden = (next(o for o in f.pads[0].GetListOfPrimitives() if o.InheritsFrom("TH1")).GetYaxis() for f in figs)
    assert not kept.GetModifiedLabels() and hidden.GetModifiedLabels().GetSize() == 1
    for fig in figs:
        fig.close()
