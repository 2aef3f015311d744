"""The templates as ROOT histograms: TH1D in the channel's edges, contents and bin errors
sqrt(sum w^2) (the sum of w^2 stored), as the shapes file and HistFactory take them."""

from __future__ import annotations

import numpy as np

from pnetviz.limits.spec import Channel
from pnetviz.rootenv import root, set_title


def th1(name: str, channel: Channel, contents: np.ndarray, sumw2: np.ndarray | None, title: str = ""):
    """A TH1D named `name` over the channel's edges; errors sqrt(sumw2), or sqrt(contents)
    clipped at zero when sumw2 is None (an observation)."""
    ROOT = root()
    edges = np.ascontiguousarray(channel.edges, dtype=np.float64)
    hist = ROOT.TH1D(name, "", len(edges) - 1, edges)
    hist.Sumw2()
    values = np.asarray(contents, dtype=np.float64)
    errors2 = np.clip(values, 0, None) if sumw2 is None else np.asarray(sumw2, dtype=np.float64)
    outer = np.zeros(1)  # the underflow and overflow bins stay empty
    hist.SetContent(np.concatenate([outer, values, outer]))  # SetBinContent of every bin, in one call
    hist.SetError(np.concatenate([outer, np.sqrt(np.maximum(errors2, 0.0)), outer]))  # sumw2 = error^2, as SetBinError's
    hist.SetEntries(float(len(values)))
    hist.SetStats(False)  # a template drawn alone (TBrowser) shows no statistics box
    set_title(hist, title or name, channel.observable, "events")
    return hist
