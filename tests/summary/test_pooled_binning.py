"""The campaign's fit-binning table gives each model's one out-of-fold binning (summary.pooledbinning)
from hand-made `folds/out_of_fold.json` files: the edges in full precision in the CSV, the list in
the JSON, a model without a folds/ set left empty, a damaged file one error naming it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pnetviz.errors import InputError
from pnetviz.summary import binningtable

EDGES = [0.0, 0.123456789012345678, 0.87654321, 1.0]


def fold_doc(kind: str, fold: int, pair: str) -> dict:
    rows = [{"k": k, "edges": [i / k for i in range(k + 1)], "train": 0.5 + 0.1 * k, "test": 0.4 + 0.05 * k} for k in (1, 2, 3)]
    return {"kind": kind, "fold": fold, "pair": f"signal vs {pair}", "objective": "binned_fip", "by_k": rows,
            "unbinned_limit": 0.9, "chosen_k": 3}  # fmt: skip


def make_jobs(tmp_path, with_folds: bool = True) -> list[dict]:
    jobs = []
    for kind, pair, name in (("binary", "ttZ", "binning.json"), ("multiclass", "ttX", "signal_vs_ttX_binning.json")):
        outputs = []
        for fold in (0, 1):
            d = tmp_path / kind / f"fold-{fold}"
            d.mkdir(parents=True)
            (d / name).write_text(json.dumps(fold_doc(kind, fold, pair)))
            outputs.append(str(d))
        if with_folds and kind == "binary":
            (tmp_path / kind / "folds").mkdir()
            doc = {"folds": [0, 1], "pairs": {"MHc130_MA90 vs ttZ": {"background": "ttZ", "events": 171, "binning": {
                "edges": EDGES, "chosen_k": 3, "chosen_on": "valid", "value": 0.61, "guard_on_test": ["bin 3 [...]: x"]}}}}
            (tmp_path / kind / "folds" / "out_of_fold.json").write_text(json.dumps(doc))
        jobs.append({"job": kind, "status": "done", "kind": kind, "channel": "Run3Mu", "signal": "MHc130_MA90",
                     "model": f"PN-{kind}", "pair": None, "outputs": outputs})  # fmt: skip
    return jobs


def test_rows_give_the_models_pooled_edges(tmp_path):
    sec = binningtable.section({"jobs": make_jobs(tmp_path), "binary_vs_multiclass": []})
    rows = {r["kind"]: r for r in sec["rows"]}
    b, m = rows["binary"], rows["multiclass"]
    assert (b["pooled_k"], b["pooled_chosen_on"], b["pooled_value"], b["pooled_events"]) == (3, "valid", 0.61, 171)
    assert b["pooled_guard_violations"] == 1 and b["pooled_edge_list"] == EDGES
    assert m["pooled_k"] is None and m["pooled_edges"] is None  # a model without folds/out_of_fold.json
    (line,) = [r for r in csv.DictReader(io.StringIO(binningtable.files(sec)["campaign_fit_binning.csv"])) if r["kind"] == "binary"]
    assert [float(e) for e in line["pooled_edges"].split(";")] == EDGES  # every digit kept
    written = {r["kind"]: r for r in json.loads(binningtable.files(sec)["campaign_fit_binning.json"])["rows"]}
    assert written["binary"]["pooled_edge_list"] == EDGES and written["multiclass"]["pooled_edge_list"] is None


def test_campaign_k_is_chosen_on_the_fold_mean_train_value(tmp_path):
    sec = binningtable.section({"jobs": make_jobs(tmp_path, with_folds=False), "binary_vs_multiclass": []})
    # train means 0.6, 0.7, 0.8: K = 3 (test means rise too: the same here, but chosen on train)
    assert {r["k"] for r in sec["rows"]} == {3}
    jobs = make_jobs(tmp_path / "flat", with_folds=False)
    for job in jobs:
        for d in job["outputs"]:
            path = next(p for p in Path(d).glob("*binning.json"))
            doc = json.loads(path.read_text())
            for r in doc["by_k"]:
                r["train"], r["test"] = 0.8, 0.4 + 0.1 * r["k"]  # a flat train value: K = 1, whatever the test says
            path.write_text(json.dumps(doc))
    assert {r["k"] for r in binningtable.section({"jobs": jobs, "binary_vs_multiclass": []})["rows"]} == {1}


def test_a_damaged_out_of_fold_file_is_one_error_naming_it(tmp_path):
    jobs = make_jobs(tmp_path)
    path = tmp_path / "binary" / "folds" / "out_of_fold.json"
    path.write_text(json.dumps({"pairs": ["not an object"]}))
    with pytest.raises(InputError, match="out_of_fold.json: no 'pairs' object"):
        binningtable.section({"jobs": jobs, "binary_vs_multiclass": []})
