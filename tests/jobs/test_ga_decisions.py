"""The GA search's three decisions (issue 36 item 4): the deployed model by the analysis' rule
(summarizeGALoss.py: last iteration, lowest best_valid_loss, no penalty) beside the search's best
and the trainer's final choice, a line when they differ; the retraining spread of a chromosome
trained more than once and a warning when decisions are closer than it; the cross-signal-point
table of a campaign with --kinds ga; ga_top_models.tex within a 16 cm text width."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import compile_latex
from pnetviz.summary import gatable
from pnetviz.cli.commands import run_command
from pnetviz.demo.ga import ToyModel, ToyRun, write_run

# the committed run's chromosome trained four times (GA-FORMAT.md section 3), and others shaped as its
REPEATED = (128, "Adam", 0.0009, 2e-05, "ReduceLROnPlateau")
REPEATED_FITNESS = {0: 0.921046, 1: 0.920368, 2: 0.909660, 3: 0.916509}  # iteration -> fitness (spread 0.011386)


def real_shaped(seed: int = 11) -> list[list[ToyModel]]:
    """4 iterations x 16 models with the trainer's gene values; fitness = min valid_loss (train loss
    above it: no penalty term); REPEATED is model0 of each iteration. The last iteration's lowest
    valid loss is model5 (0.9160; its penalised fitness 0.9235), the final population's lowest
    fitness model0 (0.916509); over all iterations GA-iter2/model0 (0.909660)."""
    rng = np.random.default_rng(seed)
    nodes, opts, scheds = (64, 96, 128), ("RMSprop", "Adam", "Adadelta"), ("ExponentialLR", "CyclicLR", "ReduceLROnPlateau")
    pops = []
    for it in range(4):
        pop = [ToyModel(REPEATED, [1.1, REPEATED_FITNESS[it], REPEATED_FITNESS[it] + 0.01], [1.2, 0.95, 0.94])]
        for i in range(1, 16):
            chrom = (int(rng.choice(nodes)), str(rng.choice(opts)), float(round(10 ** rng.uniform(-4, -2), 4)),
                     float(round(10 ** rng.uniform(-5, -3), 5)), str(rng.choice(scheds)))  # fmt: skip
            low = float(round(rng.uniform(0.93, 1.05), 6))
            pop.append(ToyModel(chrom, [1.2, low, low + 0.02], [1.3, low + 0.03, low + 0.01]))
        if it == 3:  # lowest valid loss of the last iteration, but over-trained: penalised fitness above model0's
            pop[5] = ToyModel((96, "RMSprop", 0.0011, 3e-05, "CyclicLR"), [1.2, 0.916, 0.93], [1.1, 0.891, 0.88])
        pops.append(pop)
    return pops


@pytest.fixture(scope="module")
def ga_sets(tmp_path_factory) -> dict[str, Path]:
    """Two signal points' searches evaluated by `pnetviz ga`: signal -> its output set."""
    base = tmp_path_factory.mktemp("gadecisions")
    out = {}
    for k, signal in enumerate(("MHc100_MA95", "MHc130_MA90")):
        write_run(base / "GAOptim_bjets", ToyRun("Combined", signal, real_shaped(11 + k)))
        argv = ["--ga-dir", str(base / "GAOptim_bjets"), "--signal", signal, "--plots-dir", str(base / "plots"),
                "--formats", "none", "-q"]  # fmt: skip
        assert run_command("ga", argv) == 0
        out[signal] = base / "plots" / "GAOptim_bjets" / "Combined" / "multiclass" / signal / "ga"
    return out


def test_three_decisions_side_by_side(ga_sets):
    doc = json.loads((ga_sets["MHc100_MA95"] / "summary_report.json").read_text())["decisions"]
    choices = doc["choices"]
    assert (choices["search_best"]["iteration"], choices["search_best"]["model"]) == (2, "model0")
    assert choices["search_best"]["fitness"] == pytest.approx(0.909660)
    assert (choices["trainer_choice"]["iteration"], choices["trainer_choice"]["model"]) == (3, "model0")
    assert choices["trainer_choice"]["fitness"] == pytest.approx(0.916509)
    deployed = choices["deployed"]
    assert (deployed["iteration"], deployed["model"], deployed["best_valid_loss"]) == (3, "model5", pytest.approx(0.916))
    assert deployed["fitness"] == pytest.approx(0.916 + 0.3 * 0.025)  # no penalty in its rule, recomputed with it
    assert len(doc["differ"]) == 3 and "the same chromosome, retrained" in doc["differ"][0]


