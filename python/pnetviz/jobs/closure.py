"""The deployment closure of one mass point (issue 53, item 4): the analysis' samples of one region
(io.samples) against the trainer's test predictions of the model said to be deployed
(io.deployed), compared by metrics.closure; writes closure.json, one figure per output node and
plots.root as one output set.

Processes and classes: the samples' process `<masspoint>` is the signal class (class 0); any other
process is the class of the same name (the analysis' groups nonprompt, diboson, ttX are the GA's
background groups); `process_classes` (--process-class PROCESS=CLASS) adds or overrides pairs.
Processes of no training class (conversion, others) are listed, not compared. Output nodes: the
samples' score_<masspoint>_<node> branches in `spec.nodes` order, node k against the model's
output column k (its class k).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from pnetviz import escape
from pnetviz.errors import InputError
from pnetviz.io import samples as io_samples
from pnetviz.io.deployed import DeployedPredictions, read_deployed
from pnetviz.io.rootnames import check_name
from pnetviz.metrics import closure as mc

FILE = "closure.json"
DOC = ("deployment closure: per process of the samples that is a training class, each output node's score distribution "
       "(physics weights, renormalised to unit sum) against the trainer's test events of that class (their stored "
       "weights, renormalised per class): weighted two-sample KS (D of the weighted ECDFs, signed weights; p from "
       "Kolmogorov's limit with effective event counts), Holm over every (process, node); pass when every Holm p >= "
       "alpha. order: the node assignment with the smallest sum over processes of the KS distances (samples' node i "
       "vs predictions' node j); a non-identity assignment names swapped or permuted outputs; unmatched: a failing "
       "node that matches no output of the model (Holm over the whole distance matrix)")  # fmt: skip


@dataclass(frozen=True)
class ClosureJob:
    spec: io_samples.SampleSpec
    deployed: str
    predictions: Path | None = None
    process_classes: tuple[tuple[str, str], ...] = ()
    alpha: float = mc.ALPHA
    tree: str = "Events"


def parse_pairs(text: str | None, option: str = "--process-class") -> tuple[tuple[str, str], ...]:
    """PROCESS=CLASS,... as pairs; InputError for an item without '='."""
    out = []
    for item in (text or "").split(","):
        if not item.strip():
            continue
        process, sep, klass = item.partition("=")
        if not sep or not process.strip() or not klass.strip():
            raise InputError(f"{option} {item!r}: give PROCESS=CLASS, e.g. ttX=ttZ.")
        if process.strip() in (p for p, _ in out):
            raise InputError(f"{option} {text!r}: process '{process.strip()}' is paired twice. Fix: pair it once.")
        out.append((process.strip(), klass.strip()))
    return tuple(out)


def mapping(processes: Sequence[str], classes: Sequence[str], masspoint: str,
            given: Sequence[tuple[str, str]]) -> tuple[dict[str, str], list[str]]:  # fmt: skip
    """process -> class of the compared processes, and the processes of no class (see the doc)."""
    pairs = {p: p for p in processes if p in classes}
    if masspoint in processes:
        pairs[masspoint] = classes[0]
    for process, klass in given:
        if process not in processes:
            raise InputError(f"--process-class {process}={klass}: no process '{process}' in the samples (processes: "
                             f"{', '.join(processes)}). Fix: name one of them.")  # fmt: skip
        if klass not in classes:
            raise InputError(f"--process-class {process}={klass}: the model has no class '{klass}' (classes: "
                             f"{', '.join(classes)}). Fix: name one of them.")  # fmt: skip
        pairs[process] = klass
    return {p: pairs[p] for p in processes if p in pairs}, [p for p in processes if p not in pairs]


def comparisons(job: ClosureJob, preds: DeployedPredictions, files: Mapping[str, Path],
                pairs: Mapping[str, str]) -> list[mc.Comparison]:  # fmt: skip
    """The samples' Central events of each mapped process against the predictions of its class."""
    out = []
    for process, klass in pairs.items():
        events = io_samples.read_tree(files[process], io_samples.CENTRAL, job.spec)
        total = float(events.weight.sum())
        if not np.isfinite(total) or total <= 0 or events.n_events == 0:
            raise InputError(f"{files[process]}: process '{process}' has {events.n_events} events of weight sum "
                             f"{total:g} in tree '{io_samples.CENTRAL}': no distribution to compare. Fix: check the "
                             "preprocessing, or leave the process out with --processes.")  # fmt: skip
        index = preds.classes.index(klass)
        sel = preds.label == index
        ref_total = float(preds.weights[sel].sum()) if sel.any() else 0.0
        if ref_total <= 0:
            raise InputError(f"{preds.path}: class '{klass}' has {int(sel.sum())} test events of weight sum {ref_total:g}. "
                             "Fix: give the predictions of the model deployed here (all its classes in the test split).")  # fmt: skip
        scores = np.column_stack([events.scores[n] for n in job.spec.nodes])
        out.append(mc.Comparison(process, klass, scores, events.weight, preds.scores[sel], preds.weights[sel]))
    return out


