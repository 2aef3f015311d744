"""Issue 33, items 2 and 3: distinct encodings (one mapping from meaning to style, as data), bands
told apart where they overlap, working-point lines labelled with their targets, and the rejection
curve's low-statistics region (no background MC event passes) drawn as a lower limit and greyed,
not as a measurement; the cut scan's optimum never where the background runs out."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from pnetviz.draw import plots, rejection
from pnetviz.draw.style import ENCODING_GROUPS, ENCODINGS, StyleOptions, cms_style, color, line_style, meaning_color
from pnetviz.jobs import subsets
from pnetviz.metrics import folds, hep
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.evaluate import evaluate_pair
from pnetviz.metrics.roc import binary_clf_curve
from pnetviz.names import name
from toyrocs import two_rocs


def test_each_meaning_has_its_own_style():
    tuples = [(e.color, e.line, e.marker) for e in ENCODINGS.values()]
    assert len(set(tuples)) == len(tuples)  # no two meanings drawn alike
    assert sorted(m for group in ENCODING_GROUPS.values() for m in group) == sorted(ENCODINGS)
    for group in ENCODING_GROUPS.values():  # within one choice a figure shows: never colour alone
        lines = [ENCODINGS[m].line for m in group if ENCODINGS[m].line]
        assert len(set(lines)) == len(lines), group
    # with / without a flag never reuse the train/test encoding (line vs points): lines all three,
    # all events the solid reference, with and without in line styles no split has
    assert {ENCODINGS[m].marker for m in ENCODING_GROUPS["subset"]} == {0}
    split_lines = {ENCODINGS[m].line for m in ENCODING_GROUPS["split"]}
    assert not split_lines & {ENCODINGS[m].line for m in ("with", "without")}
    assert plots.split_style("train") == 1 and plots.split_style("test") == 2
    assert plots.split_style("multiclass") == ENCODINGS["multiclass"].line != plots.split_style("binary")


def _toy(seed: int = 5, n: int = 4000):
    """Scores, truth, weights and a has_bjet flag; three background events above every signal
    event but one, so that the rejection curve has a region without background."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = np.clip(rng.normal(np.where(y, 0.7, 0.35), 0.15), 0.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    flag = rng.random(n) < 0.5
    split = rng.random(n)
    return s, y, w, flag, {"train": split < 0.5, "test": split >= 0.5}


def _results(s, y, w, masks, keep=None):
    return evaluate_pair(Path("toy.root"), s, y, w, masks, keep, "toy", ("signal", "bkg"))


def test_rejection_limit_starts_exactly_after_the_last_background_event():
    s, y, w, _, masks = _toy()
    results = _results(s, y, w, masks)
    metrics = {sp: {"effective_events": {"background": hep.effective_events(w[masks[sp] & ~y])}} for sp in masks}
    with cms_style(StyleOptions()):
        fig = rejection.figure("rejection_curve", "rejection", results, metrics, ["toy"])
    for sp, m in masks.items():
        sig, bkg = m & y, m & ~y
        edge = w[sig & (s > s[bkg].max())].sum() / w[sig].sum()  # signal above the highest background event
        assert rejection.no_background_edge(results[sp].curve) == pytest.approx(edge, abs=1e-12)
        limit = fig.objects[f"rejection/{sp}_lower_limit"]
        x, ylim = np.frombuffer(limit.GetX(), count=limit.GetN()), np.frombuffer(limit.GetY(), count=limit.GetN())
        assert x[0] == 0.0 and x[-1] == pytest.approx(edge, abs=1e-12)
        assert ylim == pytest.approx(1.0 / hep.eps_b_limit(hep.effective_events(w[bkg])))  # 95% CL lower limit
        assert limit.GetLineStyle() == rejection.LIMIT_LINE != plots.split_style(sp)
        measured = fig.objects[f"rejection/{sp}"]
        mx = np.frombuffer(measured.GetX(), count=measured.GetN())
        assert mx.min() == pytest.approx(edge, abs=1e-12)  # the measurement starts where the limit ends
    band = fig.objects["rejection/no_background"]
    bx = np.frombuffer(band.GetX(), count=band.GetN())
    test_edge = rejection.no_background_edge(results["test"].curve)
    assert bx.min() == 0.0 and bx.max() == pytest.approx(test_edge) and test_edge > 0
    frame = next(o for o in fig.canvas.GetListOfPrimitives() if o.InheritsFrom("TH1"))
    assert frame.GetYaxis().GetTitle() == name("rejection") == "Background rejection 1/#varepsilon_{b}"


