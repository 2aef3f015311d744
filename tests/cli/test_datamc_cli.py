"""`pnetviz datamc` from the command line: a run on a tiny samples tree, and every bad input as one
line naming the file (or option) and the fix, exit code 2, nothing published."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pnetviz.cli.commands import run_command
from pnetviz.demo.samples import write_trees

MP = "MHc130_MA90"
NODES = ("signal", "nonprompt", "diboson", "ttZ")


def _columns(n: int, seed: int, drop: tuple[str, ...] = ()) -> dict:
    rng = np.random.default_rng(seed)
    out = {f"score_{MP}_{node}": rng.random(n) for node in NODES}
    out["weight"], out["mass"] = np.full(n, 0.5), rng.normal(90.0, 10.0, n)
    return {k: v for k, v in out.items() if k not in drop}


def _tree(base, *, central=True, drop=(), empty=False, config=None, data=True):
    directory = base / "samples" / "2018" / "WZ3Mu" / MP / "ParticleNet"
    directory.mkdir(parents=True)
    for i, process in enumerate(("nonprompt", "diboson")):
        trees = {"Central": _columns(0 if empty else 200, i, drop)} if central or i else {}
        trees["JetEn_Up"], trees["JetEn_Down"] = _columns(200, i), _columns(200, i)
        write_trees(directory / f"{process}.root", trees)
    if data:
        write_trees(directory / "data.root", {"Central": _columns(150, 9)})
    if config is not None:
        (base / "samples" / "configs").mkdir()
        (base / "samples" / "configs" / "samplegroups.json").write_text(json.dumps(config))
    return directory


def _argv(base, *more):
    return ["--samples-dir", str(base / "samples"), "--era", "2018", "--channel", "WZ3Mu", "--masspoint", MP,
            "--method", "ParticleNet", "--plots-dir", str(base / "plots"), "--formats", "png", *more]  # fmt: skip


@pytest.mark.slow
def test_runs_and_prints_one_verdict_per_region_and_score(tmp_path, capsys):
    _tree(tmp_path)
    assert run_command("datamc", _argv(tmp_path, "--score", "signal", "--score", "lr:diboson", "--bins", "5")) == 0
    out = capsys.readouterr().out
    assert out.count("WZ3Mu / ") == 2 and "published" in out
    doc = json.loads((tmp_path / "plots" / "datamc" / "2018" / MP / "ParticleNet" / "datamc.json").read_text())
    assert [r["score"] for r in doc["regions"]] == ["signal", "lr:diboson"] and len(doc["regions"][0]["bins"]) == 6


@pytest.mark.parametrize(("case", "more", "expected"), [
    ("central", (), "nonprompt.root: no tree 'Central'"),
    ("weight", (), "has no branch 'weight'"),
    ("score", (), f"has no branch 'score_{MP}_diboson'"),
    ("config", (), "ttX.root: no such file, but process 'ttX' is listed by config"),
    ("empty", (), "the region is empty"),
    ("ok", ("--score", "lr:bogus"), "--score 'lr:bogus': not a score"),
    ("ok", ("--bins", "0,0.5,0.4"), "--bins '0,0.5,0.4'"),
    ("ok", ("--syst", "Nope"), "no file holds the trees 'Nope_Up'/'Nope_Down'"),
    ("ok", ("--blind-sensitivity", "-1"), "--blind-sensitivity"),
    ("ok", ("--column", "true_label=x"), "'true_label' is not a samples column"),
    ("nodata", (), "no data file (data.root or <period>_data.root)"),
])
def test_bad_inputs_are_one_line_and_exit_2(tmp_path, capsys, case, more, expected):
    config = {"2018": {"WZ3Mu": {"data": [], "nonprompt": [], "diboson": [], "ttX": []}}} if case == "config" else None
    drop = {"weight": ("weight",), "score": (f"score_{MP}_diboson",)}.get(case, ())
    _tree(tmp_path, central=case != "central", drop=drop, empty=case == "empty", config=config, data=case != "nodata")
    assert run_command("datamc", _argv(tmp_path, *more)) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "plots").exists() or not any((tmp_path / "plots").rglob("datamc.json"))
