"""The per-fold fits reuse the pooled workspace (limits.model.refit): a workspace built and fitted
for one model, its templates, MC-statistics widths, gamma ranges and mu range changed in place,
gives the numbers of a fresh build of the other model to the last bit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from limits_toys import with_nuisances
from pnetviz.limits.model import build, expected, refit
from test_shared_build import numbers, two_channels_with_nuisances


def varied(model, seed: int):
    """`model` with every template, sumw2 and systematic scaled bin by bin (same structure)."""
    rng = np.random.default_rng(seed)

    def sample(s):
        f = rng.uniform(0.7, 1.3, len(s.contents))
        return replace(s, contents=s.contents * f, sumw2=s.sumw2 * rng.uniform(0.5, 1.5, len(s.contents)),
                       shape_systs={k: (u * f * rng.uniform(0.98, 1.02, len(f)), d * f) for k, (u, d) in s.shape_systs.items()})
    return replace(model, channels=tuple(replace(ch, signal=sample(ch.signal), backgrounds=tuple(map(sample, ch.backgrounds)))
                                         for ch in model.channels))  # fmt: skip


@pytest.mark.parametrize("make", [with_nuisances, two_channels_with_nuisances], ids=["one", "two"])
def test_refit_in_place_equals_a_fresh_build_to_the_last_bit(make):
    pooled = make()
    shared = build(pooled)
    first = expected(pooled, shared)  # the pooled fits first, as the campaign does
    assert shared.structure is not None and first.significance > 0
    seen = set()
    for seed in range(4):
        fold = varied(pooled, seed)
        fresh = expected(fold)
        again = refit(fold, shared)
        assert numbers(again) == numbers(fresh), seed
        seen.add(fresh.limit.median)
    assert len(seen) == 4 and first.limit.median not in seen  # the folds' numbers differ from each other's and the pooled one's
    assert numbers(refit(pooled, shared)) == numbers(first)  # and back to the pooled model


def test_another_structure_is_built_afresh():
    """Different edges (another binning): refit builds the model's own workspace, numbers as alone."""
    pooled = with_nuisances()
    shared = build(pooled)
    ch = pooled.channels[0]
    other = replace(pooled, channels=(replace(ch, edges=ch.edges * 2),))
    before = shared.workspace.var("mu").getMax()
    assert numbers(refit(other, shared)) == numbers(expected(other))
    assert shared.workspace.var("mu").getMax() == before  # the shared workspace was not touched
