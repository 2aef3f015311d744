"""--score-bins (issue 54's CMS basics): the drawn score distributions merged from the 50 filled
bins to 25, 10 or 5 (the b-jet comparisons of a small sample were 'barcodes' of mostly empty
bins), each merged bin's content and error those of numpy's histogram with that many bins; the
metrics keep 50; another count is one line (exit 2)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from conftest import load_script
from pnetviz.cli.common import EXIT_USER_ERROR, run, style_options
from pnetviz.errors import InputError
from pnetviz.draw import plots
from pnetviz.draw.style import StyleOptions, cms_style

from pnetviz.metrics.evaluate import hist_contents, score_histogram

@pytest.mark.parametrize("bins", [25, 10, 5])
def test_merged_bins_equal_numpy(bins):
    rng = np.random.default_rng(9)
    s = rng.random(3000)
    w = rng.exponential(size=s.size)
    spec = plots.HistSpec("scores/test_signal", score_histogram(f"h_bins_{bins}", s, w), "Signal (test)", 1, True)
    with cms_style(StyleOptions(score_bins=bins)):
        fig = plots.score_figure("score_distributions", [spec], "P(signal)", ["toy"], bins=bins)
    drawn = fig.objects["scores/test_signal"]
    assert drawn.GetNbinsX() == bins
    values, errors = hist_contents(drawn)
    counts, _ = np.histogram(s, bins=bins, range=(0, 1), weights=w)
    sumw2, _ = np.histogram(s, bins=bins, range=(0, 1), weights=w**2)
    np.testing.assert_allclose(values, counts / w.sum(), rtol=1e-12)
    np.testing.assert_allclose(errors, np.sqrt(sumw2) / w.sum(), rtol=1e-12)
    assert spec.hist.GetNbinsX() == 50  # the evaluation's histogram itself is not changed
    fig.close()

def test_other_bin_counts_are_one_line(capsys):
    assert run(load_script("visualizeBinary").main, ["--score-bins", "60"]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--score-bins 60" in err and "divides 50" in err
    args = SimpleNamespace(energy=13.0, run="Run 2", extra_text="", cms_label="cms", score_bins=7)
    with pytest.raises(InputError, match="--score-bins 7: .*divides 50"):
        style_options(args)  # in the range, no divisor of 50


def test_empty_fraction_counts_gaps_inside_the_filled_range():
    assert plots.empty_fraction(np.array([0, 0, 1, 0, 2, 0, 0, 3, 0])) == pytest.approx(3 / 6)  # bins 2..7: 3 empty
    assert plots.empty_fraction(np.array([0, 1, 2, 3, 0])) == 0.0  # empty tails are not gaps
    assert plots.empty_fraction(np.array([0, 0, 5.0, 0])) == 0.0  # one filled bin: no range


def _spec(name: str, s: np.ndarray, w: np.ndarray) -> plots.HistSpec:
    return plots.HistSpec(f"scores/{name}", score_histogram(f"h_auto_{name}", s, w), name, 1, True)


def test_auto_bins_the_most_that_leave_few_gaps():
    """A well-filled distribution keeps 50 bins; a sparse one (40 events, a b-jet subset's test
    split) gets the most of 50, 25, 10, 5 at which every histogram's gaps are <= 5% of its filled
    range, found here with numpy's histogram at each count; the drawn figure has that many."""
    rng = np.random.default_rng(4)
    dense = _spec("dense", rng.beta(2, 5, 20000), rng.uniform(0.5, 1.5, 20000))
    assert plots.auto_score_bins([dense]) == 50
    s = rng.beta(2, 2, 40)
    sparse = _spec("sparse", s, np.ones(s.size))

    def gaps(bins: int) -> float:
        counts, _ = np.histogram(s, bins=bins, range=(0, 1))
        filled = np.flatnonzero(counts)
        inside = counts[filled[0]:filled[-1] + 1]
        return np.count_nonzero(inside == 0) / inside.size

    expected = next((b for b in (50, 25, 10, 5) if gaps(b) <= 0.05), 5)
    assert gaps(50) > 0.2 and expected < 50  # 40 events on 50 bins: a barcode
    assert plots.auto_score_bins([sparse]) == expected
    assert plots.auto_score_bins([dense, sparse]) == expected  # one figure, one bin width
    with cms_style(StyleOptions()):
        fig = plots.score_figure("score_distributions", [dense, sparse], "P(signal)", ["toy"], bins="auto")
    assert {fig.objects[k].GetNbinsX() for k in ("scores/dense", "scores/sparse")} == {expected}
    fig.close()


def test_auto_is_the_default(capsys):
    from pnetviz.cli.options import EVALUATION  # noqa: PLC0415
    from pnetviz.requests.evaluation import EvaluationOptions  # noqa: PLC0415

    option = next(o for o in EVALUATION if "--score-bins" in o.flags)
    assert option.kwargs["default"] == "auto" and option.kwargs["type"]("auto") == "auto"
    assert option.kwargs["type"]("10") == 10
    assert StyleOptions().score_bins == "auto" and EvaluationOptions().score_bins == "auto"
    args = SimpleNamespace(energy=13.0, run="Run 2", extra_text="", cms_label="cms", score_bins="auto")
    assert style_options(args).score_bins == "auto"
