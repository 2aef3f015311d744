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
