"""write_outputs: the datacard with its shapes file, the HS3 JSON and the pyhf JSON of one
model, all from the same prepared templates (limits/prepare.py)."""

from __future__ import annotations

from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.limits import datacard, histfactory, pyhfjson
from pnetviz.limits.asymptotic import FitFailed
from pnetviz.limits.cardnames import card_name
from pnetviz.limits.prepare import Prepared, mu_scale, prepare
from pnetviz.limits.spec import FitModel


def file_names(stem: str) -> dict[str, str]:
    return {"datacard": f"{stem}.txt", "shapes": datacard.shapes_name(stem), "hs3": f"{stem}_hs3.json",
            "pyhf": f"{stem}_pyhf.json"}


def write_all(model: FitModel, directory: Path, stem: str, prepared: Prepared | None = None, ws=None) -> dict[str, str]:
    """`prepared`, `ws`: prepare(model) and its workspace (mu_max = 10 mu_scale) if already made
    (limits.model.build); the HS3 JSON is then exported from `ws`, which must not have been fitted yet."""
    if card_name(stem) != stem:
        raise InputError(f"the datacard stem {stem!r} is not a plain name (letters, digits, '_'); fix: use {card_name(stem)!r}")
    prepared = prepared or prepare(model)
    names = file_names(stem)
    directory.mkdir(parents=True, exist_ok=True)
    model = prepared.model
    try:
        scale = mu_scale(model)
    except FitFailed:  # no signal, or a bin without background: the files are still written, mu in [0, 10]
        scale = 1.0
    datacard.write_shapes(model, directory / names["shapes"])
    card = directory / names["datacard"]
    scratch = card.with_name(f".{card.name}.part")
    scratch.write_text(datacard.card_text(model, stem, prepared.negative_bins), encoding="utf-8")
    scratch.replace(card)
    pyhfjson.write(model, directory / names["pyhf"], 10 * scale)
    ws = histfactory.workspace(model, mu_max=10 * scale) if ws is None else ws
    hs3 = directory / names["hs3"]
    scratch = hs3.with_name(f".{hs3.name}.part.json")
    histfactory.export_hs3(ws, scratch)
    scratch.replace(hs3)
    return names
