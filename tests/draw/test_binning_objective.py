"""binning_objective (issue 54, a figure a reviewer bounced): the chosen K marked (a dotted vertical
line at binning.json's chosen_k, named 'Chosen K = 4 (train)'), the y title the objective's name
('Binned FIP'; the definition, Valassi eq. 4, is the docs')."""

from __future__ import annotations

import numpy as np

from pnetviz.draw import binningplots
from pnetviz.draw.style import StyleOptions, cms_style


def test_chosen_k_is_marked_and_the_title_is_the_name():
    ks = np.arange(1, 11)
    values = 0.8 * (1 - np.exp(-ks / 3.0))
    doc = {"by_k": [{"k": int(k), "train": float(v) + 0.01, "test": float(v)} for k, v in zip(ks, values)],
           "baselines": {"uniform": [{"k": int(k), "test": float(v) * 0.9} for k, v in zip(ks, values)]},
           "unbinned_limit": 0.85, "k_max": 10, "objective": "binned_fip", "chosen_k": 4}  # fmt: skip
    with cms_style(StyleOptions()):
        fig = binningplots.objective_figure("binning_objective", "binning", doc, ["toy"])
    frame = next(o for o in fig.pads[0].GetListOfPrimitives() if o.InheritsFrom("TH1"))
    assert frame.GetYaxis().GetTitle() == "Binned FIP"
    marks = [o for o in fig.extras if o.InheritsFrom("TGraph") and o.GetTitle() == "Chosen K = 4 (train)"]
    assert len(marks) == 1
    x = np.frombuffer(marks[0].GetX(), count=marks[0].GetN())
    y = np.frombuffer(marks[0].GetY(), count=marks[0].GetN())
    assert np.all(x == 4.0) and y.min() == frame.GetMinimum() and y.max() >= 0.85
    fig.close()
