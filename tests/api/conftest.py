"""A small finished demo round for the API and notebook tests: one channel, one signal point,
2 folds of 300 events, every model kind, evaluated by `pnetviz campaign --workers 0 --images none`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pnetviz.cli.commands import run_command

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
FAST = ["--bootstrap", "20"]  # few replicas: the tests compare numbers, not their precision


@dataclass(frozen=True)
class DemoRound:
    results: Path
    plots: Path


@pytest.fixture(scope="session")
def demo_round(tmp_path_factory) -> DemoRound:
    base = tmp_path_factory.mktemp("round")
    results, plots = base / "results", base / "plots"
    assert run_command("demo", ["--output", str(results), "--signals", SIGNAL, "--channels", CHANNEL, "--folds", "2",
                                "--events", "300", "--no-ga"]) == 0  # fmt: skip
    assert run_command("campaign", ["--results-dir", str(results), "--plots-dir", str(plots), "--workers", "0",
                                    "--images", "none", "-q", *FAST]) == 0  # fmt: skip
    return DemoRound(results, plots)
