"""Where a y title goes: draw/canvas.py's tick-label model (tick_labels, label_width_px,
fit_y_title_offset) on hand-worked ranges, and figures whose y titles keep clear of long tick
labels (checked by the figure linter's `axis` rule, which measures the ink)."""

from __future__ import annotations

import math

import pytest

import figlint  # tests/draw is on sys.path (see test_figure_lint.py)
from pnetviz.draw import canvas
from pnetviz.draw.style import StyleOptions, cms_style


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
    assert canvas.fit_y_title_offset(log, 1.2, 36.0, 30.0, 7.2) == 1.2  # log axes: not modelled, unchanged


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
