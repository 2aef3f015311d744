"""The negative-bin policy (floor 1e-10, one report line per template touched, a negative
integral named), what the files carry, and a fit that cannot answer saying so in one line."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.limits.model import Channel, FitModel, Sample, expected, write_outputs
from pnetviz.limits.negative import FLOOR, apply_policy
from pnetviz.limits.validate import validate_datacard
from pnetviz.rootenv import root
from limits_toys import EDGES


def model_with_negatives() -> FitModel:
    ttz = np.array([20.0, -0.4, 6.0, 2.0])
    fake = np.array([-1.0, 0.5, -2.0, 0.2])  # integral -2.3
    return FitModel((Channel("SR", EDGES, "score", Sample("sig", np.array([0.5, 1.0, 2.0, 3.0]), np.full(4, 0.01)),
                             (Sample("ttZ", ttz, np.full(4, 0.5), {"jes": (ttz * 1.1, np.array([18.0, -0.3, 5.5, 1.8]))}),
                              Sample("fakes", fake, np.full(4, 0.8)))),), mc_stat=False)


def test_policy_floors_and_reports_each_template():
    fixed, report = apply_policy(model_with_negatives())
    assert report == (
        "SR/ttZ: 1 negative bin (2; sum -0.4) set to 1e-10",
        "SR/ttZ jesUp: 1 negative bin (2; sum -0.44) set to 1e-10",
        "SR/ttZ jesDown: 1 negative bin (2; sum -0.3) set to 1e-10",
        "SR/fakes: 2 negative bins (1, 3; sum -3) set to 1e-10; its integral was negative (-2.3)",
    )
    ttz, fakes = fixed.channels[0].backgrounds
    assert ttz.contents.tolist() == [20.0, FLOOR, 6.0, 2.0]
    assert fakes.contents.tolist() == [FLOOR, 0.5, FLOOR, 0.2]
    assert fakes.sumw2.tolist() == [0.8] * 4  # the MC uncertainty of a cancelled bin stays


def test_expected_and_the_files_carry_the_policy(tmp_path):
    model = model_with_negatives()
    result = expected(model)
    assert len(result.negative_bins) == 4 and result.error is None
    names = write_outputs(model, tmp_path, "neg")
    card = (tmp_path / names["datacard"]).read_text()
    assert "# negative-bins: SR/fakes: 2 negative bins" in card
    assert validate_datacard(tmp_path / names["datacard"], model) == []
    handle = root().TFile.Open(str(tmp_path / names["shapes"]))
    assert handle.Get("SR/fakes").GetBinContent(1) == FLOOR
    assert handle.Get("SR/fakes").Integral() == pytest.approx(0.7 + 2 * FLOOR)
    handle.Close()


def test_no_negative_bin_no_report():
    model = FitModel((Channel("SR", EDGES[:2], "score", Sample("sig", np.array([1.0]), np.array([0.1])),
                              (Sample("ttZ", np.array([5.0]), np.array([1.0])),)),), mc_stat=False)
    assert expected(model).negative_bins == ()


def test_a_fit_without_answer_is_one_line_and_no_number():
    no_signal = FitModel((Channel("SR", EDGES[:3], "score", Sample("sig", np.zeros(2), np.zeros(2)),
                                  (Sample("ttZ", np.array([5.0, 2.0]), np.array([1.0, 0.5])),)),))
    result = expected(no_signal)
    assert result.significance is None and result.limit is None
    assert result.error == "the signal has no positive yield in any channel: no significance or limit"
    no_background = FitModel((Channel("SR", EDGES[:3], "score", Sample("sig", np.array([1.0, 2.0]), np.array([0.1, 0.1])),
                                      (Sample("ttZ", np.array([5.0, 0.0]), np.array([1.0, 0.0])),)),))
    result = expected(no_background)
    assert result.significance is None and result.limit is None
    assert result.error.startswith("channel SR: bin 2 has signal but no background")


def test_empty_bins_are_merged_not_fitted():
    """A bin empty in every template carries no information: the results are those without it."""
    full = FitModel((Channel("SR", EDGES, "score", Sample("sig", np.array([1.0, 0.0, 2.0, 3.0]), np.full(4, 0.0)),
                             (Sample("ttZ", np.array([10.0, 0.0, 5.0, 2.0]), np.zeros(4)),)),), mc_stat=False)
    kept = FitModel((Channel("SR", EDGES[[0, 2, 3, 4]], "score", Sample("sig", np.array([1.0, 2.0, 3.0]), np.zeros(3)),
                             (Sample("ttZ", np.array([10.0, 5.0, 2.0]), np.zeros(3)),)),), mc_stat=False)
    assert expected(full).significance == pytest.approx(expected(kept).significance, rel=1e-12)
    assert expected(full).limit.median == pytest.approx(expected(kept).limit.median, rel=1e-12)
