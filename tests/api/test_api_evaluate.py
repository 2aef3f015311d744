"""The API's evaluations are the CLI's: the same options give the same reports, and the result's
plain data (curves, scalars, working points) are the report's numbers."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pnetviz
from pnetviz.cli.commands import run_command
from pnetviz.errors import InputError

from conftest import API_CHANNEL as CHANNEL, API_FAST as FAST, API_SIGNAL as SIGNAL


def _cli(kind: str, argv: list[str]) -> dict:
    assert run_command(kind, [*argv, "-q"]) == 0
    return json.loads((__import__("pathlib").Path(argv[argv.index("--output") + 1]) / "summary_report.json").read_text())


def test_import_is_light_and_exports_the_api():
    code = ("import sys, pnetviz; names = [n for n in ('evaluate_binary', 'evaluate_multiclass', 'open_round', 'overlay', "
            "'run_campaign') if callable(getattr(pnetviz, n))]; print(len(names), 'ROOT' in sys.modules)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["5", "False"]  # the API's names, and still no ROOT


@pytest.mark.slow
def test_evaluate_binary_equals_the_cli(demo_round, tmp_path):
    where = ["--results-dir", str(demo_round.results), "--channel", CHANNEL, "--signal", SIGNAL, "--background",
             "diboson", "--fold", "0", *FAST, "--working-points", "0.5,0.8"]  # fmt: skip
    cli = _cli("binary", [*where, "--output", str(tmp_path / "cli")])
    res = pnetviz.evaluate_binary(results_dir=demo_round.results, channel=CHANNEL, signal=SIGNAL, background="diboson",
                                  fold=0, bootstrap=20, working_points=[0.5, 0.8], output=tmp_path / "api")  # fmt: skip
    assert res.report == cli
    pair = res.pairs[0]
    test = res.curves[pair]["test"]
    assert test.scalars["auc"] == pytest.approx(cli["auc"]["test"], abs=0, rel=1e-15)
    points = cli["working_points"]["points"]
    assert [p["target_eps_s"] for p in points] == [0.5, 0.8]
    assert test.scalars["wp_0.8_threshold"] == points[1]["threshold"]
    assert res.folds[0].working_points["pairs"][f"signal vs diboson"]["points"] == points
    x, rejection = res.rejection()
    assert x.shape == rejection.shape and np.all(rejection[np.isfinite(rejection)] >= 1.0)
    assert res.command[:2] == ["pnetviz", "binary"] and "--working-points" in res.command
    assert "roc_curve" in res.figures


@pytest.mark.slow
def test_evaluate_multiclass_equals_the_cli(demo_round, tmp_path):
    where = ["--results-dir", str(demo_round.results), "--channel", CHANNEL, "--signal", SIGNAL, "--fold", "1", *FAST]
    cli = _cli("multiclass", [*where, "--output", str(tmp_path / "cli")])
    res = pnetviz.evaluate_multiclass(results_dir=demo_round.results, channel=CHANNEL, signal=SIGNAL, fold=1,
                                      bootstrap=20, output=tmp_path / "api")  # fmt: skip
    assert res.report == cli
    assert res.folds[0].fold == 1 and len(res.pairs) == 3  # signal vs each of the 3 background classes
    diboson = res.series(pair="diboson")
    assert len(diboson.curves) == 1 and diboson.curves[0].tpr.shape == (400,)


def test_an_option_mistake_is_one_input_error(demo_round, tmp_path):
    with pytest.raises(InputError, match="--weights"):
        pnetviz.evaluate_binary(results_dir=demo_round.results, weights="bogus", output=tmp_path / "x")
    with pytest.raises(TypeError, match="no_such_option"):
        pnetviz.evaluate_binary(results_dir=demo_round.results, no_such_option=1)
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_roots_alpha_warning_is_filtered_only_while_importing_it():
    code = ("import warnings; warnings.simplefilter('always'); before = list(warnings.filters)\n"
            "from pnetviz.rootenv import root; root()\n"
            "print(warnings.filters == before)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert done.stdout.split() == ["True"]  # the user's filters are as they were
    assert "alpha stage" not in done.stderr
    with warnings.catch_warnings(record=True) as caught:  # and a UserWarning of the user's own still shows
        warnings.simplefilter("always")
        warnings.warn("mine", UserWarning)
    assert [str(w.message) for w in caught] == ["mine"]
