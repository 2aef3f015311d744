"""Every object of every output ROOT file, read in a fresh ROOT session that never imports
cmsstyle or pnetviz, as a user in TBrowser would: names, titles, axis titles, stats boxes, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold

pytestmark = pytest.mark.slow  # every command run to read what they store

COMMON = ["--formats", "png", "--bootstrap", "20", "-q"]

WALK = textwrap.dedent(r'''
    import json, re, sys, warnings
    warnings.filterwarnings("ignore")
    import ROOT
    ROOT.gROOT.SetBatch(True)
    assert "cmsstyle" not in sys.modules and "pnetviz" not in sys.modules
    HASH = re.compile(r"_[0-9a-f]{8}$")
    defects, count = [], 0

    def check(obj, path, key):
        global count
        count += 1
        name, title = obj.GetName(), obj.GetTitle()
        if name != key.GetName() or HASH.search(name):
            defects.append(f"{path}: name {name!r} is not its key name")
        if not title or title in ("Graph", "htemp") or title == name:
            defects.append(f"{path}: title {title!r} says nothing")
        if obj.InheritsFrom("TH1") or obj.InheritsFrom("TGraph"):
            if not obj.GetXaxis().GetTitle() or not obj.GetYaxis().GetTitle():
                defects.append(f"{path}: axis titles missing")
        if obj.InheritsFrom("TH1"):
            if not obj.TestBit(ROOT.TH1.kNoStats):
                defects.append(f"{path}: would draw a stats box")
            if obj.GetSumw2N() == 0:
                defects.append(f"{path}: no Sumw2 (errors would read sqrt(content))")
        if obj.InheritsFrom("TCanvas"):
            obj.Draw()
            pads = [obj] + [p for p in obj.GetListOfPrimitives() if p.InheritsFrom("TPad")]
            for pad in pads:
                pad.Modified(); pad.Update()
                if any(p.InheritsFrom("TPaveStats") for p in pad.GetListOfPrimitives()):
                    defects.append(f"{path}: a stats box appears when redrawn")
                for p in pad.GetListOfPrimitives():
                    if p.InheritsFrom("TH1") and p.FindObject("stats"):
                        defects.append(f"{path}: a stats box appears when redrawn")
            obj.Close()

    def walk(directory, prefix, path):
        for key in directory.GetListOfKeys():
            obj = key.ReadObj()
            full = f"{path}:{prefix}{key.GetName()}"
            if obj.InheritsFrom("TDirectory"):
                walk(obj, prefix + key.GetName() + "/", path)
            else:
                check(obj, full, key)

    for path in sys.argv[1:]:
        f = ROOT.TFile.Open(path)
        walk(f, "", path)
        f.Close()
    print(json.dumps({"objects": count, "defects": defects}))
''')


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    base = tmp_path_factory.mktemp("tree") / "results"
    for fold in (0, 1):
        write_trainer_fold(base, "Run1E2Mu", "MHc130_MA90", fold, events=1500)
    out = tmp_path_factory.mktemp("out")
    common = ["--results-dir", str(base), "--signal", "MHc130_MA90", "--fold", "all", *COMMON]
    assert run(load_script("visualizeBinary").main, [*common, "--background", "ttZ", "--output", str(out / "b"), "--hull",
                                                     "--syst", "all", "--score-shift", "background=0.02"]) == 0  # fmt: skip
    assert run(load_script("visualizeMultiClass").main, [*common, "--output", str(out / "m"), "--syst", "all"]) == 0
    assert run(load_script("visualizeComparison").main, [*common, "--output", str(out / "c")]) == 0
    assert run(load_script("visualizeCampaign").main, ["--results-dir", str(base), "--plots-dir", str(out / "camp"),
                                                       "--workers", "0", "--kinds", "binary,multiclass", *COMMON]) == 0  # fmt: skip
    return sorted(out.rglob("*.root"))


def test_plain_root_walk_finds_no_defect(outputs):
    assert len(outputs) >= 10
    proc = subprocess.run([sys.executable, "-c", WALK, *map(str, outputs)], capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["objects"] > 500
    assert result["defects"] == [], "\n".join(result["defects"][:30])
