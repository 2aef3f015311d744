"""The GA searches of a campaign (`--kinds ga`) side by side: per channel and signal point, the
three decisions of each search (metrics.gadecisions: the search's best, the trainer's final
choice, the deployed model), whether they agree, the largest retraining spread and the warnings.

Read from each finished GA job's summary_report.json; written as campaign_ga_decisions.csv and
campaign_ga_decisions.tex (one table per channel, caption above, sized for a 16 cm text width).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.summary.latex import _label_key, _mass_cells, _mass_key, channel_tex
from pnetviz.errors import InputError
from pnetviz.escape import csv_table, latex
from pnetviz.io import readers

CHOICES = ("search_best", "trainer_choice", "deployed")
FIELDS = ("channel", "signal", *(f"{c}_{k}" for c in CHOICES for k in ("model", "fitness")), "deployed_best_valid_loss",
          "decisions_agree", "max_retraining_spread", "warnings")  # fmt: skip


def rows(jobs: Sequence[dict]) -> list[dict]:
    """One row per finished GA job (the summary's job entries); a report that cannot be read is
    left out (its job is listed in the campaign's job list either way)."""
    out = []
    for job in jobs:
        if job.get("kind") != "ga" or job.get("status") not in ("done", "up to date") or not job.get("outputs"):
            continue
        try:
            report = readers.read_json(Path(job["outputs"][0]) / "summary_report.json", "GA report", finite=False)
        except InputError:
            continue
        decisions = report.get("decisions") if isinstance(report, dict) else None
        if not isinstance(decisions, dict):
            continue
        choices = decisions.get("choices", {})
        row = {"channel": job["channel"], "signal": job["signal"]}
        for c in CHOICES:
            choice = choices.get(c) or {}
            row[f"{c}_model"] = f"GA-iter{choice['iteration']}/{choice['model']}" if choice else ""
            row[f"{c}_fitness"] = choice.get("fitness")
        row["deployed_best_valid_loss"] = (choices.get("deployed") or {}).get("best_valid_loss")
        row["decisions_agree"] = len({row[f"{c}_model"] for c in CHOICES if row[f"{c}_model"]}) <= 1
        row["max_retraining_spread"] = (decisions.get("retraining") or {}).get("max_spread")
        row["warnings"] = len(decisions.get("warnings", []))
        out.append(row)
    return sorted(out, key=lambda r: (r["channel"], _mass_key(r["signal"]), r["signal"]))


def _number(value: object, digits: int = 4) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "--"


def _model(text: str) -> str:
    """GA-iter3/model8 -> 3/8 in the table (the column title says iteration/model)."""
    return latex(text.removeprefix("GA-iter").replace("/model", "/")) if text else "--"


def latex_tables(table: Sequence[dict]) -> str:
    """One booktabs table per channel: masses, the three decisions (iteration/model, fitness), the
    deployed model's validation loss, the largest retraining spread, the warnings."""
    out = ["% Needs \\usepackage{booktabs}. One table float per channel; \\input this file."]
    if not table:
        return out[0] + "\nNo GA search in this campaign: no table.\n"  # in text (a file of comments makes no page)
    for channel in dict.fromkeys(r["channel"] for r in table):
        sel = [r for r in table if r["channel"] == channel]
        caption = (f"GA searches, {channel_tex(channel)}: the model each rule chooses (iteration/model) and its "
                   "recomputed fitness: the search's best over all iterations, the trainer's final choice "
                   "(best of the final population) and the deployed model (last iteration's lowest validation "
                   "loss, $L_\\mathrm{val}$). Spread: the largest fitness spread of a chromosome trained more than "
                   "once; W: warnings (decisions closer than that spread).")  # fmt: skip
        out += ["\\begin{table}[htbp]", "\\centering", f"\\caption{{{caption}}}", "\\footnotesize",
                "\\setlength{\\tabcolsep}{3pt}", "\\begin{tabular}{rrcrcrcrrrr}", "\\toprule",
                " & & \\multicolumn{2}{c}{Search's best} & \\multicolumn{2}{c}{Trainer's choice} & "
                "\\multicolumn{3}{c}{Deployed} & & \\\\",
                "\\cmidrule(lr){3-4} \\cmidrule(lr){5-6} \\cmidrule(lr){7-9}",
                "$m_{H^\\pm}$ & $m_{A}$ & it./model & fitness & it./model & fitness & it./model & fitness & "
                "$L_\\mathrm{val}$ & Spread & W \\\\", "\\midrule"]  # fmt: skip
        for r in sel:
            cells = [_mass_cells(r["signal"])]
            for c in CHOICES:
                cells += [_model(r[f"{c}_model"]), _number(r[f"{c}_fitness"])]
            cells += [_number(r["deployed_best_valid_loss"]), _number(r["max_retraining_spread"]), str(r["warnings"])]
            out.append(" & ".join(cells) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}", f"\\label{{tab:pnetviz-ga-{_label_key(channel)}}}", "\\end{table}", ""]
    return "\n".join(out) + "\n"


def attach(data: dict) -> dict[str, str]:
    """The hook for summary.summary.write: the rows into `data["ga_decisions"]` and the files."""
    data["ga_decisions"] = rows(data.get("jobs", []))
    return {"campaign_ga_decisions.csv": csv_table(data["ga_decisions"], FIELDS),
            "campaign_ga_decisions.tex": latex_tables(data["ga_decisions"])}
