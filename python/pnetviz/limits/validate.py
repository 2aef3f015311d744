"""validate_datacard: what a Combine datacard and its shapes file must agree on.

The checks (each failure one line in the returned list; an empty list is a valid card):
processes and bins of the card match histograms in the shapes file (and `data_obs` per
channel, its integral the observation); rates equal the integrals to 1e-9 (relative to
max(1, |integral|)); every histogram stores its sum of w^2 and its bin errors are sqrt(sum w^2)
(with `model`: the model's own sqrt(sum w^2) and contents, after limits/prepare.py); every
shape systematic's Up and Down histograms exist for each process it names; no histogram has a
negative bin that the card's `# negative-bins:` lines do not name; `* autoMCStats` is there
(or the comment that says the model has no MC statistics); the
signal's process index is <= 0 and the backgrounds' > 0.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pnetviz.limits.datacard import MC_STATS_OFF, NEGATIVE_TAG
from pnetviz.limits.prepare import prepare
from pnetviz.limits.spec import FitModel, samples
from pnetviz.rootenv import quiet_root, root

TOLERANCE = 1e-9


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def _parse(text: str) -> dict:
    card = {"shapes": [], "systs": [], "reported": [], "bins": [], "observation": [], "columns": None,
            "names": None, "indices": None, "rates": None, "mcstats": False, "imax": None}
    bin_rows = []
    for raw in text.splitlines():
        line = raw.strip()
        if line == MC_STATS_OFF:
            card["mcstats"] = True  # switched off on purpose, and said so
            continue
        if line.startswith(NEGATIVE_TAG.strip()):
            card["reported"].append(line[len(NEGATIVE_TAG.strip()):].strip())
            continue
        if not line or line.startswith(("#", "-")):
            continue
        words = line.split()
        key = words[0]
        if key == "shapes" and len(words) >= 5:
            card["shapes"].append(words[1:])
        elif key == "imax":
            card["imax"] = words[1]
        elif key == "bin":
            bin_rows.append(words[1:])
        elif key == "observation":
            card["observation"] = words[1:]
        elif key == "process":
            card["indices" if card["names"] is not None else "names"] = words[1:]
        elif key == "rate":
            card["rates"] = words[1:]
        elif key == "*" and len(words) > 1 and words[1] == "autoMCStats":
            card["mcstats"] = True
        elif len(words) > 2 and key not in ("jmax", "kmax"):
            card["systs"].append(words)
    card["bins"] = bin_rows[0] if bin_rows else []
    card["columns"] = bin_rows[1] if len(bin_rows) > 1 else []
    return card


def _pattern(card: dict, channel: str, process: str) -> tuple[str, str, str | None] | None:
    """(file, nominal pattern, systematic pattern) of the most specific matching shapes line."""
    best = None
    for entry in card["shapes"]:
        proc, chan, file, nominal, *syst = entry
        if proc in ("*", process) and chan in ("*", channel):
            rank = (proc != "*") + (chan != "*")
            if best is None or rank > best[0]:
                best = (rank, file, nominal, syst[0] if syst else None)
    return best[1:] if best else None


def _key(pattern: str, channel: str, process: str, syst: str = "") -> str:
    return pattern.replace("$CHANNEL", channel).replace("$PROCESS", process).replace("$SYSTEMATIC", syst)


class _Files:
    def __init__(self, directory: Path):
        self.directory = directory
        self.open: dict[str, object] = {}

    def get(self, file: str, key: str):
        ROOT = root()
        if file not in self.open:
            with quiet_root():
                handle = ROOT.TFile.Open(str(self.directory / file))
            self.open[file] = handle if handle and not handle.IsZombie() else None
        handle = self.open[file]
        obj = handle.Get(key) if handle else None
        return obj if obj and obj.InheritsFrom("TH1") else None

    def close(self):
        for handle in self.open.values():
            if handle:
                handle.Close()


def _contents(hist) -> np.ndarray:
    return np.array([hist.GetBinContent(i) for i in range(1, hist.GetNbinsX() + 1)])


def validate_datacard(path: Path, model: FitModel | None = None) -> list[str]:
    """The problems of the datacard at `path` (empty: valid); `model`, when given, is the model
    it was written from: then the histograms' contents and errors are compared with it."""
    path = Path(path)
    card = _parse(path.read_text(encoding="utf-8"))
    problems: list[str] = []
    files = _Files(path.parent)
    expected = _expected_templates(model) if model is not None else {}
    try:
        _check_structure(card, problems)
        for channel, observed in zip(card["bins"], card["observation"]):
            where = _pattern(card, channel, "data_obs")
            hist = files.get(where[0], _key(where[1], channel, "data_obs")) if where else None
            if hist is None:
                problems.append(f"channel {channel}: no data_obs histogram in the shapes file")
            elif not _close(float(observed), hist.Integral()):
                problems.append(f"channel {channel}: observation {observed} is not data_obs's integral {hist.Integral()!r}")
        columns = list(zip(card["columns"], card["names"] or [], card["indices"] or [], card["rates"] or []))
        for number, (channel, process, index, rate) in enumerate(columns):
            _check_column(card, files, problems, expected, number, channel, process, index, rate)
    finally:
        files.close()
    return problems


