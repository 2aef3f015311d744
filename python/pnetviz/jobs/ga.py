"""visualizeGA: evaluate a whole GA hyperparameter-search run (every iteration, every model).

Read (io.ga), compute (metrics.ga), draw (this module, with draw.canvas and draw.plots), write one
output set atomically: ga_summary.json/.txt/.csv, ga_top_models.tex, the figures, plots.root and
summary_report.json/.txt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.draw.plots import CurveSpec
from pnetviz.draw.style import StyleOptions, color
from pnetviz.escape import csv_table, latex, text_line, tlatex
from pnetviz.io.ga import GARun, read_predictions, read_run
from pnetviz.io.trainer import channel_label, display_label, signal_label
from pnetviz.metrics import ga as gametrics
from pnetviz.metrics import gadecisions
from pnetviz.output.atomic import transaction
from pnetviz.output.publish import write_set
from pnetviz.output.report import dumps, plain
from pnetviz.jobs.gamarks import above_axis, best_points, fitted_axis, flag_cells

SUMMARY_FILES = ("ga_summary.json", "ga_summary.txt", "ga_summary.csv", "ga_top_models.tex")
ITERATION_COLORS = ("multiclass", "training", "validation", "with_flag", "without_flag", "all_events")
ITERATION_MARKERS = (20, 21, 22, 23, 33, 34)
GENE_TITLES = {"nNodes": "Hidden nodes", "optimizer": "Optimizer", "initLR": "Initial learning rate",
               "weight_decay": "Weight decay", "scheduler": "Learning-rate scheduler"}  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class GAJob:
    run_dir: Path
    channel: str
    signal: str
    output: Path
    formats: tuple[str, ...] = ("png", "pdf")
    style: StyleOptions = StyleOptions()
    label_overrides: dict = field(default_factory=dict)
    top: int = 10  # rows of the LaTeX table
    p_threshold: float = 0.05  # KS p-values below: listed as failed


def iteration_color(it: int) -> int:
    return color(ITERATION_COLORS[it % len(ITERATION_COLORS)])


def context(job: GAJob, what: str = "GA search") -> list[str]:
    return [signal_label(job.signal, job.label_overrides), f"{what}, {channel_label(job.channel, job.label_overrides)}"]


def _frames(values: np.ndarray, x: tuple[float, float], xtitle: str, ytitle: str, logx: bool = False,
            fitted: tuple[float, float] | None = None) -> list[canvas.Frame]:  # fmt: skip
    """The y axis fitted to the values (or to `fitted`, metrics.ga.fitness_axis), then with room
    above them for the box."""
    lo, hi = fitted or (float(np.min(values)), float(np.max(values)))
    span = hi - lo or abs(hi) * 0.05 or 1.0
    return [canvas.Frame(x, (lo - 0.08 * span, hi + room * span), xtitle, ytitle, logx=logx) for room in (0.1, 0.9, 1.5)]


def _short(row: dict) -> str:
    return f"GA-iter{row['iteration']}/{row['model']}"


def fitness_figure(job: GAJob, ev: dict, iterations: Sequence[int]) -> canvas.Figure:
    """Fitness of every model per iteration (spread inside the iteration's bin by model index), the
    best-so-far line, the best model over all iterations and the trainer's choice."""
    rows = ev["models"]
    pos = {it: k for k, it in enumerate(iterations)}
    size = max(len([r for r in rows if r["iteration"] == it]) for it in iterations)

    def x_of(r: dict) -> float:
        return pos[r["iteration"]] + 0.5 + (0.0 if size == 1 else (r["index"] / (size - 1) - 0.5) * 0.6)

    best = ev["best"]
    best_row = next(r for r in rows if (r["iteration"], r["index"]) == (best["iteration"], best["index"]))
    tc = ev["trainer_choice"]
    trainer_row = None
    if tc and tc["names_a_different_model"] and tc["iteration"] is not None:
        trainer_row = next((r for r in rows if r["iteration"] == tc["iteration"] and tuple(r["chromosome"]) == tuple(tc["chromosome"])
                            and r["model"] == tc["model"]), None)  # fmt: skip
    steps_x = np.repeat(np.arange(len(ev["best_so_far"]) + 1, dtype=float), 2)[1:-1]
    steps_y = np.repeat([s["fitness"] for s in ev["best_so_far"]], 2)

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        canvas.label_frame_bins(fig, [str(it) for it in iterations], size=0.07, ticks=False)
        canvas.add_points(fig, "fitness/models", [x_of(r) for r in rows], [r["fitness"] for r in rows], "Models",
                          marker_color=color("multiclass"), marker=24)  # fmt: skip
        above_axis(fig, "fitness", [x_of(r) for r in rows], [r["fitness"] for r in rows], fitted[1], color("multiclass"))
        canvas.add_graph(fig, "fitness/best_so_far", steps_x, steps_y, "Best so far", line_color=color("all_events"))
        best_points(fig, "fitness", (x_of(best_row), best_row["fitness"]),
                     (x_of(trainer_row), trainer_row["fitness"]) if trainer_row else None,
                     (f"Best: {_short(best_row)}", f"Trainer's choice: {_short(trainer_row) if trainer_row else ''}"))  # fmt: skip

    values = np.array([r["fitness"] for r in rows])
    fitted = fitted_axis(ev, rows)
    frames = _frames(values, (0.0, float(len(iterations))), "GA iteration", "Fitness (lower is better)", fitted=fitted)
    lines = [*context(job), fitness_line(ev)]
    return canvas.boxed_figure(lambda fr: canvas.figure("ga_fitness", fr, y_title_offset=1.45, cms_pos=0), frames, draw, lines)


def fitness_line(ev: dict) -> str:
    rule = ev["fitness_rule"]
    if rule["metric"] != "loss/valid":
        return f"Fitness: min {tlatex(rule['metric'])} (+ penalty {rule['penalty_weight']:g})"
    if rule["penalty_weight"] <= 0:
        return "Fitness: min L_{val}"
    return f"Fitness: L_{{val}} + {rule['penalty_weight']:g} max(0, L_{{val}} #minus L_{{train}})"


def category_label(value: object) -> str:
    """A gene value as a short axis label: ReduceLROnPlateau -> Plateau, ExponentialLR -> Exponential."""
    text = str(value)
    if text == "ReduceLROnPlateau":
        return "Plateau"
    return tlatex(text[:-2] if text.endswith("LR") and len(text) > 4 else text)


def gene_figure(job: GAJob, ev: dict, gene: str, iterations: Sequence[int]) -> canvas.Figure:
    """Fitness against one gene: categories as labelled bins, learning rate and weight decay on
    log axes; one marker style per iteration; the best model starred."""
    rows = ev["models"]
    values = [r["genes"][gene] for r in rows]
    scale = gametrics.gene_scale(gene, values)
    title = GENE_TITLES.get(gene, tlatex(gene))
    n_it = len(iterations)
    if scale == "category":
        cats = sorted(set(values), key=lambda v: (isinstance(v, str), v))
        size = max(len(rows), 1)

        def x_of(r: dict) -> float:
            it = iterations.index(r["iteration"])
            return cats.index(r["genes"][gene]) + 0.5 + (it - (n_it - 1) / 2) * 0.18 + (r["index"] / size - 0.5) * 0.08

        xr, logx = (0.0, float(len(cats))), False
    else:
        lo, hi = min(float(v) for v in values), max(float(v) for v in values)
        if scale == "log":
            xr, logx = (lo / 1.8, hi * 1.8), True
        else:
            span = hi - lo or abs(hi) or 1.0
            xr, logx = (lo - 0.1 * span, hi + 0.1 * span), False

        def x_of(r: dict) -> float:
            return float(r["genes"][gene])

    best = ev["best"]
    best_row = next(r for r in rows if (r["iteration"], r["index"]) == (best["iteration"], best["index"]))

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        if scale == "category":
            canvas.label_frame_bins(fig, [category_label(c) for c in cats], size=0.065, ticks=False)
        for k, it in enumerate(iterations):
            mine = [r for r in rows if r["iteration"] == it]
            canvas.add_points(fig, f"fitness_vs_{gene}/iter{it}", [x_of(r) for r in mine], [r["fitness"] for r in mine],
                              f"GA-iter{it}", marker_color=iteration_color(k), marker=ITERATION_MARKERS[k % 6])  # fmt: skip
        above_axis(fig, f"fitness_vs_{gene}", [x_of(r) for r in rows], [r["fitness"] for r in rows], fitted[1], color("all_events"))
        best_points(fig, f"fitness_vs_{gene}", (x_of(best_row), best_row["fitness"]), None, (f"Best: {_short(best_row)}", ""))

    fitted = fitted_axis(ev, rows)
    frames = _frames(np.array([r["fitness"] for r in rows]), xr, title, "Fitness (lower is better)", logx=logx, fitted=fitted)
    name = f"ga_fitness_vs_{gene}"
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, y_title_offset=1.45, cms_pos=0), frames, draw, context(job))


