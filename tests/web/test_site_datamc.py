"""The web report's data/MC section (web/sitedatamc.py): every datamc set's verdicts and blinding
state, its figures linked relative to the site, names escaped, an unreadable set a row saying so."""

from __future__ import annotations

import json

from pnetviz.web import sitedatamc


def _set(plots, where: str, doc: dict | str, figures=("datamc_SR3Mu_signal",)) -> None:
    directory = plots / "datamc" / where
    directory.mkdir(parents=True)
    (directory / "datamc.json").write_text(doc if isinstance(doc, str) else json.dumps(doc))
    for stem in figures:
        (directory / f"{stem}.png").write_bytes(b"\x89PNG")


def test_section_lists_verdicts_blinding_and_figures(tmp_path):
    regions = [{"channel": "SR3Mu", "score": "signal", "verdict": "agree: chi2/ndf = 0.5/2, p = 0.78, Holm p = 1",
                "masked": [False, False, True], "blind_region": True, "chi2": {"p_value": 0.78}},
               {"channel": "<b>WZ</b>", "score": "weighted-lr", "verdict": "disagree: chi2/ndf = 40.0/3, p = 1.0e-08",
                "masked": [False] * 3, "blind_region": False, "chi2": {"p_value": 1e-8}}]  # fmt: skip
    _set(tmp_path, "2018/MHc130_MA90/ParticleNet", {"unblinded": False, "regions": regions})
    _set(tmp_path, "2017/MHc130_MA90/ParticleNet", {"unblinded": True, "regions": regions[:1]}, figures=())
    _set(tmp_path, "2016/MHc130_MA90/ParticleNet", "{not json")
    html = sitedatamc.section(tmp_path)
    assert html.count("<tr>") == 1 + 3 + 1  # header, three regions, the unreadable set
    assert "1 of 3 bins blinded" in html and "not blinded" in html and "<strong>UNBLINDED</strong>" in html
    assert "&lt;b&gt;WZ&lt;/b&gt;" in html and "<b>WZ</b>" not in html
    assert 'src="../../datamc/2018/MHc130_MA90/ParticleNet/datamc_SR3Mu_signal.png"' in html
    assert "unreadable" in html
    page = "<html><body>\n<h1>x</h1>\n</body></html>"
    with_it = sitedatamc.with_section(page, tmp_path)
    assert with_it.index("<h1>x</h1>") < with_it.index('id="datamc"') < with_it.index("</body>")
    assert sitedatamc.with_section(page, tmp_path / "none") == page
