"""`pnetviz datamc`: data against the stacked simulation of an analysis' samples, per region and
score, with verdicts, systematics and enforced blinding (docs/datamc.md).

Read (io.samples), compute (metrics.datamc, metrics.blinding, metrics.weightedlr), draw
(draw.datamc), write one output set atomically (output.publish.write_set): the figures,
plots.root, datamc.json and summary_report.json/.txt. Blinded data never leave this module: the
comparison's masked bins are dropped from every output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.draw.datamc import datamc_figure
from pnetviz.draw.style import StyleOptions
from pnetviz.errors import InputError
from pnetviz.escape import tlatex
from pnetviz.io.trainer import display_label
from pnetviz.io.samples import CENTRAL, NODES, SampleSpec, Samples, TreeArrays, read_samples
from pnetviz.jobs import closure
from pnetviz import names
from pnetviz.metrics import blinding, datamc, weightedlr
from pnetviz.metrics.multiplicity import holm
from pnetviz.output.atomic import transaction
from pnetviz.output.publish import write_set
from pnetviz.output.report import dumps, plain

FILE = "datamc.json"
FORMAT = 1
TARGETS = (0.5, 0.7, 0.9)  # signal efficiencies of the working points (the loosest: the largest)
PROCESS_NODE = {"nonprompt": "nonprompt", "diboson": "diboson", "ttX": "ttZ", "ttZ": "ttZ"}  # weighted LR's class totals
UNBLINDED = "UNBLINDED (--unblind)"


@dataclass(frozen=True, kw_only=True)
class DatamcJob:
    samples_dir: Path
    era: str
    channels: tuple[str, ...]
    masspoint: str
    method: str
    output: Path
    processes: tuple[str, ...] = ()
    systematics: tuple[str, ...] | None = None
    columns: tuple[tuple[str, str], ...] = ()
    scores: tuple[str, ...] = ("signal",)  # signal | lr:<node> | weighted-lr
    edges: tuple[float, ...] = tuple(np.linspace(0.0, 1.0, 11))
    binning_source: str = "--bins"
    blind_patterns: tuple[str, ...] = blinding.DEFAULT_PATTERNS
    sensitivity: float = blinding.DEFAULT_SENSITIVITY
    unblind: bool = False
    formats: tuple[str, ...] = ("png", "pdf")
    style: StyleOptions = field(default_factory=StyleOptions)
    closure: object | None = None  # a jobs.closure.ClosureJob (--closure): its files join the set

    def spec(self, channel: str) -> SampleSpec:
        return SampleSpec(self.samples_dir, self.era, channel, self.masspoint, self.method, self.processes,
                          self.systematics, NODES, self.columns)  # fmt: skip


def parse_score(text: str) -> str:
    """'signal', 'lr:<node>' (a background node) or 'weighted-lr'; InputError otherwise."""
    if text in ("signal", "weighted-lr") or (text.startswith("lr:") and text[3:] in NODES[1:]):
        return text
    raise InputError(f"--score {text!r}: not a score. Fix: give signal, weighted-lr or lr:<node> with node one of "
                     f"{', '.join(NODES[1:])}.")  # fmt: skip


def fit_edges(path: Path, pair: str | None) -> tuple[float, ...]:
    """The chosen K's edges of a pnetviz binning.json (the model's binning for the fit): its one
    pair, or `pair` of a multi-class document; InputError (one line) otherwise."""
    from pnetviz.io.readers import read_json  # noqa: PLC0415

    fix = "give the binning.json of an evaluation's output set (docs/binning.md)"
    doc = read_json(Path(path), "fit binning", fix)
    pairs = doc.get("pairs") if isinstance(doc.get("pairs"), dict) else {doc.get("pair"): doc}
    if pair is None and len(pairs) != 1:
        raise InputError(f"{path}: binning for {len(pairs)} pairs ({', '.join(map(str, pairs))}). Fix: choose one with --fit-pair.")
    body = pairs.get(pair) if pair is not None else next(iter(pairs.values()))
    if not isinstance(body, dict):
        raise InputError(f"{path}: no pair {pair!r}; pairs: {', '.join(map(str, pairs))}. Fix: choose one with --fit-pair.")
    chosen = next((r for r in body.get("by_k") or () if isinstance(r, dict) and r.get("k") == body.get("chosen_k")), None)
    edges = chosen.get("edges") if chosen else None
    if not (isinstance(edges, list) and len(edges) >= 2 and all(isinstance(e, (int, float)) for e in edges)
            and all(b > a for a, b in zip(edges, edges[1:]))):  # fmt: skip
        raise InputError(f"{path}: no chosen binning (chosen_k with increasing edges in by_k). Fix: {fix}.")
    return tuple(float(e) for e in edges)


def score_tag(score: str) -> str:
    return {"signal": "signal", "weighted-lr": weightedlr.NAME}.get(score, score.replace(":", "_"))


def axis_title(score: str) -> str:
    if score == "signal":
        return names.name("p_signal")
    if score == "weighted-lr":
        return weightedlr.AXIS
    p = names.name("p_signal")
    return f"{p} / ({p} + P({display_label(score[3:], {})}))"


def lr_weights(samples: Samples) -> np.ndarray:
    """The weighted LR's background weights from the simulation's Central yields per node class."""
    totals = {n: 0.0 for n in NODES[1:]}
    for process, trees in samples.simulation.items():
        node = PROCESS_NODE.get(process)
        if node is not None:
            totals[node] += float(trees[CENTRAL].weight.sum())
    missing = [n for n, t in totals.items() if not t > 0]
    if missing:
        named = ", ".join(f"{n} (process {'/'.join(p for p, m in PROCESS_NODE.items() if m == n)})" for n in missing)
        raise InputError(f"{samples.spec.directory}: --score weighted-lr weighs the classes by their simulated yields, "
                         f"and {named} has none. Fix: include the process or choose --score signal or lr:<node>.")  # fmt: skip
    return weightedlr.resolve(NODES[1:], None, totals, str(samples.spec.directory)).vector


def score_of(score: str, arrays: TreeArrays, weights: np.ndarray | None) -> np.ndarray:
    s = arrays.scores
    if score == "signal":
        return s["signal"]
    if score == "weighted-lr":
        out = weightedlr.score(s["signal"], [s[n] for n in NODES[1:]], weights)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = s["signal"] / (s["signal"] + s[score[3:]])
    return np.nan_to_num(out, nan=0.0)  # both scores 0: the lowest bin


def region(job: DatamcJob, samples: Samples, score: str) -> tuple[dict, datamc.Comparison, tuple | None]:
    """One region and score: the comparison, its statistics and the signal line (label, yields)."""
    channel = samples.spec.channel
    weights = lr_weights(samples) if score == "weighted-lr" else None
    edges = np.asarray(job.edges, dtype=np.float64)
    signal = job.masspoint if job.masspoint in samples.simulation else None
    backgrounds = [p for p in samples.processes if p != signal]
    central = {p: (score_of(score, samples.simulation[p][CENTRAL], weights), samples.simulation[p][CENTRAL].weight)
               for p in samples.processes}  # fmt: skip
    variations = {}
    for syst in samples.systematics:
        up, down = ({p: (score_of(score, samples.variation(p, syst, side), weights), samples.variation(p, syst, side).weight)
                     for p in backgrounds} for side in ("Up", "Down"))  # fmt: skip
        variations[syst] = (up, down)
    thresholds = datamc.signal_thresholds(*central[signal], TARGETS) if signal else {}
    loosest = min(thresholds.values()) if thresholds else None
    blind = blinding.is_blind(channel, job.blind_patterns)
    s_hist = datamc.binned(*central[signal], edges)[0] if signal else None
    b_hist = np.sum([datamc.binned(*central[p], edges)[0] for p in backgrounds], axis=0) if backgrounds else np.zeros(edges.size - 1)
    masked = blinding.mask(edges, s_hist, b_hist, loosest, job.sensitivity) if blind and not job.unblind else np.zeros(edges.size - 1, bool)
    data_scores = score_of(score, samples.data, weights)
    comp = datamc.compare(edges, data_scores, {p: central[p] for p in backgrounds}, variations, masked)
    # the events outside masked bins, for the KS test (bin index as datamc.binned counts it)
    index = lambda v: np.clip(np.searchsorted(edges, v, side="right") - 1, 0, edges.size - 2)  # noqa: E731
    mc_s = np.concatenate([central[p][0] for p in backgrounds]) if backgrounds else np.zeros(0)
    mc_w = np.concatenate([central[p][1] for p in backgrounds]) if backgrounds else np.zeros(0)
    keep_d, keep_m = ~masked[index(data_scores)], ~masked[index(mc_s)]
    ks = datamc.kolmogorov(data_scores[keep_d], mc_s[keep_m], mc_w[keep_m])
    points = []
    for target, t in thresholds.items():
        eff = datamc.efficiency(data_scores, mc_s, mc_w, t)
        if masked.any():  # the data passing a working point lie in masked bins: not shown
            eff.update({k: None for k in ("data", "data_error", "data_pass", "data_events", "ratio", "ratio_error")})
        points.append({"signal_efficiency": target, **eff})
    out = numbers(comp, blind)
    out.update({"channel": channel, "score": score, "axis": axis_title(score), "signal_process": signal,
                "chi2": comp.chi2(), "kolmogorov": ks, "working_points": points})  # fmt: skip
    return out, comp, ((tlatex(signal), s_hist) if signal else None)


def numbers(comp: datamc.Comparison, blind: bool) -> dict:
    """datamc.json's per-bin numbers of one comparison: masked bins' data, ratio and pull null."""
    m = comp.masked
    hide = lambda a: [None if masked or not np.isfinite(v) else float(v) for v, masked in zip(a, m)]  # noqa: E731
    r, r_low, r_high = comp.ratio()
    return {
        "blind_region": blind, "bins": comp.edges.tolist(), "masked": m.tolist(),
        "data": hide(comp.data), "data_low": hide(comp.data_low), "data_high": hide(comp.data_high),
        "mc": {p: v.tolist() for p, v in comp.mc.items()}, "mc_total": comp.total.tolist(),
        "mc_stat_error": comp.mc_stat.tolist(),
        "systematics": {s: {"delta": d.tolist(), "up": comp.up_down[s][0].tolist(), "down": comp.up_down[s][1].tolist()}
                        for s, d in comp.deltas.items()},
        "syst_error": comp.syst.tolist(), "band": comp.band.tolist(), "ratio": hide(r), "ratio_error_low": hide(r_low),
        "ratio_error_high": hide(r_high), "relative_band": comp.relative_band().tolist(), "pulls": hide(comp.pulls()),
    }  # fmt: skip


def context(job: DatamcJob, entry: dict) -> list[str]:
    masked = sum(entry["masked"])
    state = UNBLINDED if job.unblind and entry["blind_region"] else \
        f"data blinded in {masked} of {len(entry['masked'])} bins" if masked else ""  # fmt: skip
    where = tlatex(f"{entry['channel']}, {job.era}")
    return [line for line in (where, tlatex(entry["verdict"]), state) if line]


def evaluate(job: DatamcJob) -> tuple[dict, list]:
    """Every region and score: the report (datamc.json's content) and what the figures need."""
    entries, drawn, inputs = [], [], []
    for channel in job.channels:
        samples = read_samples(job.spec(channel))
        inputs += [*samples.files.values(), *samples.data_files]
        for score in job.scores:
            entry, comp, sig = region(job, samples, score)
            entries.append(entry)
            drawn.append((entry, comp, sig, samples))
    adjusted = holm([e["chi2"]["p_value"] for e in entries])
    for entry, p in zip(entries, adjusted, strict=True):
        entry["chi2_holm_p"] = p if np.isfinite(p) else None
        entry["verdict"] = datamc.verdict(entry["chi2"], entry["chi2_holm_p"])
    report = {
        "format": FORMAT, "kind": "datamc",
        "verdicts": [f"{e['channel']} / {e['score']}: {e['verdict']}" for e in entries],
        "data_shown": blinding_state(job, entries),
        "unblinded": job.unblind,
        "blinding": {"patterns": list(job.blind_patterns), "sensitivity_threshold": job.sensitivity,
                     "working_point_targets": list(TARGETS), "rule": blinding.RULE, "unblind": job.unblind},
        "samples": {"samples_dir": str(job.samples_dir), "era": job.era, "channels": list(job.channels),
                    "masspoint": job.masspoint, "method": job.method, "binning": job.binning_source},
        "conventions": {"data_variance": "Poisson variance from the expectation (Pearson): V_ii = mu_i + sum w^2 + "
                        "sum_s delta_s,i^2", "systematics": "delta_s = (up - down) / 2 per bin, one rank-one term "
                        "delta_s delta_s^T per systematic", "data_intervals": "Garwood 68.27 %",
                        "holm": f"over the family of {sum(e['chi2']['p_value'] is not None for e in entries)} "
                        "region-score chi2 tests", "agree_if": f"Holm-adjusted p >= {datamc.AGREE_P}"},
        "regions": entries,
    }  # fmt: skip
    return report, drawn, inputs


def blinding_state(job: DatamcJob, entries: Sequence[dict]) -> str:
    """The report's line on blinding: unblinded, masked bins in the blind regions, or nothing blind."""
    blind = sorted({e["channel"] for e in entries if e["blind_region"]})
    if job.unblind:
        return f"{UNBLINDED}: every bin shown" + (f", the signal regions {', '.join(blind)} too" if blind else "")
    masked = sum(sum(e["masked"]) for e in entries)
    return (f"blinded: {masked} data bins masked in {', '.join(blind)} (--unblind shows them)" if blind else
            "no blind region (--blind-channels)")  # fmt: skip


def figures(job: DatamcJob, drawn: list) -> list:
    out = []
    for entry, comp, sig, samples in drawn:
        tag = score_tag(entry["score"])
        labels = {p: display_label(p, {}) for p in comp.mc}
        out.append(datamc_figure(f"datamc_{entry['channel']}_{tag}", f"{entry['channel']}/{tag}", comp, labels, sig,
                                 entry["axis"], context(job, entry)))  # fmt: skip
    return out


def run(job: DatamcJob, wait: bool = False, meta: dict | None = None) -> tuple[list[Path], dict]:
    """Evaluate every region and score and publish the output set at job.output (all or nothing)."""
    report, drawn, inputs = evaluate(job)
    closed = closure.evaluate(job.closure) if job.closure is not None else None
    files = {}
    if closed is not None:  # datamc.json and the summary report carry its verdict, closure.json the rest
        report["closure"], files[closure.FILE] = closure.report_entry(closed[0]), closure.text(closed[0])
        inputs += closure.inputs(closed[0])
    files[FILE] = dumps(plain(report)) + "\n"
    title = f"pnetviz datamc: {job.era}, {', '.join(job.channels)}, {job.masspoint}"
    with transaction([job.output], inputs, wait, meta) as stages:
        written = write_set(stages[job.output], job.formats, job.style,
                            lambda: figures(job, drawn) + (closure.figures(*closed, job.style) if closed else []), report, title, files)  # fmt: skip
    return [job.output / p.name for p in written], report


def summary_lines(report: dict) -> Sequence[str]:
    """The verdict lines the command prints (and the unblinding, when asked for)."""
    return [*report["verdicts"], report["data_shown"], *([report["closure"]["line"]] if report.get("closure") else [])]
