"""Where a y title goes: draw/canvas.py's tick-label model (tick_labels, label_width_px,
fit_y_title_offset) on hand-worked ranges, and figures whose y titles keep clear of long tick
labels (checked by the figure linter's `axis` rule, which measures the ink)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import figlint  # tests/draw is on sys.path (see test_figure_lint.py)
from pnetviz.draw import canvas
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.rootenv import root


def test_tick_labels_as_tgaxis_writes_them():
    assert canvas.tick_labels(0.0, 1.05, 510) == ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    assert canvas.tick_labels(0.9095, 0.9425, 510) == ["0.91", "0.915", "0.92", "0.925", "0.93", "0.935", "0.94"]
    assert canvas.tick_labels(-1.0, 1.0, 504) == ["-1", "-0.5", "0", "0.5", "1"]
    assert canvas.tick_labels(0.0, 12000.0, 510, max_digits=4) == ["0", "2", "4", "6", "8", "10", "12"]  # x10^3
    assert canvas.tick_labels(0.0, 1e-4, 510)[-1] == "0.1"  # x10^-3
    assert canvas.tick_labels(math.nan, 1.0, 510) == [] and canvas.tick_labels(1.0, 1.0, 510) == []


def test_label_width_and_the_fitted_offset():
    # "0.915" at 30 px: 4 digits x 0.556 + a point 0.278 = 2.502 heights = 75.06 px
    assert canvas.label_width_px(["0.2", "0.915"], 30.0) == pytest.approx(75.06)
    unit = canvas.Frame((0.0, 1.0), (0.0, 1.05), "x", "Signal efficiency")
    narrow = canvas.Frame((0.0, 1.0), (0.9095, 0.9425), "x", "Test AUC")
    # cmsstyle's sizes: title 36 px, labels 30 px, label offset 7.2 px; labels every 0.01 (505)
    assert canvas.fit_y_title_offset(unit, 1.2, 36.0, 30.0, 7.2) == 1.2  # "0.2" fits: cmsCanvas's default kept
    need = 30.0 * (3 * 0.556 + 0.278) + 7.2 + canvas.Y_TITLE_GAP  # "0.91"
    assert canvas.fit_y_title_offset(narrow, 1.2, 36.0, 30.0, 7.2, 505) == pytest.approx(
        (need + canvas.Y_TITLE_DESCENT * 36.0) / (canvas.Y_TITLE_STEP * 36.0))
    log = canvas.Frame((0.0, 1.0), (1.0, 1e4), "x", "Rejection", logy=True)
    assert canvas.fit_y_title_offset(log, 1.2, 36.0, 30.0, 7.2) == 1.2  # "10^{4}" clears a title without a subscript


def test_log_axis_labels_and_a_subscripted_title():
    """A log axis's decades as TGaxis writes them ("1", "10", "10^{n}", #minus), their width with the
    superscript, and the offset a title with a subscript needs beside them (rejection 1/eps_b)."""
    assert canvas.log_tick_labels(1.0, 2.2e4) == ["1", "10", "10^{2}", "10^{3}", "10^{4}"]
    assert canvas.log_tick_labels(2e-4, 0.5) == ["10^{#minus3}", "10^{#minus2}", "10^{#minus1}"]  # only 1 and 10 plain
    assert canvas.log_tick_labels(100.0, 800.0) == ["10^{2}"] and canvas.log_tick_labels(2.0, 9.0) == []
    # "10^{3}" at 30 px: "10" 2 x 0.556 + one superscript digit 0.3 = 1.412 heights = 42.36 px (its ink: 1.33)
    assert canvas.label_width_px(["1", "10", "10^{3}"], 30.0) == pytest.approx(42.36)
    assert canvas.label_width_px(["10^{#minus4}"], 30.0) == pytest.approx(30.0 * (1.112 + 0.6))  # ink 1.66
    rejection = canvas.Frame((0.0, 1.0), (1.0, 2.2e4), "x", "Background rejection 1/#varepsilon_{b}", logy=True)
    need = 42.36 + 7.2 + canvas.Y_TITLE_GAP  # the subscript reaches 0.55 T (measured 0.53-0.54) towards the axis
    assert canvas.fit_y_title_offset(rejection, 1.2, 36.0, 30.0, 7.2) == pytest.approx((need + 0.55 * 36.0) / (1.6 * 36.0))
    assert canvas.fit_y_title_offset(rejection, 1.2, 36.0, 30.0, 7.2) > 1.25  # cmsCanvas's 1.2 left 3 px of ink


MIN_INK_GAP_PX = 5  # of a 600 px wide figure: 0.07 cm at 8 cm; the subscript was 3 px from "10^{3}"


def _y_ink_gap(fig, tmp_path) -> int:
    """Pixels between the rightmost ink of the main pad's y title and the leftmost ink of its tick
    labels (each found as the pixels that change when it alone is drawn transparent)."""
    ROOT = root()
    pad = fig.pads[0]
    axis = next(o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TH1")).GetYaxis()

    def render():
        for p in [fig.canvas, *fig.pads]:
            p.Modified()
        fig.canvas.Update()
        fig.canvas.SaveAs(str(tmp_path / "ink.png"))
        return figlint._load_png(ROOT, tmp_path / "ink.png")

    title_ink, label_ink = figlint.axis_ink(ROOT, axis, render, render())
    title, labels = np.nonzero(title_ink.any(axis=0))[0], np.nonzero(label_ink.any(axis=0))[0]
    return int(labels.min() - title.max() - 1)


@pytest.mark.slow
def test_rejection_y_title_clears_the_decade_labels(tmp_path):
    """Rejection figures (decades to 10^{4}, title 'Background rejection 1/#varepsilon_{b}'), alone
    and over a ratio panel: the title's subscript ends MIN_INK_GAP_PX or more left of the widest
    tick label's ink ("10^{3}", "10^{4}"; 3 px with cmsCanvas's offset)."""
    from pnetviz.draw import plots  # noqa: PLC0415
    from pnetviz.draw.style import color  # noqa: PLC0415
    from pnetviz.metrics import folds  # noqa: PLC0415
    from toyrocs import two_rocs  # noqa: PLC0415

    ref, other, _ = two_rocs(20000, 1)
    with cms_style(StyleOptions()):
        rej = [plots.CurveSpec(f"t/rej_{k}", c.tpr[c.fpr > 0], 1 / c.fpr[c.fpr > 0], label, color(key), 2)
               for k, (c, label, key) in enumerate(((ref, "Binary", "binary"), (other, "Multi-class LR", "multiclass")))]
        panel = plots.RatioPanel("binary", [plots.RatioSpec("t/r_a", folds.rejection_ratio(ref, ref, 1.2e4), color("binary"), 2, True),
                                            plots.RatioSpec("t/r_b", folds.rejection_ratio(other, ref, 1.2e4), color("multiclass"), 2)])
        ctx = ["m(H^{+}) = 130 GeV, m(A) = 90 GeV", "vs t#bar{t}Z, 3#mu, fold 0, test"]
        for fig in (plots.rejection_figure("rejection", rej, ctx), plots.rejection_figure("rejection_ratio", rej, ctx, ratio=panel)):
            hframe = next(o for o in fig.pads[0].GetListOfPrimitives() if o.InheritsFrom("TH1"))
            assert hframe.GetMaximum() > 1e4 and "_{" in hframe.GetYaxis().GetTitle()
            gap = _y_ink_gap(fig, tmp_path)
            fig.close()
            assert gap >= MIN_INK_GAP_PX, f"{fig.name}: the y title's ink {gap} px from the tick labels'"


def _linted(tmp_path, figures) -> list[dict]:
    from pnetviz.draw.rootfile import write_root_file  # noqa: PLC0415

    for fig in figures:
        canvas.save(fig, tmp_path, ["png"])
    write_root_file(tmp_path / "plots.root", figures)
    for fig in figures:
        fig.close()
    return figlint.lint_records([tmp_path / "plots.root"], jobs=1)


@pytest.mark.slow
def test_long_tick_labels_keep_clear_of_the_y_title(tmp_path):
    """A narrow AUC range (labels "0.91" ...) in a CMS figure and a ratio panel with labels
    0.95 ... 1.05 under a short upper frame: no `axis` violation, titles on the canvas."""
    with cms_style(StyleOptions()):
        auc = canvas.figure("narrow_auc", canvas.Frame((80.0, 100.0), (0.9095, 0.9425), "m(A) [GeV]", "Test AUC"),
                            y_title_offset=1.45, cms_pos=0)  # fmt: skip
        ratio = canvas.ratio_figure("narrow_ratio", canvas.Frame((0.0, 1.0), (0.0, 1.05), "Background efficiency",
                                                                 "Signal efficiency (TPR)"),
                                    canvas.Frame((0.0, 1.0), (0.93, 1.07), "Background efficiency", "Ratio"))  # fmt: skip
        records = _linted(tmp_path, [auc, ratio])
    assert [figlint.format_violation(r) for r in records if r["rule"] in ("axis", "worker", "error")] == []
