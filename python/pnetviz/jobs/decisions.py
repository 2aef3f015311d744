"""What an analyst decides with, per signal-vs-background pair of a fold: working points (and
`working_points.json`), the cut scan and the calibration; shared by the binary and multi-class
jobs. Numbers from metrics.workingpoints and metrics.calibration; figures from draw.plots."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pnetviz.draw import canvas, plots
from pnetviz.draw.style import color
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.calibration import Reliability
from pnetviz.metrics.evaluate import SplitResult
from pnetviz.metrics.folds import FoldCurves
from pnetviz.output.report import dumps, plain

WP_FILE = "working_points.json"
WP_FORMAT = 1


@dataclass(frozen=True)
class PairDecisions:
    """One pair's working points (metrics.workingpoints.working_points), its test cut scan and meaning.
    The scan's per-cut arrays (~48 bytes a test point) are not held: `summary` keeps its optima,
    yields and constraint, `scan` computes the whole scan again (the same values) for its figure."""

    points: list[dict]
    summary: dict  # workingpoints.cut_scan without its per-cut arrays ("scan")
    meta: dict  # workingpoints.describe(...)
    rescan: Callable[[], dict]  # workingpoints.cut_scan of the test split, as made for `summary`

    @property
    def scan(self) -> dict:
        """The whole cut scan (workingpoints.cut_scan), per-cut arrays included."""
        return self.rescan()


def pair_decisions(results: dict[str, SplitResult], metrics: dict, opts, score: str,
                   expected: tuple[float, float] | None) -> PairDecisions:  # fmt: skip
    """Working points and the test cut scan of one pair (`metrics`: its pairmetrics.pair_metrics;
    `opts`: HepOptions; `score`: what the cut is on, for the JSON)."""
    curves = {s: r.curve for s, r in results.items()}
    n_eff = {s: (metrics[s]["effective_events"]["signal"], metrics[s]["effective_events"]["background"]) for s in results}
    samples = {s: r.sample for s, r in results.items()}
    points = wp.working_points(curves, n_eff, samples, opts.working_points, opts.wp_from, expected)
    test = metrics["test"]
    sample, curve = results["test"].sample, results["test"].curve
    n_eff = wp.passing_background_events(sample.scores, sample.is_signal, sample.used, curve.thresholds[1:], curve)
    rescan = functools.partial(wp.cut_scan, curve, test["signal_yield"], test["background_yield"], n_eff, opts.cut_scan_min_events)
    summary = {k: v for k, v in rescan().items() if k != "scan"}
    return PairDecisions(points, summary, wp.describe(opts.wp_from, opts.weight_mode, score, expected is not None), rescan)


def scan_section(d: PairDecisions, result: SplitResult, metrics: dict) -> dict:
    """The report's `cut_scan` of a pair (test split), its yields named as the pair's metrics name them."""
    return wp.scan_report(d.summary, result.curve, metrics.get("yields", {}).get("kind", "relative"))


def cut_label(points: Sequence[dict]) -> str:
    """The one legend entry of the working-point lines; each line's own target is written at its top (cut_texts)."""
    return "WP cut (target #varepsilon_{s})" if points else ""


def cut_texts(points: Sequence[dict]) -> list[str]:
    """Each working-point line's target, in the order of `thresholds`: "90%"."""
    return [f"{100 * p['target_eps_s']:g}%" for p in points]


def score_cuts(decided: PairDecisions | None) -> dict:
    """plots.score_figure's working-point arguments (none without decisions)."""
    if decided is None:
        return {}
    return {"cuts": thresholds(decided.points), "cut_label": cut_label(decided.points), "cut_texts": cut_texts(decided.points)}


def thresholds(points: Sequence[dict]) -> list[float]:
    return [p["threshold"] for p in points]


def scan_figure(name: str, key: str, d: PairDecisions, xtitle: str, context: Sequence[str], metrics: dict) -> canvas.Figure:
    return plots.cut_scan_figure(name, key, d.scan, xtitle, context, metrics.get("yields", {}).get("kind", "relative"))


def calibration_figure(name: str, key: str, per_split: dict[str, Reliability], what: str, context: Sequence[str],
                       class_color: int | None = None) -> canvas.Figure:  # fmt: skip
    """Reliability of P(`what`): train as a line, test as points with errors, both in the class's
    colour (`class_color`, a ROOT colour; default the signal's)."""
    col = color("signal") if class_color is None else class_color  # train and test in the class's colour, told apart by line and points (style.ENCODINGS)
    series = [(f"{key}/{split}", rel, f"{split.capitalize()}", col, split == "test") for split, rel in per_split.items()]
    return plots.calibration_figure(name, series, f"Predicted P({what})", f"Fraction of {what} events", context)


def with_wp_scalars(curves: FoldCurves, points: Sequence[dict], split: str) -> FoldCurves:
    """A fold's curves for the fold summary, with the split's working points as scalars."""
    return replace(curves, scalars={**curves.scalars, **wp.fold_scalars(points, split)})


def identity(job) -> dict:
    """Whose working points these are (a driver.FoldJob), for working_points.json."""
    return {"signal": job.signal, "channel": job.channel, "model": job.model, "fold": job.fold, "pilot": job.pilot,
            "input": str(job.predictions)}  # fmt: skip


def document(kind: str, identity: dict, pairs: dict[str, dict]) -> str:
    """working_points.json: what the set is (kind, signal, channel, model, fold) and, per pair
    (e.g. 'signal vs ttZ'), the meaning of the numbers and the points (thresholds and per-split
    efficiencies, rejections, errors, expected yields)."""
    doc = {"format": WP_FORMAT, "kind": kind, **identity, "pairs": pairs}
    return dumps(plain(doc)) + "\n"
