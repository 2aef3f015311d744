"""The Combine datacard and its shapes file.

`<stem>_shapes.root` holds one directory per channel with a TH1D per process (`ch/proc`,
errors sqrt(sum w^2), the sum of w^2 stored), its shape systematics (`ch/proc_systUp`,
`ch/proc_systDown`, errors of the nominal), and `ch/data_obs`: the background sum (blind
Asimov). `<stem>.txt` reads them by `shapes * * <stem>_shapes.root $CHANNEL/$PROCESS
$CHANNEL/$PROCESS_$SYSTEMATIC`; rates are the integrals (17 significant digits), the signal is
process 0, the backgrounds 1..n, every shape systematic a `shape` line, `* autoMCStats 10` the
MC statistics. The negative-bin policy's report is in the card as `# negative-bins:` comments.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from pnetviz.limits.spec import FitModel, background_sum, samples, syst_names
from pnetviz.limits.templates import th1
from pnetviz.rootenv import root

NEGATIVE_TAG = "# negative-bins: "
MC_STATS = "* autoMCStats 10"
MC_STATS_OFF = "# MC statistics off (FitModel.mc_stat False): no autoMCStats line"


def _number(value: float) -> str:
    return repr(float(value))


def shapes_name(stem: str) -> str:
    return f"{stem}_shapes.root"


def write_shapes(model: FitModel, path: Path) -> None:
    """The shapes file of a prepared model, written to a scratch name and renamed into place."""
    ROOT = root()
    scratch = path.with_name(f".{path.name}.part")
    out = ROOT.TFile.Open(str(scratch), "RECREATE")
    if not out or out.IsZombie():
        raise OSError(f"ROOT cannot write {scratch}")
    try:
        for ch in model.channels:
            folder = out.mkdir(ch.name)
            folder.cd()
            th1("data_obs", ch, background_sum(ch), None, f"{ch.name}: background sum (Asimov)").Write()
            for s in samples(ch):
                th1(s.name, ch, s.contents, s.sumw2, f"{ch.name}: {s.name}").Write()
                for name, (up, down) in s.shape_systs.items():
                    th1(f"{s.name}_{name}Up", ch, up, s.sumw2, f"{ch.name}: {s.name}, {name} up").Write()
                    th1(f"{s.name}_{name}Down", ch, down, s.sumw2, f"{ch.name}: {s.name}, {name} down").Write()
        out.Write()
    finally:
        out.Close()
    os.replace(scratch, path)


def card_text(model: FitModel, stem: str, negative_bins: tuple[str, ...]) -> str:
    """The datacard of a prepared model whose shapes file is `<stem>_shapes.root` beside it."""
    chans = model.channels
    procs = [(ch.name, s, index) for ch in chans for index, s in enumerate(samples(ch))]
    rule = "-" * 60
    lines = [f"# pnetviz datacard: {len(chans)} channel(s), blind (data_obs = the background sum)",
             *(NEGATIVE_TAG + line for line in negative_bins),
             f"imax {len(chans)} number of channels",
             f"jmax {max(len(ch.backgrounds) for ch in chans)} number of backgrounds",
             "kmax * number of nuisance parameters", rule,
             f"shapes * * {shapes_name(stem)} $CHANNEL/$PROCESS $CHANNEL/$PROCESS_$SYSTEMATIC", rule,
             ["bin", *(ch.name for ch in chans)],
             ["observation", *(_number(np.sum(background_sum(ch))) for ch in chans)], rule,
             ["bin", *(name for name, _, _ in procs)],
             ["process", *(s.name for _, s, _ in procs)],
             ["process", *(str(index) for _, _, index in procs)],
             ["rate", *(_number(np.sum(s.contents)) for _, s, _ in procs)], rule]
    for syst in syst_names(model):
        lines.append([f"{syst} shape", *("1" if syst in s.shape_systs else "-" for _, s, _ in procs)])
    lines.append(MC_STATS if model.mc_stat else MC_STATS_OFF)
    return _aligned(lines) + "\n"


def _aligned(lines: list) -> str:
    """The table's rows (lists: a label, then one cell per column) aligned column by column;
    plain strings (comments, rules, the header lines) as they are."""
    rows = [line for line in lines if isinstance(line, list)]
    label = max((len(row[0]) for row in rows), default=0) + 2
    width = max((len(cell) for row in rows for cell in row[1:]), default=0) + 2
    return "\n".join(line if isinstance(line, str) else (line[0].ljust(label) + "".join(c.ljust(width) for c in line[1:])).rstrip()
                     for line in lines)
