"""Issue 49, item 3 (cases A4, A5): a TExec or a TF1 planted anywhere in a real pnetviz plots.root
(the canvas, a sub-pad, a pad's execs, a histogram's functions, a graph's frame histogram, a
TMultiGraph's or a THStack's frame histogram, a legend entry, a list in a list, a key of its own)
is refused by `pnetviz render` (exit 2, one line, the set unchanged) and by the notebook API's
figures (InputError before anything is drawn), and the planted command never runs. The check is
an allow-list of the classes pnetviz writes, read from the file's records and from every object
a canvas reaches; pnetviz's own sets pass it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pnetviz
from pnetviz.cli.commands import run_command
from pnetviz.draw.stored import ALLOWED_CLASSES, CodeInFile, check_file, records_problem
from pnetviz.errors import InputError
from pnetviz.output.atomic import LOCK_SUFFIX
from pnetviz.rootenv import root

CANVAS = "roc_curve"  # a frame histogram, graphs and a legend: what the ROC, rejection and score figures are made of


def _copy(demo_round, tmp_path: Path) -> tuple[object, Path]:
    """The round's binary model against nonprompt, its fold-0 set copied into `tmp_path` (the model's fold pointed there)."""
    model = pnetviz.open_round(demo_round.plots).model(kind="binary", pair="nonprompt")
    copy = Path(shutil.copytree(model.folds[0].directory, tmp_path / "set" / "fold-0"))
    model.folds[0].directory = copy
    return model, copy


def _texec(pwned: Path):
    return lambda ROOT: ROOT.TExec("x", f'gSystem->Exec("touch {pwned}");')


def _tf1(pwned: Path):
    return lambda ROOT: ROOT.TF1("f", "x", 0.0, 1.0)


def _first(canvas, cls: str):
    return next(o for o in canvas.GetListOfPrimitives() if o.InheritsFrom(cls))


def _keep(ROOT, *objects) -> None:
    for obj in objects:
        ROOT.SetOwnership(obj, False)


def _in_canvas(ROOT, canvas, planted) -> None:
    canvas.GetListOfPrimitives().Add(planted)


def _in_subpad(ROOT, canvas, planted) -> None:
    pad = ROOT.TPad("inner", "inner", 0.1, 0.1, 0.2, 0.2)
    _keep(ROOT, pad)
    pad.GetListOfPrimitives().Add(planted)
    canvas.GetListOfPrimitives().Add(pad)


def _in_pad_execs(ROOT, canvas, planted) -> None:
    if not canvas.GetListOfExecs():
        canvas.AddExec("y", "")  # makes the list
        canvas.GetListOfExecs().Clear()
    canvas.GetListOfExecs().Add(planted)


def _in_histogram_functions(ROOT, canvas, planted) -> None:
    _first(canvas, "TH1").GetListOfFunctions().Add(planted)


def _in_graph_frame(ROOT, canvas, planted) -> None:
    _first(canvas, "TGraph").GetHistogram().GetListOfFunctions().Add(planted)


def _in_multigraph_frame(ROOT, canvas, planted) -> None:
    graph = _first(canvas, "TGraph").Clone("mg_member")
    multi = ROOT.TMultiGraph("mg", "mg")
    _keep(ROOT, graph, multi)
    multi.Add(graph)
    multi.GetHistogram().GetListOfFunctions().Add(planted)
    canvas.GetListOfPrimitives().Add(multi, "L")


def _in_stack_frame(ROOT, canvas, planted) -> None:
    hist = ROOT.TH1D("stack_member", "", 4, 0.0, 1.0)
    stack = ROOT.THStack("stack", "stack")
    _keep(ROOT, hist, stack)
    hist.SetDirectory(ROOT.nullptr)
    stack.Add(hist)
    stack.GetHistogram().GetListOfFunctions().Add(planted)
    canvas.GetListOfPrimitives().Add(stack, "HIST")


def _in_legend_entry(ROOT, canvas, planted) -> None:
    _first(canvas, "TLegend").AddEntry(planted, "entry", "")


def _in_list_in_a_list(ROOT, canvas, planted) -> None:
    outer, inner = ROOT.TList(), ROOT.TList()
    _keep(ROOT, outer, inner)
    inner.Add(planted)
    outer.Add(inner)
    canvas.GetListOfPrimitives().Add(outer)


PLACES = {"canvas": _in_canvas, "subpad": _in_subpad, "pad-execs": _in_pad_execs, "histogram-functions": _in_histogram_functions,
          "graph-frame": _in_graph_frame, "multigraph-frame": _in_multigraph_frame, "stack-frame": _in_stack_frame,
          "legend-entry": _in_legend_entry, "list-in-list": _in_list_in_a_list, "own-key": None,
          "list-key-among-canvases": None}  # fmt: skip


def _plant(root_file: Path, place: str, make) -> None:
    """`make(ROOT)` written into `root_file` at `place`: into the stored canvas CANVAS (read and
    written over, never drawn), as a key of its own ("own-key"), or in a list stored beside the
    canvases ("list-key-among-canvases")."""
    ROOT = root()
    tfile = ROOT.TFile.Open(str(root_file), "UPDATE")
    try:
        planted = make(ROOT)
        _keep(ROOT, planted)
        if place == "own-key":
            tfile.WriteTObject(planted, "extra")
            return
        if place == "list-key-among-canvases":  # never drawn, yet in the file
            holder = ROOT.TList()
            _keep(ROOT, holder)
            holder.Add(planted)
            tfile.GetDirectory("canvases").WriteTObject(holder, "extra", "SingleKey")
            return
        canvas = tfile.Get(f"canvases/{CANVAS}")
        PLACES[place](ROOT, canvas, planted)
        tfile.GetDirectory("canvases").cd()
        canvas.Write(CANVAS, ROOT.TObject.kOverwrite)
    finally:
        tfile.Close()


def _files(directory: Path) -> dict[str, bytes]:
    """Every file beside and below `directory` (staging directories included, its lock file not)."""
    return {str(p.relative_to(directory.parent)): p.read_bytes() for p in sorted(directory.parent.rglob("*"))
            if p.is_file() and not p.name.endswith(LOCK_SUFFIX)}  # fmt: skip


def _one_line(code: int, err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("kind", ["TExec", "TF1"])
def test_render_refuses_code_planted_anywhere_and_runs_nothing(demo_round, tmp_path, capsys, place, kind):
    _, target = _copy(demo_round, tmp_path)
    pwned = tmp_path / "PWNED"
    _plant(target / "plots.root", place, (_texec if kind == "TExec" else _tf1)(pwned))
    assert not pwned.exists()  # planting ran nothing
    before = _files(target)
    capsys.readouterr()
    line = _one_line(run_command("render", [str(target), "--formats", "png", "-q"]), capsys.readouterr().err)
    assert not pwned.exists()
    assert "plots.root" in line and "executable code" in line and "nothing was rendered" in line
    assert kind in line or place in ("multigraph-frame", "stack-frame")  # else the TMultiGraph/THStack is named first
    assert _files(target) == before and not list(target.glob("*.png"))


def test_a_texec_in_a_graph_frame_does_not_run_in_a_fresh_render(demo_round, tmp_path):
    """Case A4 as users meet it: `pnetviz render` in its own process (round 4's walk ran this one)."""
    _, target = _copy(demo_round, tmp_path)
    pwned = tmp_path / "PWNED"
    _plant(target / "plots.root", "graph-frame", _texec(pwned))
    done = subprocess.run([sys.executable, "-m", "pnetviz", "render", str(target), "--formats", "png", "-q"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    line = _one_line(done.returncode, done.stderr)
    assert not pwned.exists() and "TExec 'x'" in line and CANVAS in line


@pytest.mark.parametrize("place", ["canvas", "subpad", "histogram-functions", "graph-frame", "multigraph-frame",
                                   "stack-frame", "list-in-list", "own-key"])  # fmt: skip
@pytest.mark.parametrize("part", ["to_png", "to_html", "_repr_mimebundle_"])
def test_the_notebook_figure_refuses_it_before_drawing(demo_round, tmp_path, place, part):
    """Case A5: open_round(...).model(...).folds[0].figures[name] shown by Jupyter (its PNG drawn by
    ROOT, its HTML by JSROOT from the canvas's JSON): InputError naming the file, nothing runs."""
    model, target = _copy(demo_round, tmp_path)
    pwned = tmp_path / "PWNED"
    _plant(target / "plots.root", place, _texec(pwned))
    with pytest.raises(InputError, match=r"plots\.root.*nothing was shown"):
        getattr(model.folds[0].figures[CANVAS], part)()
    assert not pwned.exists()


def test_the_palette_command_outside_a_pad_primitives_is_refused(demo_round, tmp_path):
    """pnetviz's own palette TExec is allowed where pnetviz puts it (a pad's primitives) only."""
    _, target = _copy(demo_round, tmp_path)
    _plant(target / "plots.root", "histogram-functions", lambda ROOT: ROOT.TExec("palette", "gStyle->SetPalette(57);"))
    with pytest.raises(CodeInFile, match="outside a pad's primitives"):
        check_file(target / "plots.root")


def test_the_records_name_a_class_before_any_object_is_read(demo_round, tmp_path):
    """The records alone (streamer info, keys, the class tags in each key's bytes) name the TF1."""
    _, target = _copy(demo_round, tmp_path)
    _plant(target / "plots.root", "list-in-list", _tf1(tmp_path / "PWNED"))
    ROOT = root()
    tfile = ROOT.TFile.Open(str(target / "plots.root"))
    try:
        found = records_problem(tfile)
    finally:
        tfile.Close()
    assert found is not None and "'TF1'" in found


def test_the_round_passes_and_holds_only_allowed_classes(demo_round):
    """Every ROOT file of a round (fold sets of each kind, the campaign's) passes the check."""
    files = sorted(demo_round.plots.rglob("plots.root")) + [demo_round.plots / "campaign" / "campaign.root"]
    assert len(files) > 5 and sum(check_file(f) for f in files) > 50
    assert "TExec" in ALLOWED_CLASSES and not {"TF1", "TFormula", "TButton", "TMultiGraph", "THStack"} & ALLOWED_CLASSES


def test_an_older_set_with_its_palette_texec_still_passes(demo_round, tmp_path):
    """Sets written before palettes were stored as colours carry `gStyle->SetPalette(57);` among a
    pad's primitives: that exact TExec, there, still passes (it sets a palette, nothing else)."""
    _, target = _copy(demo_round, tmp_path)
    _plant(target / "plots.root", "canvas", lambda ROOT: ROOT.TExec("palette", "gStyle->SetPalette(57);"))
    assert check_file(target / "plots.root") > 5


def _pixels(png: bytes, tmp_path: Path) -> list[int]:
    """The ARGB values of the PNG `png`."""
    path = tmp_path / "figure.png"
    path.write_bytes(png)
    image = root().TASImage.Open(str(path))
    size = int(image.GetWidth()) * int(image.GetHeight())
    return np.frombuffer(image.GetArgbArray(), dtype=np.uint32, count=size).tolist()


def test_a_read_figure_keeps_its_stored_palette(demo_round, tmp_path):
    """A map read from campaign.root draws with the palette it stored (the diverging one of a
    difference map), also after a map of the other palette was read and drawn; as `pnetviz
    render` draws it."""
    from pnetviz.api.files import Figures  # noqa: PLC0415

    campaign = Path(shutil.copytree(demo_round.plots / "campaign", tmp_path / "round" / "campaign"))
    figures = Figures(campaign / "campaign.root", "")
    difference = next(n for n in figures if n.startswith("map_auc_test_difference"))
    sequential = next(n for n in figures if n.startswith("map_auc_test_binary"))
    first = figures[difference].to_png()
    figures[sequential].to_png()
    assert figures[difference].to_png() == first
    assert run_command("render", [str(campaign), "--formats", "png", "-q"]) == 0
    assert _pixels(first, tmp_path) == _pixels((campaign / f"{difference}.png").read_bytes(), tmp_path)
    assert _pixels(figures[sequential].to_png(), tmp_path) == _pixels((campaign / f"{sequential}.png").read_bytes(), tmp_path)


def test_a_string_after_a_class_tag_counts_as_a_class_when_root_could_take_it():
    """The bytes after a class tag: a class ROOT finds (or type-like text it might normalise to
    one) is checked; the bytes of numbers that only look like a tag name no class."""
    from pnetviz.draw.stored import _makes_a_class  # noqa: PLC0415

    assert _makes_a_class("TF1") and _makes_a_class("TFormula") and _makes_a_class("TMacro")
    assert _makes_a_class(" TExec") and _makes_a_class("vector<TF1>") and _makes_a_class("TF1*")
    assert not _makes_a_class("TH1F")  # allowed
    assert not _makes_a_class("@") and not _makes_a_class("?\x80\x1f") and not _makes_a_class("PnetvizNoSuchClass")
