"""Small template models for the limits tests (hand-written numbers, no randomness)."""

from __future__ import annotations

import numpy as np

from pnetviz.limits.model import Channel, FitModel, Sample

EDGES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def no_nuisances() -> FitModel:
    """Two channels, known templates, neither MC statistics nor systematics."""
    a = Channel("SR1", EDGES, "score", Sample("sig", np.array([1.0, 2.0, 4.0, 6.0]), np.zeros(4)),
                (Sample("ttZ", np.array([40.0, 20.0, 8.0, 3.0]), np.zeros(4)),
                 Sample("WZ", np.array([25.0, 10.0, 5.0, 1.5]), np.zeros(4))))
    b = Channel("SR2", EDGES[:3], "score", Sample("sig", np.array([0.5, 3.0]), np.zeros(2)),
                (Sample("ttZ", np.array([30.0, 9.0]), np.zeros(2)),))
    return FitModel((a, b), mc_stat=False)


def with_nuisances() -> FitModel:
    """One channel of three bins: MC statistics (Barlow-Beeston lite) and one shape systematic."""
    b1 = np.array([30.0, 12.0, 4.0])
    b2 = np.array([10.0, 6.0, 2.5])
    sig = np.array([1.0, 3.0, 5.0])
    return FitModel((Channel("SR", EDGES[:4], "score",
                             Sample("sig", sig, np.array([0.02, 0.1, 0.3])),
                             (Sample("ttZ", b1, np.array([4.0, 2.0, 1.0]), {"jes": (b1 * [1.08, 1.1, 1.15], b1 * [0.95, 0.93, 0.9])}),
                              Sample("WZ", b2, np.array([2.0, 1.5, 0.8])))),), mc_stat=True)
