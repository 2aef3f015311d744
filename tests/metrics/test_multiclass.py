"""The multi-class kernels against numpy: argmax confusion and class-score histograms."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.metrics.evaluate import N_BINS, hist_contents, histogram_from_sums, score_histogram
from pnetviz.jobs.multiclass import class_tables, one_vs_rest, class_metrics


@pytest.fixture(params=[np.float32, np.float64])
def toy(request):
    rng = np.random.default_rng(11)
    k, n = 3, 5000
    scores = rng.random((k, n)).astype(request.param)
    scores[:, :50] = 0.25  # argmax ties: the first maximum wins
    scores[0, 50:60] = [-3.0, 0.0, 1.0, 1.5, 1e30, -1e30, 0.02, 0.98, 0.5, np.nextafter(1.0, 0.0)]  # edges, clipping
    label = rng.integers(0, k, n).astype(np.int32)
    w = rng.normal(0.5, 1.0, n)
    w[60:100] = 0.0
    sel = rng.random(n) < 0.7
    return scores, label, w, sel


def test_class_tables_match_numpy(toy):
    scores, label, w, sel = toy
    k = scores.shape[0]
    t = class_tables(scores, label, w, sel)
    pred = np.argmax(scores[:, sel], axis=0)
    true, ws = label[sel], w[sel]
    expected = np.zeros((k, k))
    np.add.at(expected, (true, pred), ws)
    np.testing.assert_allclose(t.confusion, expected, rtol=1e-12, atol=1e-12)
    counts = np.zeros((k, k))
    np.add.at(counts, (true, pred), (ws != 0).astype(float))
    assert np.array_equal(t.counts, counts)
    for c in range(k):
        x = np.clip(scores[c, sel].astype(np.float64), 0.0, np.nextafter(1.0, 0.0))
        for tc in range(k):
            m = true == tc
            h, _ = np.histogram(x[m], bins=N_BINS, range=(0, 1), weights=ws[m])
            h2, _ = np.histogram(x[m], bins=N_BINS, range=(0, 1), weights=ws[m] ** 2)
            np.testing.assert_allclose(t.hist[c, tc], h, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(t.hist_w2[c, tc], h2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("signed", [False, True])
def test_class_table_histograms_equal_score_histogram(toy, signed):
    """Bit for bit (the multi-class direct P(class) figures take their histograms from the tables):
    the same bins and the same sums in event order, for every class score and true class."""
    scores, label, w, sel = toy
    w = w if signed else np.abs(w)
    t = class_tables(scores, label, w, sel)
    for c in range(scores.shape[0]):
        for true in range(scores.shape[0]):
            m = sel & (label == true)
            filled = score_histogram("filled", scores[c, m], w[m])
            summed = histogram_from_sums("summed", t.hist[c, true], t.hist_w2[c, true], entries=int(t.events[true]))
            for a, b in zip(hist_contents(filled), hist_contents(summed)):
                assert a.tobytes() == b.tobytes()
            assert t.events[true] == np.count_nonzero(m) == filled.GetEntries() == summed.GetEntries()
            assert summed.GetMean() == filled.GetMean()  # both from the bins


def test_one_vs_rest_collapses_the_confusion_matrix(toy):
    scores, label, w, sel = toy
    metrics = class_metrics(class_tables(scores, label, np.abs(w), sel), ("a", "b", "c"))
    pred = np.argmax(scores[:, sel], axis=0)
    for index in range(3):
        ovr = one_vs_rest(metrics.confusion, index)
        is_class, said = label[sel] == index, pred == index
        ws = np.abs(w[sel])
        expected = [[ws[is_class & said].sum(), ws[is_class & ~said].sum()],
                    [ws[~is_class & said].sum(), ws[~is_class & ~said].sum()]]  # fmt: skip
        np.testing.assert_allclose(ovr.weighted, expected, rtol=1e-10)
        assert ovr.labels == (("a", "b", "c")[index], "rest")
