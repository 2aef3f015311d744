"""Hostile input on the newer surfaces: `pnetviz ga` (class names from background_groups,
chromosome values, model records without model_info.csv), the campaign's working-point table
and AUC-vs-m(A) graphs. Names reach LaTeX, CSV and ROOT text only escaped; bad input is one
error line naming the file, exit 2, nothing written."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from pnetviz.cli.commands import run_command
from pnetviz.demo.ga import ToyModel, ToyRun, write_run
from pnetviz.errors import InputError
from pnetviz.io import ga

A = (64, "=cmd|calc!A0", 0.0002, 2e-05, "\\input{x}")
B = (96, "<img src=x onerror=alert(1)>", 0.001, 0.0001, "#splitline{a}{b}")
C = (128, "@SUM(1)", 0.0009, 2e-05, "+x")
HOSTILE_GROUPS = {"\\input{x}": ["a"], "=1+2": ["b"], "<img src=x onerror=alert(1)>": ["c"], "#splitline{a}{b}": ["d"]}


def toy(base: Path, groups: dict | None = None, sharpness: float = 0.0) -> Path:
    pops = [[ToyModel(A, [1.2, 0.95, 0.97], [1.1, 0.90, 0.85], sharpness=sharpness),
             ToyModel(B, [1.0, 0.90, 0.92, 0.93], [0.95, 0.80, 0.7, 0.6], sharpness=sharpness),
             ToyModel(C, [1.1, 0.92], [1.0, 0.95], sharpness=sharpness)]]  # fmt: skip
    run = ToyRun("Run3Mu", "MHc100_MA95", pops, groups=dict(groups or {"nonprompt": ["x"], "ttX": ["y"]}),
                 schemas=("V",), events=200)  # fmt: skip
    return write_run(base / "GAOptim_bjets", run)


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("pnetviz: warning")]
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in err, err
    return lines[0]


def run_ga(base: Path, out: Path) -> int:
    return run_command("ga", ["--ga-dir", str(base / "GAOptim_bjets"), "--output", str(out), "--formats", "png", "-q"])


@pytest.fixture(scope="module")
def hostile_set(tmp_path_factory):
    base = tmp_path_factory.mktemp("gah")
    toy(base, HOSTILE_GROUPS, sharpness=1.5)
    out = base / "out"
    assert run_ga(base, out) == 0
    return out


def test_ga_tex_and_csv_hold_no_live_markup(hostile_set):
    tex = (hostile_set / "ga_top_models.tex").read_text()
    assert "\\input{x}" not in tex and "\\textbackslash{}input\\{x\\}" in tex
    assert "<img" not in tex and "\\#splitline" in tex
    rows = list(csv.reader((hostile_set / "ga_summary.csv").read_text().splitlines()))[1:]
    cells = [c for row in rows for c in row]
    assert "'=cmd|calc!A0" in cells and "'@SUM(1)" in cells and "'+x" in cells
    assert not [c for c in cells if c and c[0] in "=+-@" and not number(c)]


def number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_ga_root_titles_of_class_names_are_escaped(hostile_set):
    """The stored (not drawn) train-split ROC curves used to carry the raw class name as title."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    f = root().TFile.Open(str(hostile_set / "plots.root"))
    try:
        titles = []
        directory = f.Get("lr_roc")
        for key in directory.GetListOfKeys():
            sub = key.ReadObj()
            titles += [k.ReadObj().GetTitle() for k in sub.GetListOfKeys()]
    finally:
        f.Close()
    assert len(titles) == 2 * len(HOSTILE_GROUPS)
    for title in titles:
        assert "\\" not in title and "{" not in title and "#splitline" not in title, title


def test_chromosomes_of_different_lengths_are_one_error(tmp_path, capsys):
    run_dir = toy(tmp_path)
    csv_path = run_dir / "GA-iter0" / "json" / ga.POPULATION_FILE
    lines = csv_path.read_text().splitlines()
    lines[1] = lines[1].split(',"')[0] + ',"(64, \'Adam\')",' + lines[1].rsplit(",", 1)[1]
    csv_path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    assert run_ga(tmp_path, out) == 2  # was a KeyError traceback in the LaTeX table
    line = one_error_line(capsys.readouterr().err)
    assert str(csv_path) in line and "genes" in line and "Fix:" in line
    assert not out.exists()


