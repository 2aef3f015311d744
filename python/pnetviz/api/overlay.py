"""`overlay([...])`: several models' mean curves over their folds on one figure with a ratio
panel, drawn by the same code as the fold summary's figures (jobs.foldsummary.band_figures)."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

from pnetviz.api.figure import Figure, jsroot_base
from pnetviz.api.series import Series, check_split, checked_tlatex as _tlatex
from pnetviz.errors import InputError
from pnetviz.escape import text_line

KINDS = ("roc", "rejection")


def as_series(item: object, pair: str | None, split: str) -> Series:
    """A Series, or what has `.series(pair, split)` (an evaluation result, a round's model); `pair`
    chooses among an item's several pairs and leaves an item of one pair as it is."""
    if isinstance(item, Series):
        return item
    if hasattr(item, "series"):
        try:
            return item.series(pair=pair, split=split)
        except InputError as err:
            if pair is None:
                raise
            try:  # `pair` is for the items with several pairs: one with a single pair gives its own
                return item.series(pair=None, split=split)
            except InputError:
                raise err from None
    raise InputError(f"overlay: {text_line(type(item).__name__)} has no curves. Fix: give evaluation results "
                     "(pnetviz.evaluate_binary/evaluate_multiclass) or models of pnetviz.open_round(...).models.")  # fmt: skip


def text_items(keyword: str, value: object) -> list[str]:
    """`value` as a list of strings: TypeError naming `keyword` for a single string (whose characters
    would be the items) or anything but a list or tuple of strings."""
    if not (isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)):
        raise TypeError(f"overlay: {keyword}= takes a list of strings (one per line or item), not "
                        f"{'a str' if isinstance(value, str) else 'a ' + type(value).__name__ + ' of other values'}")
    return list(value)


def check_single(keyword: str, value: object, kind: type, optional: bool = False) -> None:
    """TypeError naming `keyword` unless `value` is a `kind` (not a bool), or None when `optional`."""
    if (value is None and optional) or (isinstance(value, kind) and not isinstance(value, bool)):
        return
    raise TypeError(f"overlay: {keyword}= takes a {kind.__name__}{' or None' if optional else ''}, not a "
                    f"{type(value).__name__}")  # fmt: skip


def check_index(reference: object) -> int:
    """`reference=` as an index (an int, numpy's integers too); TypeError naming it else."""
    try:
        return operator.index(reference)
    except TypeError:
        raise TypeError(f"overlay: reference= takes a whole number, not a {type(reference).__name__}") from None


def check_energy(energy: object) -> float:
    """`energy` as --energy takes it: a finite number, one of the energies the CMS label is drawn
    for (13, 13.6, 14 TeV); TypeError for a non-number, InputError for another value (NaN too)."""
    from pnetviz.draw.style import ENERGIES  # noqa: PLC0415

    if isinstance(energy, bool) or not isinstance(energy, (int, float)):
        raise TypeError(f"overlay: energy= takes a number (13, 13.6 or 14), not a {type(energy).__name__}")
    if not (math.isfinite(energy) and any(abs(energy - e) < 1e-3 for e in ENERGIES)):
        raise InputError(f"overlay: energy={energy!r}: the CMS label is drawn for 13, 13.6 or 14 TeV. Fix: give one of them.")
    return float(energy)


def check_text(keyword: str, value: object) -> str:
    """`run=` or `extra_text=` checked as --run and --extra-text are (TLatex ROOT can draw: balanced
    braces at most MAX_TLATEX_DEPTH deep, at most MAX_TLATEX_LENGTH characters)."""
    check_single(keyword, value, str)
    return _tlatex(value, f"overlay: {keyword}=")


def default_context(series: Sequence[Series]) -> list[str]:
    """The signal point and the channel, in physics labels, when every item shares them."""
    from pnetviz.io.trainer import channel_label, signal_label  # noqa: PLC0415

    signals, channels = {s.signal for s in series}, {s.channel for s in series}
    lines = [signal_label(signals.pop())] if len(signals) == 1 and "" not in signals else []
    return lines + ([channel_label(channels.pop())] if len(channels) == 1 and "" not in channels else [])


def overlay(items: Sequence[object], kind: str = "rejection", *, pair: str | None = None, split: str = "test",
            labels: Sequence[str] | None = None, reference: int = 0, context: Sequence[str] = (),
            energy: float = 13.0, run: str = "Run 2", extra_text: str = "Simulation Preliminary",
            jsroot: str | None = None) -> Figure:  # fmt: skip
    """One figure of the mean `kind` curve ("rejection": background rejection vs signal
    efficiency, or "roc") of each item over its folds, with +-1 sigma bands and a ratio panel
    over item `reference`, styled as pnetviz's fold-summary figures.

    `items`: evaluation results, models of a round (`round.models`, `round.model(...)`) or
    Series; `pair` picks the pair of an item with several (a multi-class model: the background,
    e.g. "diboson"); `labels` replace the legend texts and `context` lines head the legend box
    (both TLatex; default context: the items' signal point and channel);
    JSROOT comes from `jsroot`, else from where the items' figures take it (a round's local copy)."""
    from pnetviz.draw.style import StyleOptions, cms_style, cycle_color  # noqa: PLC0415
    from pnetviz.jobs.foldsummary import band_figures  # noqa: PLC0415

    check_single("kind", kind, str)
    check_single("jsroot", jsroot, str, optional=True)
    if kind not in KINDS:
        raise InputError(f"overlay: kind={text_line(kind)!r}; choose one of {', '.join(KINDS)}.")
    check_split(split, "overlay")
    check_single("pair", pair, str, optional=True)
    reference = check_index(reference)
    energy = check_energy(energy)
    run, extra_text = (check_text(name, value) for name, value in (("run", run), ("extra_text", extra_text)))
    series = [as_series(item, pair, split) for item in items]
    if not series:
        raise InputError("overlay: give at least one result or model.")
    if labels is not None:
        labels = text_items("labels", labels)
        if len(labels) != len(series):
            raise InputError(f"overlay: {len(labels)} labels for {len(series)} items. Fix: give one label per item.")
        series = [Series(_tlatex(label, "overlay: label"), s.curves, s.channel, s.signal) for label, s in zip(labels, series)]
    context = [_tlatex(line, "overlay: context line") for line in text_items("context", context)] or default_context(series)
    if not 0 <= reference < len(series):
        raise InputError(f"overlay: reference={reference}; give the index of one of the {len(series)} items.")
    empty = [s.label for s in series if not s.curves]
    if empty:
        raise InputError(f"overlay: {text_line(empty[0])} has no {split} curves. Fix: choose split='train' or 'test'.")
    keys = [f"item{i}" for i in range(len(series))]
    style = StyleOptions(energy=energy, run=run, extra_text=extra_text)
    with cms_style(style):
        figs = band_figures("overlay_", {k: s.curves for k, s in zip(keys, series)}, context, keys[reference],
                            {k: s.label for k, s in zip(keys, series)},
                            {k: cycle_color(i) for i, k in enumerate(keys)})  # fmt: skip
    chosen = figs[KINDS.index(kind)]
    for other in figs:
        if other is not chosen:
            other.close()
    jsroot = jsroot or next((item.jsroot for item in items if getattr(item, "jsroot", None)), None)  # the round's
    return Figure(f"overlay_{kind}", chosen.canvas, jsroot_base(None, jsroot), keep=chosen, style=style)
