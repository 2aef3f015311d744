"""examples/round.ipynb runs headless in a real Jupyter kernel (nbclient + ipykernel) against a
small demo round laid out as `./run.sh demo` leaves it (plots/ and results/ beside examples/, the
kernel in examples/, no variable set): every cell runs, every figure output carries text/html
(JSROOT, the round's local copy when it has one) and image/png, the stored figure's PNG is the one
`pnetviz render` draws, the leaderboard it prints is the campaign's CSV (channel, signal, AUC
rounded to its error), and ROOT's alpha warning never reaches a cell."""

from __future__ import annotations

import base64
import csv
import re
import shutil
from pathlib import Path

import pytest

import pnetviz
from conftest import API_CHANNEL, API_SIGNAL
from pnetviz.cli.commands import run_command
from pnetviz.metrics.rounding import pm

pytestmark = pytest.mark.slow  # the example notebook run by a Jupyter kernel on the demo round

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "round.ipynb"
AUC = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\S+)\s+rank\s+(\S+)\s+(\S+)\s+AUC = (.+)$")
STORED = "signal_vs_diboson_rejection_curve_folds"  # the stored figure the notebook shows


@pytest.fixture(scope="module")
def checkout(demo_round, tmp_path_factory) -> Path:
    """A checkout after `./run.sh demo`: <checkout>/plots and <checkout>/results (the demo round,
    linked) beside <checkout>/examples, where the kernel runs."""
    base = tmp_path_factory.mktemp("checkout")
    (base / "plots").symlink_to(demo_round.plots, target_is_directory=True)
    (base / "results").symlink_to(demo_round.results, target_is_directory=True)
    (base / "examples").mkdir()
    return base


@pytest.fixture(scope="module")
def executed(checkout):
    """The notebook executed in a fresh kernel from <checkout>/examples, as `jupyter nbconvert
    --execute` after `./run.sh demo`: nothing edited, no variable set."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PNETVIZ_ROUND", raising=False)
        patch.delenv("PNETVIZ_RESULTS", raising=False)
        nb = nbformat.read(NOTEBOOK, as_version=4)
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(checkout / "examples")}}).execute()  # fmt: skip
    return nb


def _outputs(nb) -> list[dict]:
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def _text(nb) -> str:
    return "".join(out.get("text", "") for out in _outputs(nb) if out.output_type == "stream")


def test_every_cell_ran(executed):
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code)
    assert not [out for out in _outputs(executed) if out.output_type == "error"]


def test_every_figure_carries_jsroot_html_and_a_png(executed):
    figures = [out for out in _outputs(executed) if "pnetviz-figure" in out.get("data", {}).get("text/html", "")]
    assert len(figures) == 3  # the overlay, a stored figure, the new evaluation's figure
    pictures = [out for out in _outputs(executed) if "image/png" in out.get("data", {})]
    assert pictures == figures  # JupyROOT adds no second, PNG-only copy of a canvas after the cell
    for out in figures:
        assert "jsroot.draw(" in out.data["text/html"] and "modules/main.mjs" in out.data["text/html"]
        assert base64.b64decode(out.data["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")


def test_the_round_and_the_model_shown_are_named(executed, demo_round):
    models = len(pnetviz.open_round(demo_round.plots).models)  # 3 binary, the multi-class and its comparison
    assert f"../plots: {models} models; the cells below show channel {API_CHANNEL}, signal point {API_SIGNAL}\n" in _text(executed)


def test_the_printed_leaderboard_is_the_campaigns_csv(executed, demo_round):
    with open(demo_round.plots / "campaign" / "campaign_leaderboard.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    printed = [AUC.match(line).groups() for line in _text(executed).splitlines() if AUC.match(line)]
    assert printed == [(r["channel"], r["signal"], r["background"], r["rank"], r["kind"],
                        pm(float(r["auc_test_mean"]), float(r["auc_test_standard_error"]))) for r in rows]  # fmt: skip
    assert all(re.fullmatch(r"0\.\d{2,4} ± 0\.\d{1,4}", auc) for *_, auc in printed)  # rounded to its error, not 16 digits


def test_every_figure_takes_the_rounds_local_jsroot(executed, demo_round):
    if not (demo_round.plots / "jsroot" / "modules" / "main.mjs").is_file():
        pytest.skip("the demo round has no local JSROOT (no cached copy when it was made)")
    figures = [out.data["text/html"] for out in _outputs(executed) if "pnetviz-figure" in out.get("data", {}).get("text/html", "")]
    assert len(figures) == 3 and all('import("../plots/jsroot/modules/main.mjs")' in html for html in figures)
    assert not any("root.cern" in html.split("catch (err)")[0] for html in figures)


def test_the_stored_figures_png_is_the_one_pnetviz_render_draws(executed, demo_round, tmp_path):
    """The multi-class fold summary's figure, shown after an overlay (a CMS-styled figure) was
    drawn in the same kernel, against `pnetviz render` of a copy of the set it is stored in."""
    [folds] = demo_round.plots.glob(f"results/{API_CHANNEL}/multiclass/{API_SIGNAL}/*/folds")
    copy = shutil.copytree(folds, tmp_path / "folds")
    assert run_command("render", [str(copy), "--formats", "png", "-q"]) == 0
    [shown] = [out.data["image/png"] for out in _outputs(executed) if f'title="{STORED}"' in out.get("data", {}).get("text/html", "")]
    assert base64.b64decode(shown) == (copy / f"{STORED}.png").read_bytes()


def test_the_new_working_point_is_printed(executed):
    lines = [line for line in _text(executed).splitlines() if line.startswith("eps_s >= ")]
    assert [line.split(":")[0] for line in lines] == ["eps_s >= 0.5", "eps_s >= 0.7", "eps_s >= 0.8", "eps_s >= 0.9"]


def test_no_alpha_warning_reaches_a_cell(executed):
    streams = [out.get("text", "") for out in _outputs(executed) if out.output_type == "stream"]
    assert streams and not any("alpha stage" in text for text in streams)