@pytest.mark.parametrize("value", ["1e999", "-1e999"])
def test_an_infinite_gene_is_refused_when_read(tmp_path, capsys, value):
    run_dir = toy(tmp_path)
    csv_path = run_dir / "GA-iter0" / "json" / ga.POPULATION_FILE
    csv_path.write_text(csv_path.read_text().replace("0.0009", value))
    out = tmp_path / "out"
    assert run_ga(tmp_path, out) == 2  # was ROOT's axis error reported as a drawing failure, on two lines
    line = one_error_line(capsys.readouterr().err)
    assert str(csv_path) in line and "finite" in line and "drawing" not in line
    assert not out.exists()


@pytest.mark.parametrize("value", [None, [1, 2], {"a": 1}, math.inf])
def test_genes_from_model_records_are_checked(tmp_path, value):
    """Without model_info.csv the chromosome comes from each record's hyperparameters."""
    run_dir = toy(tmp_path)
    (run_dir / "GA-iter0" / "json" / ga.POPULATION_FILE).unlink()
    record = run_dir / "GA-iter0" / "json" / "model0.json"
    doc = json.loads(record.read_text())
    doc["hyperparameters"]["num_hidden"] = value
    record.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:  # was TypeError (unhashable / float(None)) in metrics.ga
        ga.read_run(run_dir, "Run3Mu", "MHc100_MA95")
    text = str(err.value)
    assert "\n" not in text and str(record) in text and "num_hidden" in text and "Fix:" in text


def test_a_damaged_working_points_file_is_one_error(tmp_path):
    from pnetviz.campaign.workingpoints import WP_FILE, working_point_rows  # noqa: PLC0415

    good = {"target_eps_s": 0.5, "threshold": 0.8,
            "test": {"eps_s": 0.5, "eps_b": 0.01, "effective_events": {"signal": 100.0, "background": 300.0}}}  # fmt: skip
    sets = []
    for fold, point in enumerate([good, {"target_eps_s": 0.5}]):
        d = tmp_path / f"fold-{fold}"
        d.mkdir()
        (d / WP_FILE).write_text(json.dumps({"kind": "binary", "fold": fold,
                                             "pairs": {"signal vs =1+2": {"wp_from": "train", "points": [point]}}}))
        sets.append(d)
    job = {"status": "done", "kind": "binary", "channel": "Run3Mu", "signal": "MHc100_MA95", "model": "m",
           "outputs": [str(d) for d in sets]}  # fmt: skip
    with pytest.raises(InputError) as err:  # was KeyError 'eps_b' after every job had run
        working_point_rows([job])
    text = str(err.value)
    assert "\n" not in text and str(sets[1] / WP_FILE) in text and "--force" in text
    rows = working_point_rows([{**job, "outputs": [str(sets[0])]}])
    assert len(rows) == 1 and rows[0]["pair"] == "=1+2"


def test_campaign_graph_titles_escape_names():
    from pnetviz.campaign import summary  # noqa: PLC0415

    sel = [{"m_hc": 100, "m_a": 95, "auc_test_mean": 0.9, "auc_test_std": 0.01},
           {"m_hc": 100, "m_a": 60, "auc_test_mean": 0.92, "auc_test_std": 0.02}]  # fmt: skip
    fig = summary._auc_vs_ma_figure("auc_vs_mA_h", sel, "binary", "Ch{x}", "\\input{x}#splitline{a}{b}", "v")
    try:
        titles = [obj.GetTitle() for key, obj in fig.objects.items() if key.startswith("graphs/")]
    finally:
        fig.close()
    assert titles and all("\\" not in t and "{x}" not in t and "#splitline" not in t for t in titles), titles
