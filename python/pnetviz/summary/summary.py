"""The across-signal-point view of a campaign: one table row per (channel, signal, kind, model,
pair, fold) read from the jobs' reports, mean +- std over folds, a LaTeX table for the analysis
note, and maps over the mass grid (TH2: x = m(H+), y = m(A)) with AUC-vs-m(A) graphs.

Compute first (rows, aggregates: plain data), then draw (figures); `write` publishes the set
`<output>/campaign/` through output.transaction like every other output set.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from pnetviz import escape
from pnetviz.campaign.plan import DONE, NO_NTUPLE, OTHER_OPTIONS, UP_TO_DATE, JobResult
from pnetviz.draw import canvas
from pnetviz.draw.style import cmsstyle, cycle_color
from pnetviz.errors import InputError
from pnetviz.escape import csv_cell
from pnetviz.io import trainer
from pnetviz.io.layout import hyper_tag
from pnetviz.metrics.multiplicity import family_size
from pnetviz.names import name as quantity, symbol
from pnetviz.output.report import dumps, plain
from pnetviz.rootenv import set_title
from pnetviz.summary import binningtable, gatable, limits, ranking
from pnetviz.summary.latex import latex_tables, leaderboard_tables, working_point_tables
from pnetviz.summary.leaderboard import (COMPARED_FIELDS, DIFFERENCE_CONVENTION, LEADERBOARD_CONVENTION,  # noqa: F401 - callers use summary.*
                                         LEADERBOARD_FIELDS, Pairing, _variants, fold_statistics, leaderboard, pairings,
                                         variant_names)
from pnetviz.summary.maps import SIGNIFICANCE, MapSpec, map_figure, share_ranges
from pnetviz.summary.rows import (AGG_FIELDS, COUNT_FIELDS, GROUP_KEY, NUMBER_FIELDS, REJECTION_FIELDS,  # noqa: F401 - callers use summary.*
                                  REPORT_FILE, ROW_FIELDS, TRAIN_FIELDS, WEIGHTED, WHAT, _multiclass_rows, _row, aggregate,
                                  check_reports, damaged, job_rows, masses, read_report)
from pnetviz.summary.workingpoints import FIELDS as WORKING_POINT_FIELDS, working_point_rows

STATUS = {DONE: "done", UP_TO_DATE: "up to date", OTHER_OPTIONS: "other options", NO_NTUPLE: "no ntuple"}


def _job_entry(r: JobResult) -> dict:
    """The summary's record of one job (its `jobs` list, the failure list, the site's pages)."""
    return {"job": r.job.name, "status": STATUS.get(r.code, "failed"), "message": r.message,
            "seconds": round(r.seconds, 3), "outputs": [str(p) for p in r.job.outputs], "kind": r.job.kind,
            "channel": r.job.channel, "signal": r.job.signal, "model": r.job.model, "pair": r.job.pair}  # fmt: skip


def _checked(r: JobResult) -> tuple[JobResult, list[dict], dict]:
    """(result, rows, multi-class info) of one job; a finished job whose sets cannot give its rows
    or working points is failed with its one line (code 2; any other error, a bug, as an internal
    error, code 1), so that one set never stops the summary and its failure list."""
    if r.code not in (DONE, UP_TO_DATE) or r.job.kind not in ("binary", "multiclass"):  # not other options' sets
        return r, [], {}
    try:
        found, info = job_rows(r.job)
        working_point_rows([_job_entry(r)])
    except InputError as err:
        return replace(r, code=2, message=escape.printable(err)), [], {}
    except Exception as err:  # noqa: BLE001 - listed as an internal error (exit 1), never silent
        return replace(r, code=1, message=escape.printable(f"internal error reading its sets: {err!r}")), [], {}
    return r, found, info


def readable(results: Sequence[JobResult]) -> list[JobResult]:
    """`results` in job-name order, messages printable, each finished job whose sets cannot give
    the summary its rows turned into a failure (`_checked`)."""
    ordered = sorted((replace(r, message=escape.printable(r.message)) for r in results), key=lambda r: r.job.name)
    return [_checked(r)[0] for r in ordered]


def summary(results: Sequence[JobResult], pair: dict[str, str] | None = None) -> dict:
    """Rows, aggregates, binary-vs-multi-class pairs and the job list of a finished campaign, in
    job-name order whatever order the jobs finished in (two runs give identical files). A job
    whose sets cannot give its rows is listed as failed (`readable`), never the summary's end.
    `pair`: --pair (binary background -> multi-class class), for every table."""
    results = sorted((replace(r, message=escape.printable(r.message)) for r in results), key=lambda r: r.job.name)
    rows, mc_info, checked = [], {}, []
    for r in results:
        r, found, info = _checked(r)
        checked.append(r)
        rows += found
        if found and r.job.kind == "multiclass":
            mc_info[(r.job.channel, r.job.signal, r.job.model or "")] = info
    results = checked
    agg = aggregate(rows)
    binary_pairs = {(a["channel"], a["signal"], a["pair"]) for a in agg if a["kind"] == "binary"}
    pairing = pairings(mc_info, binary_pairs, pair)
    compared = []
    index = {(a["channel"], a["signal"], a["kind"], a["model"], a["pair"]): a for a in agg}
    for b in (a for a in agg if a["kind"] == "binary"):
        for model, target in ((name, c) for name, t in pairing.table.get((b["channel"], b["signal"], b["pair"]), [])
                              for c in (t, f"{WEIGHTED}_{t}")):  # the pairwise LR, and the weighted LR's rows if any
            m = index.get((b["channel"], b["signal"], "multiclass", model, target))
            if m is None or hyper_tag(model) != hyper_tag(b["model"]):
                continue
            compared.append({"channel": b["channel"], "signal": b["signal"], "m_hc": b["m_hc"], "m_a": b["m_a"],
                             "tag": hyper_tag(b["model"]), "binary_model": b["model"], "multiclass_model": model,
                             "background": b["pair"], "multiclass_class": target,
                             **{f"{k}_{side}_{s}": src[f"{k}_{s}"] for k, stats in (("auc_test", ("mean", "std")),
                                ("rejection_0.5", ("mean", "lower", "upper"))) for side, src in (("binary", b), ("multiclass", m))
                                for s in stats},
                             **{f"rejection_0.5_{side}_limit": src["rejection_0.5_limit"]
                                for side, src in (("binary", b), ("multiclass", m))},
                             "n_folds_binary": len(b["folds"]), "n_folds_multiclass": len(m["folds"])})  # fmt: skip
    for c in compared:
        c.update(fold_statistics(rows, c))
    compared_tests = ranking.adjust_family(compared, "auc_diff")  # one family: every binary vs multi-class comparison
    names = _variants(agg)
    for entry in (*agg, *compared):
        entry["variant"] = names.get(hyper_tag(entry.get("model") or entry.get("binary_model")), "")
    jobs = [_job_entry(r) for r in results]
    board = leaderboard(rows, agg, pairing)
    families = {"leaderboard": ranking.leaderboard_family(family_size([e.get("diff_to_best_p_value") for e in board])),
                "binary_vs_multiclass": ranking.compared_family(compared_tests)}  # fmt: skip
    return {"rows": rows, "aggregates": agg, "binary_vs_multiclass": compared, "jobs": jobs,
            "working_points": working_point_rows(jobs), "families": families,
            "leaderboard": board, "leaderboard_convention": LEADERBOARD_CONVENTION,
            "std_convention": "sample standard deviation over folds (ddof=1)", "difference_convention": DIFFERENCE_CONVENTION}  # fmt: skip


def _cell(row: dict, key: str):
    """A CSV cell: a rejection that is a lower limit reads "> X" (its `_limit` flag, per fold, or
    of the fold mean `<name>_mean` -> `<name>_limit`); missing and undefined (NaN) values stay empty."""
    value = row.get(key)
    flag = row.get(f"{key}_limit", row.get(key.removesuffix("_mean") + "_limit") if key.endswith("_mean") else None)
    if value is None:
        return ""
    return f"> {float(value)!r}" if flag and value == value else csv_cell(value)  # full precision, as other cells


def csv_text(rows: Sequence[dict], fields: Sequence[str]) -> str:
    """A campaign CSV: `fields` of `rows`, lower limits as "> value" (_cell)."""
    return escape.csv_table(rows, fields, _cell)


def fold_standard_error(c: dict, key: str, side: str) -> float:
    """The fold standard error of the mean of `key` ("auc_test" or "rejection_0.5") of one side of
    a comparison record: std/sqrt(k); for a rejection R ln(upper/R)/sqrt(k), the log-space fold
    spread (folds.Rejection) carried to R; nan when there is none (one fold, a lower limit)."""
    k = c.get(f"n_folds_{side}") or 0
    if key == "auc_test":
        std = c.get(f"{key}_{side}_std")
    else:
        value, upper = c.get(f"{key}_{side}_mean"), c.get(f"{key}_{side}_upper")
        std = value * math.log(upper / value) if isinstance(upper, (int, float)) and value and value > 0 else None
    return float(std) / math.sqrt(k) if isinstance(std, (int, float)) and k > 1 and math.isfinite(std) else math.nan


def pair_label(pair: str) -> str:
    """A row's pair on a figure: the class's label, or for the weighted LR's rows (weighted_lr_<all|class>)
    "<class label>, weighted LR" (its weights, per signal point, in each set's report)."""
    if pair.startswith(f"{WEIGHTED}_"):
        rest = pair.removeprefix(f"{WEIGHTED}_")
        return f"{'all backgrounds' if rest == 'all' else trainer.display_label(rest, {})}, weighted LR"
    return trainer.display_label(pair, {})


def map_specs(agg: Sequence[dict], compared: Sequence[dict]) -> list[MapSpec]:
    """Mean test AUC and rejection at eps_s = 0.5 per channel and pair, binary, multi-class and
    multi-class minus binary."""
    specs = []
    quantities = (("auc_test", "Mean test AUC", ".4f"), ("rejection_0.5", "Rejection at #varepsilon_{s} = 0.5", ".1f"))
    tags = {hyper_tag(a["model"]) for a in agg} | {c["tag"] for c in compared}
    names = variant_names(tags)
    for channel, tag, background, cls in sorted({(c["channel"], c["tag"], c["background"], c["multiclass_class"])
                                                 for c in compared}):  # fmt: skip
        sel = [c for c in compared if (c["channel"], c["tag"], c["background"], c["multiclass_class"]) ==
               (channel, tag, background, cls) and c["m_hc"] is not None]  # fmt: skip
        suffix = f"_{names[tag]}" if len(tags) > 1 and names.get(tag) else ""  # the short variant name (nNodes64)
        pair = background if cls == background else f"{background}_vs_{cls}"
        for key, what, fmt in quantities:
            limit = (lambda c, side: c.get(f"{key}_{side}_limit", False))  # noqa: E731 - a rejection's lower limit
            for side in ("binary", "multiclass"):
                label = quantity(side).lower()
                vs = pair_label(background if side == "binary" else cls)
                specs.append(MapSpec(f"map_{key.replace('.', 'p')}_{side}_{channel}_{pair}{suffix}",
                                     f"{what}, {label}, signal vs {vs}, {trainer.channel_label(channel)}",
                                     what, {(c["m_hc"], c["m_a"]): c[f"{key}_{side}_mean"] for c in sel}, fmt,
                                     bounds={(c["m_hc"], c["m_a"]): ">" for c in sel if limit(c, side)},
                                     short=f"{label}, signal vs {vs}, {trainer.channel_label(channel)}",
                                     errors={(c["m_hc"], c["m_a"]): fold_standard_error(c, key, side) for c in sel},
                                     group=f"{key}_{background}{suffix}"))  # fmt: skip
            # multi-class minus binary: a lower limit on the multi-class side bounds it from below, on
            # the binary side from above; both limits: no statement, the cell stays empty
            diff = {(c["m_hc"], c["m_a"]): c[f"{key}_multiclass_mean"] - c[f"{key}_binary_mean"] for c in sel
                    if not (limit(c, "multiclass") and limit(c, "binary"))}  # fmt: skip
            bounds = {(c["m_hc"], c["m_a"]): ">" if limit(c, "multiclass") else "<" for c in sel
                      if limit(c, "multiclass") != limit(c, "binary")}  # fmt: skip
            significant = ({(c["m_hc"], c["m_a"]) for c in sel if (c.get("auc_diff_p_holm") or 1.0) < SIGNIFICANCE}
                           if key == "auc_test" else set())  # fmt: skip
            specs.append(MapSpec(f"map_{key.replace('.', 'p')}_difference_{channel}_{pair}{suffix}",
                                 f"{what}: multi-class ({pair_label(cls)}) minus binary "
                                 f"({trainer.display_label(background, {})}), {channel}", f"#Delta {what}",
                                 diff, "+.4f" if key == "auc_test" else "+.1f", diverging=True, bounds=bounds,
                                 significant=tuple(sorted(significant)),
                                 undefined=tuple((c["m_hc"], c["m_a"]) for c in sel if (c["m_hc"], c["m_a"]) not in diff),
                                 errors={(c["m_hc"], c["m_a"]): (c.get("auc_diff_standard_error") or math.nan) if key == "auc_test"
                                         else math.hypot(*(fold_standard_error(c, key, s) for s in ("binary", "multiclass")))
                                         for c in sel},
                                 pull_title=f"#Delta {'AUC' if key == 'auc_test' else 'rejection'} / #sigma_{{#Delta}}",
                                 star="corrected t" if key == "auc_test" else "",
                                 short=f"Multi-class minus binary, vs {trainer.display_label(background, {})}, {trainer.channel_label(channel)}"))  # fmt: skip
    return share_ranges(specs)  # one quantity, one background: one colour scale (binary, multi-class, every channel)


def graph_figures(agg: Sequence[dict]) -> list[canvas.Figure]:
    """Test AUC vs m(A), one line per m(H+), errors = std over folds; per channel, kind, model, pair."""
    figs = []
    keys = sorted({(a["channel"], a["kind"], a["model"], a["pair"]) for a in agg if a["m_hc"] is not None})
    names = _variants(agg)
    for channel, kind, model, pair in keys:
        sel = [a for a in agg if (a["channel"], a["kind"], a["model"], a["pair"]) == (channel, kind, model, pair)
               and a["m_hc"] is not None and math.isfinite(a["auc_test_mean"])]  # fmt: skip
        if sel:
            variant = names.get(hyper_tag(model), "")
            suffix = f"_{variant}" if variant else ""
            figs.append(_auc_vs_ma_figure(f"auc_vs_mA_{kind}_{channel}_{pair}{suffix}", sel, kind, channel, pair, variant))
    return figs


def _auc_vs_ma_figure(name: str, sel: Sequence[dict], kind: str, channel: str, pair: str, variant: str = "") -> canvas.Figure:
    """One graph per m(H+) of the mean test AUC (std over folds as errors) against m(A)."""
    mas = [a["m_a"] for a in sel]
    aucs = np.array([a["auc_test_mean"] for a in sel])
    errs = np.array([a["auc_test_std"] for a in sel])
    lo, hi = float((aucs - errs).min()), float((aucs + errs).max())
    span = max(hi - lo, 0.01)
    what = quantity("binary" if kind == "binary" else "multiclass").lower()

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        cmsstyle().GetCmsCanvasHist(fig.canvas).GetXaxis().SetNdivisions(505)
        for i, mhc in enumerate(sorted({a["m_hc"] for a in sel})):
            pts = sorted((a for a in sel if a["m_hc"] == mhc), key=lambda a: a["m_a"])
            x = np.array([a["m_a"] for a in pts], dtype=float)
            y = np.array([a["auc_test_mean"] for a in pts])
            e = np.array([a["auc_test_std"] for a in pts])
            key = f"graphs/{name}_MHc{mhc}"
            graph = canvas.add_error_points(fig, key, x, y, e, f"{symbol('mhc')} = {mhc} GeV", marker_color=cycle_color(i),
                                            marker=20 + i)  # fmt: skip
            set_title(graph, f"Test AUC vs {symbol('ma')}, {symbol('mhc')} = {mhc} GeV, {what}, signal vs {pair_label(pair)}, "
                             f"{trainer.channel_label(channel)}", quantity("ma"), "Test AUC (mean #pm std over folds)")  # fmt: skip
            graph.SetLineColor(cycle_color(i))
            graph.Draw("LP SAME")

    # fitted to the points, then with the lower part free for the box; a bounded quantity: the axis ends at 1.1 at most
    frames = [canvas.Frame((min(mas) - 8.0, max(mas) + 8.0), (lo - room * span, min(hi + 0.2 * span, 1.1)), quantity("ma"),
                           "Test AUC") for room in (0.2, 1.1)]  # fmt: skip
    context = [f"vs {pair_label(pair)} ({what}), {trainer.channel_label(channel)}", "mean #pm std over folds"]
    if variant:  # the short variant name (summary.variant_names), escaped for TLatex
        context[1] = f"{escape.tlatex(variant)}, {context[1]}"
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, y_title_offset=1.45, cms_pos=0),
                               frames, draw, context)  # fmt: skip


