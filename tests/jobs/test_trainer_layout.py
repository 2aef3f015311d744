"""The trainer's results tree read as it is: discovery, metadata, class names, extras, pairing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import classification_report, roc_auc_score

from conftest import load_script
from pnetviz.io import trainer
from pnetviz.cli.common import run
from pnetviz.errors import InputError, PnetvizWarning
from pnetviz.io.ntuple import read_predictions
from pnetviz.demo.trainertree import STANDARD_MODELS, Hyper, ModelSpec, write_trainer_fold

CHANNEL, SIGNAL, OTHER = "Run1E2Mu", "MHc130_MA90", "MHc100_MA95"
PREFIX = "TTToHcToWAToMuMu-"
VARIANT = ModelSpec("binary", "ttZ", Hyper(nodes=64, sharpness=0.8))
GROUPED, INDIVIDUAL = ModelSpec("grouped"), ModelSpec("individual")
COMMON = ["--formats", "png", "--bootstrap", "20", "-q"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """results/: SIGNAL with the standard models in folds 0 and 1 and a pilot run; OTHER with a
    hyperparameter variant of the ttZ model and an individual multi-class model beside the grouped one."""
    base = tmp_path_factory.mktemp("trainer") / "results"
    for fold in (0, 1):
        write_trainer_fold(base, CHANNEL, SIGNAL, fold, events=2500)
    write_trainer_fold(base, CHANNEL, SIGNAL, None, models=STANDARD_MODELS[:1], events=1500)
    write_trainer_fold(base, CHANNEL, OTHER, 0, models=(*STANDARD_MODELS, INDIVIDUAL, VARIANT), events=2500)
    return base


def fold_dir(base: Path, kind: str, signal: str, fold: int) -> Path:
    return base / CHANNEL / kind / f"{PREFIX}{signal}" / f"fold-{fold}"


def script(name: str, argv: list[str]) -> int:
    return run(load_script(name).main, argv)


def lr_auc(preds, split, k):
    m = preds.masks[split] & np.isin(preds.label, [0, k])
    s0, sk = preds.scores[preds.classes[0]][m], preds.scores[preds.classes[k]][m]
    return roc_auc_score(preds.label[m] == 0, s0 / (s0 + sk + 1e-10), sample_weight=np.abs(preds.weight[m]))


def test_every_file_of_the_trainer_format_is_written(base):
    d = fold_dir(base, "binary", SIGNAL, 0)
    name = STANDARD_MODELS[2].name
    assert name == "ParticleNet-nNodes128-Adam-initLR0p0010-decay0p00010-StepLR-weighted_ce-binary-ttZ"
    for path in (f"trees/{name}.root", f"{name}_performance.json", f"{name}_model_info.json", f"CSV/{name}.csv",
                 f"models/{name}.pt"):  # fmt: skip
        assert (d / path).is_file(), path
    perf = json.loads((d / f"{name}_performance.json").read_text())
    assert perf["background_info"] == {"mode": "individual", "num_backgrounds": 1, "backgrounds": ["ttZ"]}
    preds = read_predictions(d / "trees" / f"{name}.root", classes=("signal", "bg1"))  # the binary branch is score_bg1
    assert preds.scores["signal"].dtype == np.float32


@pytest.fixture(scope="module")
def binary_out(base, tmp_path_factory):
    out = tmp_path_factory.mktemp("binary")
    argv = ["--results-dir", str(base), "--signal", SIGNAL, "--background", "ttZ", "--channel", CHANNEL, "--fold", "all",
            "--output", str(out), *COMMON]  # fmt: skip
    assert script("visualizeBinary", argv) == 0
    return out


def test_binary_all_folds_match_sklearn_and_carry_the_model(base, binary_out):
    for fold in (0, 1):
        d = binary_out / f"fold-{fold}"
        report = json.loads((d / "summary_report.json").read_text())
        name = STANDARD_MODELS[2].name
        assert report["fold"] == fold and report["channel"] == CHANNEL and report["signal"] == SIGNAL
        assert report["model"]["model_name"] == name and report["model"]["num_parameters"] == 9000 + 310 * 128
        assert report["model"]["training_config"]["optimizer"] == "Adam"
        assert Path(report["history"]) == fold_dir(base, "binary", SIGNAL, fold) / f"{name}_performance.json"
        preds = read_predictions(Path(report["input"]), classes=(SIGNAL, "ttZ"), score_classes=("signal",),
                                 subsets=["has_bjet"])  # fmt: skip
        for split in ("train", "test"):
            m = preds.masks[split]
            expected = roc_auc_score(preds.label[m] == 0, preds.scores["signal"][m], sample_weight=np.abs(preds.weight[m]))
            assert report["auc"][split] == pytest.approx(expected, abs=1e-9)
        bjet = report["bjet_performance"]
        assert bjet["all"]["auc_error"] == report["hep_metrics"]["test"]["auc_error"]  # one bootstrap, one number
        for part, keep in (("all", True), ("with", preds.subsets["has_bjet"]), ("without", ~preds.subsets["has_bjet"])):
            m = preds.masks["test"] & keep
            expected = roc_auc_score(preds.label[m] == 0, preds.scores["signal"][m], sample_weight=np.abs(preds.weight[m]))
            assert bjet[part]["auc"] == pytest.approx(expected, abs=1e-9)
            assert bjet[part]["auc_error"] > 0
        for stem in ("roc_curve", "score_distributions", "roc_curve_bjet_comparison", "score_distributions_bjet_comparison",
                     "training_loss", "training_accuracy"):  # fmt: skip
            assert (d / f"{stem}.png").stat().st_size > 1000, stem
    assert (binary_out / "folds" / "summary_report.json").exists()


def test_second_model_needs_model_and_uses_its_own_history(base, tmp_path, capsys):
    argv = ["--results-dir", str(base), "--signal", OTHER, "--background", "ttZ", "--output", str(tmp_path), *COMMON]
    assert script("visualizeBinary", argv) == 2
    err = capsys.readouterr().err
    assert STANDARD_MODELS[2].name in err and VARIANT.name in err and "--model" in err
    assert not list(tmp_path.iterdir())
    assert script("visualizeBinary", [*argv, "--model", "nNodes64"]) == 0
    report = json.loads((tmp_path / "summary_report.json").read_text())
    assert report["model"]["model_name"] == VARIANT.name
    assert Path(report["history"]).name == f"{VARIANT.name}_performance.json"
    assert report["model"]["architecture"]["hidden_nodes"] == 64


@pytest.fixture(scope="module")
def multiclass_out(base, tmp_path_factory):
    out = tmp_path_factory.mktemp("multiclass")
    argv = ["--results-dir", str(base), "--signal", SIGNAL, "--channel", CHANNEL, "--fold", "all", "--output", str(out),
            "--labels", "nonprompt=Fakes", *COMMON]  # fmt: skip
    assert script("visualizeMultiClass", argv) == 0
    return out


@pytest.mark.slow
def test_multiclass_classes_from_json_and_trainer_outputs(multiclass_out):
    stems = ["f1_score_by_class", "precision_by_class", "recall_by_class", "overall_confusion_matrix"]
    for bkg in ("nonprompt", "diboson", "ttX"):
        stems += [f"signal_vs_{bkg}_{s}" for s in ("roc_curve", "lr_score_distribution", "psignal_distribution",
                                                    f"p{bkg}_distribution", "roc_bjet_comparison",
                                                    "lr_score_bjet_comparison")]  # fmt: skip
    for fold in (0, 1):
        d = multiclass_out / f"fold-{fold}"
        for stem in stems:
            assert (d / f"{stem}.png").stat().st_size > 1000, stem
        report = json.loads((d / "summary_report.json").read_text())
        assert report["classes"] == ["signal", "nonprompt", "diboson", "ttX"] and report["fold"] == fold
        assert report["labels"]["ttX"] == "t#bar{t}X" and report["labels"]["nonprompt"] == "Fakes"
        preds = read_predictions(Path(report["input"]), classes=report["classes"], subsets=["has_bjet"])
        for k, bkg in enumerate(report["classes"][1:], start=1):
            assert report["auc"][bkg]["test"] == pytest.approx(lr_auc(preds, "test", k), abs=1e-9)
            m = preds.masks["test"] & np.isin(preds.label, [0, k]) & preds.subsets["has_bjet"]
            s0, sk = preds.scores["signal"][m], preds.scores[bkg][m]
            expected = roc_auc_score(preds.label[m] == 0, s0 / (s0 + sk + 1e-10), sample_weight=np.abs(preds.weight[m]))
            assert report["bjet_performance"][bkg]["with"]["auc"] == pytest.approx(expected, abs=1e-9)


@pytest.mark.slow
def test_classification_report_equals_sklearn(multiclass_out):
    d = multiclass_out / "fold-0"
    ours = json.loads((d / "classification_report.json").read_text())
    report = json.loads((d / "summary_report.json").read_text())
    preds = read_predictions(Path(report["input"]), classes=report["classes"])
    m = preds.masks["test"]
    scores = np.stack([preds.scores[c][m] for c in preds.classes], axis=1)
    expected = classification_report(preds.label[m], scores.argmax(axis=1), target_names=list(preds.classes),
                                      sample_weight=np.abs(preds.weight[m]), output_dict=True, zero_division=0)  # fmt: skip
    for row in (*preds.classes, "macro avg", "weighted avg"):
        for col in ("precision", "recall", "f1-score", "support"):
            assert ours[row][col] == pytest.approx(expected[row][col], abs=1e-9), (row, col)
    assert ours["accuracy"] == pytest.approx(expected["accuracy"], abs=1e-12)
    text = (d / "classification_report.txt").read_text()
    assert "weighted avg" in text and "ttX" in text


def test_individual_model_class_names_follow_the_trainer(base, tmp_path):
    argv = ["--results-dir", str(base), "--signal", OTHER, "--model", "3bg", "--output", str(tmp_path), *COMMON]
    assert script("visualizeMultiClass", argv) == 0
    report = json.loads((tmp_path / "summary_report.json").read_text())
    assert report["classes"] == ["signal", "ttll", "wz", "ttz"]  # TTLL, WZTo3LNu, TTZToLLNuNu
    assert (tmp_path / "signal_vs_ttz_roc_curve.png").exists()


@pytest.mark.slow
def test_comparison_pairs_binary_ttZ_with_multiclass_ttX(base, tmp_path):
    argv = ["--results-dir", str(base), "--signal", SIGNAL, "--fold", "all", "--output", str(tmp_path), *COMMON]
    assert script("visualizeComparison", argv) == 0
    report = json.loads((tmp_path / "fold-1" / "summary_report.json").read_text())
    assert report["pairs_compared"] == {"diboson": "diboson", "nonprompt": "nonprompt", "ttZ": "ttX"}
    pair = report["pairs"]["ttZ"]
    assert "group holding ttZ" in pair["pairing"] and pair["difference"]["method"].startswith("independent")
    mc = read_predictions(Path(report["multiclass_input"]), classes=report["classes"])
    assert pair["auc"]["multiclass"]["value"] == pytest.approx(lr_auc(mc, "test", 3), abs=1e-9)
    b = read_predictions(Path(pair["binary_input"]), classes=("signal", "ttZ"), score_classes=("signal",))
    t = b.masks["test"]
    expected = roc_auc_score(b.label[t] == 0, b.scores["signal"][t], sample_weight=np.abs(b.weight[t]))
    assert pair["auc"]["binary"]["value"] == pytest.approx(expected, abs=1e-9)
    assert (tmp_path / "fold-1" / "signal_vs_ttZ_roc_comparison.png").exists()
    assert (tmp_path / "folds" / "signal_vs_ttZ_auc_by_fold.png").exists()
    # D5: class names are the keys (class 0 is `signal`, the ttX events are called ttX)
    assert set(pair["comparability"]["binary"]) == {"signal", "ttZ"}
    assert set(pair["comparability"]["multiclass"]) == {"signal", "ttX"}
    # D6: one bootstrap per (model, fold, split): the comparison shows each model's report error
    common = ["--results-dir", str(base), "--signal", SIGNAL, "--fold", "1", *COMMON]
    assert script("visualizeBinary", [*common, "--background", "ttZ", "--output", str(tmp_path / "b")]) == 0
    assert script("visualizeMultiClass", [*common, "--output", str(tmp_path / "m")]) == 0
    binary = json.loads((tmp_path / "b" / "summary_report.json").read_text())
    multi = json.loads((tmp_path / "m" / "summary_report.json").read_text())
    assert pair["auc"]["binary"]["error"] == binary["hep_metrics"]["test"]["auc_error"]
    assert pair["auc"]["multiclass"]["error"] == multi["hep_metrics"]["ttX"]["test"]["auc_error"]
    assert set(binary["events"]["test"]) == {"signal", "ttZ"} and binary["signal"] == SIGNAL
    assert set(multi["auc"]["ttX"]["events_used"]["test"]) == {"signal", "ttX"}

    def keys(value) -> set:
        if isinstance(value, dict):
            return set(value) | {k for v in value.values() for k in keys(v)}
        return {k for v in value for k in keys(v)} if isinstance(value, list) else set()

    assert SIGNAL not in keys(multi) and SIGNAL not in keys(binary)  # the signal point is a field, never a key
    # --pair overrides the pairing
    out = tmp_path / "pair"
    with pytest.warns(PnetvizWarning, match="ttZ: binary and multi-class test events differ"):
        assert script("visualizeComparison", [*argv[:4], "--fold", "0", "--pair", "ttZ:diboson", "--output", str(out),
                                              *COMMON]) == 0  # fmt: skip
    pair = json.loads((out / "summary_report.json").read_text())["pairs"]["ttZ"]
    assert pair["multiclass_class"] == "diboson" and "set by --pair" in pair["pairing"]


@pytest.mark.parametrize("args, message", [
    (["--signal", "MHc130_MA99"], "signals found: MHc100_MA95, MHc130_MA90 (nearest: MHc130_MA90)"),
    (["--channel", "Run3Mu"], "channels found: Run1E2Mu"),
    (["--background", "ttz"], "backgrounds found: diboson, nonprompt, ttZ (nearest: ttZ)"),
    (["--fold", "3"], "folds with one: fold-0, fold-1"),
    (["--background", "ttZ", "--model", "nNodes32"], "matching --model 'nNodes32'"),
])  # fmt: skip
def test_errors_name_what_exists(base, tmp_path, capsys, args, message):
    argv = ["--results-dir", str(base), "--signal", SIGNAL, "--background", "nonprompt", "--output", str(tmp_path)]
    assert script("visualizeBinary", [*argv, *args, *COMMON]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_predictions_file_takes_identity_and_history_from_its_json(base, tmp_path):
    name = GROUPED.name
    tree = fold_dir(base, "multiclass", SIGNAL, 1) / "trees" / f"{name}.root"
    assert script("visualizeMultiClass", ["--predictions", str(tree), "--output", str(tmp_path), *COMMON]) == 0
    report = json.loads((tmp_path / "summary_report.json").read_text())
    assert (report["fold"], report["signal"], report["channel"]) == (1, SIGNAL, CHANNEL)
    assert Path(report["history"]) == tree.parent.parent / f"{name}_performance.json"


def test_pilot_run(base, tmp_path):
    argv = ["--results-dir", str(base), "--signal", SIGNAL, "--pilot", "--output", str(tmp_path), *COMMON]
    assert script("visualizeBinary", argv) == 0  # the pilot holds one binary model: no --background needed
    report = json.loads((tmp_path / "summary_report.json").read_text())
    assert report["pilot"] is True and report["background"] == "nonprompt"


def test_history_is_never_picked_by_name(tmp_path):
    tree = tmp_path / "predictions.root"
    tree.write_bytes(b"")
    assert trainer.find_performance(tree) is None
    (tmp_path / "a_performance.json").write_text("{}")
    assert trainer.find_performance(tree) == tmp_path / "a_performance.json"  # the only one: the first layout's habit
    (tmp_path / "b_performance.json").write_text("{}")
    with pytest.raises(InputError, match="2 other training histories.*--history"):
        trainer.find_performance(tree)
    (tmp_path / "predictions_performance.json").write_text("{}")
    assert trainer.find_performance(tree) == tmp_path / "predictions_performance.json"


def test_branch_names_labels_and_pairing_rules():
    samples = ["TTLL_powheg", "WZTo3LNu_amcatnlo", "ZZTo4L", "TTZToLLNuNu", "TTWToLNu", "tZq", "DYJets10to50", "DYJets", "ttZ"]
    assert [trainer.sample_branch(s, i) for i, s in enumerate(samples)] == \
        ["ttll", "wz", "zz", "ttz", "ttw", "tzq", "dy10to50", "dy", "bg9"]  # fmt: skip
    groups = {"nonprompt": ["TTLL"], "diboson": ["WZTo3LNu", "ZZTo4L"], "ttX": ["TTZToLLNuNu", "TTWToLNu", "tZq"]}
    classes = ("signal", *groups)
    assert [trainer.pairing(b, classes, groups) for b in ("nonprompt", "ttZ", "WZTo3LNu", "conversion")] == \
        ["nonprompt", "ttX", "diboson", None]  # fmt: skip
    assert trainer.parse_labels("ttX=t#bar{t}X, nonprompt=Fakes") == {"ttX": "t#bar{t}X", "nonprompt": "Fakes"}
    with pytest.raises(InputError, match="name=label"):
        trainer.parse_labels("ttX")
    assert trainer.display_label("ttZ", {}) == "t#bar{t}Z" and trainer.display_label("bg1", {}) == "bg1"


def _multiclass_copy(base: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A private copy of SIGNAL's fold-0 grouped multi-class model: (results dir, performance JSON)."""
    import shutil  # noqa: PLC0415

    src = fold_dir(base, "multiclass", SIGNAL, 0)
    dst = tmp_path / "results" / CHANNEL / "multiclass" / f"{PREFIX}{SIGNAL}" / "fold-0"
    shutil.copytree(src, dst)
    return tmp_path / "results", next(dst.glob("*3grp*_performance.json"))