def loss_figure(job: GAJob, run: GARun, ev: dict, iteration: int) -> canvas.Figure:
    """Validation (solid) and training (dashed) loss per epoch of every model of one iteration;
    the iteration's best model (lowest fitness) highlighted, the others in grey."""
    models = [m for m in run.models if m.iteration == iteration]
    top = next(b for b in ev["best_per_iteration"] if b["iteration"] == iteration)
    kind = run.metric.split("/")[0]
    curves = []
    for m in models:
        epochs = m.history.get("epoch", np.arange(m.history[f"valid_{kind}"].size, dtype=float))
        curves.append((m, epochs, m.history[f"valid_{kind}"], m.history[f"train_{kind}"]))
    values = np.concatenate([np.r_[v, t] for _, _, v, t in curves])
    emax = max(float(e.max()) for _, e, _, _ in curves)

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        others = [c for c in curves if c[0].index != top["index"]]
        for n, (m, e, v, t) in enumerate(others):
            canvas.add_graph(fig, f"loss/iter{iteration}/{m.name}_valid", e, v, "Validation, other models" if n == 0 else None,
                             line_color=color("reference"), width=1)  # fmt: skip
            canvas.add_graph(fig, f"loss/iter{iteration}/{m.name}_train", e, t, "Training, other models" if n == 0 else None,
                             line_color=color("reference"), line_style=2, width=1)  # fmt: skip
        m, e, v, t = next(c for c in curves if c[0].index == top["index"])
        canvas.add_graph(fig, f"loss/iter{iteration}/{m.name}_valid", e, v, f"Validation, best ({m.name})", line_color=color("validation"))
        canvas.add_graph(fig, f"loss/iter{iteration}/{m.name}_train", e, t, f"Training, best ({m.name})", line_color=color("training"),
                         line_style=2)  # fmt: skip

    title = "Loss" if kind == "loss" else tlatex(kind).capitalize()
    frames = _frames(values, (-0.5, emax + 0.5), "Epoch", title)
    lines = context(job, f"GA-iter{iteration}, {len(models)} models")
    name = f"ga_loss_iter{iteration}"
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, y_title_offset=1.45, cms_pos=0), frames, draw, lines)


