"""The data/MC figures of `pnetviz datamc` (draw/datamc.py) pass the figure linter: CMS style at
8 cm, the frame at least 5 cm high, the ratio panel at least 1.3 cm, the legend inside the frame."""

from __future__ import annotations

import pytest

import figlint  # tests/draw is on sys.path (see test_figure_lint.py)
from pnetviz.demo import samples as demo
from pnetviz.jobs import datamc


@pytest.mark.slow
def test_datamc_figures_pass_the_figure_checks(tmp_path):
    samples = demo.write_samples(tmp_path / "samples", mc_events=300, seed=3)
    job = datamc.DatamcJob(samples_dir=samples, era=demo.ERA, channels=("SR3Mu", "ZG3Mu"), masspoint=demo.MASSPOINT,
                           method=demo.METHOD, output=tmp_path / "set", formats=("png",),
                           scores=("signal", "weighted-lr", "lr:diboson"))  # fmt: skip
    datamc.run(job)
    records = figlint.lint_records([tmp_path / "set" / "plots.root"], jobs=1)
    assert [figlint.format_violation(r) for r in records] == []
