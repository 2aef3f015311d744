"""The campaign's binned-sensitivity section (summary.binningtable) from hand-made fold sets: the
chosen K (smallest within 1% of the best fold mean), the table's values equal the sets'
binning.json, the binary vs multi-class paired difference and its standard error by numpy, the
maps' cells equal the table, the CSV and the LaTeX (escaped, compiles) and the web section."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import scipy.stats
import pytest

from pnetviz.draw.matrices import cell_content

from conftest import compile_latex

from pnetviz.web import binningsite
from pnetviz.summary import binningtable

TEST = {  # (kind, signal) -> per fold the test value at K = 1..4
    ("binary", "MHc130_MA90"): [[0.50, 0.78, 0.800, 0.802], [0.52, 0.80, 0.810, 0.815], [0.49, 0.79, 0.805, 0.806]],
    ("multiclass", "MHc130_MA90"): [[0.50, 0.81, 0.812, 0.813], [0.52, 0.80, 0.805, 0.806], [0.49, 0.83, 0.830, 0.831]],
    ("binary", "MHc160_MA85"): [[0.6, 0.70, 0.90, 0.90], [0.6, 0.72, 0.91, 0.92], [0.6, 0.71, 0.93, 0.93]],
    ("multiclass", "MHc160_MA85"): [[0.6, 0.905, 0.91, 0.91], [0.6, 0.91, 0.92, 0.92], [0.6, 0.94, 0.93, 0.93]],
}
CHOSEN = {("binary", "MHc130_MA90"): 3, ("multiclass", "MHc130_MA90"): 2, ("binary", "MHc160_MA85"): 3,
          ("multiclass", "MHc160_MA85"): 2}  # fmt: skip
MODELS = {"binary": "PN-nNodes64-binary-ttZ", "multiclass": "PN-nNodes64-3grp-ttX"}


def doc(kind: str, fold: int, values: list[float], pair: str) -> dict:
    rows = [{"k": k, "edges": list(np.linspace(0, 1, k + 1)), "train": v + 0.01, "test": v, "efficiency": v / 0.9}
            for k, v in enumerate(values, start=1)]  # fmt: skip
    return {"format": 1, "kind": kind, "fold": fold, "pair": f"signal vs {pair}", "objective": "binned_fip",
            "score": "P(signal)", "yields": "relative", "by_k": rows, "unbinned_limit": 0.9, "chosen_k": 3}  # fmt: skip


@pytest.fixture
def data(tmp_path):
    jobs, compared = [], []
    for (kind, signal), folds in TEST.items():
        outputs = []
        for fold, values in enumerate(folds):
            d = tmp_path / kind / signal / f"fold-{fold}"
            d.mkdir(parents=True)
            name = "binning.json" if kind == "binary" else "signal_vs_ttX_binning.json"
            (d / name).write_text(json.dumps(doc(kind, fold, values, "ttZ" if kind == "binary" else "ttX")))
            outputs.append(str(d))
        jobs.append({"job": f"{kind}-{signal}", "status": "done", "kind": kind, "channel": "Run3Mu", "signal": signal,
                     "model": MODELS[kind], "pair": None, "outputs": outputs})  # fmt: skip
    for signal, masses in (("MHc130_MA90", (130, 90)), ("MHc160_MA85", (160, 85))):
        compared.append({"channel": "Run3Mu", "signal": signal, "m_hc": masses[0], "m_a": masses[1], "tag": "PN-nNodes64",
                         "background": "ttZ", "multiclass_class": "ttX", "binary_model": MODELS["binary"],
                         "multiclass_model": MODELS["multiclass"]})  # fmt: skip
    return {"jobs": jobs, "binary_vs_multiclass": compared}


def test_table_values_equal_the_sets_binning_json_at_the_chosen_k(data):
    sec = binningtable.section(data)
    rows = {(r["kind"], r["signal"]): r for r in sec["rows"]}
    assert set(rows) == set(TEST)
    for key, folds in TEST.items():
        r, k = rows[key], CHOSEN[key]
        values = [f[k - 1] for f in folds]  # from the files' by_k rows at the chosen K
        assert r["k"] == k and r["folds"] == "0;1;2"
        assert r["value_mean"] == pytest.approx(np.mean(values), rel=1e-12)
        assert r["value_std"] == pytest.approx(np.std(values, ddof=1), rel=1e-12)
        assert r["optimism_mean"] == pytest.approx(0.01) and r["efficiency_mean"] == pytest.approx(np.mean(values) / 0.9)
    cells = list(csv.DictReader(io.StringIO(binningtable.files(sec)["campaign_fit_binning.csv"])))
    assert [float(c["value_mean"]) for c in cells] == pytest.approx([r["value_mean"] for r in sec["rows"]], rel=1e-12)


def test_binary_vs_multiclass_paired_difference_and_standard_error(data):
    sec = binningtable.section(data)
    assert len(sec["comparison"]) == 2
    for c in sec["comparison"]:
        b = [f[CHOSEN[("binary", c["signal"])] - 1] for f in TEST[("binary", c["signal"])]]
        m = [f[CHOSEN[("multiclass", c["signal"])] - 1] for f in TEST[("multiclass", c["signal"])]]
        d = np.subtract(m, b)
        assert c["folds"] == 3 and c["diff_mean"] == pytest.approx(d.mean(), rel=1e-12)
        assert c["diff_std"] == pytest.approx(np.std(d, ddof=1), rel=1e-12)
        # corrected resampled t (Nadeau-Bengio), no AUC comparison ratio here: the k-fold n_test/n_train = 1/(k-1)
        assert c["diff_standard_error"] == pytest.approx(np.std(d, ddof=1) * math.sqrt(1 / 3 + 1 / 2), rel=1e-12)
        t = d.mean() / (np.std(d, ddof=1) * math.sqrt(1 / 3 + 1 / 2))
        assert c["diff_p_value"] == pytest.approx(2 * scipy.stats.t.sf(abs(t), 2), rel=1e-10)
        assert c["diff_p_naive_t"] == pytest.approx(scipy.stats.ttest_rel(m, b).pvalue, rel=1e-10)
        assert c["k_binary"] == CHOSEN[("binary", c["signal"])] and 0 < c["diff_p_value"] < 1
    p = sorted(c["diff_p_value"] for c in sec["comparison"])  # Holm over the table's two comparisons
    holm = [min(1.0, 2 * p[0]), min(1.0, max(2 * p[0], p[1]))]
    assert sorted(c["diff_p_holm"] for c in sec["comparison"]) == pytest.approx(holm, rel=1e-12)


def test_maps_hold_the_table_at_the_trained_cells(data):
    data["fit_binning"] = binningtable.section(data)
    figs = {f.name: f for f in binningtable.figures(data)}
    assert set(figs) == {"map_fit_binning_binary_Run3Mu_ttZ", "map_fit_binning_multiclass_Run3Mu_ttX",
                         "map_fit_binning_difference_Run3Mu_ttZ_vs_ttX"}  # fmt: skip
    rows = {(r["kind"], r["signal"]): r for r in data["fit_binning"]["rows"]}
    diff = {c["signal"]: c["diff_mean"] for c in data["fit_binning"]["comparison"]}
    for name, expected in (("map_fit_binning_binary_Run3Mu_ttZ", {s: rows[("binary", s)]["value_mean"] for s in diff}),
                           ("map_fit_binning_multiclass_Run3Mu_ttX", {s: rows[("multiclass", s)]["value_mean"] for s in diff}),
                           ("map_fit_binning_difference_Run3Mu_ttZ_vs_ttX", diff)):  # fmt: skip
        hist = figs[name].objects[f"maps/{name}"]
        x = {hist.GetXaxis().GetBinLabel(i): i for i in range(1, hist.GetNbinsX() + 1)}
        y = {hist.GetYaxis().GetBinLabel(j): j for j in range(1, hist.GetNbinsY() + 1)}
        for signal, value in expected.items():
            m_hc, m_a = signal.removeprefix("MHc").split("_MA")
            assert hist.GetBinContent(x[m_hc], y[m_a]) == cell_content(value), (name, signal)  # 4 significant digits
        assert hist.GetBinContent(x["130"], y["85"]) < hist.GetMinimum()  # no signal point there: left blank
    for f in figs.values():
        f.close()


def test_latex_escapes_names_and_compiles_and_the_web_section_lists_it(data, tmp_path):
    data["jobs"][0]["channel"] = "Run3_Mu&e%"  # names reach LaTeX and HTML escaped
    sec = binningtable.section(data)
    tex = binningtable.files(sec)["campaign_fit_binning.tex"]
    assert r"Run3\_Mu\&e\%" in tex and "Run3_Mu&e%" not in tex
    compile_latex(tex, tmp_path)
    page = binningsite.with_section("<html><body>\n<h1>x</h1>\n</body></html>\n", {**data, "fit_binning": sec})
    assert page.index('id="fit-binning"') < page.index("</body>") and "Run3_Mu&amp;e%" in page