def evaluate(job: ClosureJob) -> tuple[dict, list[mc.Comparison]]:
    """closure.json's content and the comparisons (for the figures)."""
    for node in job.spec.nodes:
        check_name(node, "output node", "the samples' output nodes", "name the nodes as plain words (signal, nonprompt, diboson, ttZ).")
    preds = read_deployed(job.deployed, job.predictions, len(job.spec.nodes), job.tree)
    processes, source, files, _ = io_samples.discover(replace(job.spec, systematics=()))
    pairs, left = mapping(processes, preds.classes, job.spec.masspoint, job.process_classes)
    if not pairs:
        raise InputError(f"{job.spec.directory}: none of its processes ({', '.join(processes)}) is a class of the model "
                         f"({', '.join(preds.classes)}). Fix: pair them with --process-class PROCESS=CLASS.")  # fmt: skip
    for process in pairs:
        check_name(process, "process", str(files[process]), "rename the sample file.")
    comps = comparisons(job, preds, files, pairs)
    result = mc.closure(comps, job.spec.nodes, job.alpha)
    doc = {"doc": DOC, "masspoint": job.spec.masspoint, "era": job.spec.era, "channel": job.spec.channel,
           "method": job.spec.method, "samples": str(job.spec.directory), "processes_from": source,
           "deployed_model": {"name": preds.model, "kind": preds.kind, "predictions": str(preds.path),
                              "classes": list(preds.classes), "classes_from": preds.classes_from},
           "node_columns": {n: preds.classes[k] for k, n in enumerate(job.spec.nodes)},
           "processes": [{"process": p, "class": c, "file": str(files[p]),
                          "events": int(cmp.sample_weights.size), "sum_weights": float(np.sum(cmp.sample_weights)),
                          "test_events": int(cmp.reference_weights.size)} for (p, c), cmp in zip(pairs.items(), comps, strict=True)],
           "not_compared": [{"process": p, "why": "not a training class of the model"} for p in left],
           **result}  # fmt: skip
    return doc, comps


def simulation_style(style):
    """`style` with the CMS label's extra text saying "Simulation" (the closure shows no data; the
    data/MC set's default extra text is "Preliminary")."""
    from dataclasses import replace as with_field  # noqa: PLC0415

    extra = style.extra_text
    return style if "simulation" in extra.lower() else with_field(style, extra_text=f"Simulation {extra}".strip())


def figures(doc: dict, comps: Sequence[mc.Comparison], style=None) -> list:
    """One figure per output node: each process' samples (points) against its class' test
    predictions (lines), normalised to unit area; with `style`, drawn with its label marked as
    simulation (simulation_style)."""
    from pnetviz.draw.style import cms_style  # noqa: PLC0415

    if style is not None:
        with cms_style(simulation_style(style)):
            return figures(doc, comps)
    from pnetviz.draw import plots  # noqa: PLC0415
    from pnetviz.draw.style import cycle_color  # noqa: PLC0415
    from pnetviz.metrics.evaluate import score_histogram  # noqa: PLC0415

    figs = []
    ctx = [f"{escape.tlatex(doc['masspoint'])}, {escape.tlatex(doc['channel'])} {escape.tlatex(doc['era'])}",
           f"Deployed: {escape.tlatex(doc['deployed_model']['name'])}"[:60]]  # fmt: skip
    for i, node in enumerate(doc["nodes"]):
        hists = []
        for k, c in enumerate(comps):
            tag = f"closure_{node}/{c.process}"
            for part, scores, weights, points in (("trainer test", c.reference_scores[:, i], c.reference_weights, False),
                                                  ("samples", c.sample_scores[:, i], c.sample_weights, True)):  # fmt: skip
                hist = score_histogram(f"closure_{node}_{c.process}_{'samples' if points else 'trainer'}", scores, weights,
                                       f"P({escape.tlatex(node)}) of {escape.tlatex(c.process)}, {part}")  # fmt: skip
                hists.append(plots.HistSpec(f"{tag}_{'samples' if points else 'trainer'}", hist,
                                            f"{escape.tlatex(c.process)} ({part})", cycle_color(k), points))  # fmt: skip
        figs.append(plots.score_figure(f"closure_{node}", hists, f"P({escape.tlatex(node)})", ctx))
    return figs


def report_entry(doc: dict) -> dict:
    """What the set's reports (summary_report.json, datamc.json) say of the closure."""
    return {"line": doc["line"], "verdict": doc["verdict"], "masspoint": doc["masspoint"], "region": doc["channel"],
            "deployed_model": doc["deployed_model"]["name"], "predictions": doc["deployed_model"]["predictions"],
            "file": FILE}  # fmt: skip


def text(doc: dict) -> str:
    """closure.json's text."""
    from pnetviz.output.report import dumps, plain  # noqa: PLC0415

    return dumps(plain(doc), allow_nan=False) + "\n"


def inputs(doc: dict) -> list[Path]:
    """The files the closure read (an output set may not be written over them)."""
    return [Path(doc["deployed_model"]["predictions"]), *(Path(p["file"]) for p in doc["processes"])]


def write(directory: Path, doc: dict, comps: Sequence[mc.Comparison], formats: Sequence[str], style) -> list[Path]:
    """The closure alone as a set into `directory` (a staging directory; `pnetviz datamc --closure`
    adds its figures and closure.json to the data/MC set instead)."""
    from pnetviz.output.publish import write_set  # noqa: PLC0415

    return write_set(directory, formats, style, lambda: figures(doc, comps, style), {"closure": report_entry(doc)},
                     "pnetviz closure", {FILE: text(doc)})  # fmt: skip
