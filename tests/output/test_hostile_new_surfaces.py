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


def ga_set(tmp_path_factory, prefix: str, groups: dict) -> Path:
    """A GA toy with these background groups, run through `pnetviz ga`: its output set."""
    base = tmp_path_factory.mktemp(prefix)
    toy(base, groups, sharpness=1.5)
    out = base / "out"
    assert run_ga(base, out) == 0
    return out


@pytest.fixture(scope="module")
def hostile_set(tmp_path_factory):
    return ga_set(tmp_path_factory, "gah", HOSTILE_GROUPS)


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
    from pnetviz.summary.workingpoints import WP_FILE, working_point_rows  # noqa: PLC0415

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
    from pnetviz.summary import summary  # noqa: PLC0415

    sel = [{"m_hc": 100, "m_a": 95, "auc_test_mean": 0.9, "auc_test_std": 0.01},
           {"m_hc": 100, "m_a": 60, "auc_test_mean": 0.92, "auc_test_std": 0.02}]  # fmt: skip
    fig = summary._auc_vs_ma_figure("auc_vs_mA_h", sel, "binary", "Ch{x}", "\\input{x}#splitline{a}{b}", "v")
    try:
        titles = [obj.GetTitle() for key, obj in fig.objects.items() if key.startswith("graphs/")]
    finally:
        fig.close()
    assert titles and all("\\" not in t and "{x}" not in t and "#splitline" not in t for t in titles), titles


# --- a damaged summary_report.json in an up-to-date set of a campaign ---

BINARY_SET = "binary/MHc100_MA95/*-binary-nonprompt/fold-0"
GROUPED_SET = "multiclass/MHc100_MA95/*-3grp-*/fold-0"


def campaign(results: Path, plots: Path, *extra: str) -> int:
    from conftest import load_script  # noqa: PLC0415
    from pnetviz.cli.common import run  # noqa: PLC0415

    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--workers", "0", "--bootstrap", "0", "-q",
            "--images", "none", *extra]  # fmt: skip
    return run(load_script("visualizeCampaign").main, argv)


@pytest.fixture(scope="module")
def finished_campaign(tmp_path_factory):
    """(results, plots) of a finished campaign: one binary and one multi-class model, fold 0."""
    from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold  # noqa: PLC0415

    results = tmp_path_factory.mktemp("damaged") / "results"
    write_trainer_fold(results, "Run3Mu", "MHc100_MA95", 0, models=(ModelSpec("binary", "nonprompt"), ModelSpec("grouped")),
                       events=300)  # fmt: skip
    plots = results.parent / "plots"
    assert campaign(results, plots) == 0
    return results, plots


