"""`pnetviz render` of a set someone else could have written (issue 41, items 3 and 5): a stored
canvas carrying code (a TExec among its primitives, in a sub-pad, in a histogram's functions; a
TF1; a TButton) is refused before anything is drawn, the command never runs; a set holding a
symbolic link (a listed file, a sub-directory, inside a sub-directory, the ROOT file) or naming
a file outside itself is refused before anything is copied. Exit 2, one line, the set unchanged.
pnetviz's own canvases (their palettes stored as colours, no TExec) still render."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.commands import run_command
from pnetviz.cli.common import run
from pnetviz.draw.stored import CodeInFile, check_file
from pnetviz.output.atomic import LOCK_SUFFIX, MARKER
from pnetviz.rootenv import root

pytestmark = pytest.mark.slow  # a campaign and pnetviz render in subprocesses

CHANNEL, SIGNALS, FOLDS = "Run3Mu", ("MHc100_MA95", "MHc160_MA85"), (0, 1)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    """A small round written with --images none: binary and multi-class fold sets, fold summaries,
    the campaign's maps and graphs (campaign/campaign.root), every canvas stored, no image."""
    from pnetviz.demo.trainertree import write_trainer_fold

    base = tmp_path_factory.mktemp("security") / "results"
    for signal in SIGNALS:
        for fold in FOLDS:
            write_trainer_fold(base, CHANNEL, signal, fold, events=600)
    out = tmp_path_factory.mktemp("security_plots")
    argv = ["--results-dir", str(base), "--plots-dir", str(out), "--workers", "0", "--images", "none", "--bootstrap", "10", "-q"]
    assert run(load_script("visualizeCampaign").main, argv) == 0
    assert not list(out.rglob("*.png"))
    return out


def _fold_set(campaign: Path, kind: str, tmp_path: Path) -> Path:
    """A copy (in tmp_path) of the first fold-0 set of `kind` (binary, multiclass)."""
    source = next(p for p in sorted((campaign / "results" / CHANNEL / kind).rglob("fold-0")) if (p / MARKER).is_file())
    return Path(shutil.copytree(source, tmp_path / "set" / "fold-0"))


