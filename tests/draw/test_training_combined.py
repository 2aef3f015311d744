"""The specification's combined training figures (seed 000, section 9: `training_curves.png`, loss
and accuracy; `training_metrics.png`, memory and epoch time) beside the split ones: one epoch axis,
loss (epoch time) in the main pad over accuracy (memory) in a panel below, each drawn value the
history's; training_metrics without the CMS physics label (computing resources), only when both
resources are recorded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.draw.training import training_figures
from pnetviz.io.history import TrainingHistory


def history(resources: bool) -> TrainingHistory:
    epochs = np.arange(12.0)
    columns = {"epoch": epochs, "train_loss": 1.0 / (1 + epochs), "valid_loss": 1.1 / (1 + epochs) + 0.01 * epochs,
               "train_acc": 0.6 + 0.03 * epochs, "valid_acc": 0.58 + 0.028 * epochs}  # fmt: skip
    if resources:
        columns |= {"epoch_time": 40.0 + np.sin(epochs), "memory_mb": 2048.0 + 10.0 * epochs}
    return TrainingHistory(Path("h.json"), columns, {"best_epoch": 7})


def graph_values(pad, name: str) -> tuple[np.ndarray, np.ndarray]:
    g = next(o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TGraph") and o.GetName().startswith(name))
    return np.frombuffer(g.GetX(), count=g.GetN()).copy(), np.frombuffer(g.GetY(), count=g.GetN()).copy()


@pytest.mark.parametrize("resources", [True, False])
def test_combined_figures_beside_the_split_ones(resources):
    h = history(resources)
    with cms_style(StyleOptions()):
        figs = {f.name: f for f in training_figures(h, ["toy"])}
    split = {"training_loss", "training_accuracy"} | ({"training_epoch_time", "training_memory"} if resources else set())
    assert set(figs) == split | {"training_curves"} | ({"training_metrics"} if resources else set())
    curves = figs["training_curves"]
    assert len(curves.pads) == 2
    for col, pad in (("train_loss", 0), ("valid_loss", 0), ("train_acc", 1), ("valid_acc", 1)):
        x, y = graph_values(curves.pads[pad], f"training_combined_{col}")
        np.testing.assert_array_equal(x, h.epochs)
        np.testing.assert_allclose(y, h.columns[col], rtol=1e-12)
    texts = [o.GetTitle() for o in curves.pads[0].GetListOfPrimitives() if o.InheritsFrom("TLatex")]
    assert "CMS" in texts
    if resources:
        metrics = figs["training_metrics"]
        x, y = graph_values(metrics.pads[1], "training_combined_memory_gb")
        np.testing.assert_allclose(y, h.columns["memory_mb"] / 1024.0, rtol=1e-12)
        x, y = graph_values(metrics.pads[0], "training_combined_epoch_time")
        np.testing.assert_allclose(y, h.columns["epoch_time"], rtol=1e-12)
        assert "CMS" not in [o.GetTitle() for o in metrics.pads[0].GetListOfPrimitives() if o.InheritsFrom("TLatex")]
    for f in figs.values():
        f.close()