def test_retraining_spread_and_the_warning(ga_sets):
    doc = json.loads((ga_sets["MHc100_MA95"] / "summary_report.json").read_text())["decisions"]
    repeated = doc["retraining"]["chromosomes"][0]
    assert repeated["chromosome"] == list(REPEATED) and repeated["trainings"] == 4
    assert repeated["spread"] == pytest.approx(0.921046 - 0.909660)
    assert doc["retraining"]["max_spread"] == pytest.approx(0.011386)
    # the search's best (0.909660) and the deployed model (0.9235): 0.0138 apart, more than the spread: no warning;
    # the trainer's choice and the deployed model: 0.0070 apart, less than it: a warning
    assert any("the trainer's final choice and the deployed model differ in fitness by 0.006991" in w for w in doc["warnings"])
    assert not any(w.startswith("the search's best and the deployed model") for w in doc["warnings"])
    text = (ga_sets["MHc100_MA95"] / "ga_summary.txt").read_text()
    assert "deployed: GA-iter3/model5" in text and "DIFFER:" in text and "WARNING:" in text
    assert "retrained 4x: (128, 'Adam', 0.0009, 2e-05, 'ReduceLROnPlateau'), fitness spread 0.011386" in text


def test_top_models_table_fits_16_cm_with_the_caption_above(ga_sets, tmp_path):
    tex = (ga_sets["MHc100_MA95"] / "ga_top_models.tex").read_text()
    assert tex.index("\\caption{") < tex.index("\\begin{tabular}")
    assert "$^{\\ddagger}$" in tex  # the deployed model is among the top 10
    compile_latex(tex, tmp_path)  # asserts no overfull \hbox in a 16 cm text width


def test_cross_signal_table(ga_sets, tmp_path):
    jobs = [{"kind": "ga", "status": "done", "outputs": [str(path)], "channel": "Combined", "signal": signal}
            for signal, path in reversed(ga_sets.items())]  # fmt: skip
    jobs.append({"kind": "ga", "status": "failed", "outputs": [str(tmp_path)], "channel": "Combined", "signal": "MHc70_MA15"})
    files = gatable.attach(data := {"jobs": jobs})
    rows = data["ga_decisions"]
    assert [r["signal"] for r in rows] == ["MHc100_MA95", "MHc130_MA90"]  # by mass, the failed job left out
    first = rows[0]
    assert (first["search_best_model"], first["trainer_choice_model"], first["deployed_model"]) == \
        ("GA-iter2/model0", "GA-iter3/model0", "GA-iter3/model5")  # fmt: skip
    assert first["decisions_agree"] is False and first["max_retraining_spread"] == pytest.approx(0.011386)
    assert files["campaign_ga_decisions.csv"].splitlines()[0].startswith("channel,signal,search_best_model")
    tex = files["campaign_ga_decisions.tex"]
    assert tex.index("\\caption{") < tex.index("\\begin{tabular}") and "2/0 & 0.9097" in tex
    compile_latex(tex, tmp_path)


def test_campaign_kinds_ga_writes_the_cross_signal_table(tmp_path):
    from pnetviz.demo.trainertree import write_trainer_fold  # noqa: PLC0415

    results = tmp_path / "results"
    write_trainer_fold(results, "Run3Mu", "MHc100_MA95", 0, events=300, seed=1)
    write_run(tmp_path / "GAOptim_bjets", ToyRun("Run3Mu", "MHc100_MA95", real_shaped()))
    argv = ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--kinds", "ga", "--workers", "0",
            "--images", "none", "-q"]  # fmt: skip
    assert run_command("campaign", argv) == 0
    lines = (tmp_path / "plots" / "campaign" / "campaign_ga_decisions.csv").read_text().splitlines()
    assert len(lines) == 2 and lines[1].startswith("Run3Mu,MHc100_MA95,GA-iter2/model0,")
    assert ",GA-iter3/model5," in lines[1]