def test_subset_comparison_has_all_events_and_its_own_encoding():
    s, y, w, flag, masks = _toy()
    results = _results(s, y, w, masks)

    def evaluate(keep, what):
        return _results(s, y, w, {"test": masks["test"]}, keep)["test"]

    opts = SimpleNamespace(bootstrap=0, seed=1)
    comp = subsets.compare("has_bjet", flag, evaluate, opts, results["test"], 0.01)
    with cms_style(StyleOptions()):
        roc, score = subsets.figures(comp, "roc_bjet", "score_bjet", "compare_bjet", ("Signal", "ttZ"), name("p_signal"), ["toy"])
    for part in ("all", "with", "without"):
        graph = roc.objects[f"compare_bjet/roc_{part}"]
        assert (graph.GetLineColor(), graph.GetLineStyle()) == (meaning_color(part), line_style(part))
        for cls, col in (("signal", color("signal")), ("background", color("background"))):
            hist = score.objects[f"compare_bjet/scores_{part}_{cls}"]
            assert (hist.GetLineColor(), hist.GetLineStyle(), hist.GetMarkerStyle()) == (col, line_style(part), 0)
    labels = [label for _, label, _ in score.legend] or [o.GetLabel() for o in _legend_entries(score)]
    assert labels == ["Signal", "ttZ", "All events", "b jet", "No b jet"]  # colour per class, line style per part
    styles = {label: obj.GetLineStyle() for obj, label, _ in score.legend} if score.legend else \
        {e.GetLabel(): e.GetObject().GetLineStyle() for e in _legend_entries(score)}  # fmt: skip
    assert [styles[k] for k in ("All events", "b jet", "No b jet")] == [line_style(p) for p in ("all", "with", "without")]
    assert results["test"].hist_signal.GetLineStyle() == 1  # the main figure's histogram left as it was


def _legend_entries(fig):
    legend = next(o for o in fig.canvas.GetListOfPrimitives() if o.InheritsFrom("TLegend"))
    return list(legend.GetListOfPrimitives())


def test_working_point_lines_carry_their_targets():
    s, y, w, _, masks = _toy()
    results = _results(s, y, w, masks)
    points = [{"target_eps_s": t, "threshold": float(np.quantile(s[y], 1 - t))} for t in (0.9, 0.7, 0.5)]
    decided = SimpleNamespace(points=points)
    from pnetviz.jobs import decisions  # noqa: PLC0415

    hists = [plots.HistSpec("scores/test_signal", results["test"].hist_signal, "Signal (test)", color("signal"), True)]
    with cms_style(StyleOptions()):
        fig = plots.score_figure("score_distributions", hists, name("p_signal"), ["toy"], **decisions.score_cuts(decided))
    texts = [o.GetTitle() for o in fig.canvas.GetListOfPrimitives() if o.InheritsFrom("TLatex")]
    lines = [o for o in fig.extras if o.InheritsFrom("TGraph") and o.GetTitle().startswith("WP ")]
    assert [o.GetTitle() for o in lines] == [f"WP {100 * p['target_eps_s']:g}%: cut {p['threshold']:.3g}" for p in points]
    for p, line in zip(points, lines, strict=True):
        assert np.frombuffer(line.GetX(), count=line.GetN()) == pytest.approx(p["threshold"])
    labels = [label for _, label, _ in fig.legend] or [e.GetLabel() for e in _legend_entries(fig)]
    assert "WP #varepsilon_{s}: 90,70,50%" in labels  # the targets left to right (cuts ascending: 90% lowest)
    assert not [t for t in texts if t.endswith("%")]  # none written beside the lines (they met the legend)


