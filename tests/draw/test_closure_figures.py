"""The deployment closure's figures (closure_<node>, jobs.closure) pass the figure linter (CMS style
at 8 cm: frame size, legend inside the frame, fonts, the redraw from plots.root), unswapped and
swapped (tests/closuretoys.py's files: slow)."""

from __future__ import annotations

import pytest
from closuretoys import SWAP, spec, write_files

import figlint  # tests/draw is on sys.path (see test_figure_lint.py)
from pnetviz.draw.style import StyleOptions
from pnetviz.jobs import closure as jc


@pytest.mark.slow
def test_closure_figures_pass_the_linter(tmp_path):
    files = write_files(tmp_path / "inputs")
    roots = []
    for name, columns in (("good", ()), ("swapped", SWAP)):
        doc, comps = jc.evaluate(jc.ClosureJob(spec(files["samples"], columns=columns), "3", files["iteration"]))
        out = tmp_path / name
        out.mkdir()
        written = {p.name for p in jc.write(out, doc, comps, ["png"], StyleOptions())}
        assert {f"closure_{n}.png" for n in doc["nodes"]} <= written
        roots.append(out / "plots.root")
    records = figlint.lint_records(roots, jobs=1)
    assert records == [], figlint.summarize(records)
