"""The JSON files of a fold set (binning.json, working_points.json, fold_results.json) are written
compact (no indentation, no spaces: issue 37) and read back with their values: binning.json and
working_points.json with NaN/inf as null, fold_results.json with them kept."""

from __future__ import annotations

import json
import math

import numpy as np

from pnetviz.jobs import decisions, fitbins, foldsummary

IDENTITY = {"signal": "MHc130_MA90", "channel": "Run3Mu", "model": "m a", "fold": 0}


def test_binning_json_is_compact_with_non_finite_numbers_as_null():
    rows = [{"k": 1, "edges": [0.0, 1.0], "value": 2.5}, {"k": 2, "edges": [0.0, 0.5, 1.0], "value": math.nan}]
    text = fitbins.document("binary", IDENTITY, {"signal vs ttZ": {"by_k": rows, "chosen_k": np.int64(2)}})
    assert text == ('{"format":1,"kind":"binary","signal":"MHc130_MA90","channel":"Run3Mu","model":"m a","fold":0,'
                    '"pair":"signal vs ttZ","by_k":[{"k":1,"edges":[0.0,1.0],"value":2.5},'
                    '{"k":2,"edges":[0.0,0.5,1.0],"value":null}],"chosen_k":2}\n')  # fmt: skip
    finite = fitbins.document("binary", IDENTITY, {"signal vs ttZ": {"by_k": rows[:1]}})
    assert json.loads(finite)["by_k"] == rows[:1] and "\n" not in finite[:-1] and ", " not in finite


def test_working_points_json_is_compact():
    text = decisions.document("binary", IDENTITY, {"signal vs ttZ": {"points": [{"target_eps_s": 0.5, "cut": np.float32(0.25),
                                                                                  "rejection": math.inf}]}})  # fmt: skip
    assert text.endswith('"pairs":{"signal vs ttZ":{"points":[{"target_eps_s":0.5,"cut":0.25,"rejection":null}]}}}\n')
    assert text.count("\n") == 1 and ": " not in text


def test_fold_results_json_is_compact_and_keeps_non_finite_numbers(tmp_path):
    pairs = {"signal vs ttZ": {"tpr": np.array([0.0, 0.5, np.nan]), "auc": math.inf}}
    foldsummary.write_results(tmp_path, "binary", 1, pairs)
    text = (tmp_path / foldsummary.RESULTS_FILE).read_text()
    assert text == '{"format":1,"kind":"binary","fold":1,"pairs":{"signal vs ttZ":{"tpr":[0.0,0.5,NaN],"auc":Infinity}}}\n'
    back = json.loads(text)["pairs"]["signal vs ttZ"]
    assert back["tpr"][:2] == [0.0, 0.5] and math.isnan(back["tpr"][2]) and back["auc"] == math.inf