def test_ratio_bands_are_drawn_and_told_apart():
    ref, other, (sums_ref, sums_other) = two_rocs(6000, 7)
    curves = [plots.CurveSpec("t/roc_a", ref.fpr, ref.tpr, name("binary"), meaning_color("binary"), line_style("binary")),
              plots.CurveSpec("t/roc_b", other.fpr, other.tpr, name("multiclass"), meaning_color("multiclass"), line_style("multiclass"))]
    panel = plots.RatioPanel("binary", [
        plots.RatioSpec("t/ratio_a", folds.roc_ratio(ref, ref, sums_ref), meaning_color("binary"), line_style("binary"), True),
        plots.RatioSpec("t/ratio_b", folds.roc_ratio(other, ref, sums_other), meaning_color("multiclass"), line_style("multiclass"))])
    with cms_style(StyleOptions()):
        fig = plots.roc_figure("roc_comparison", curves, ["toy"], ratio=panel)
        drawn = {o.GetName(): o for o in fig.pads[1].GetListOfPrimitives() if o.InheritsFrom("TGraph")}
    a, b = drawn["t_ratio_a_band"], drawn["t_ratio_b_band"]  # both bands on the ratio pad (they were lost before)
    assert a.GetFillStyle() != 0 and a.GetLineWidth() == 1  # the reference: transparent fill with its outline
    assert b.GetFillStyle() == 0 and b.GetLineWidth() == 1 and b.GetLineColor() == meaning_color("multiclass")  # its edges
    assert fig.objects["t/roc_a"].GetLineStyle() != fig.objects["t/roc_b"].GetLineStyle()  # not colour alone


def test_cut_scan_marks_its_optimum_where_background_passes():
    """One background MC event at the very top: the unconstrained Asimov optimum sits there; the
    figure marks the constrained one, left of the greyed region."""
    rng = np.random.default_rng(3)
    n_s, n_b = 2000, 3000
    s = np.r_[np.clip(rng.normal(0.75, 0.1, n_s), 0, 1), np.clip(rng.normal(0.3, 0.12, n_b - 1), 0, 0.9), 0.999]
    y = np.r_[np.ones(n_s, bool), np.zeros(n_b, bool)]
    w = np.r_[rng.uniform(0.5, 1.5, n_s), rng.uniform(0.5, 1.5, n_b)]
    curve = binary_clf_curve(s, y, w)
    scan = wp.cut_scan(curve, 20.0, 500.0, wp.passing_background_events(s, y, w, curve.thresholds[1:]), 10.0)
    with cms_style(StyleOptions()):
        fig = plots.cut_scan_figure("cut_scan", "cut_scan", scan, f"Cut on {name('p_signal')}", ["toy"], "expected")
    best, free = scan["optimum"]["asimov"]["threshold"], scan["optimum_unconstrained"]["asimov"]["threshold"]
    marks = [o for o in fig.extras if o.InheritsFrom("TGraph") and o.GetLineStyle() == 3 and o.GetN() > 1
             and np.ptp(np.frombuffer(o.GetX(), count=o.GetN())) == 0]  # fmt: skip
    assert [m.GetX()[0] for m in marks] == [pytest.approx(best)] and best < free  # the dotted vertical line
    assert fig.labels["cut_scan/asimov"].endswith(f" at {best:.3g})")  # named in Z_A's entry (one row fewer)
    empty = fig.objects["cut_scan/statistically_empty"]
    assert best < np.frombuffer(empty.GetX(), count=empty.GetN()).min() <= free