def figures(data: dict) -> list[canvas.Figure]:
    return [map_figure(s) for s in map_specs(data["aggregates"], data["binary_vs_multiclass"])] + graph_figures(data["aggregates"]) + binningtable.figures(data) + limits.figures(data)


def working_point_files(rows: Sequence[dict]) -> dict[str, str]:
    """campaign_working_points.csv and .tex of summary.workingpoints rows (none: headers only)."""
    return {"campaign_working_points.csv": csv_text(rows, WORKING_POINT_FIELDS),
            "campaign_working_points.tex": working_point_tables(rows)}


def write(directory: Path, data: dict, formats: Sequence[str], style,
          pages: Callable[[Path], dict[str, str]] | None = None) -> list[Path]:
    """Write the campaign set into `directory` (a staging directory of output.transaction); with
    `pages` (the set's directory -> the web report's files by relative path, web.site.site_files
    as the command gives it), those files too."""
    from pnetviz.output.publish import write_set  # noqa: PLC0415

    limit_files = limits.attach(data)  # first: the comparisons' expected-limit columns
    extra = {
        "campaign_summary.csv": csv_text(data["rows"], ROW_FIELDS),
        "campaign_summary_folds_mean.csv": csv_text(data["aggregates"], [*GROUP_KEY, "variant", "m_hc", "m_a", "folds",
                                                           *(f"{k}_{s}" for k in AGG_FIELDS for s in ("mean", "std")),
                                                    *(f"{k}_{s}" for k in REJECTION_FIELDS for s in ("mean", "lower", "upper"))]),
        "campaign_binary_vs_multiclass.csv": csv_text(data["binary_vs_multiclass"], (*COMPARED_FIELDS, *limits.COMPARED_FIELDS)),
        "campaign_leaderboard.csv": csv_text(data.get("leaderboard", []), LEADERBOARD_FIELDS),
        "campaign_leaderboard.tex": leaderboard_tables(data.get("leaderboard", [])),
        "campaign_summary.json": dumps(plain(data)) + "\n",
        "campaign_summary.tex": latex_tables(data["binary_vs_multiclass"], data["aggregates"]),
    }  # fmt: skip
    extra |= working_point_files(data["working_points"])
    extra |= binningtable.attach(data)
    extra |= gatable.attach(data)
    extra |= limit_files
    report = {"jobs": {k: sum(j["status"] == k for j in data["jobs"]) for k in STATUS.values()} | {
                  "failed": sum(j["status"] == "failed" for j in data["jobs"])},
              "failed": [j for j in data["jobs"] if j["status"] == "failed"],
              "no_ntuple": [j for j in data["jobs"] if j["status"] == STATUS[NO_NTUPLE]],
              "binary_vs_multiclass": data["binary_vs_multiclass"], "std_convention": data["std_convention"],
              "families": data.get("families", {}),
              "expected_limits": [limits.verdict_line(v) for v in data["limits"]["binary_vs_multiclass"]]}  # fmt: skip
    written = write_set(directory, formats, style, lambda: figures(data), report, "pnetviz campaign summary", extra,
                        root_name="campaign.root")  # fmt: skip
    if pages is not None:
        for rel, text in pages(Path(directory)).items():
            (Path(directory) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(directory) / rel).write_text(text)
            written.append(Path(directory) / rel)
    return written


