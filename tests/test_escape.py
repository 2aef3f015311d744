"""escape: hostile names from disk reach LaTeX and CSV as literal text."""

from __future__ import annotations

import pytest

from pnetviz.escape import csv_cell, latex


@pytest.mark.parametrize("name", [r"\input{pwn}", "a\n\\immediate\\write18{rm -rf x}", "50% & $x^2$ #1 ~_{}", "x\r\ny"])
def test_latex_leaves_no_live_markup(name):
    out = latex(name)
    assert "\n" not in out and "\r" not in out
    # every backslash is an escape pnetviz wrote, never the name's own command
    for cmd in ("\\input", "\\immediate", "\\write18"):
        assert cmd not in out
    assert "\\$" in out or "$" not in name
    assert latex("MHc130_MA90") == r"MHc130\_MA90"


@pytest.mark.parametrize("value, expected", [
    ("=1+2", "'=1+2"), ("@SUM(1+1)", "'@SUM(1+1)"), ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
    ("+cmd", "'+cmd"), ("-2+3", "'-2+3"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-2.5", "-2.5"), ("+1e-3", "+1e-3"), ("-inf", "-inf"), ("MHc130_MA90", "MHc130_MA90"), (0.5, 0.5), ("", ""),
])  # fmt: skip
def test_csv_cells_never_start_a_formula(value, expected):
    assert csv_cell(value) == expected
