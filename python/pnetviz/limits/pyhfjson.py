"""The pyhf JSON workspace of a prepared model (pyhf's schema 1.0.0), as pyhf would write it
from the datacard: Combine's `shape` systematic as a `histosys` with the Up/Down contents
(hi_data/lo_data; the same parameter name in every channel and process, so one nuisance),
the MC statistics as one `staterror` per channel (`staterror_<channel>`, each sample's
sqrt(sum w^2)), the signal scaled by the normfactor `mu`, observations the background sums.
Written as pnetviz writes JSON (compact, no NaN: output.report.dumps' conventions). pnetviz
never imports pyhf; the tests read these files with it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from pnetviz.limits.spec import FitModel, background_sum, samples


def _floats(values) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=np.float64)]


def spec(model: FitModel, mu_max: float) -> dict:
    channels = []
    for ch in model.channels:
        entries = []
        for index, s in enumerate(samples(ch)):
            modifiers = []
            if index == 0:
                modifiers.append({"name": "mu", "type": "normfactor", "data": None})
            if model.mc_stat:
                modifiers.append({"name": f"staterror_{ch.name}", "type": "staterror",
                                  "data": _floats(np.sqrt(np.clip(s.sumw2, 0, None)))})
            for name, (up, down) in s.shape_systs.items():
                modifiers.append({"name": name, "type": "histosys", "data": {"hi_data": _floats(up), "lo_data": _floats(down)}})
            entries.append({"name": s.name, "data": _floats(s.contents), "modifiers": modifiers})
        channels.append({"name": ch.name, "samples": entries})
    top = float(10 ** math.ceil(math.log10(max(mu_max, 10.0))))
    return {"version": "1.0.0",
            "channels": channels,
            "observations": [{"name": ch.name, "data": _floats(background_sum(ch))} for ch in model.channels],
            "measurements": [{"name": "pnetviz", "config": {"poi": "mu", "parameters": [
                {"name": "mu", "bounds": [[0.0, top]], "inits": [1.0]}]}}]}


def write(model: FitModel, path: Path, mu_max: float) -> None:
    text = json.dumps(spec(model, mu_max), separators=(",", ":"), allow_nan=False) + "\n"
    scratch = path.with_name(f".{path.name}.part")
    scratch.write_text(text, encoding="utf-8")
    scratch.replace(path)