def class_labels(job: GAJob, classes: Sequence[str]) -> list[str]:
    """Plot labels of the run's classes (--labels, then the physics defaults; class 0 is the signal)."""
    return [job.label_overrides.get(c) or ("Signal" if k == 0 else display_label(c, job.label_overrides))
            for k, c in enumerate(classes)]  # fmt: skip


def tag_text(tag: str) -> str:
    """iter0_model3 -> GA-iter0, model3."""
    return "GA-" + tag.replace("_", ", ", 1)


def ks_figure(job: GAJob, tag: str, grid: dict, classes: Sequence[str]) -> canvas.Figure:
    """Train vs test weighted KS p-value for each true class (rows) and output score (columns)."""
    labels = class_labels(job, classes)
    fig = canvas.matrix_figure(f"ga_ks_{tag}", 1, labels)
    hist = canvas.add_matrix(fig, f"ks/{tag}", grid["p_value"], labels, ".3f", 0,
                             "KS p-value (train vs test)", f"Train vs test weighted KS p-value, {tag}: true class x output score")  # fmt: skip
    hist.GetXaxis().SetTitle("Output score")
    hist.SetMaximum(1.0)
    failed = flag_cells(fig, np.asarray(grid["p_value"], dtype=float), job.p_threshold)
    note = f"red: p < {job.p_threshold:g}" if failed else f"all p #geq {job.p_threshold:g}"
    canvas.context_line(fig, [f"{signal_label(job.signal, job.label_overrides)}, {channel_label(job.channel, job.label_overrides)}",
                              f"{tag_text(tag)}, |w|-weighted KS, {note}"])  # fmt: skip
    return fig