def _check_structure(card: dict, problems: list[str]) -> None:
    n = len(card["columns"])
    if not card["shapes"]:
        problems.append("no shapes line")
    if card["imax"] not in (None, "*") and card["imax"] != str(len(card["bins"])):
        problems.append(f"imax {card['imax']} but {len(card['bins'])} channels in the bin line")
    if len(card["observation"]) != len(card["bins"]):
        problems.append("the observation line does not give one number per channel")
    for what in ("names", "indices", "rates"):
        if card[what] is None or len(card[what]) != n:
            problems.append(f"the process table's {what} row does not have {n} columns")
    if not set(card["columns"]) <= set(card["bins"]):
        problems.append(f"the process table names channels not in the bin line: {sorted(set(card['columns']) - set(card['bins']))}")
    if not card["mcstats"]:
        problems.append("no '* autoMCStats' line: the MC statistical uncertainty is missing")
    for words in card["systs"]:
        if len(words) != n + 2:
            problems.append(f"systematic {words[0]}: {len(words) - 2} columns, the process table has {n}")


def _check_column(card, files, problems, expected, number, channel, process, index, rate) -> None:
    where = _pattern(card, channel, process)
    label = f"{channel}/{process}"
    hist = files.get(where[0], _key(where[1], channel, process)) if where else None
    if hist is None:
        problems.append(f"{label}: no histogram in the shapes file")
        return
    if not _close(float(rate), hist.Integral()):
        problems.append(f"{label}: rate {rate} is not the histogram's integral {hist.Integral()!r}")
    if index.lstrip("-").isdigit() and (int(index) <= 0) != (number == 0 or card["columns"][number - 1] != channel):
        problems.append(f"{label}: process index {index} (the signal is <= 0, the first column of its channel; backgrounds > 0)")
    n = hist.GetNbinsX()
    if hist.GetSumw2N() < n + 2:
        problems.append(f"{label}: the histogram stores no sum of w^2 (its errors are sqrt(content), not sqrt(sum w^2))")
    else:
        sumw2 = hist.GetSumw2()
        bad = [i for i in range(1, n + 1) if not math.isclose(hist.GetBinError(i), math.sqrt(sumw2.At(i)), rel_tol=1e-12)]
        if bad:
            problems.append(f"{label}: bin {bad[0]} error is not sqrt(sum w^2)")
    if (channel, process) in expected:
        contents, sumw2 = expected[(channel, process)]
        errors = np.array([hist.GetBinError(i) for i in range(1, n + 1)])
        if len(contents) != n or not np.allclose(_contents(hist), contents, rtol=1e-12, atol=0):
            problems.append(f"{label}: the contents are not the model's")
        elif not np.allclose(errors, np.sqrt(sumw2), rtol=1e-9, atol=0):
            bin_ = int(np.flatnonzero(~np.isclose(errors, np.sqrt(sumw2), rtol=1e-9, atol=0))[0]) + 1
            problems.append(f"{label}: bin {bin_} error {float(errors[bin_ - 1])!r} is not the model's sqrt(sum w^2) "
                            f"{float(np.sqrt(sumw2[bin_ - 1]))!r}")
    templates = [(label, hist)]
    for words in card["systs"]:
        if words[1].startswith("shape") and number + 2 < len(words) and words[number + 2] not in ("-", "0"):
            for side in ("Up", "Down"):
                key = _key(where[2] or "", channel, process, words[0] + side)
                shifted = files.get(where[0], key) if where[2] else None
                if shifted is None:
                    problems.append(f"{label}: shape systematic {words[0]}: no {key} in the shapes file")
                else:
                    templates.append((f"{label} {words[0]}{side}", shifted))
    for name, template in templates:
        negative = np.flatnonzero(_contents(template) < 0)
        if negative.size and not any(line.startswith(name + ":") for line in card["reported"]):
            problems.append(f"{name}: bin {int(negative[0]) + 1} is negative and no negative-bins line reports it")


def _expected_templates(model: FitModel) -> dict:
    prepared = prepare(model).model
    return {(ch.name, s.name): (np.asarray(s.contents), np.asarray(s.sumw2)) for ch in prepared.channels for s in samples(ch)}
