"""The datacard and its shapes file: written cards pass the validator, and each planted fault
(a wrong rate, a missing shape, a wrong bin error, an unreported negative bin) is caught."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.errors import InputError
from pnetviz.limits.cardnames import escaped
from pnetviz.limits.model import Channel, FitModel, Sample, write_outputs
from pnetviz.limits.validate import validate_datacard
from pnetviz.rootenv import root
from limits_toys import EDGES, with_nuisances


@pytest.fixture()
def card(tmp_path):
    model = with_nuisances()
    names = write_outputs(model, tmp_path, "toy")
    return tmp_path / names["datacard"], tmp_path / names["shapes"], model


def rewrite(shapes, key, change):
    """Replace histogram `key` in the shapes file by change(its clone) (None: delete it)."""
    ROOT = root()
    handle = ROOT.TFile.Open(str(shapes), "UPDATE")
    folder, name = key.split("/")
    hist = handle.Get(key).Clone(name)
    handle.Get(folder).Delete(f"{name};*")
    new = change(hist)
    if new is not None:
        handle.Get(folder).WriteObject(new, name)
    handle.Close()


def test_written_card_is_valid_and_as_combine_reads_it(card):
    path, _, model = card
    assert validate_datacard(path, model) == []
    text = path.read_text()
    assert "shapes * * toy_shapes.root $CHANNEL/$PROCESS $CHANNEL/$PROCESS_$SYSTEMATIC" in text
    assert "* autoMCStats 10" in text
    rows = {line.split()[0] + str(i): line.split()[1:] for i, line in enumerate(text.splitlines()) if line.strip()}
    process_rows = [v for k, v in rows.items() if k.startswith("process")]
    assert process_rows[0] == ["sig", "ttZ", "WZ"] and process_rows[1] == ["0", "1", "2"]
    rate = next(v for k, v in rows.items() if k.startswith("rate"))
    assert [float(r) for r in rate] == [9.0, 46.0, 18.5]  # the toy's integrals, exactly
    assert next(v for k, v in rows.items() if k.startswith("jes")) == ["shape", "-", "1", "-"]


def test_shapes_hold_sqrt_sumw2_errors(card):
    _, shapes, _ = card
    handle = root().TFile.Open(str(shapes))
    hist = handle.Get("SR/ttZ")
    assert [hist.GetBinError(i) for i in (1, 2, 3)] == pytest.approx(np.sqrt([4.0, 2.0, 1.0]), rel=1e-12)
    assert handle.Get("SR/ttZ_jesUp").Integral() == pytest.approx(30 * 1.08 + 12 * 1.1 + 4 * 1.15)
    assert handle.Get("SR/data_obs").Integral() == pytest.approx(46.0 + 18.5)
    handle.Close()


def test_wrong_rate_is_caught(card):
    path, _, model = card
    path.write_text(path.read_text().replace("46.0", "46.5", 1))
    assert any("ttZ: rate 46.5 is not the histogram's integral" in p for p in validate_datacard(path, model))


def test_missing_shape_is_caught(card):
    path, shapes, model = card
    rewrite(shapes, "SR/ttZ_jesDown", lambda h: None)
    assert validate_datacard(path, model) == ["SR/ttZ: shape systematic jes: no SR/ttZ_jesDown in the shapes file"]


def test_missing_process_histogram_is_caught(card):
    path, shapes, model = card
    rewrite(shapes, "SR/WZ", lambda h: None)
    assert validate_datacard(path, model) == ["SR/WZ: no histogram in the shapes file"]


def test_wrong_bin_error_is_caught(card):
    path, shapes, model = card

    def sqrt_n(hist):
        hist.Sumw2(False)  # errors back to sqrt(content): the classic unweighted-error mistake
        return hist
    rewrite(shapes, "SR/WZ", sqrt_n)
    assert any("SR/WZ: the histogram stores no sum of w^2" in p for p in validate_datacard(path))

    def doubled(hist):
        hist.Sumw2(True)
        for i in (1, 2, 3):
            hist.SetBinError(i, 2 * hist.GetBinError(i))
        return hist
    rewrite(shapes, "SR/WZ", doubled)
    assert any(p.startswith("SR/WZ: bin 1 error") and "sqrt(sum w^2)" in p for p in validate_datacard(path, model))


def test_unreported_negative_bin_is_caught(card):
    path, shapes, model = card

    def negative(hist):
        hist.SetBinContent(2, -0.5)
        return hist
    rewrite(shapes, "SR/ttZ_jesUp", negative)
    problems = validate_datacard(path)
    assert "SR/ttZ jesUp: bin 2 is negative and no negative-bins line reports it" in problems


def test_names_are_escaped_for_the_card(tmp_path):
    ch = Channel("Run3 Mu", EDGES[:3], "m(#mu#mu) [GeV]", Sample("MHc-130/MA-90", np.array([1.0, 2.0]), np.array([0.1, 0.2])),
                 (Sample("tt Z", np.array([10.0, 5.0]), np.array([1.0, 0.5]), {"JES 2018": (np.array([11.0, 5.5]), np.array([9.0, 4.6]))}),))
    model = FitModel((ch,))
    names = write_outputs(model, tmp_path, "esc")
    text = (tmp_path / names["datacard"]).read_text()
    assert "Run3_Mu" in text and "MHc_130_MA_90" in text and "tt_Z" in text and "JES_2018 shape" in text
    assert validate_datacard(tmp_path / names["datacard"], model) == []


def test_two_names_that_escape_alike_are_refused():
    ch = Channel("SR", EDGES[:2], "score", Sample("sig", np.array([1.0]), np.array([0.1])),
                 (Sample("t t", np.array([5.0]), np.array([1.0])), Sample("t-t", np.array([5.0]), np.array([1.0]))))
    with pytest.raises(InputError, match="'t t' and 't-t' both become 't_t'"):
        escaped(FitModel((ch,)))