def roc_figure(job: GAJob, tag: str, curves: dict, classes: Sequence[str]) -> canvas.Figure:
    """LR ROC of the test events per background (train AUC in the label; train curves in the file)."""
    specs, stored = [], []
    for k, (b, per) in enumerate(curves.items()):
        test, train = per["test"], per["train"]
        shown = class_labels(job, classes)[classes.index(b)]
        label = f"vs {shown}: AUC {test.auc:.3f} (train {train.auc:.3f})"
        col = iteration_color(k)
        specs.append(CurveSpec(f"lr_roc/{tag}/{b}_test", test.fpr, test.tpr, label, col, 1))
        stored.append(CurveSpec(f"lr_roc/{tag}/{b}_train", train.fpr, train.tpr, f"vs {shown}, train", col, 2))
    fig = plots.roc_figure(f"ga_lr_roc_{tag}", specs, [*context(job, tag_text(tag)), "LR score, test events"])
    plots.store_curves(fig, stored, "Background efficiency (FPR)", "Signal efficiency (TPR)")
    return fig


# --- text outputs ---


CSV_FIELDS = ("iteration", "model", "rank", "fitness", "trainer_fitness", "fitness_disagrees", "best_epoch",
              "trainer_best_epoch", "total_epochs", "metric_at_best", "train_at_best", "train_valid_gap", "chromosome",
              "duplicate_of", "same_chromosome_as", "is_best", "is_trainer_choice", "diagnostics_schema",
              "diagnostics_min_p_value", "ks_min_p_value")  # fmt: skip


def csv_text(ev: dict, genes: Sequence[str], ks: dict) -> str:
    """ga_summary.csv: a row per model (iteration, then index), its genes after the fitness columns."""
    rows = []
    for r in sorted(ev["models"], key=lambda r: (r["iteration"], r["index"])):
        diag = r["overfitting"] or {}
        row = {k: r.get(k) for k in CSV_FIELDS[:12]} | {g: r["genes"].get(g) for g in genes} | {
            "chromosome": repr(tuple(r["chromosome"])), "duplicate_of": r["duplicate_of"] or "",
            "same_chromosome_as": " ".join(r["same_chromosome_as"]), "is_best": r["rank"] == 1,
            "is_trainer_choice": is_trainer_choice(ev, r), "diagnostics_schema": diag.get("schema", ""),
            "diagnostics_min_p_value": diag.get("min_p_value"), "ks_min_p_value": ks.get(_short(r), {}).get("ks_min_p_value")}  # fmt: skip
        rows.append(row)
    return csv_table(rows, [*CSV_FIELDS[:12], *genes, *CSV_FIELDS[12:]])


def is_trainer_choice(ev: dict, r: dict) -> bool:
    tc = ev["trainer_choice"]
    return bool(tc and tc["iteration"] == r["iteration"] and tc["model"] == r["model"])


def _head_cell(title: str) -> str:
    """A column title of the GA table in LaTeX, one word a line (the table fits a 16 cm text width)."""
    words = [latex(w) for w in title.split()]
    return "\\shortstack{" + "\\\\".join(words) + "}" if len(words) > 1 else latex(title)


def latex_table(job: GAJob, ev: dict, genes: Sequence[str]) -> str:
    """The top models by recomputed fitness as a LaTeX table (booktabs); every name escaped."""
    rows = sorted(ev["models"], key=lambda r: r["rank"])[: job.top]
    head = ["Rank", "Iteration", "Model", *(GENE_TITLES.get(g, g) for g in genes), "Fitness", "Best epoch", "Gap"]
    lines = [f"% pnetviz ga: top {len(rows)} models of the GA search, {latex(job.channel)} {latex(job.signal)}",
             "\\begin{table}[htbp]", "\\centering", "\\footnotesize", "\\setlength{\\tabcolsep}{3pt}",
             f"\\begin{{tabular}}{{{'r' * 3}{'l' * len(genes)}rrr}}", "\\toprule",
             " & ".join(_head_cell(h) for h in head) + " \\\\", "\\midrule"]  # fmt: skip
    for r in rows:
        flags = ("$^{\\dagger}$" if is_trainer_choice(ev, r) else "") + ("$^{\\ddagger}$" if gadecisions.is_deployed(ev, r) else "") \
            + ("$^{*}$" if r["duplicate_of"] else "")
        genes_tex = [latex(f"{v:g}" if isinstance(v, float) else v) for v in (r["genes"][g] for g in genes)]
        lines.append(" & ".join([str(r["rank"]), str(r["iteration"]), latex(r["model"]) + flags, *genes_tex,
                                 f"{r['fitness']:.4f}", str(r["best_epoch"]), f"{r['train_valid_gap']:.4f}"]) + " \\\\")  # fmt: skip
    caption = (f"Top models of the genetic-algorithm search, {latex(job.channel)}, {latex(job.signal)}, over all "
               f"iterations. Fitness: {latex(ev['fitness_rule']['definition'])} (lower is better); gap: validation "
               "minus training loss at the best epoch. $\\dagger$: the trainer's reported best; $\\ddagger$: the deployed "
               "model (last iteration's lowest validation loss); $*$: a duplicate chromosome of the same iteration.")  # fmt: skip
    lines.insert(lines.index("\\centering") + 1, f"\\caption{{{caption}}}")  # a table's caption goes above it
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return "\n".join(lines)


