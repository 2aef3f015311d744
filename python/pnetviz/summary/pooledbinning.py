"""The one binning per model for the datacard (issue 51) in the campaign's fit-binning table: the
edges, K and value of each model's out-of-fold binning (`folds/out_of_fold.json`: edges and K
chosen on the pooled validation or training events, judged on the pooled test events), added to
the rows of summary.binningtable."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.summary import setfiles

WHAT = "out-of-fold binning from this file"
FIELDS = ("pooled_k", "pooled_chosen_on", "pooled_value", "pooled_events", "pooled_guard_violations", "pooled_edges")


def documents(jobs: Sequence[dict]) -> dict[tuple, dict]:
    """(channel, signal, kind, model, background) -> the pair's pooled binning, from every finished
    binary and multi-class job's `folds/out_of_fold.json` (a job of one fold has none)."""
    out = {}
    for job in jobs:
        if job["status"] not in ("done", "up to date") or job["kind"] not in ("binary", "multiclass") or not job["outputs"]:
            continue
        path = Path(job["outputs"][0]).parent / "folds" / "out_of_fold.json"
        doc = setfiles.read_object(path, WHAT, missing_ok=True)
        if doc is None:
            continue
        pairs = doc.get("pairs")
        if not isinstance(pairs, dict) or not all(isinstance(p, dict) for p in pairs.values()):
            raise setfiles.damaged(path, "no 'pairs' object of pair objects", WHAT)
        for pair in pairs.values():
            binning = pair.get("binning")
            if isinstance(binning, dict) and isinstance(pair.get("background"), str):
                out[(job["channel"], job["signal"], job["kind"], job["model"] or "", pair["background"])] = {**binning,
                                                                                                        "events": pair.get("events")}  # fmt: skip
    return out


def attach(rows: list[dict], jobs: Sequence[dict]) -> None:
    """Each row of the table its model's pooled binning (FIELDS; None where the model has none):
    the edges in full precision, ';'-separated in the CSV, as a list in the JSON."""
    docs = documents(jobs)
    for row in rows:
        b = docs.get((row["channel"], row["signal"], row["kind"], row["model"], row["pair"]))
        edges = b.get("edges") if b else None
        row.update({"pooled_k": b.get("chosen_k") if b else None, "pooled_chosen_on": b.get("chosen_on") if b else None,
                    "pooled_value": b.get("value") if b else None, "pooled_events": b.get("events") if b else None,
                    "pooled_guard_violations": len(b.get("guard_on_test") or []) if b else None,
                    "pooled_edges": ";".join(repr(float(e)) for e in edges) if isinstance(edges, list) else None,
                    "pooled_edge_list": edges if isinstance(edges, list) else None})  # fmt: skip
