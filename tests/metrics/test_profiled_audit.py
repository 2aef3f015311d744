"""Profiled ROC, audit of issue 34: more than six nuisances (the vertices near the worst-node vertex)
and the theta scan of a score nuisance fine enough to find a narrow worst window."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pnetviz.metrics.profiled import Nuisance, profile, summary
from test_profiled import area, exact_roc, lower_envelope_auc, moved, sample, worst_background_auc


@pytest.mark.slow
def test_seven_one_sided_weight_nuisances_match_every_vertex():
    """Six background nuisances raise the signal-like region (worst at Up); a seventh adds background
    almost flat, slightly tilted to high scores: alone it is worst at Up, but on top of the other six it
    dilutes their excess, so the worst vertex has it at nominal, one nuisance away from the vertex of
    every nuisance at its own worst node (which the reduction evaluated before, with pairs and corners)."""
    rng = np.random.default_rng(11)
    n = 4000
    is_signal = rng.random(n) < 0.5
    scores = rng.normal(is_signal * 1.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    bkg = ~is_signal
    region = bkg / (1 + np.exp(-3 * (scores - 0.8)))
    tilt = bkg * w * (1 + 0.2 * np.tanh(scores))
    changes = [(0.3 * region * w, 0.1 * region * w)] * 6 + [(0.8 * tilt, 0.4 * tilt)]
    nuisances = [Nuisance(f"n{i}", "template", sample(scores, is_signal, w + up), sample(scores, is_signal, w + down))
                 for i, (up, down) in enumerate(changes)]  # fmt: skip
    prof = profile(sample(scores, is_signal, w), nuisances, kappa=1.0)

    def brute(configs):
        return worst_background_auc(scores[is_signal], w[is_signal],
                                    [(scores[bkg], moved(c, w, changes)[bkg]) for c in configs])  # fmt: skip

    grid = list(itertools.product((1, 0, -1), repeat=7))
    aucs = {c: brute([c]) for c in grid}
    assert min(aucs, key=aucs.get) == (1, 1, 1, 1, 1, 1, 0)
    before = [c for c in grid if np.count_nonzero(c) <= 2 or 0 not in c] + [(1,) * 7]
    assert brute(before) > brute(grid) + 0.01  # 0.6942 against 0.6810 over all 3^7 vertices
    assert prof.auc == pytest.approx(brute(grid), abs=1e-12)
    numbers = summary(prof)["configurations"]
    assert numbers["lowest_auc"]["configuration"] == "n0 up & n1 up & n2 up & n3 up & n4 up & n5 up"
    assert numbers["count"] == len(set(before) | {c for c in grid if sum(a != b for a, b in zip(c, (1,) * 7)) <= 2})
    assert "within two nuisances of it" in numbers["rule"]


def test_score_template_with_a_narrow_worst_window_at_theta_0_6():
    """A score template moves signal population A down through the background (theta ~ 0.53-0.57 at Up)
    and population B up through it (theta ~ 0.62-0.68): only between the two are both below the
    background, so the AUC is 0.216 near theta = 0.6 and about 0.6 at every value of the old 9-point scan."""
    rng = np.random.default_rng(2)
    n = 3000
    is_signal = rng.random(n) < 0.6
    group = rng.integers(0, 5, n)
    pop_a, pop_b = is_signal & (group < 2), is_signal & (group >= 2) & (group < 4)
    scores = np.select([~is_signal, pop_a, pop_b], [rng.uniform(0.38, 0.42, n), rng.uniform(0.89, 0.91, n),
                                                    rng.uniform(-0.01, 0.01, n)], rng.uniform(0.6, 0.7, n))  # fmt: skip
    w = rng.uniform(0.5, 1.5, n)
    up = -0.9 * pop_a + 0.6 * pop_b
    prof = profile(sample(scores, is_signal, w), [Nuisance("jes", "template", sample(scores + up, is_signal, w),
                                                           sample(scores, is_signal, w))], kappa=1.0)  # fmt: skip
    curves = {t: exact_roc(scores + t * up, is_signal, w) for t in np.round(np.linspace(0, 1, 1001), 12)}
    aucs = {t: area(*c) for t, c in curves.items()}
    assert 0.58 < min(aucs, key=aucs.get) < 0.62 and aucs[0.6] < 0.22
    assert min(aucs[t] for t in (0.0, 0.25, 0.5, 0.75, 1.0)) > 0.59  # what the 9-point scan saw
    assert prof.auc == pytest.approx(lower_envelope_auc(list(curves.values())), abs=1e-9)
    numbers = summary(prof)["configurations"]
    assert numbers["lowest_auc"]["auc"] == pytest.approx(min(aucs.values()), abs=1e-12)
    assert "every kappa/40" in numbers["rule"]


@pytest.mark.slow
def test_seven_background_nuisances_on_disjoint_score_ranges_are_exact():
    """Each nuisance raises the background in its own seventh of the score range (Up more than Down):
    at every threshold the worst vertex has the nuisances above it up and those below it at nominal, so
    the worst vertex changes along the curve, up to four nuisances away from the worst-node vertex (the
    vertices within two of it gave 0.71201 against 0.71194). The per-threshold worst vertices make it exact."""
    rng = np.random.default_rng(11)
    n = 4000
    is_signal = rng.random(n) < 0.5
    scores = rng.normal(is_signal * 1.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    bkg = ~is_signal
    edges = np.quantile(scores[bkg], np.linspace(0, 1, 8))
    regions = [bkg & (scores >= edges[i]) & (scores <= edges[i + 1]) for i in range(7)]
    changes = [(0.6 * r * w, 0.3 * r * w) for r in regions]
    nuisances = [Nuisance(f"n{i}", "template", sample(scores, is_signal, w + up), sample(scores, is_signal, w + down))
                 for i, (up, down) in enumerate(changes)]  # fmt: skip
    prof = profile(sample(scores, is_signal, w), nuisances, kappa=1.0)
    grid = list(itertools.product((1, 0, -1), repeat=7))
    full = worst_background_auc(scores[is_signal], w[is_signal], [(scores[bkg], moved(c, w, changes)[bkg]) for c in grid])
    assert prof.auc == pytest.approx(full, abs=1e-12)
    assert "at every threshold the vertex worst" in summary(prof)["configurations"]["rule"]