def text_summary(job: GAJob, run: GARun, ev: dict, ks: dict) -> str:
    best, tc = ev["best"], ev["trainer_choice"]
    out = [f"pnetviz GA search summary: {job.channel}, {job.signal}", f"run: {run.path}",
           f"classes: {', '.join(run.classes) or 'unknown'}", f"fitness: {ev['fitness_rule']['definition']} (lower is better)", "",
           f"best model over all iterations: GA-iter{best['iteration']}/{best['model']}, fitness {best['fitness']:.6f}, "
           f"chromosome {tuple(best['chromosome'])!r}"]  # fmt: skip
    if tc:
        out.append(f"trainer's best_chromosome: {tc['model']} (final population), fitness {tc['fitness']}: "
                   + ("the same model" if not tc["names_a_different_model"] else "A DIFFERENT MODEL - " + tc.get("note", "")))  # fmt: skip
    out += gadecisions.text_lines(ev["decisions"])
    dups = "; ".join(f"GA-iter{d['iteration']}: " + " = ".join(d["models"]) for d in ev["duplicates"])
    out.append(f"duplicates within an iteration: {dups or 'none'}")
    dis = "; ".join(f"GA-iter{d['iteration']}/{d['model']} ({d['recomputed']:.6f} vs {d['model_info_csv']:.6f})"
                    for d in ev["fitness_disagreements"])  # fmt: skip
    out.append(f"fitness differing from model_info.csv: {dis or 'none'}")
    out += ["", f"{'iter':>4} {'model':<8} {'rank':>4} {'fitness':>9} {'csv':>9} {'epoch':>5} {'gap':>8}  flags  chromosome"]
    for r in sorted(ev["models"], key=lambda r: (r["iteration"], r["index"])):
        flags = ("B" if r["rank"] == 1 else "-") + ("T" if is_trainer_choice(ev, r) else "-") + \
                ("D" if r["duplicate_of"] else "-") + ("!" if r["fitness_disagrees"] else "-")  # fmt: skip
        csv_fit = f"{r['trainer_fitness']:.6f}" if r["trainer_fitness"] is not None else "n/a"
        out.append(f"{r['iteration']:>4} {r['model']:<8} {r['rank']:>4} {r['fitness']:9.6f} {csv_fit:>9} {r['best_epoch']:>5} "
                   f"{r['train_valid_gap']:8.5f}  {flags}   {tuple(r['chromosome'])!r}")  # fmt: skip
    out.append("flags: B best over all iterations, T the trainer's best_chromosome, D duplicate chromosome in its iteration, "
               "! fitness differs from model_info.csv")  # fmt: skip
    for tag, sec in ks.items():
        aucs = ", ".join(f"{b} {v['test']:.4f} (train {v['train']:.4f})" for b, v in sec["lr_auc"].items())
        out.append(f"{tag}: LR test AUC {aucs}; KS min p {sec['ks_min_p_value']}")
    out += [f"note: {n}" for n in run.notes] + [""]
    # names (classes from background_groups, channel, signal, the trainer's model, paths) are text
    # from disk: a line break in one would break this one-line-per-entry layout (escape.text_line)
    return "\n".join(text_line(line) for line in out)


# --- the job ---


