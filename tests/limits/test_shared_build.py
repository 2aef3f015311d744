"""One prepared model and workspace for the files and the fits (limits.model.build, what the
campaign's pooled fits use): the numbers and the files are those of the separate calls, each of
which builds its own workspace."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from limits_toys import no_nuisances, with_nuisances
from pnetviz.limits.model import Channel, FitModel, Sample, build, expected, write_outputs


def two_channels_with_nuisances() -> FitModel:
    """with_nuisances() and a second channel with a shape systematic on the signal (two gammas' sets)."""
    one = with_nuisances()
    sig = np.array([2.0, 0.5])
    bkg = np.array([20.0, 15.0])
    second = Channel("SR2", np.array([0.0, 0.5, 1.0]), "score", Sample("sig", sig, np.array([0.2, 0.05]), {"jes": (sig * 1.1, sig * 0.9)}),
                     (Sample("ttZ", bkg, np.array([3.0, 2.5])),))  # fmt: skip
    return replace(one, channels=(*one.channels, second))


def numbers(result) -> tuple:
    limit = result.limit
    return (result.significance, None if limit is None else (limit.median, limit.m2, limit.m1, limit.p1, limit.p2),
            result.nuisances, result.error, result.negative_bins)  # fmt: skip


@pytest.mark.parametrize("make", [with_nuisances, two_channels_with_nuisances, no_nuisances], ids=["one", "two", "none"])
def test_shared_build_gives_the_fresh_numbers_and_files(make, tmp_path):
    model = make()
    fresh_files = write_outputs(model, tmp_path / "fresh", "toy")
    fresh = expected(model)
    shared = build(model)
    assert (shared.workspace is None) == (make is no_nuisances)  # closed forms: no workspace to share
    files = write_outputs(model, tmp_path / "shared", "toy", shared)  # first: the HS3 JSON of the unfitted workspace
    again = expected(model, shared)
    assert files == fresh_files
    assert numbers(again) == numbers(fresh)  # the same fits on an equal workspace: equal to the last bit
    assert fresh.significance > 0 and fresh.limit.m2 < fresh.limit.median < fresh.limit.p2
    for key in ("datacard", "hs3", "pyhf"):
        assert (tmp_path / "shared" / files[key]).read_bytes() == (tmp_path / "fresh" / files[key]).read_bytes(), key


def test_a_model_no_fit_can_answer_shares_nothing():
    """A bin with signal and no background: no workspace; expected() says why, as alone."""
    model = with_nuisances()
    ch = model.channels[0]
    empty = replace(ch, backgrounds=tuple(replace(b, contents=np.array([0.0, *b.contents[1:]])) for b in ch.backgrounds))
    model = replace(model, channels=(empty,))
    shared = build(model)
    assert shared.workspace is None and shared.prepared.problem
    assert numbers(expected(model, shared)) == numbers(expected(model))
    assert expected(model).significance is None and "bin 1 has signal but no background" in expected(model).error
