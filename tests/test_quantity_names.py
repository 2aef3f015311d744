"""Issue 33, item 4: one name per quantity, from one table (pnetviz.names) used by plots, tables,
the web report and ROOT titles; the figure names and meanings table is that data structure, and
docs/figure-table.md is made from it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pnetviz
from pnetviz import names
from pnetviz.cli.main import main
from pnetviz.rootenv import root

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(pnetviz.__file__).parent

# the variants the table replaced: none may reach a plot, table, report or ROOT title again
OLD_VARIANTS = ("P(Signal)", "Multi-class LR", "multi-class LR", "Rejection (1/", "(1/#varepsilon", "1/ #varepsilon",
                "m(H^{+})", "m(H^{{+}})", "$m_A$", "Background rejection (")  # fmt: skip


def test_figure_table_file_is_made_from_the_data_structure():
    text = (REPO / "docs" / "figure-table.md").read_text(encoding="utf-8")
    assert text == names.figure_table_markdown(), "regenerate: python -m pnetviz.names docs/figure-table.md"
    for entry in names.FIGURES:  # every figure, its meaning and its writer on a row of the file
        assert f"| {entry.meaning} | {entry.written_by} |" in text
    assert "| rejection | `Background rejection 1/#varepsilon_{b}` |" in text


def test_each_quantity_has_one_name_per_target():
    assert names.name("p_signal") == "P(signal)"
    assert names.name("rejection") == "Background rejection 1/#varepsilon_{b}"
    assert names.name("multiclass") == "Multi-class"
    assert names.name("mhc") == "m(H^{#pm}) [GeV]" and names.name("ma") == "m(A) [GeV]"
    assert names.name("mhc", "latex") == r"$m_{H^\pm}$ [GeV]" and names.symbol("ma", "latex") == "$m_{A}$"
    assert names.signal_point(130, 90) == "m(H^{#pm}) = 130 GeV, m(A) = 90 GeV"
    for n in names.QUANTITIES.values():
        assert all(getattr(n, t) for t in names.TARGETS)
    roots = [n.root for n in names.QUANTITIES.values()]
    assert len(set(roots)) == len(roots)  # no two quantities share a name


def _string_constants(path: Path) -> list[str]:
    """The string literals of a module that are not docstrings (they reach output)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}  # fmt: skip
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_no_old_variant_of_a_name_is_left_in_the_package():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for text in _string_constants(path):
            found += [f"{path.relative_to(PACKAGE)}: {old!r} in {text[:60]!r}" for old in OLD_VARIANTS if old in text]
    assert not found, "\n".join(found)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One binary, one multi-class and one comparison set of a small demo (canvases only)."""
    tmp = tmp_path_factory.mktemp("names")
    results = tmp / "results"
    assert main(["demo", "--events", "300", "--folds", "1", "--signals", "MHc130_MA90", "--channels", "Run3Mu", "--no-ga",
                 "--output", str(results)]) == 0  # fmt: skip
    common = ["--results-dir", str(results), "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--formats", "none", "-q"]
    out = {}
    for kind, extra in (("binary", ["--background", "ttZ", "--syst", "all"]), ("multiclass", []), ("compare", [])):
        out[kind] = tmp / kind
        assert main([kind, *common, *extra, "--output", str(out[kind])]) == 0
    return out


def _canvases(path: Path) -> dict:
    f = root().TFile.Open(str(path / "plots.root"))
    found = {k.GetName(): k.ReadObj() for k in f.Get("canvases").GetListOfKeys()}
    return found


def _frame(pad):
    return next(p for p in pad.GetListOfPrimitives() if p.InheritsFrom("TH1"))


def test_every_written_figure_is_in_the_table(runs):
    missing = [name for run in runs.values() for name in _canvases(run) if names.figure_entry(name) is None]
    assert not missing, missing


def test_stored_root_titles_use_the_table(runs):
    binary, multi, compare = (_canvases(runs[k]) for k in ("binary", "multiclass", "compare"))
    assert _frame(binary["rejection_curve"]).GetYaxis().GetTitle() == names.name("rejection")
    assert _frame(binary["score_distributions"]).GetXaxis().GetTitle() == names.name("p_signal")
    assert _frame(binary["cut_scan"]).GetXaxis().GetTitle() == f"Cut on {names.name('p_signal')}"
    assert _frame(binary["calibration"]).GetXaxis().GetTitle() == "Predicted P(signal)"
    assert _frame(multi["signal_vs_ttX_psignal_distribution"]).GetXaxis().GetTitle() == "P(signal)"
    assert _frame(multi["signal_vs_ttX_lr_score_distribution"]).GetXaxis().GetTitle().startswith("P(signal) / (P(signal) + ")
    main_pad = compare["signal_vs_ttZ_rejection_comparison"].GetListOfPrimitives().At(0)
    assert _frame(main_pad).GetYaxis().GetTitle() == names.name("rejection")
    shown = _texts(main_pad)
    assert {"Binary", "Multi-class"} <= set(shown) and not [t for t in shown if "LR" in t]
    # the context (signal point, pair and score) is on the canvas where the frame has room, else the figure's
    # caption (draw.layout.boxed_figure): where it is drawn, it uses the table's names
    point = names.signal_point(130, 90)
    for pad, pair in ((binary["rejection_curve"], None), (multi["signal_vs_ttX_rejection_curve"], "vs t#bar{t}X")):
        shown = _texts(pad)
        assert all(point in t for t in shown if "GeV" in t), shown
        assert all(pair in t for t in shown if pair and " vs " in t), shown


def _texts(pad) -> list[str]:
    """The texts a pad shows: its TLatex and its legends' entries."""
    out = []
    for p in pad.GetListOfPrimitives():
        if p.InheritsFrom("TLatex"):
            out.append(p.GetTitle())
        elif p.InheritsFrom("TLegend"):
            out += [e.GetLabel() for e in p.GetListOfPrimitives()]
    return out


def test_a_kern_in_a_label_is_a_shift_not_text():
    """A TLatex #kern (or #lower) shifts what follows: it counts no characters in a box's width
    and shows nothing in plain text."""
    from pnetviz.draw.geometry import visible_length
    from pnetviz.escape import plain_text

    label = "1/#kern[-0.3]{#varepsilon_{b}} and #lower[0.2]{x}"
    assert visible_length(label) == visible_length("1/#varepsilon_{b} and x") == len("1/eb and x")
    assert plain_text(label) == "1/\u03b5b and x"
