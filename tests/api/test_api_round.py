"""open_round, figures and overlay: the round's numbers are its CSV's, figures carry JSROOT HTML
and a ROOT PNG, a stored canvas is checked before it is drawn, overlays draw a ratio panel,
run_campaign uses the caller's Dask client and leaves it open."""

from __future__ import annotations

import base64
import csv
import json
import shutil

import pytest

import pnetviz
from pnetviz.api.figure import jsroot_base
from pnetviz.web.site import JSROOT_URL
from pnetviz.draw.stored import CodeInFile
from pnetviz.errors import InputError
from pnetviz.rootenv import root

from conftest import API_CHANNEL as CHANNEL, API_FAST as FAST, API_SIGNAL as SIGNAL

PNG = b"\x89PNG\r\n\x1a\n"


def _csv(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_open_round_tables_are_the_csv(demo_round):
    rnd = pnetviz.open_round(demo_round.plots, frames=False)
    rows = _csv(demo_round.plots / "campaign" / "campaign_leaderboard.csv")
    assert len(rnd.leaderboard) == len(rows) > 0
    for mine, theirs in zip(rnd.leaderboard, rows):
        assert mine["model"] == theirs["model"] and mine["auc_test_mean"] == float(theirs["auc_test_mean"])
    assert {"leaderboard", "summary", "working_points", "binary_vs_multiclass"} <= set(rnd.tables)
    kinds = sorted(m.kind for m in rnd.models)
    assert kinds == ["binary", "binary", "binary", "comparison", "multiclass"] and rnd.folds == [0, 1]
    binary = rnd.model(kind="binary", pair="diboson")
    assert binary.folds[0].report["auc"]["test"] == pytest.approx(
        next(float(r["auc_test"]) for r in _csv(demo_round.plots / "campaign" / "campaign_summary.csv")
             if r["model"] == binary.name and r["fold"] == "0"), rel=1e-12)  # fmt: skip
    with pytest.raises(InputError, match="3 models match"):
        rnd.model(kind="binary")


def test_open_round_refuses_a_directory_without_a_campaign(tmp_path):
    with pytest.raises(InputError, match="no finished campaign"):
        pnetviz.open_round(tmp_path)


def test_a_figure_displays_as_jsroot_html_and_a_png(demo_round, tmp_path):
    fig = pnetviz.open_round(demo_round.plots).model(kind="binary", pair="ttZ").folds[1].figures["roc_curve"]
    bundle = fig._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(PNG)
    page = bundle["text/html"]
    # JSROOT from the round's own copy when the campaign made one (its cache was there), else the web
    bases = {JSROOT_URL, jsroot_base(demo_round.plots)}
    assert any(f'import("{b}modules/main.mjs")' in page for b in bases), page[:400]
    assert "</script>" not in page[page.index("<script") + 8:-9]
    assert json.loads(fig.to_json())["_typename"] == "TCanvas"
    for suffix in ("png", "pdf", "root"):
        assert fig.save(tmp_path / f"roc.{suffix}").stat().st_size > 1000
    assert (tmp_path / "roc.png").read_bytes().startswith(PNG)
    with pytest.raises(InputError, match="save a figure as"):
        fig.save(tmp_path / "roc.gif")


def test_the_local_jsroot_copy_comes_first(tmp_path, monkeypatch):
    (tmp_path / "plots" / "jsroot" / "modules").mkdir(parents=True)
    assert jsroot_base(tmp_path / "plots") == JSROOT_URL  # no main.mjs: not a copy
    (tmp_path / "plots" / "jsroot" / "modules" / "main.mjs").write_text("")
    monkeypatch.chdir(tmp_path)
    assert jsroot_base(tmp_path / "plots") == "./plots/jsroot/"
    assert jsroot_base(tmp_path / "plots", "https://example.org/js") == "https://example.org/js/"
    (tmp_path / "examples").mkdir()
    monkeypatch.chdir(tmp_path / "examples")  # the example notebook's kernel after ./run.sh demo
    assert jsroot_base(tmp_path / "plots") == jsroot_base("../plots") == "../plots/jsroot/"
    (tmp_path / "examples" / "deeper").mkdir()
    monkeypatch.chdir(tmp_path / "examples" / "deeper")
    assert jsroot_base(tmp_path / "plots") == JSROOT_URL  # two levels up: likely outside what a notebook server serves


def test_a_planted_texec_is_refused_and_never_runs(demo_round, tmp_path):
    model = pnetviz.open_round(demo_round.plots).model(kind="binary", pair="nonprompt")
    copy = tmp_path / "fold-0"
    shutil.copytree(model.folds[0].directory, copy)
    pwned = tmp_path / "PWNED"
    ROOT = root()
    tfile = ROOT.TFile.Open(str(copy / "plots.root"), "UPDATE")
    canvas = tfile.Get("canvases/roc_curve")
    planted = ROOT.TExec("x", f".! touch {pwned}")
    ROOT.SetOwnership(planted, False)
    canvas.GetListOfPrimitives().Add(planted)
    tfile.GetDirectory("canvases").cd()
    canvas.Write("roc_curve", ROOT.TObject.kOverwrite)
    tfile.Close()
    model.folds[0].directory = copy
    with pytest.raises(CodeInFile, match="roc_curve.*nothing was shown"):
        model.folds[0].figures["roc_curve"]._repr_mimebundle_()
    assert not pwned.exists()


def test_overlay_of_three_models_has_a_ratio_panel(demo_round):
    rnd = pnetviz.open_round(demo_round.plots)
    models = [rnd.model(kind="binary", pair=p) for p in ("nonprompt", "diboson")] + [rnd.model(kind="multiclass")]
    fig = pnetviz.overlay(models, kind="rejection", pair="ttX", reference=2)
    keys = set(fig._keep.objects)
    assert {f"overlay_folds/rejection_mean_item{i}" for i in range(3)} <= keys
    assert {f"overlay_folds/rejection_ratio_item{i}" for i in (0, 1)} <= keys  # the reference draws its band only
    assert [label for label in fig._keep.labels.values() if "mean" in label][:3] == [
        "binary vs nonprompt: mean #pm 1#sigma", "binary vs diboson: mean #pm 1#sigma", "multi-class vs ttX: mean #pm 1#sigma"]
    assert fig.canvas.GetListOfPrimitives().GetSize() >= 2  # the main pad and the ratio pad
    bundle = fig._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(PNG) and "jsroot.draw" in bundle["text/html"]
    shown = fig.to_json()
    on_canvas = "m(H^{#pm}) = 130 GeV, m(A) = 90 GeV" in shown and "3#mu" in shown
    in_caption = "m(H\u00b1) = 130 GeV, m(A) = 90 GeV" in fig.caption and "3\u03bc" in fig.caption
    assert on_canvas or in_caption  # the shared signal point and channel: in the frame, or the caption below it
    assert not in_caption or f'<p class="pnetviz-caption">{fig.caption}</p>' in bundle["text/html"]
    with pytest.raises(InputError, match="kind="):
        pnetviz.overlay(models, kind="pr")
    with pytest.raises(InputError, match="not closed"):
        pnetviz.overlay(models, pair="ttX", labels=["a{b", "c", "d"])
    with pytest.raises(InputError, match="does not name one of its pairs"):
        pnetviz.overlay([rnd.model(kind="multiclass")])


def test_run_campaign_uses_the_given_client_and_leaves_it_open(demo_round, tmp_path):
    distributed = pytest.importorskip("distributed")
    with pytest.raises(InputError, match="workers= with client="):
        pnetviz.run_campaign(demo_round.results, client=object(), workers=2)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        rnd = pnetviz.run_campaign(demo_round.results, client=client, plots_dir=tmp_path / "plots", kinds="binary",
                                   images="none", **{"bootstrap": int(FAST[1])})  # fmt: skip
        assert client.status == "running" and client.submit(sum, [1, 2]).result() == 3
    assert sorted(m.pair for m in rnd.models) == ["diboson", "nonprompt", "ttZ"]
    assert {m.channel for m in rnd.models} == {CHANNEL} and {m.signal for m in rnd.models} == {SIGNAL}
    assert all(j["status"] == "done" for j in rnd.summary["jobs"])


def test_figures_of_the_same_name_live_side_by_side(demo_round):
    """Stored canvases of one name (roc_curve of two folds): drawing one must not delete the other."""
    model = pnetviz.open_round(demo_round.plots).model(kind="binary", pair="diboson")
    first, second = (model.folds[k].figures["roc_curve"] for k in (0, 1))
    pngs = [first.to_png(), second.to_png(), first.to_png()]
    assert all(p.startswith(PNG) for p in pngs) and pngs[0] == pngs[2] != pngs[1]
    names = [c.GetName() for c in root().gROOT.GetListOfCanvases()]
    assert first.canvas.GetName() not in names and second.canvas.GetName() not in names
