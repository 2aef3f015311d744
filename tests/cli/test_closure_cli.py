"""`pnetviz datamc --closure REGION`: the deployment closure's verdict printed and its files in the
data/MC set (closure.json, closure_<node> figures, the verdict in datamc.json); bad closure inputs
are one line, exit 2, nothing published. Toy files: tests/closuretoys.py (written once: slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from closuretoys import MP, write_files

from pnetviz.cli.commands import run_command

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return write_files(tmp_path_factory.mktemp("closure_cli"))


def canvas_texts(path: Path) -> dict[str, list[str]]:
    """The TLatex texts of each stored canvas (and its sub-pads) of a plots.root."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    def walk(pad, out: list[str]) -> list[str]:
        for obj in pad.GetListOfPrimitives():
            if obj.InheritsFrom("TPad"):
                walk(obj, out)
            elif obj.InheritsFrom("TLatex"):
                out.append(str(obj.GetTitle()))
        return out

    f = root().TFile.Open(str(path))
    try:
        canvases = f.GetDirectory("canvases")
        return {key.GetName(): walk(key.ReadObj(), []) for key in canvases.GetListOfKeys()}
    finally:
        f.Close()


def argv(files: dict[str, Path], output: Path, *extra: str) -> list[str]:
    return ["--samples-dir", str(files["samples"]), "--era", "2018", "--channel", "SR3Mu", "--masspoint", MP,
            "--method", "Baseline", "--output", str(output), "--formats", "png", *extra]  # fmt: skip


def test_closure_in_the_datamc_set(files, tmp_path, capsys):
    out = tmp_path / "set"
    code = run_command("datamc", argv(files, out, "--closure", "SR3Mu", "--deployed-model", "3", "--predictions",
                                      str(files["iteration"])))  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "[pnetviz datamc] closure: pass (16 tests, min Holm p = " in printed.out
    doc = json.loads((out / "closure.json").read_text())
    assert doc["verdict"] == "pass" and doc["deployed_model"]["name"] == "model3" and doc["channel"] == "SR3Mu"
    assert json.loads((out / "datamc.json").read_text())["closure"]["line"] == doc["line"]
    assert all((out / f"closure_{node}.png").is_file() for node in doc["nodes"])
    assert (out / "datamc_SR3Mu_signal.png").is_file()  # the data/MC figure beside them
    labels = canvas_texts(out / "plots.root")
    assert "Simulation Preliminary" in labels["closure_signal"]  # no data in the closure figures
    assert "Preliminary" in labels["datamc_SR3Mu_signal"] and "Simulation Preliminary" not in labels["datamc_SR3Mu_signal"]

    swapped = tmp_path / "swapped"
    code = run_command("datamc", argv(files, swapped, "--closure", "SR3Mu", "--deployed-model", str(files["checkpoint"]),
                                      "--column", f"score_diboson=score_{MP}_ttZ", "--column", f"score_ttZ=score_{MP}_diboson"))  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "closure: fail" in printed.out and "outputs 'diboson' and 'ttZ' look swapped" in printed.out


@pytest.mark.parametrize("extra, message", [
    (["--deployed-model", "3"], "--deployed-model without --closure REGION"),
    (["--closure", "SR3Mu"], "--closure without --deployed-model"),
    (["--closure", "SR3Mu", "--deployed-model", "5", "--predictions", "{iteration}"], "model5_predictions.npz: no such file"),
    (["--closure", "SR3Mu", "--deployed-model", "5", "--predictions", "{iteration}/overfitting_diagnostics/model3_predictions.npz"],
     "the predictions of model3, but --deployed-model says model5"),
    (["--closure", "SR3Mu", "--deployed-model", "3"], "a GA model index needs --predictions"),
    (["--closure", "SR3Mu", "--deployed-model", "best.pt"], "neither a GA model index nor a fold model's checkpoint"),
    (["--closure", "WZ3Mu", "--deployed-model", "3", "--predictions", "{iteration}"], "WZ3Mu/MHc130_MA90/Baseline: no such samples directory"),
    (["--closure", "SR3Mu", "--deployed-model", "3", "--predictions", "{iteration}", "--process-class", "ttX=ttZ"],
     "the model has no class 'ttZ'"),
    (["--closure", "SR3Mu", "--deployed-model", "3", "--predictions", "{damaged}"], "not a readable .npz file"),
])  # fmt: skip
def test_bad_closure_inputs_are_one_line(files, tmp_path, capsys, extra, message):
    damaged = tmp_path / "run" / "GA-iter0" / "model3_predictions.npz"
    damaged.parent.mkdir(parents=True)
    damaged.write_text("not an archive")
    out = tmp_path / "set"
    extra = [e.format(iteration=files["iteration"], damaged=damaged) for e in extra]
    assert run_command("datamc", argv(files, out, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not out.exists()  # nothing published