def _render(*paths: Path) -> subprocess.CompletedProcess:
    """`pnetviz render` in a fresh process, as users run it (a command that runs, runs there)."""
    return subprocess.run([sys.executable, "-m", "pnetviz", "render", *map(str, paths), "--formats", "png", "-q"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def _snapshot(directory: Path) -> dict[str, object]:
    """Every entry beside and below `directory` (staging directories included, lock files not): a
    link's target, a file's bytes, or "dir"."""
    found: dict[str, object] = {}
    for top, dirs, names in os.walk(directory.parent):
        for name in (n for n in dirs + names if not n.endswith(LOCK_SUFFIX)):  # the lock is no part of a set
            path = Path(top) / name
            rel = str(path.relative_to(directory.parent))
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = "dir"
    return found


def _one_error_line(done: subprocess.CompletedProcess) -> str:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def _render_here(capsys, *paths: Path) -> subprocess.CompletedProcess:
    """`pnetviz render` in this process (for refusals that come before anything is drawn)."""
    capsys.readouterr()
    code = run_command("render", [*map(str, paths), "--formats", "png", "-q"])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["pnetviz", "render"], code, out, err)


def _canvas_lists(canvas) -> dict[str, object]:
    """Where in `canvas` a primitive can be hidden: its primitives, a sub-pad's, a histogram's functions."""
    found = {"primitives": canvas.GetListOfPrimitives()}
    for obj in canvas.GetListOfPrimitives():
        if obj.InheritsFrom("TPad") and "subpad" not in found:
            found["subpad"] = obj.GetListOfPrimitives()
        for inner in [obj, *(obj.GetListOfPrimitives() if obj.InheritsFrom("TPad") else [])]:
            if inner.InheritsFrom("TH1") and "functions" not in found:
                found["functions"] = inner.GetListOfFunctions()
    return found


def _plant(root_file: Path, where: str, make) -> str:
    """Add the object `make(ROOT)` to the first stored canvas offering `where`, written back over
    it (the canvas is read and written, never drawn); returns the canvas's key."""
    ROOT = root()
    tfile = ROOT.TFile.Open(str(root_file), "UPDATE")
    try:
        directory = tfile.GetDirectory("canvases")
        for key in dict.fromkeys(k.GetName() for k in directory.GetListOfKeys()):
            canvas = directory.Get(key)
            lists = _canvas_lists(canvas)
            if where in lists:
                planted = make(ROOT)
                ROOT.SetOwnership(planted, False)
                lists[where].Add(planted)
                directory.cd()
                canvas.Write(key, ROOT.TObject.kOverwrite)
                return key
        raise AssertionError(f"no stored canvas of {root_file} offers {where}")
    finally:
        tfile.Close()


@pytest.mark.parametrize("where", ["primitives", "subpad", "functions"])
def test_a_texec_in_a_stored_canvas_is_refused_and_never_runs(campaign, tmp_path, where):
    target = _fold_set(campaign, "binary", tmp_path)
    pwned = tmp_path / "PWNED"
    key = _plant(target / "plots.root", where, lambda ROOT: ROOT.TExec("x", f".! touch {pwned}"))
    assert not pwned.exists()  # planting it did not run it
    before = _snapshot(target)
    with pytest.raises(CodeInFile):
        check_file(target / "plots.root")  # the check alone reads every canvas: nothing runs
    assert not pwned.exists()
    line = _one_error_line(_render(target))
    assert not pwned.exists()
    assert "plots.root" in line and key in line and "touch" in line and "nothing was rendered" in line
    assert _snapshot(target) == before  # the set byte-identical, no image, no staging left over
    assert not list(target.glob("*.png"))


def test_a_texec_named_like_the_palette_is_refused(campaign, tmp_path):
    """The allowlist is (name, command): ROOT runs the command (the title), whatever the name."""
    target = _fold_set(campaign, "binary", tmp_path)
    pwned = tmp_path / "PWNED"
    _plant(target / "plots.root", "primitives", lambda ROOT: ROOT.TExec("palette", f".! touch {pwned}"))
    line = _one_error_line(_render(target))
    assert not pwned.exists() and "TExec 'palette'" in line


@pytest.mark.parametrize(("where", "make"), [("functions", lambda ROOT: ROOT.TF1("f", "x", 0.0, 1.0)),
                                             ("primitives", lambda ROOT: ROOT.TButton("b", ".! true", 0.1, 0.1, 0.2, 0.2))],
                         ids=["TF1", "TButton"])  # fmt: skip
def test_other_code_carriers_are_refused(campaign, tmp_path, capsys, where, make):
    """A TF1 (compiled by the interpreter, run when painted), a TButton (runs its method when clicked)."""
    target = _fold_set(campaign, "binary", tmp_path)
    _plant(target / "plots.root", where, make)
    before = _snapshot(target)
    line = _one_error_line(_render_here(capsys, target))
    assert "executable code" in line and _snapshot(target) == before


def test_pnetviz_own_canvases_pass_the_check_and_render(campaign, tmp_path):
    """Every stored canvas of the round passes (matrices, sequential and diverging maps among them,
    their palettes stored as colours: no TExec written); a multi-class set and the campaign set
    render one PNG per canvas."""
    files = sorted(campaign.rglob("plots.root")) + [campaign / "campaign" / "campaign.root"]
    assert sum(check_file(f) for f in files) > 100
    assert _execs(files) == set()
    multiclass = _fold_set(campaign, "multiclass", tmp_path)
    summary = Path(shutil.copytree(campaign / "campaign", tmp_path / "round" / "campaign"))
    done = _render(multiclass, summary)
    assert done.returncode == 0, done.stderr
    for directory in (multiclass, summary):
        keys = _keys(next(directory.glob("*.root")))
        assert keys and all((directory / f"{k}.png").is_file() for k in keys if "%" not in k), directory
    assert "confusion" in " ".join(p.name for p in multiclass.glob("*.png"))


def _execs(files: list[Path]) -> set[tuple[str, str]]:
    """(name, command) of every TExec of the canvases (and their sub-pads) in `files`."""
    ROOT, found = root(), set()
    for path in files:
        tfile = ROOT.TFile.Open(str(path))
        for key in tfile.GetDirectory("canvases").GetListOfKeys():
            canvas = key.ReadObj()
            pads = [canvas, *(o for o in canvas.GetListOfPrimitives() if o.InheritsFrom("TPad"))]
            found |= {(str(o.GetName()), str(o.GetTitle())) for p in pads for o in p.GetListOfPrimitives() if o.InheritsFrom("TExec")}
        tfile.Close()
    return found


def _keys(path: Path) -> list[str]:
    ROOT = root()
    tfile = ROOT.TFile.Open(str(path))
    try:
        return list(dict.fromkeys(str(k.GetName()) for k in tfile.GetDirectory("canvases").GetListOfKeys()))
    finally:
        tfile.Close()


def _link_listed_file(target: Path, secret: Path) -> None:
    listed = json.loads((target / MARKER).read_text())["files"]
    name = next(n for n in listed if n.endswith(".txt"))
    (target / name).unlink()
    (target / name).symlink_to(secret)


def _link_directory(target: Path, secret: Path) -> None:
    (target / "extra").symlink_to(secret.parent, target_is_directory=True)


def _link_inside_directory(target: Path, secret: Path) -> None:
    (target / "extra").mkdir()
    (target / "extra" / "notes.txt").symlink_to(secret)


def _link_root_file(target: Path, secret: Path) -> None:
    moved = secret.parent / "plots.root"
    shutil.move(target / "plots.root", moved)
    (target / "plots.root").symlink_to(moved)


@pytest.mark.parametrize("plant", [_link_listed_file, _link_directory, _link_inside_directory, _link_root_file],
                         ids=["listed-file", "directory", "inside-directory", "root-file"])  # fmt: skip
def test_a_set_holding_a_link_is_refused_before_anything_is_copied(campaign, tmp_path, capsys, plant):
    target = _fold_set(campaign, "binary", tmp_path)
    secret = tmp_path / "private" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("PRIVATE-CONTENT-41\n")
    plant(target, secret)
    before = _snapshot(target)
    line = _one_error_line(_render_here(capsys, target))
    assert "symbolic link" in line and "refuses" in line
    assert _snapshot(target) == before
    assert not any(b"PRIVATE-CONTENT-41" in p.read_bytes() for p in target.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("name", ["../outside.txt", "ABSOLUTE", "a/../../outside.txt", ".."])
def test_a_marker_naming_a_file_outside_the_set_is_refused(campaign, tmp_path, capsys, name):
    target = _fold_set(campaign, "binary", tmp_path)
    (tmp_path / "set" / "outside.txt").write_text("outside\n")
    marker = json.loads((target / MARKER).read_text())
    marker["files"].append(str(tmp_path / "set" / "outside.txt") if name == "ABSOLUTE" else name)
    (target / MARKER).write_text(json.dumps(marker))
    before = _snapshot(target)
    line = _one_error_line(_render_here(capsys, target))
    assert "'files'" in line and "plain name" in line
    assert _snapshot(target) == before