def files_under(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def edit(doc: dict, change: str) -> str:
    """The text of `doc` (a fold set's summary_report.json) after a user's `change`."""
    if change == "truncated":
        return json.dumps(doc)[:-40]
    if change == "a list":
        return "[]"
    doc = json.loads(json.dumps(doc))
    if change.startswith("no "):
        del doc[change[3:]]
    elif change == "hep_metrics is text":
        doc["hep_metrics"] = "see the note"
    elif change == "auc is text":
        pair = next(iter(doc["hep_metrics"]))
        metrics = doc["hep_metrics"] if "test" in doc["hep_metrics"] else doc["hep_metrics"][pair]
        metrics["test"]["auc"] = "0.9 (checked by hand)"
    elif change == "classes is text":
        doc["classes"] = "signal,nonprompt"
    return json.dumps(doc)


@pytest.mark.parametrize("which, change, said", [
    (BINARY_SET, "truncated", "not valid JSON"),
    (BINARY_SET, "a list", "a JSON list, not an object"),
    (BINARY_SET, "no hep_metrics", "no 'hep_metrics' entry"),
    (BINARY_SET, "no events", "no 'events' entry"),
    (BINARY_SET, "hep_metrics is text", "a value of the wrong kind"),
    (BINARY_SET, "auc is text", "auc_test of 'nonprompt' is '0.9 (checked by hand)', not a number"),
    (GROUPED_SET, "no auc", "no 'auc' entry"),
    (GROUPED_SET, "classes is text", "classes is 'signal,nonprompt', not a list of class names"),
])  # fmt: skip
def test_an_edited_report_of_an_up_to_date_set_is_one_error(finished_campaign, capsys, which, change, said):
    results, plots = finished_campaign
    (fold_set,) = (plots / "results" / "Run3Mu").glob(which)
    report = fold_set / "summary_report.json"
    original = report.read_text()
    report.write_text(edit(json.loads(original), change))
    edited, before = report.read_text(), files_under(plots / "campaign")
    capsys.readouterr()
    try:
        code = campaign(results, plots)  # was a traceback (JSONDecodeError, KeyError, TypeError, ValueError)
        line = one_error_line(capsys.readouterr().err)
        assert code == 2
        assert f"{report}: {said}" in line and "Fix: delete that set's directory (fold-0/)" in line and "--force" in line
        assert report.read_text() == edited and files_under(plots / "campaign") == before  # nothing rewritten or lost
    finally:
        report.write_text(original)
    assert campaign(results, plots) == 0


def test_deleting_the_damaged_set_as_told_redoes_that_model(finished_campaign, capsys):
    results, plots = finished_campaign
    (fold_set,) = (plots / "results" / "Run3Mu").glob(BINARY_SET)
    report = fold_set / "summary_report.json"
    original = json.loads(report.read_text())
    report.write_text(edit(original, "no hep_metrics"))
    assert campaign(results, plots) == 2
    capsys.readouterr()
    import shutil  # noqa: PLC0415

    shutil.rmtree(fold_set)
    assert campaign(results, plots) == 0, capsys.readouterr().err
    assert json.loads(report.read_text())["hep_metrics"]["test"]["auc"] == original["hep_metrics"]["test"]["auc"]
    with open(plots / "campaign" / "campaign_summary.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "binary"]
    assert [float(r["auc_test"]) for r in rows] == pytest.approx([original["hep_metrics"]["test"]["auc"]])


# --- names with a line break or a ';': ga_summary.txt and stored ROOT titles ---

ODD_GROUPS = {"non\nprompt": ["a"], "t;tX": ["b"], "di;bo;son": ["c"]}


@pytest.fixture(scope="module")
def odd_names_set(tmp_path_factory):
    return ga_set(tmp_path_factory, "gaodd", ODD_GROUPS)


def test_a_line_break_in_a_class_name_stays_inside_its_line_of_ga_summary_txt(odd_names_set):
    from pnetviz.escape import text_line  # noqa: PLC0415

    assert text_line("non\nprompt") == "non\\nprompt" and text_line("a\tb\x1b") == "a\\tb\\x1b"
    assert text_line("t;tX \\input{x} é") == "t;tX \\input{x} é"
    lines = (odd_names_set / "ga_summary.txt").read_text().splitlines()
    assert "classes: signal, non\\nprompt, t;tX, di;bo;son" in lines  # was "...non" and a line "prompt, ttX"
    assert not [line for line in lines if line.startswith("prompt")]
    (auc_line,) = [line for line in lines if "LR test AUC" in line]
    assert auc_line.startswith("GA-iter0/model2: LR test AUC non\\nprompt 0.")
    assert all(line.isprintable() for line in lines)
    report = (odd_names_set / "summary_report.txt").read_text().splitlines()
    assert any("non\\nprompt" in line for line in report)  # was "[signal, non" and a line "prompt, ...]"
    assert all(line.isprintable() for line in report) and not [line for line in report if line.startswith("prompt")]


def stored_objects(path: Path, directory: str) -> dict[str, tuple[str, str, str]]:
    """Key name -> (title, x-axis title, y-axis title) of the objects in `directory` of a ROOT
    file and its subdirectories, read back with ROOT."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    f = root().TFile.Open(str(path))
    found = {}
    try:
        todo = [(directory, f.Get(directory))]
        while todo:
            where, d = todo.pop()
            for key in d.GetListOfKeys():
                obj = key.ReadObj()
                if obj.InheritsFrom("TDirectory"):
                    todo.append((f"{where}/{key.GetName()}", obj))
                else:
                    found[f"{where}/{key.GetName()}"] = (obj.GetTitle(), obj.GetXaxis().GetTitle(), obj.GetYaxis().GetTitle())
    finally:
        f.Close()
    return found


def test_a_semicolon_in_a_class_name_stays_in_the_stored_titles(odd_names_set):
    """TGraph::SetTitle reads "title;x;y": the curves were stored as 'vs t' with x title 'tX: AUC ...'."""
    titles = stored_objects(odd_names_set / "plots.root", "lr_roc")
    assert len(titles) == 2 * len(ODD_GROUPS)
    from pnetviz.io.layout import root_key  # noqa: PLC0415 - the keys hold the names readable by path

    for name in ("t;tX", "di;bo;son"):
        test = next(v for k, v in titles.items() if k.endswith(f"/{root_key(name)}_test"))
        train = next(v for k, v in titles.items() if k.endswith(f"/{root_key(name)}_train"))
        assert test[0].startswith(f"vs {name}: AUC 0.") and train[0].startswith(f"vs {name}, train (not drawn on the canvas)")
        for title in (test, train):
            assert title[1:] == ("Background efficiency (FPR)", "Signal efficiency (TPR)"), title


def test_a_semicolon_in_a_background_name_stays_in_the_stored_titles(tmp_path):
    """A binary model trained against `non;prompt`: the score histograms (TH1D constructor) and
    curves keep the whole name in plots.root."""
    from conftest import load_script  # noqa: PLC0415
    from pnetviz.cli.common import run  # noqa: PLC0415
    from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold  # noqa: PLC0415

    (tree,) = write_trainer_fold(tmp_path / "results", "Run3Mu", "MHc130_MA90", 0, models=(ModelSpec("binary", "nonprompt"),),
                                 events=400)  # fmt: skip
    fold = tree.parent.parent
    for path in list(fold.rglob("*binary-nonprompt*")):
        path.rename(path.with_name(path.name.replace("binary-nonprompt", "binary-non;prompt")))
    (perf,) = fold.glob("*_performance.json")
    doc = json.loads(perf.read_text())
    doc["background_info"]["backgrounds"] = ["non;prompt"]
    perf.write_text(json.dumps(doc))
    (tree,) = fold.glob("trees/*.root")
    out = tmp_path / "out"
    assert run(load_script("visualizeBinary").main, ["--predictions", str(tree), "--output", str(out), "--bootstrap", "0",
                                                     "--formats", "png", "--no-bjet-comparison", "-q"]) == 0  # fmt: skip
    scores = stored_objects(out / "plots.root", "scores")
    assert scores["scores/test_background"] == ("non;prompt events, test split, all events, score distributions",
                                                "P(signal)", "Normalised to unit area")  # fmt: skip
    assert scores["scores/train_background"][0].startswith("non;prompt events, train split")


def test_campaign_maps_and_graphs_keep_a_semicolon_in_their_titles():
    from pnetviz.summary import summary  # noqa: PLC0415

    sel = [{"m_hc": 100, "m_a": 95, "auc_test_mean": 0.9, "auc_test_std": 0.01},
           {"m_hc": 100, "m_a": 60, "auc_test_mean": 0.92, "auc_test_std": 0.02}]  # fmt: skip
    fig = summary._auc_vs_ma_figure("auc_vs_mA_semi", sel, "binary", "Run3Mu", "non;prompt")
    try:
        graphs = [(o.GetTitle(), o.GetXaxis().GetTitle()) for k, o in fig.objects.items() if k.startswith("graphs/")]
    finally:
        fig.close()
    assert graphs == [("Test AUC vs m(A), m(H^{#pm}) = 100 GeV, binary, signal vs non;prompt, 3#mu", "m(A) [GeV]")]
    spec = summary.MapSpec("map_semi", "Mean test AUC, vs non;prompt, 3#mu", "Mean test AUC", {(100, 95): 0.9, (160, 85): 0.95},
                           ".4f")  # fmt: skip
    fig = summary.map_figure(spec)
    try:
        stored = fig.objects["maps/map_semi"]
        assert stored.GetTitle() == "Mean test AUC, vs non;prompt, 3#mu (blank: no signal point)"
        assert (stored.GetXaxis().GetTitle(), stored.GetYaxis().GetTitle(), stored.GetZaxis().GetTitle()) == (
            "m(H^{#pm}) [GeV]", "m(A) [GeV]", "Mean test AUC")
    finally:
        fig.close()


@pytest.mark.parametrize("text", ["[]", '{"best": "GA-iter0/model2", "trainer_choice": 1, "duplicates": 2}'])
def test_an_edited_ga_report_of_an_up_to_date_set_leaves_its_site_row_blank(tmp_path, capsys, text):
    """The GA searches' table of the campaign's site reads each GA set's summary_report.json; an
    unreadable one already gave blank cells, one of another shape was an AttributeError."""
    toy(tmp_path)
    (tmp_path / "results").mkdir()
    plots = tmp_path / "plots"
    assert campaign(tmp_path / "results", plots, "--kinds", "ga") == 0
    (report,) = plots.glob("GAOptim_bjets/*/multiclass/*/ga/summary_report.json")
    assert "<td>GA-iter0/model2</td>" in (plots / "campaign" / "site" / "index.html").read_text()
    report.write_text(text)
    capsys.readouterr()
    assert campaign(tmp_path / "results", plots, "--kinds", "ga") == 0, capsys.readouterr().err
    index = (plots / "campaign" / "site" / "index.html").read_text()
    row = index[index.index('<table id="ga"'):].split("<tbody>")[1].split("</tr>")[0]
    cells = row.removeprefix("<tr>").removeprefix("<td>").removesuffix("</td>").split("</td><td>")
    assert cells[0:2] == ["Run3Mu", "MHc100_MA95"] and cells[3:] == ["", "", "", "", "done"]
    jobs = json.loads((plots / "campaign" / "summary_report.json").read_text())["jobs"]
    assert jobs["up to date"] == 1 and jobs["done"] == 0 and report.read_text() == text  # not redone: the edit is left


# --- key names in plots.root: every object fetched by its path (TFile::Get, uproot, JSROOT) ---


def read_by_path(path: Path) -> dict[str, tuple[str, str] | None]:
    """Key path -> (name, title) of every object of a ROOT file (directories walked), each fetched
    with TFile::Get(<key path>) as a user or JSROOT's readObject would; None when it does not
    come back."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    f = root().TFile.Open(str(path))
    try:
        paths, todo = [], [("", f)]
        while todo:
            prefix, directory = todo.pop()
            for key in directory.GetListOfKeys():
                if key.GetClassName() in ("TDirectoryFile", "TDirectory"):
                    todo.append((f"{prefix}{key.GetName()}/", key.ReadObj()))
                else:
                    paths.append(f"{prefix}{key.GetName()}")
        found = {}
        for p in paths:
            obj = f.Get(p)
            found[p] = (obj.GetName(), obj.GetTitle()) if obj else None
    finally:
        f.Close()
    return found


def test_root_key_changes_only_what_a_key_path_reads_specially():
    from pnetviz.io.layout import real_name, root_key, root_key_path  # noqa: PLC0415

    for name in ("roc_curve", "signal_vs_ttX", "rejection_0.5", "a b+c-d", "MHc130_MA90", "é", "=1+2", "#splitline{a}{b}"):
        assert root_key(name) == name
    odd = ["t;tX", "t:tX", "t%3BtX", "t_tX", "non\nprompt", "a\tb", "a/b", "..", ".", "50%", "x\u2028y"]
    keys = [root_key(n) for n in odd]
    assert keys == ["t%3BtX", "t%3AtX", "t%253BtX", "t_tX", "non%0Aprompt", "a%09b", "a%2Fb", "%2E%2E", "%2E", "50%25",
                    "x%E2%80%A8y"]  # fmt: skip
    assert len(set(keys)) == len(keys) and [real_name(k) for k in keys] == odd  # one-to-one: no two names share a key
    assert root_key_path("lr_roc/iter0_model2/di;bo;son_test") == "lr_roc/iter0_model2/di%3Bbo%3Bson_test"


def test_every_object_of_a_set_with_odd_class_names_comes_back_by_its_key_path(odd_names_set):
    from pnetviz.io.layout import real_name  # noqa: PLC0415

    objects = read_by_path(odd_names_set / "plots.root")
    assert len(objects) > 30
    assert [k for k, v in objects.items() if v is None] == []  # was: every key holding ';' came back null
    assert [k for k in objects if ";" in k or ":" in k or not k.isprintable()] == []
    assert all(v[0] == k.rpartition("/")[2] for k, v in objects.items())  # each object's name is its key name
    curves = {real_name(k.rpartition("/")[2]): v[1] for k, v in objects.items() if k.startswith("lr_roc/")}
    assert set(curves) == {f"{c}_{split}" for c in ODD_GROUPS for split in ("test", "train")}
    for name in ("t;tX", "di;bo;son"):  # the titles hold the names as they are
        assert curves[f"{name}_test"].startswith(f"vs {name}: AUC 0.")
        assert curves[f"{name}_train"].startswith(f"vs {name}, train (not drawn on the canvas)")
    assert curves["non\nprompt_test"].startswith("vs non")
    assert objects["lr_roc/iter0_model2/t%3BtX_test"][0] == "t%3BtX_test"
    assert "lr_roc/iter0_model2/non%0Aprompt_train" in objects and "lr_roc/iter0_model2/di%3Bbo%3Bson_test" in objects
    for ordinary in ("README", "fitness/models", "ks/iter0_model2", "canvases/ga_lr_roc_iter0_model2"):
        assert objects[ordinary] is not None  # names without such characters are their own keys


def test_directories_named_after_odd_class_names_are_reached_by_path(tmp_path):
    """A multi-class set's directories are named after the classes (signal_vs_<class>/); ROOT
    reads a ':' in a directory path as a file name, a ';' as a cycle."""
    from array import array  # noqa: PLC0415

    from pnetviz.draw.canvas import Figure  # noqa: PLC0415
    from pnetviz.draw.rootfile import write_root_file  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    canvas = ROOT.TCanvas("odd_dirs", "", 200, 200)
    hist, graph = ROOT.TH1D("odd_dirs_h", "", 4, 0.0, 1.0), ROOT.TGraph(2, array("d", [0.0, 1.0]), array("d", [0.0, 1.0]))
    fig = Figure(name="signal_vs_t;tX_roc_curve", canvas=canvas, pads=[canvas],
                 objects={"signal_vs_t;tX/roc_test": graph, "signal_vs_di:bo/scores_test": hist},
                 labels={"signal_vs_t;tX/roc_test": "vs t;tX"})  # fmt: skip
    try:
        write_root_file(tmp_path / "plots.root", [fig], context="odd directories")
    finally:
        fig.close()
    objects = read_by_path(tmp_path / "plots.root")
    assert set(objects) == {"README", "signal_vs_t%3BtX/roc_test", "signal_vs_di%3Abo/scores_test",
                            "canvases/signal_vs_t%3BtX_roc_curve"}  # fmt: skip
    assert objects["signal_vs_t%3BtX/roc_test"] == ("roc_test", "vs t;tX, signal vs t;tX roc curve")
    assert objects["signal_vs_di%3Abo/scores_test"] == ("scores_test", "signal_vs_di:bo scores_test, signal vs t;tX roc curve")
    assert objects["canvases/signal_vs_t%3BtX_roc_curve"][0] == "signal_vs_t%3BtX_roc_curve"


def test_names_alike_but_for_a_semicolon_or_colon_keep_apart_keys(tmp_path):
    """A substitute character (t;tX -> t_tX) would make these four one key, the last curve
    overwriting the others; the percent-encoding keeps each."""
    groups = {"t;tX": ["a"], "t:tX": ["b"], "t%3BtX": ["c"], "t_tX": ["d"]}
    toy(tmp_path, groups, sharpness=1.5)
    assert run_ga(tmp_path, tmp_path / "out") == 0
    objects = read_by_path(tmp_path / "out" / "plots.root")
    tests = {k.rpartition("/")[2]: v for k, v in objects.items() if k.startswith("lr_roc/") and k.endswith("_test")}
    assert sorted(tests) == ["t%253BtX_test", "t%3AtX_test", "t%3BtX_test", "t_tX_test"]
    for key, name in (("t%3BtX", "t;tX"), ("t%3AtX", "t:tX"), ("t%253BtX", "t%3BtX")):
        assert tests[f"{key}_test"][1].startswith(f"vs {name}: AUC 0."), tests
    assert len({title for _, title in tests.values()}) == 4  # four curves, each with its own AUC


def binary_model_against(results: Path, signal: str, background: str) -> None:
    """A trainer fold of one binary model of `signal` trained against `background` (any name)."""
    from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold  # noqa: PLC0415

    (tree,) = write_trainer_fold(results, "Run3Mu", signal, 0, models=(ModelSpec("binary", "nonprompt"),), events=300)
    fold = tree.parent.parent
    for path in list(fold.rglob("*binary-nonprompt*")):
        path.rename(path.with_name(path.name.replace("binary-nonprompt", f"binary-{background}")))
    (perf,) = fold.glob("*_performance.json")
    doc = json.loads(perf.read_text())
    doc["background_info"]["backgrounds"] = [background]
    perf.write_text(json.dumps(doc))


def test_the_site_and_render_reach_a_canvas_named_after_a_semicolon_background(tmp_path):
    """The campaign's AUC-vs-m(A) canvas is named after the pair: the site's live view links to its
    key, `pnetviz render` names its image as the figure, and the site's thumbnail finds that image."""
    import re  # noqa: PLC0415
    from urllib.parse import unquote  # noqa: PLC0415

    from pnetviz.web import site  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    results, plots = tmp_path / "results", tmp_path / "plots"
    for signal in ("MHc100_MA95", "MHc100_MA60"):
        binary_model_against(results, signal, "non;prompt")
    assert campaign(results, plots) == 0
    target = plots / "campaign"
    items = set(re.findall(r'item=(canvases/auc_vs_mA_[^"&]*)', (target / "site" / "index.html").read_text()))
    assert items == {"canvases/auc_vs_mA_binary_Run3Mu_non%253Bprompt"}
    f = root().TFile.Open(str(target / "campaign.root"))
    try:
        stored = f.Get(unquote(items.pop()))  # what view.html hands JSROOT: was "...non;prompt", cut at the ';'
        assert stored and stored.InheritsFrom("TCanvas")
        graph = f.Get("graphs/auc_vs_mA_binary_Run3Mu_non%3Bprompt_MHc100")
        assert graph and "signal vs non;prompt" in graph.GetTitle()
    finally:
        f.Close()
    assert run_command("render", [str(target), "--formats", "png", "-q"]) == 0  # was a null canvas: AttributeError
    assert (target / "auc_vs_mA_binary_Run3Mu_non;prompt.png").stat().st_size > 1000  # the name the run would give it
    thumbs = site._thumbs(site._figures(target), "campaign", "../../", "campaign/campaign.root", target)
    assert 'src="../../campaign/auc_vs_mA_binary_Run3Mu_non%3Bprompt.png"' in thumbs
    assert "item=canvases/auc_vs_mA_binary_Run3Mu_non%253Bprompt" in thumbs


# --- an unreadable working_points.json is the same one error as one of the wrong shape ---

WP_POINT = {"target_eps_s": 0.5, "threshold": 0.8,
            "test": {"eps_s": 0.5, "eps_b": 0.01, "effective_events": {"signal": 100.0, "background": 300.0}}}  # fmt: skip


@pytest.mark.parametrize("text, said", [
    ('{"kind": "binary", "fold": 1, "pairs": {"signal vs ttZ": {"wp_from": "tr', "not valid JSON (Unterminated string"),
    (b"\xff\xfe{}", "not valid JSON ('utf-8' codec can't decode byte 0xff"),
    ("", "not valid JSON (Expecting value"),
    ("[]", "a JSON list, not an object"),
    ('{"kind": "binary", "fold": 1, "pairs": ["signal vs ttZ"]}', "no 'pairs' object"),
    (json.dumps({"kind": "binary", "fold": 1, "pairs": {"signal vs ttZ": {"points": [{**WP_POINT, "test": {}}]}}}),
     "the working points of 'signal vs ttZ' lack target_eps_s"),
])  # fmt: skip
def test_invalid_json_in_working_points_is_one_error_like_a_wrong_shape(tmp_path, text, said):
    from pnetviz.summary.workingpoints import WP_FILE, working_point_rows  # noqa: PLC0415

    good, bad = tmp_path / "fold-0", tmp_path / "fold-1"
    for d in (good, bad):
        d.mkdir()
    (good / WP_FILE).write_text(json.dumps({"kind": "binary", "fold": 0, "pairs": {"signal vs ttZ": {"points": [WP_POINT]}}}))
    (bad / WP_FILE).write_bytes(text if isinstance(text, bytes) else text.encode())
    job = {"status": "up to date", "kind": "binary", "channel": "Run3Mu", "signal": "MHc100_MA95", "model": "m",
           "outputs": [str(good), str(bad)]}  # fmt: skip
    with pytest.raises(InputError) as err:  # invalid JSON was left out of the table without a word
        working_point_rows([job])
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{bad / WP_FILE}: {said}")
    assert message.endswith("Fix: delete that set's directory (fold-1/) or re-run that model with --force (with "
                            "--channels, --signals, --model naming it); the campaign then rewrites the set.")  # fmt: skip
    rows = working_point_rows([{**job, "outputs": [str(good)]}])
    assert [(r["pair"], r["folds"], r["threshold_mean"]) for r in rows] == [("ttZ", "0", 0.8)]


@pytest.mark.parametrize("change, said", [("truncated", "not valid JSON"), ("no eps_b", "lack target_eps_s")])
def test_an_edited_working_points_file_of_an_up_to_date_set_is_one_error(finished_campaign, capsys, change, said):
    results, plots = finished_campaign
    (fold_set,) = (plots / "results" / "Run3Mu").glob(BINARY_SET)
    path = fold_set / "working_points.json"
    original = path.read_text()
    if change == "truncated":
        path.write_text(original[: len(original) // 2])
    else:
        doc = json.loads(original)
        for entry in doc["pairs"].values():
            del entry["points"][0]["test"]["eps_b"]
        path.write_text(json.dumps(doc))
    edited, before = path.read_text(), files_under(plots / "campaign")
    capsys.readouterr()
    try:
        code = campaign(results, plots)  # truncated: was exit 0, the model's working points silently missing
        line = one_error_line(capsys.readouterr().err)
        assert code == 2 and f"{path}: " in line and said in line
        assert "Fix: delete that set's directory (fold-0/) or re-run that model with --force" in line
        assert path.read_text() == edited and files_under(plots / "campaign") == before  # nothing rewritten or lost
    finally:
        path.write_text(original)
    assert campaign(results, plots) == 0
