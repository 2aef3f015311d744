"""The web report's data/MC section shows a set's deployment closure (pnetviz datamc --closure): its
verdict line as a row of its own, the closure_<node> figures beside the data/MC ones, escaped."""

from __future__ import annotations

import json

from pnetviz.web import sitedatamc


def test_closure_row_and_figures(tmp_path):
    directory = tmp_path / "datamc" / "2018" / "MHc130_MA90" / "ParticleNet"
    directory.mkdir(parents=True)
    line = "closure: fail (16 tests, min Holm p = 0): outputs 'diboson' and 'ttZ' look swapped"
    doc = {"unblinded": False, "regions": [], "closure": {"line": line, "region": "SR3Mu", "deployed_model": "<m3>"}}
    (directory / "datamc.json").write_text(json.dumps(doc))
    for stem in ("datamc_WZ3Mu_signal", "closure_ttZ"):
        (directory / f"{stem}.png").write_bytes(b"\x89PNG")
    html = sitedatamc.section(tmp_path)
    assert html.count("<tr>") == 1 + 1  # header, the closure row
    assert "closure: fail (16 tests, min Holm p = 0): outputs &#x27;diboson&#x27; and &#x27;ttZ&#x27; look swapped" in html
    assert "closure (&lt;m3&gt;)" in html and "<m3>" not in html and "simulation only" in html
    assert 'src="../../datamc/2018/MHc130_MA90/ParticleNet/closure_ttZ.png"' in html
    assert 'src="../../datamc/2018/MHc130_MA90/ParticleNet/datamc_WZ3Mu_signal.png"' in html
    without = directory / "datamc.json"
    without.write_text(json.dumps({"unblinded": False, "regions": [], "closure": "not an object"}))
    assert sitedatamc.section(tmp_path) == ""  # no row: nothing listed
