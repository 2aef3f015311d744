"""examples/round.ipynb runs headless in a real Jupyter kernel (nbclient + ipykernel) against a
small demo round: every cell runs, every figure output carries text/html (JSROOT) and image/png,
the leaderboard it prints is the campaign's CSV, and ROOT's alpha warning never reaches a cell."""

from __future__ import annotations

import base64
import csv
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the example notebook run by a Jupyter kernel on the demo round

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "round.ipynb"
AUC = re.compile(r"^\s*(\S+)\s+rank\s+(\S+)\s+(\S+)\s+AUC = (\S+)$")


@pytest.fixture(scope="module")
def executed(demo_round, tmp_path_factory):
    """The notebook executed in a fresh kernel, its working directory a scratch one."""
    work = tmp_path_factory.mktemp("notebook")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PNETVIZ_ROUND", str(demo_round.plots))
        patch.setenv("PNETVIZ_RESULTS", str(demo_round.results))
        nb = nbformat.read(NOTEBOOK, as_version=4)
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
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


def test_the_printed_leaderboard_is_the_campaigns_csv(executed, demo_round):
    with open(demo_round.plots / "campaign" / "campaign_leaderboard.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    printed = [AUC.match(line).groups() for line in _text(executed).splitlines() if AUC.match(line)]
    assert printed == [(r["background"], r["rank"], r["kind"], repr(float(r["auc_test_mean"]))) for r in rows]


def test_the_new_working_point_is_printed(executed):
    lines = [line for line in _text(executed).splitlines() if line.startswith("eps_s >= ")]
    assert [line.split(":")[0] for line in lines] == ["eps_s >= 0.5", "eps_s >= 0.7", "eps_s >= 0.8", "eps_s >= 0.9"]


def test_no_alpha_warning_reaches_a_cell(executed):
    streams = [out.get("text", "") for out in _outputs(executed) if out.output_type == "stream"]
    assert streams and not any("alpha stage" in text for text in streams)