@pytest.mark.parametrize("change, expected", [
    ("order", "in another order"),  # the JSON lists the groups in another order than the score branches
    ("names", "other classes"),  # a group the ntuple has no score branch for
    ("count", "num_classes is 5"),  # training_config says 5 classes, 4 are found
])  # fmt: skip
def test_metadata_contradicting_the_ntuple_is_an_error_naming_both(base, tmp_path, capsys, change, expected):
    results, perf = _multiclass_copy(base, tmp_path)
    meta = json.loads(perf.read_text())
    groups = meta["background_info"]["groups"]
    if change == "order":
        meta["background_info"]["groups"] = dict(reversed(list(groups.items())))
    elif change == "names":
        meta["background_info"]["groups"] = {("ttW" if g == "ttX" else g): v for g, v in groups.items()}
    else:
        meta["training_config"]["num_classes"] = 5
    perf.write_text(json.dumps(meta))
    argv = ["--results-dir", str(results), "--channel", CHANNEL, "--signal", SIGNAL, "--fold", "0", "--model", "3grp",
            "--plots-dir", str(tmp_path / "plots"), *COMMON]  # fmt: skip
    assert run(load_script("visualizeMultiClass").main, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0], err
    if change != "count":
        assert perf.name in err[0] and ".root" in err[0]  # both sources named
    assert not (tmp_path / "plots").exists() or not any((tmp_path / "plots").rglob("plots.root"))