def with_predictions(run: GARun, ev: dict) -> list:
    """The models whose predictions are evaluated: the best over all iterations, each iteration's
    best and the trainer's choice, when they have model<i>_predictions.npz."""
    keys = [(ev["best"]["iteration"], ev["best"]["index"])] + [(b["iteration"], b["index"]) for b in ev["best_per_iteration"]]
    tc = ev["trainer_choice"]
    if tc and tc["iteration"] is not None:
        keys += [(r["iteration"], r["index"]) for r in ev["models"] if is_trainer_choice(ev, r)]
    by_key = {m.key: m for m in run.models}
    return [by_key[k] for k in dict.fromkeys(keys) if by_key[k].predictions is not None]


def evaluate(job: GAJob) -> tuple[GARun, dict, dict, dict]:
    """(run, evaluation, prediction sections by model tag, (grid, curves) by model tag)."""
    run = read_run(job.run_dir, job.channel, job.signal)
    ev = gametrics.evaluate(run)
    ev["decisions"] = gadecisions.decide(run, ev)
    sections, drawn = {}, {}
    chosen = with_predictions(run, ev)
    if chosen and len(run.classes) < 2:
        chosen = []
    for m in chosen:
        tag = f"iter{m.iteration}_{m.name}"
        sec, grid, curves = gametrics.prediction_report(read_predictions(m.predictions, len(run.classes)), run.classes,
                                                        job.p_threshold)  # fmt: skip
        sections[f"GA-iter{m.iteration}/{m.name}"] = sec
        drawn[tag] = (grid, curves)
    return run, ev, sections, drawn


def build_report(job: GAJob, run: GARun, ev: dict, sections: dict) -> dict:
    best = next(r for r in ev["models"] if r["rank"] == 1)
    return {
        "kind": "ga", "channel": job.channel, "signal": job.signal, "run": str(run.path), "classes": list(run.classes),
        "iterations": list(run.iterations), "models": len(run.models), "fitness_rule": ev["fitness_rule"],
        "best": ev["best"], "best_has_predictions": best["predictions"], "trainer_choice": ev["trainer_choice"],
        "best_per_iteration": ev["best_per_iteration"], "best_so_far": ev["best_so_far"], "duplicates": ev["duplicates"],
        "repeated_across_iterations": ev["repeated_across_iterations"], "fitness_disagreements": ev["fitness_disagreements"],
        "predictions": sections, "decisions": ev["decisions"],
        "diagnostics_schemas": sorted({r["overfitting"]["schema"] for r in ev["models"] if r["overfitting"]}),
        "notes": list(run.notes) + ([] if best["predictions"] else
                                    ["the best model has no model<i>_predictions.npz: no KS grid or LR ROC for it"]),
    }  # fmt: skip


def figures(job: GAJob, run: GARun, ev: dict, drawn: dict) -> list[canvas.Figure]:
    its = list(run.iterations)
    its = [it for it in its if any(r["iteration"] == it for r in ev["models"])]
    genes = list(ev["best"]["genes"])
    figs = [fitness_figure(job, ev, its)]
    figs += [gene_figure(job, ev, g, its) for g in genes]
    figs += [loss_figure(job, run, ev, it) for it in its]
    for tag, (grid, curves) in drawn.items():
        figs.append(ks_figure(job, tag, grid, run.classes))
        figs.append(roc_figure(job, tag, curves, run.classes))
    return figs


def run(job: GAJob, wait: bool = False, meta: dict | None = None) -> list[Path]:
    """Evaluate the run and publish its output set at job.output (all or nothing)."""
    ga_run, ev, sections, drawn = evaluate(job)
    report = build_report(job, ga_run, ev, sections)
    genes = list(ev["best"]["genes"])
    full = {**report, "models": ev["models"]}
    extra = {"ga_summary.json": dumps(plain(full)) + "\n",
             "ga_summary.txt": text_summary(job, ga_run, ev, sections),
             "ga_summary.csv": csv_text(ev, genes, sections),
             "ga_top_models.tex": latex_table(job, ev, genes)}  # fmt: skip
    title = f"pnetviz GA search: {job.signal}, {job.channel}"
    with transaction([job.output], ga_run.inputs(), wait, meta) as stages:
        written = write_set(stages[job.output], job.formats, job.style, lambda: figures(job, ga_run, ev, drawn), report,
                            title, extra)  # fmt: skip
    return [job.output / p.name for p in written]


def best_line(report: dict) -> str:
    b = report["best"]
    return f"GA-iter{b['iteration']}/{b['model']} (fitness {b['fitness']:.6f})" if b and math.isfinite(b["fitness"]) else "n/a"