def test_working_point_targets_too_close_to_write_go_to_the_legend():
    s, y, w, _, masks = _toy()
    results = _results(s, y, w, masks)
    from pnetviz.jobs import decisions  # noqa: PLC0415

    points = [{"target_eps_s": t, "threshold": c} for t, c in ((0.9, 0.50), (0.7, 0.52), (0.5, 0.54))]
    hists = [plots.HistSpec("scores/test_signal", results["test"].hist_signal, "Signal (test)", color("signal"), True)]
    with cms_style(StyleOptions()):
        fig = plots.score_figure("score_distributions", hists, name("p_signal"), ["toy"], **decisions.score_cuts(SimpleNamespace(points=points)))
    texts = [o.GetTitle() for o in fig.canvas.GetListOfPrimitives() if o.InheritsFrom("TLatex")]
    assert not {"90%", "70%", "50%"} & set(texts)  # no label between lines 0.02 apart
    legend = next(o for o in fig.canvas.GetListOfPrimitives() if o.InheritsFrom("TLegend"))
    assert "WP #varepsilon_{s}: 90,70,50%" in [e.GetLabel() for e in legend.GetListOfPrimitives()]


def test_score_legend_one_entry_per_class_and_one_per_split():
    """4 or more train-line / test-point histograms: one entry per class (its test points over its
    line) and two saying which is which; 2 histograms, or labels off the pattern: one each."""
    from pnetviz.draw.scorelegend import score_legend  # noqa: PLC0415

    h = object()
    specs = [plots.HistSpec(f"k{i}", h, f"{c} ({s})", 1, s == "test") for i, (c, s) in
             enumerate((c, s) for c in ("Signal", "ttZ", "WZ") for s in ("train", "test"))]  # fmt: skip
    entries = score_legend(specs)
    assert [label for _, label, _ in entries] == ["Signal", "ttZ", "WZ", "Lines: train", "Points: test"]
    assert [opt for _, _, opt in entries] == ["lpe", "lpe", "lpe", "", ""]
    assert [label for _, label, _ in score_legend(specs[:2])] == ["Signal (train)", "Signal (test)"]
    odd = [*specs[:3], plots.HistSpec("x", h, "ttZ, all", 1, True)]
    assert [label for _, label, _ in score_legend(odd)] == [s.label for s in odd]
    words = [plots.HistSpec(f"c{i}", h, f"{c} ({s})", 1, s == "samples") for i, (c, s) in
             enumerate((c, s) for c in ("nonprompt", "ttX") for s in ("trainer test", "samples"))]  # fmt: skip
    assert [label for _, label, _ in score_legend(words)] == ["nonprompt", "ttX", "Lines: trainer test", "Points: samples"]
    mixed = [*specs[:2], *words[2:]]  # two pairs of words: one entry each
    assert [label for _, label, _ in score_legend(mixed)] == [s.label for s in mixed]


def test_a_lower_limit_has_one_name_on_every_rejection_figure():
    """The grey region, a split's dotted limit and the fold means' limits: each legend entry of a
    lower limit reads rejection.LOWER_LIMIT (three names before: 'No bkg. event: lower limit',
    'Test: lower limit', 'Dotted: lower limit'); at most one such entry a figure."""
    s, y, w, _, masks = _toy()
    results = _results(s, y, w, masks)
    n_eff = {sp: hep.effective_events(w[masks[sp] & ~y]) for sp in masks}
    for label_limits in (True, False):
        for subset in ({"test": results["test"]}, results):
            specs = rejection.rejection_specs("rej", subset, {k: n_eff[k] for k in subset}, label_limits=label_limits)
            limits = [c.label for c in specs if c.key.endswith("_lower_limit")]
            assert limits and set(limits) <= {rejection.LOWER_LIMIT, ""}
            assert limits.count(rejection.LOWER_LIMIT) == (1 if label_limits else 0)
    metrics = {sp: {"effective_events": {"background": n_eff[sp]}} for sp in masks}
    with cms_style(StyleOptions()):
        fig = rejection.figure("rejection_curve", "rejection", results, metrics, ["toy"])
    labels = [label for _, label, _ in fig.legend] or [o.GetLabel() for o in _legend_entries(fig)]
    assert [t for t in labels if "limit" in t.lower()] == ["Lower limit (95% CL)"] == [rejection.LOWER_LIMIT]
