"""Paths ROOT would reinterpret (`#`, `$`, `?`, `|`, spaces, unicode) are only characters: a run
writes exactly the requested output directory and nothing else; the publish step touches nothing
outside its staging directory (symbolic links, glob characters, the lock file); staging
leftovers are removed by later runs; errors name their real cause (drawing, permission, disk)."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

import pytest

from conftest import contract_columns, load_script, write_ntuple
from pnetviz.cli.common import os_error_message, run
from pnetviz.errors import InputError
from pnetviz.io import layout, rootnames
from pnetviz.output import atomic, publish
from pnetviz.output.atomic import MARKER, OutputError, transaction, writer_lock
from pnetviz.rootenv import root

HOSTILE = ["bashrc#plots", "a$b", "x?y", "p|q", "s p a c e", "ünï©ødé", "$(HOME)", "~t:x"]
FAST = ["--bootstrap", "0", "--formats", "png,root", "--no-bjet-comparison", "-q"]


def tree(base: Path, skip: Path | None = None) -> dict[str, bytes | str]:
    """Every path under `base` (except under `skip`) -> its content, link target or 'dir'."""
    out: dict[str, bytes | str] = {}
    for root_dir, dirs, files in os.walk(base):
        for name in dirs + files:
            path = Path(root_dir) / name
            if skip is not None and (path == skip or skip in path.parents):
                continue
            rel = str(path.relative_to(base))
            out[rel] = f"link:{os.readlink(path)}" if path.is_symlink() else "dir" if path.is_dir() else path.read_bytes()
    return out


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("pnetviz: warning")]
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def ntuple(tmp_path_factory):
    return write_ntuple(tmp_path_factory.mktemp("in") / "pred.root", contract_columns(n=600, n_classes=2))


@pytest.mark.parametrize("name", HOSTILE)
def test_output_named_with_root_specials_is_written_exactly_there(ntuple, tmp_path, capsys, name):
    home = tmp_path / "D"
    home.mkdir()
    (home / ".bashrc").write_text("export PS1='$ '\n")  # what `D/bashrc#plots` used to replace
    (home / "a").write_text("keep")
    before = tree(tmp_path)
    out = home / name
    code = run(load_script("visualizeBinary").main, ["--predictions", str(ntuple), "--fold", "0", "--output", str(out), *FAST])
    assert code == 0, capsys.readouterr().err
    marker = json.loads((out / MARKER).read_text())
    assert "plots.root" in marker["files"] and "roc_curve.png" in marker["files"]
    assert atomic.verify_file(out / "plots.root") is None
    after = tree(tmp_path, skip=out)
    lock = f"D/.{name}{atomic.LOCK_SUFFIX}"
    assert {k: v for k, v in after.items() if k != lock} == before  # nothing else created or changed
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, *marker["files"]])


def test_root_path_is_literal_for_files_and_directories(tmp_path):
    ROOT = root()
    d = tmp_path / "w#x?y$z|q sp"
    d.mkdir()
    with layout.root_path(d, directory=True) as where:
        assert layout.root_literal(where)
        f = ROOT.TFile.Open(f"{where}/h.root", "RECREATE")
        f.WriteObject(ROOT.TNamed("n", "written"), "n")
        f.Close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [d.name]  # not `w`, not an expanded name
    with layout.root_path(d / "h.root") as literal:
        f = ROOT.TFile.Open(literal, "READ")
        assert f.Get("n").GetTitle() == "written"
        f.Close()
    plain = tmp_path / "plain.root"
    with layout.root_path(plain) as same:  # a plain path is handed over as it is (ROOT's messages name it)
        assert same == str(plain)


def test_without_proc_a_private_link_is_used_and_removed(tmp_path, monkeypatch):
    ROOT = root()
    d = tmp_path / "a#b"
    d.mkdir()
    monkeypatch.setattr(rootnames, "PROC_FD", tmp_path / "no-proc")
    with layout.root_path(d, directory=True) as where:
        link = Path(where)
        assert layout.root_literal(where) and link.is_symlink() and link.resolve() == d.resolve()
        assert (link.parent.stat().st_mode & 0o777) == 0o700
        f = ROOT.TFile.Open(f"{where}/h.root", "RECREATE")
        f.Close()
    assert (d / "h.root").is_file() and not link.parent.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a#b"]


def test_figure_with_a_root_special_name_keeps_its_name(tmp_path):
    from pnetviz.draw import canvas

    ROOT = root()
    stage = tmp_path / "st#age"
    stage.mkdir()

    def figures():
        c = ROOT.TCanvas("c_hostile", "", 200, 200)
        h = ROOT.TH1F("h_hostile", "", 4, 0, 1)
        h.Fill(0.5)
        h.Draw()
        return [canvas.Figure(name="roc_$x#y", canvas=c, pads=[c], objects={"h/h": h})]

    written = publish.write_set(stage, ["png", "c"], publish.StyleOptions(), figures, {"a": 1}, "title")
    assert sorted(p.name for p in written) == ["plots.root", "roc_$x#y.c", "roc_$x#y.png", "summary_report.json",
                                               "summary_report.txt"]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["st#age"]


def test_drawing_errors_are_not_reported_as_disk_problems(tmp_path):
    from pnetviz.draw import canvas

    ROOT = root()

    def figures():
        c = ROOT.TCanvas("c_bad_latex", "", 200, 200)
        text = ROOT.TLatex(0.5, 0.5, "#frac{a")  # ROOT cannot paint it
        text.Draw()
        return [canvas.Figure(name="bad", canvas=c, pads=[c], extras=[text])]

    with pytest.raises(OutputError) as err:
        publish.write_set(tmp_path, ["png"], publish.StyleOptions(), figures, {}, "title")
    message = str(err.value)
    assert message.startswith("drawing the plots failed") and "TLatex" in message
    assert "disk" not in message and "\n" not in message


def test_root_failure_tells_writing_from_drawing():
    assert publish.root_failure("ROOT reported 1 error: TFile::WriteBuffer: error writing to file").startswith("writing")
    assert publish.root_failure("ROOT reported 1 error: TLatex::PaintLatex1: Missing \"}\"").startswith("drawing")


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".", "", "x\0y"])
def test_a_file_name_leaving_the_set_is_refused(name):
    with pytest.raises(OutputError, match="not a plain file name"):
        publish.check_file_name(name)


def test_os_errors_name_their_cause():
    perm = os_error_message(PermissionError(errno.EACCES, "Permission denied", "/data/x.root"))
    assert perm.startswith("/data/x.root: Permission denied.") and "permissions" in perm and "disk" not in perm
    full = os_error_message(OSError(errno.ENOSPC, "No space left on device", "/out"))
    assert "Fix: free disk space." in full and "permission" not in full


def test_lock_file_link_is_never_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("secret")
    out = tmp_path / "out"
    (tmp_path / f".out{atomic.LOCK_SUFFIX}").symlink_to(victim)
    with pytest.raises(OutputError, match="lock file is a symbolic link"):
        with transaction([out]):
            pass
    assert victim.read_text() == "secret" and not out.exists()


def test_a_link_in_the_staged_set_is_refused(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    out = tmp_path / "out"
    with pytest.raises(OutputError, match="not a regular file"):
        with transaction([out]) as stages:
            (stages[out] / "a.json").symlink_to(outside)
    assert not out.exists() and outside.read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".out{atomic.LOCK_SUFFIX}", "outside.json"]


def test_a_target_that_is_a_link_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "mine.txt").write_text("mine")
    (tmp_path / "out").symlink_to(real)
    with pytest.raises(InputError, match="symbolic link"):
        with transaction([tmp_path / "out"]):
            pass
    assert (real / "mine.txt").read_text() == "mine"


@pytest.mark.parametrize("name, neighbour", [("x?y", "xzy"), ("a[b]", "ab"), ("c*", "cat")])
def test_glob_characters_in_a_name_do_not_reach_other_sets(tmp_path, name, neighbour):
    theirs = tmp_path / f".{neighbour}{atomic.STAGE_TAG}1-abcdef"
    mine = tmp_path / f".{name}{atomic.STAGE_TAG}2-abcdef"
    theirs.mkdir()
    mine.mkdir()
    with transaction([tmp_path / name]) as stages:
        (stages[tmp_path / name] / "a.json").write_text("{}")
    assert theirs.is_dir() and not mine.exists()


def test_tidy_removes_leftovers_only_when_no_run_holds_the_lock(tmp_path):
    out = tmp_path / "out"
    stale = [tmp_path / f".out{atomic.STAGE_TAG}7-aaaaaa", tmp_path / f".out{atomic.OLD_TAG}7-bbbbbb"]
    for d in stale:
        d.mkdir()
        (d / "x.png").write_bytes(b"x")
    with writer_lock(out, wait=False):  # a live run: its stage is not litter
        assert atomic.tidy(out) == 0
    assert all(d.is_dir() for d in stale)
    assert atomic.tidy(out) == 2
    assert not any(d.exists() for d in stale)


def test_campaign_resume_removes_leftovers_of_up_to_date_jobs(tmp_path):
    from pnetviz import __version__
    from pnetviz.campaign.plan import Job, up_to_date

    outputs = (tmp_path / "m" / "fold-0", tmp_path / "m" / "fold-1", tmp_path / "m" / "folds")
    job = Job("binary", "Run3Mu", "MHc130_MA90", "model", "nonprompt", (0, 1), "binary", ("--fold", "0,1"), (), outputs)
    for out in outputs:
        out.mkdir(parents=True)
        (out / MARKER).write_text(json.dumps({"command": ["pnetviz", "binary", "--fold", "0,1"],
                                              "pnetviz_version": __version__}))  # fmt: skip
    litter = tmp_path / "m" / f".folds{atomic.STAGE_TAG}99-cccccc"
    litter.mkdir()
    assert up_to_date(job, tidy=False) and litter.is_dir()  # a dry run leaves it
    assert up_to_date(job)
    assert not litter.exists()


def test_unreadable_directory_is_a_permission_error_not_an_empty_one(tmp_path, monkeypatch):
    trees = tmp_path / "fold-0" / "trees"
    trees.mkdir(parents=True)
    (trees / "m.root").write_bytes(b"x")
    real = os.scandir

    def denied(path):
        if Path(path) == trees:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(rootnames.os, "scandir", denied)
    with pytest.raises(InputError, match=re.escape(f"{trees}: permission denied")):
        layout.tree_models(tmp_path / "fold-0")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod-000 files")
def test_chmod_000_ntuple_is_named_a_permission_error(tmp_path, capsys):
    path = write_ntuple(tmp_path / "pred.root", contract_columns(n=200, n_classes=2))
    path.chmod(0)
    try:
        code = run(load_script("visualizeBinary").main, ["--predictions", str(path), "--output", str(tmp_path / "o"), *FAST])
    finally:
        path.chmod(0o644)
    line = one_error_line(capsys.readouterr().err)
    assert code == 2 and "permission denied" in line and "corrupt" not in line


def test_check_readable_names_a_permission_error(tmp_path, monkeypatch):
    path = tmp_path / "pred.root"
    path.write_bytes(b"x")
    real = os.open

    def denied(p, flags, *args):
        if Path(p) == path:
            raise PermissionError(errno.EACCES, "Permission denied", str(p))
        return real(p, flags, *args)

    monkeypatch.setattr(rootnames.os, "open", denied)
    with pytest.raises(InputError, match="permission denied \\(cannot read the prediction ntuple\\)"):
        layout.check_readable(path, "prediction ntuple")


@pytest.mark.parametrize("name", ["in#put", "a$b", "x?y", "p|q"])
def test_input_named_with_root_specials_is_read(tmp_path, capsys, name):
    d = tmp_path / name
    d.mkdir()
    plain = write_ntuple(tmp_path / "plain.root", contract_columns(n=600, n_classes=2))
    path = d / "pred.root"
    plain.rename(path)
    out = tmp_path / "out"
    code = run(load_script("visualizeBinary").main, ["--predictions", str(path), "--fold", "0", "--output", str(out), *FAST])
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / "summary_report.json").read_text())
    assert 0.5 < report["hep_metrics"]["test"]["auc"] <= 1.0 and report["input"] == str(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "out", f".out{atomic.LOCK_SUFFIX}"])
