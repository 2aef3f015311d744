"""The fit model as a RooFit workspace, built by RooStats::HistFactory from the ROOT wheel, and
its HS3 JSON (RooJSONFactoryWSTool).

One Channel per channel with its (escaped, post-policy) templates: the signal scaled by the
normfactor `mu` (the POI), every sample with HistFactory's StatError (Barlow-Beeston lite: one
Gaussian-constrained gamma per bin on the total, its width the total's relative sqrt(sum w^2),
as pyhf's staterror and Combine's autoMCStats for bins with an effective count of at least 10),
a HistoSys (alpha_<syst>, unit Gaussian, interpolation code 4) per shape systematic. The
luminosity is not a parameter (SetNormalizeByTheory(False): the templates are yields).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from pnetviz.io.readers import read_json
from pnetviz.limits.spec import FitModel, background_sum, samples
from pnetviz.limits.templates import th1
from pnetviz.rootenv import quiet_root, root

STAT_THRESHOLD = 1e-12  # HistFactory's RelErrorThreshold: a bin gets its gamma unless its relative error is below
MODEL_CONFIG = "ModelConfig"


def _owned_by_root(hist):
    """HistFactory's HistRef deletes the histograms it is given: Python must not delete them too."""
    root().SetOwnership(hist, False)
    return hist


def measurement(model: FitModel, mu_max: float):
    """The HistFactory Measurement of `model` (names escaped, negative-bin policy applied)."""
    ROOT = root()
    hf = ROOT.RooStats.HistFactory
    meas = hf.Measurement("pnetviz", "pnetviz")
    meas.SetPOI("mu")
    meas.SetLumi(1.0)
    meas.SetLumiRelErr(0.01)
    meas.AddConstantParam("Lumi")
    for ch in model.channels:
        chan = hf.Channel(ch.name)
        chan.SetData(_owned_by_root(th1(f"{ch.name}_data_obs", ch, background_sum(ch), None)))
        chan.SetStatErrorConfig(STAT_THRESHOLD, "Gaussian")
        for index, s in enumerate(samples(ch)):
            sample = hf.Sample(s.name)
            sample.SetHisto(_owned_by_root(th1(f"{ch.name}_{s.name}", ch, s.contents, s.sumw2)))
            sample.SetNormalizeByTheory(False)
            if model.mc_stat:
                sample.ActivateStatError()
            if index == 0:
                sample.AddNormFactor("mu", 1.0, 0.0, mu_max)
            for name, (up, down) in s.shape_systs.items():
                sys = hf.HistoSys()
                sys.SetName(name)
                sys.SetHistoHigh(_owned_by_root(th1(f"{ch.name}_{s.name}_{name}Up", ch, up, s.sumw2)))
                sys.SetHistoLow(_owned_by_root(th1(f"{ch.name}_{s.name}_{name}Down", ch, down, s.sumw2)))
                sample.AddHistoSys(sys)
            chan.AddSample(sample)
        meas.AddChannel(chan)
    return meas


def workspace(model: FitModel, mu_max: float):
    """The RooWorkspace of `model` (owned by Python), with its ModelConfig `MODEL_CONFIG`."""
    ROOT = root()
    meas = measurement(model, mu_max)
    with quiet_messages():
        ws = ROOT.RooStats.HistFactory.HistoToWorkspaceFactoryFast.MakeCombinedModel(meas)
    ROOT.SetOwnership(ws, True)
    return ws


@contextlib.contextmanager
def quiet_messages() -> Iterator[None]:
    """RooFit's and ROOT's messages below errors kept quiet inside the block (HistFactory prints
    its progress; we report failures ourselves, from return values and fit status), restored after."""
    ROOT = root()
    service = ROOT.RooMsgService.instance()
    old = service.globalKillBelow()
    service.setGlobalKillBelow(ROOT.RooFit.ERROR)
    try:
        with quiet_root(ROOT.kError):
            yield
    finally:
        service.setGlobalKillBelow(old)


def model_config(ws):
    """The workspace's ModelConfig: HistFactory's, or the one an HS3 import made."""
    found = ws.obj(MODEL_CONFIG)
    if found:
        return found
    for obj in ws.allGenericObjects():
        if obj.InheritsFrom("RooStats::ModelConfig"):
            return obj
    raise RuntimeError("the workspace holds no ModelConfig")


def export_hs3(ws, path: Path) -> None:
    """The workspace as HS3 JSON, written by ROOT's RooJSONFactoryWSTool, then its staterror
    constraint stated per channel as well (`_stat_constraint`)."""
    ROOT = root()
    with quiet_messages():
        ok = ROOT.RooJSONFactoryWSTool(ws).exportJSON(str(path))
    if not ok:
        raise RuntimeError(f"RooJSONFactoryWSTool could not write {path}")
    document = read_json(path, "HS3 workspace written by ROOT", finite=False)
    if _stat_constraint(document):
        path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def _stat_constraint(document: dict) -> bool:
    """ROOT 6.40's exporter writes a staterror's constraint on the modifier (`constraint_type`:
    "Gauss"), its importer reads it from the channel (`staterror`: {`constraint_type`,
    `relThreshold`}) and takes Poisson without it (measured: the model read back had Poisson
    constraints about nominal values of 1, and its fits ran away). Each channel whose samples
    carry a staterror gets that entry, from the modifiers' own constraint type; True if one did."""
    changed = False
    for dist in document.get("distributions", []):
        if dist.get("type") != "histfactory_dist" or "staterror" in dist:
            continue
        kinds = {m.get("constraint_type", "Gauss") for s in dist.get("samples", []) for m in s.get("modifiers", [])
                 if m.get("type") == "staterror"}
        if len(kinds) == 1:
            kind = kinds.pop()  # both spellings: older importers read `constraint`, newer `constraint_type`
            dist["staterror"] = {"constraint": kind, "constraint_type": kind, "relThreshold": STAT_THRESHOLD}
            changed = True
    return changed


def import_hs3(path: Path):
    """A new workspace read from an HS3 JSON file."""
    ROOT = root()
    ws = ROOT.RooWorkspace("hs3", "hs3")
    ROOT.SetOwnership(ws, True)
    with quiet_messages():
        ok = ROOT.RooJSONFactoryWSTool(ws).importJSON(str(path))
    if not ok:
        raise RuntimeError(f"RooJSONFactoryWSTool could not read {path}")
    return ws
