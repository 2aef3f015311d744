"""escape: hostile names from disk reach LaTeX, CSV, HTML and TLatex as literal text."""

from __future__ import annotations

import pytest

from pnetviz.escape import check_tlatex, csv_cell, html, latex, tlatex


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


@pytest.mark.parametrize("name, expected", [
    ("{}\\", "()/"), ("a_b^c", "a-b-c"), ("#splitline{x}{y}", "No.splitline(x)(y)"), ("ttX", "ttX"), ("x\ny", "x y"),
])  # fmt: skip
def test_tlatex_of_a_raw_name_has_no_control_characters(name, expected):
    assert tlatex(name) == expected


def test_a_raw_name_drawn_by_root_survives(tmp_path):
    """The label that crashed ROOT (exit 129), escaped, draws in a canvas saved as PNG."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    c = ROOT.TCanvas("escape_probe", "", 200, 100)
    text = ROOT.TLatex(0.1, 0.5, tlatex("{}\\"))
    text.Draw()
    c.SaveAs(str(tmp_path / "probe.png"))
    assert (tmp_path / "probe.png").stat().st_size > 0


@pytest.mark.parametrize("label, problem", [("{}\\", "not '\\'"), ("t#bar{t}X}", "closes no"), ("#bar{t", "not closed"),
                                            ("a\x01b", "control character")])  # fmt: skip
def test_labels_the_user_writes_are_checked(label, problem):
    with pytest.raises(ValueError, match="--labels ttX=") as err:
        check_tlatex(label, "--labels ttX=")
    assert problem in str(err.value)
    assert check_tlatex("t#bar{t}X", "x") == "t#bar{t}X"


def test_labels_option_rejects_a_label_root_cannot_draw():
    from pnetviz.errors import InputError  # noqa: PLC0415
    from pnetviz.io.trainer import parse_labels  # noqa: PLC0415

    with pytest.raises(InputError, match=r"--labels ttX= '\{\}\\\\'.*Fix"):
        parse_labels("ttX={}\\")
    assert parse_labels("ttX=t#bar{t}X") == {"ttX": "t#bar{t}X"}


def test_html_entities():
    assert html('<a href="x">&\'</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;&lt;/a&gt;"
