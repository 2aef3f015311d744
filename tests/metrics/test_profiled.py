"""Profiled ROC: the Gaussian closed form, identities, and the envelope's exactness."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import norm

from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.profiled import Nuisance, envelope, profile, summary, trapezoid
from pnetviz.metrics.roc import binary_clf_curve


def sample(scores, is_signal, w=None):
    w = np.ones(scores.size) if w is None else w
    return BinarySample(scores=scores, is_signal=is_signal, weights=w, used=np.abs(w))


def shifted(base: BinarySample, which: np.ndarray, theta: float) -> BinarySample:
    return sample(base.scores + theta * which, base.is_signal, base.weights)


def auc_error(auc: float, n_s: int, n_b: int) -> float:
    """Hanley & McNeil's standard error of an AUC."""
    q1, q2 = auc / (2 - auc), 2 * auc**2 / (1 + auc)
    return math.sqrt((auc * (1 - auc) + (n_s - 1) * (q1 - auc**2) + (n_b - 1) * (q2 - auc**2)) / (n_s * n_b))


@pytest.mark.slow
def test_gaussian_background_shift_matches_the_closed_form():
    rng = np.random.default_rng(11)
    # 200k events: the closed form's 4-sigma band (Hanley-McNeil, 0.0047) is 1/6 of the shift's effect
    # on the AUC (0.729 -> 0.698): a profile that missed or halved the shift (0.713) fails
    n, mu_s, mu_b, sig_s, sig_b, tau, k = 200_000, 1.0, 0.0, 1.0, 1.3, 0.1, 1.5
    is_signal = rng.random(n) < 0.5
    scores = np.where(is_signal, rng.normal(mu_s, sig_s, n), rng.normal(mu_b, sig_b, n))
    nominal = sample(scores, is_signal)
    bkg = ~is_signal
    shift = Nuisance("bkg_shift", "shift", shifted(nominal, bkg, +k * tau), shifted(nominal, bkg, -k * tau))
    prof = profile(nominal, [shift], kappa=k)
    expected = norm.cdf((mu_s - mu_b - k * tau) / math.hypot(sig_s, sig_b))
    error = auc_error(expected, int(is_signal.sum()), int(bkg.sum()))
    assert prof.auc == pytest.approx(expected, abs=4 * error)
    # the worst case is theta = +k tau at every threshold: exactly the shifted sample's curve
    up = binary_clf_curve(scores + k * tau * bkg, is_signal)
    assert prof.auc == pytest.approx(up.auc, abs=1e-12)
    assert prof.auc <= prof.nominal.auc
    numbers = summary(prof)
    assert numbers["variations"]["bkg_shift"]["up"]["auc"] == pytest.approx(up.auc, abs=1e-12)
    assert numbers["impact"]["bkg_shift"]["delta_auc_up"] < 0 < numbers["impact"]["bkg_shift"]["delta_auc_down"]
    assert numbers["profiled"]["rejection"]["0.5"] < numbers["nominal"]["rejection"]["0.5"]


def test_variations_equal_to_nominal_give_the_nominal_curve_exactly():
    rng = np.random.default_rng(2)
    scores = np.round(rng.random(5000), 2)  # many ties
    is_signal = rng.random(5000) < 0.3
    w = rng.uniform(0.1, 2.0, 5000)
    nominal = sample(scores, is_signal, w)
    prof = profile(nominal, [Nuisance("same", "template", nominal, nominal), Nuisance("again", "template", nominal, nominal)], 2.0)
    assert prof.auc == pytest.approx(prof.nominal.auc, abs=1e-15)  # the same curve, summed in another order
    assert prof.nominal.auc == binary_clf_curve(scores, is_signal, w).auc
    numbers = summary(prof)
    for e, value in numbers["nominal"]["rejection"].items():
        assert numbers["profiled"]["rejection"][e] == pytest.approx(value, rel=1e-12)
    assert numbers["configurations"]["count"] == len(numbers["configurations"]["names"]) == 3**2  # the grid


def test_envelope_of_one_curve_is_the_curve():
    rng = np.random.default_rng(3)
    c = binary_clf_curve(np.round(rng.random(3000), 1), rng.random(3000) < 0.5, rng.random(3000))
    fpr, low, high = envelope([(c.fpr, c.tpr)])
    assert trapezoid(fpr, low) == pytest.approx(c.auc, abs=1e-15) and np.array_equal(low, high)


@pytest.mark.parametrize("seed", range(5))
def test_profiled_auc_never_exceeds_nominal(seed):
    rng = np.random.default_rng(seed)
    n = 4000
    is_signal = rng.random(n) < 0.4
    scores = rng.normal(is_signal * 1.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    nominal = sample(scores, is_signal, w)
    jes = Nuisance("jes", "template", sample(scores * 1.05 + 0.05, is_signal, w), sample(scores * 0.95 - 0.05, is_signal, w))
    norm_ = Nuisance("xsec", "template", sample(scores, is_signal, w * np.where(is_signal, 1.0, 1.2)),
                     sample(scores, is_signal, w * rng.uniform(0.7, 1.3, n)))  # fmt: skip
    prof = profile(nominal, [jes, norm_], kappa=1.0)
    assert list(prof.scanned) == ["jes", "xsec"]  # moves scores; moves the weights of both classes
    assert prof.auc <= prof.nominal.auc + 1e-15
    assert np.all(prof.tpr <= prof.best_tpr)


# --- the nuisance box, against brute force ---------------------------------------------------------


def exact_roc(scores, is_signal, w):
    """Exact weighted ROC written out the way scikit-learn does it: one point per distinct score."""
    order = np.argsort(-scores, kind="mergesort")
    s, y, w = scores[order], is_signal[order], w[order]
    last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]  # the last event of every distinct score
    tps = np.r_[0.0, np.cumsum(np.where(y, w, 0.0))[last]]
    fps = np.r_[0.0, np.cumsum(np.where(y, 0.0, w))[last]]
    return fps / fps[-1], tps / tps[-1]


def area(fpr, tpr):
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2)


def lower_envelope_auc(curves):
    """Brute-force profiled AUC: the lowest signal efficiency of `curves` at every background efficiency
    where one of them has a point (left and right limits at vertical steps), trapezoids in between."""
    x = np.unique(np.concatenate([f for f, _ in curves]))
    low = np.full((2, x.size), np.inf)
    for f, t in curves:
        ux, first = np.unique(f, return_index=True)
        last = np.r_[first[1:] - 1, f.size - 1]
        k = np.searchsorted(ux, x, "right") - 1  # ux[k] <= x
        nxt = np.minimum(k + 1, ux.size - 1)
        span = ux[nxt] - ux[k]
        frac = np.divide(x - ux[k], span, out=np.zeros_like(x), where=span > 0)
        between = t[last[k]] + frac * (t[first[nxt]] - t[last[k]])
        on = ux[k] == x
        low = np.minimum(low, [np.where(on, t[first[k]], between), np.where(on, t[last[k]], between)])
    return area(np.repeat(x, 2), low.T.ravel())


def worst_background_auc(signal_scores, signal_w, backgrounds):
    """Brute-force profiled AUC when no nuisance touches the signal: the curves share their signal
    efficiencies, so their lower envelope is the largest background efficiency at every signal score,
    AUC = sum over signal events of w / W_S (1 - max eps_b(score >= s)). backgrounds: (scores, weights)
    of the background events in each configuration (continuous scores: no ties with the signal)."""
    worst = np.zeros(signal_scores.size)
    for scores, w in backgrounds:
        order = np.argsort(scores)
        at_or_above = np.r_[np.cumsum(w[order][::-1])[::-1], 0.0]
        worst = np.maximum(worst, at_or_above[np.searchsorted(scores[order], signal_scores)] / w.sum())
    return float(np.sum(signal_w * (1.0 - worst)) / signal_w.sum())


def moved(theta, base, changes):
    """base + sum_i |theta_i| (change of nuisance i at the side of theta_i), theta in units of kappa."""
    out = np.asarray(base, dtype=np.float64)
    for f, (up, down) in zip(theta, changes):
        if f:
            out = out + abs(f) * (up if f > 0 else down)
    return out


def test_three_one_sided_weight_nuisances_use_the_whole_grid():
    """Three background weight nuisances, each one-sided (Up and Down move the same way): a and c raise
    the background in the signal-like region at both ends (a most at Up, c most at Down), b lowers it at
    both ends. The worst configuration is (a up, b nominal, c down): not among nominal, one at a time and
    the 2^3 corners (the 15 configurations evaluated before), so those gave a profiled AUC too high."""
    rng = np.random.default_rng(7)
    n = 20_000
    is_signal = rng.random(n) < 0.5
    scores = rng.normal(is_signal * 1.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    region = ~is_signal / (1 + np.exp(-3 * (scores - 0.8)))
    tilts = {"a": (0.6, 0.15), "b": (-0.45, -0.35), "c": (0.1, 0.5)}  # relative weight change at theta = +1, -1
    changes = [(up * region * w, down * region * w) for up, down in tilts.values()]
    nuisances = [Nuisance(name, "template", sample(scores, is_signal, w + up), sample(scores, is_signal, w + down))
                 for name, (up, down) in zip(tilts, changes)]  # fmt: skip
    prof = profile(sample(scores, is_signal, w), nuisances, kappa=1.0)

    grid = list(itertools.product((1, 0, -1), repeat=3))
    before = [c for c in grid if np.count_nonzero(c) != 2]  # nominal, one at a time, corners
    assert len(before) == 15

    def brute(configs):
        backgrounds = [(scores[~is_signal], moved(c, w, changes)[~is_signal]) for c in configs]
        return worst_background_auc(scores[is_signal], w[is_signal], backgrounds)

    full, old = brute(grid), brute(before)
    curves = {c: exact_roc(scores, is_signal, moved(c, w, changes)) for c in grid}
    assert lower_envelope_auc(list(curves.values())) == pytest.approx(full, abs=1e-12)  # two brute forces agree
    aucs = {c: area(*curve) for c, curve in curves.items()}
    assert min(aucs, key=aucs.get) == (1, 0, -1)
    assert full < old - 0.01  # 0.6989 against 0.7158: the 15 miss the worst configuration
    assert prof.auc == pytest.approx(full, abs=1e-12)
    assert prof.auc < prof.nominal.auc
    numbers = summary(prof)["configurations"]
    assert numbers["count"] == 27 and len(numbers["names"]) == 27 and numbers["scanned"] == []
    assert numbers["lowest_auc"]["configuration"] == "a up & c down"
    assert numbers["lowest_auc"]["auc"] == pytest.approx(aucs[(1, 0, -1)], abs=1e-12)
    assert "every vertex of {-kappa, 0, +kappa}^3" in numbers["rule"]


@pytest.mark.slow
def test_score_template_worst_inside_its_range_is_found_by_the_theta_scan():
    """A score template that moves two signal populations through the background: at Up, population A
    (above the background at nominal) falls through it early (theta ~ 0.25) and population B (below)
    rises through it late (theta ~ 0.75), so in between both sit on the background: the AUC is lowest
    near theta = 0.45, far below theta = 0 and +1. Two background weight nuisances go with it."""
    rng = np.random.default_rng(5)
    n = 12_000
    is_signal = rng.random(n) < 0.5
    group = rng.integers(0, 4, n)
    pop_a, pop_b = is_signal & (group == 2), is_signal & (group == 3)
    scores = np.select([~is_signal, pop_a, pop_b], [rng.normal(0.4, 0.1, n), rng.normal(0.6, 0.05, n), rng.normal(0.2, 0.05, n)],
                       rng.normal(0.75, 0.1, n))  # fmt: skip
    w = rng.uniform(0.5, 1.5, n)
    score_changes = [(-0.8 * pop_a + 0.27 * pop_b, 0.1 * pop_a - 0.1 * pop_b)]
    region = ~is_signal / (1 + np.exp(-20 * (scores - 0.5)))
    weight_changes = [(0.5 * region * w, 0.1 * region * w), (0.1 * region * w, 0.4 * region * w)]
    nuisances = [Nuisance("jes", "template", sample(scores + score_changes[0][0], is_signal, w),
                          sample(scores + score_changes[0][1], is_signal, w))]  # fmt: skip
    nuisances += [Nuisance(f"bkg{i}", "template", sample(scores, is_signal, w + up), sample(scores, is_signal, w + down))
                  for i, (up, down) in enumerate(weight_changes)]  # fmt: skip
    prof = profile(sample(scores, is_signal, w), nuisances, kappa=1.0)

    # brute force: jes at 41 values over [-1, 1], the weight nuisances at -1, 0, +1
    fine = [(t, i, j) for t in np.round(np.linspace(-1, 1, 41), 12) for i in (1, 0, -1) for j in (1, 0, -1)]
    curves = {c: exact_roc(moved(c[:1], scores, score_changes), is_signal, moved(c[1:], w, weight_changes)) for c in fine}
    aucs = {c: area(*curve) for c, curve in curves.items()}
    scan_min = min(aucs.values())
    worst = min(aucs, key=aucs.get)
    assert 0.3 < worst[0] < 0.6  # inside the range, and much worse than at its ends
    assert scan_min < min(a for c, a in aucs.items() if c[0] in (-1, 0, 1)) - 0.1
    grid = [c for c in fine if c[0] in (-1, 0, 1)]
    assert lower_envelope_auc([curves[c] for c in grid]) > scan_min + 0.05  # the grid alone misses it
    assert prof.auc <= scan_min + 1e-3
    assert prof.auc >= lower_envelope_auc(list(curves.values())) - 2e-3  # the fine scan: a little below all 369
    evaluated = [c for c in fine if c[0] * 4 == round(c[0] * 4)]  # the grid and jes at theta = +-0.25, +-0.5, +-0.75
    assert prof.auc <= lower_envelope_auc([curves[c] for c in evaluated]) + 1e-12
    numbers = summary(prof)["configurations"]
    assert numbers["count"] > len(evaluated) == 27 + 6 * 9 and numbers["scanned"] == ["jes"]
    assert "jes theta=+0.5 & bkg0 up & bkg1 down" in prof.configurations
    assert numbers["lowest_auc"]["auc"] <= min(aucs[c] for c in evaluated)


def test_weight_nuisance_moving_both_classes_is_scanned():
    """Weights of both classes tilted with different normalisation changes: each efficiency is monotone
    in theta at a fixed threshold, but they move at different rates, so a ROC point inside the range
    can fall below the curves at theta = 0 and +-1 (here the AUC at theta ~ 0.5 is the lowest)."""
    rng = np.random.default_rng(1)
    n = 20_000
    is_signal = rng.random(n) < 0.5
    scores = np.clip(rng.normal(np.where(is_signal, 0.65, 0.35), 0.15), 0, 1)
    w = np.ones(n)
    up = np.where(is_signal, 0.7, 1.5) * (1 + 0.5 * (scores - 0.5)) - 1
    down = np.where(is_signal, 1.3, 0.6) * (1 - 0.5 * (scores - 0.5)) - 1
    prof = profile(sample(scores, is_signal, w), [Nuisance("tilt", "template", sample(scores, is_signal, w + up),
                                                           sample(scores, is_signal, w + down))], kappa=1.0)  # fmt: skip
    aucs = {t: area(*exact_roc(scores, is_signal, moved((t,), w, [(up, down)]))) for t in np.round(np.linspace(-1, 1, 81), 12)}
    ends = min(aucs[t] for t in (-1.0, 0.0, 1.0))
    assert min(aucs.values()) < ends - 5e-4  # 0.9209 inside against 0.9219 at theta = +1
    assert prof.auc <= min(aucs.values()) + 1e-4
    assert summary(prof)["configurations"]["scanned"] == ["tilt"]


@pytest.mark.slow
def test_seven_nuisances_use_the_stated_reduction():
    """n = 7 > 6: nominal, one at a time, every pair on the 3x3 grid, the 2^7 corners and each nuisance at
    its own worst value together, plus the scan of the score shift with the others at nominal and at the
    lowest-AUC vertex (the full combination would be 6 x 3^6 configurations)."""
    rng = np.random.default_rng(3)
    n = 4000
    is_signal = rng.random(n) < 0.5
    scores = rng.normal(is_signal * 1.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    bkg = ~is_signal
    region = bkg / (1 + np.exp(-3 * (scores - 0.8)))
    kinds = [(0.3, 0.05), (-0.2, -0.1), (0.05, 0.3)] * 2  # worst at up, at nominal, at down
    changes = [(up * region * w, down * region * w) for up, down in kinds]
    tau = 0.05
    nuisances = [Nuisance(f"n{i}", "template", sample(scores, is_signal, w + up), sample(scores, is_signal, w + down))
                 for i, (up, down) in enumerate(changes)]  # fmt: skip
    nuisances.append(Nuisance("shift_background", "shift", shifted(sample(scores, is_signal, w), bkg, tau),
                              shifted(sample(scores, is_signal, w), bkg, -tau)))  # fmt: skip
    prof = profile(sample(scores, is_signal, w), nuisances, kappa=1.0)

    units = [tuple(s if j == i else 0 for j in range(7)) for i in range(7) for s in (1, -1)]
    pairs = [tuple(a if k == i else b if k == j else 0 for k in range(7))
             for i, j in itertools.combinations(range(7), 2) for a, b in itertools.product((1, -1), repeat=2)]  # fmt: skip
    corners = list(itertools.product((1, -1), repeat=7))
    own_worst = (1, 0, -1, 1, 0, -1, 1)
    vertices = [(0,) * 7, *units, *pairs, *corners, own_worst]
    scan = [(0,) * 6 + (f,) for f in (-0.75, -0.5, -0.25, 0.25, 0.5, 0.75)]
    scan += [own_worst[:6] + (f,) for f in (-0.75, -0.5, -0.25, 0.25, 0.5, 0.75)]
    expected = vertices + scan
    assert len(set(expected)) == len(expected) == 1 + 14 + 84 + 128 + 1 + 12

    def background(c):
        return scores[bkg] + c[6] * tau, moved(c[:6], w, changes)[bkg]

    def brute(configs):
        return worst_background_auc(scores[is_signal], w[is_signal], [background(c) for c in configs])

    assert prof.auc <= brute(expected) + 1e-12  # and every vertex within two of own_worst, the fine scan
    everything = brute(list(itertools.product((1, 0, -1), repeat=7)) + scan)  # 3^7 = 2187 vertices and the scan
    assert everything <= prof.auc + 1e-12  # the reduction can only miss configurations ...
    assert prof.auc == pytest.approx(everything, abs=1e-12)  # ... and here it misses none: own_worst is the worst
    numbers = summary(prof)["configurations"]
    assert numbers["count"] > len(expected) and "names" not in numbers  # too many to list
    assert numbers["scanned"] == ["shift_background"]
    assert numbers["lowest_auc"]["configuration"] == "n0 up & n2 down & n3 up & n5 down & shift_background up"
    assert "n = 7 > 6" in numbers["rule"] and "every pair" in numbers["rule"] and "2^7 = 128 corners" in numbers["rule"]
    assert "at nominal and at the lowest-AUC vertex" in numbers["rule"]
    names = set(prof.configurations)
    assert "n0 up & n6 down" not in names  # n6 is shift_background; pairs of template nuisances:
    assert "n1 down & n4 up" in names and "n0 up & n2 down & n3 up & n5 down & shift_background theta=+0.25" in names

# --- the scripts ---------------------------------------------------------------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from conftest import contract_columns, load_script, write_ntuple  # noqa: E402
from pnetviz.cli.common import run  # noqa: E402
from pnetviz.io.ntuple import read_predictions  # noqa: E402
from pnetviz.demo.trainertree import write_trainer_fold  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = tmp_path_factory.mktemp("syst") / "results"
    write_trainer_fold(base, "Run1E2Mu", "MHc130_MA90", 0, events=4000)
    return base


@pytest.mark.slow
def test_binary_and_multiclass_profiled_outputs(tree, tmp_path):
    common = ["--results-dir", str(tree), "--signal", "MHc130_MA90", "--syst", "all", "--score-shift",
              "background=0.02", "--formats", "png", "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, [*common, "--background", "ttZ", "--output", str(tmp_path / "b")]) == 0
    report = json.loads((tmp_path / "b" / "summary_report.json").read_text())
    syst = report["systematics"]
    for entry in (syst["nominal"], syst["profiled"], *(v for d in syst["variations"].values() for v in d.values())):
        assert all(isinstance(r, float) and r >= 1 for r in entry["rejection"].values())  # never dropped (D3)
    assert [n["name"] for n in syst["nuisances"]] == ["bkgShape", "shift_background"]
    assert syst["nominal"]["auc"] == report["auc"]["test"]
    assert syst["profiled"]["auc"] < syst["nominal"]["auc"]
    assert set(syst["impact"]) == {"bkgShape", "shift_background"}
    # the 3^2 grid, the score shift at 6 interior theta with the background-weight nuisance at -1, 0, +1,
    # then at every kappa/40 (72 more) and 4 bisections (up to 8) with it at its lowest-AUC value
    assert 9 + 6 * 3 + 72 <= syst["configurations"]["count"] <= 9 + 6 * 3 + 72 + 8
    assert syst["configurations"]["scanned"] == ["shift_background"] and "theta scan" in syst["configurations"]["rule"]
    # the weight variation alone at kappa = 1 is the Up template: its AUC from the branch directly
    preds = read_predictions(Path(report["input"]), classes=("s", "b"), score_classes=("signal",), extra=["weight__bkgShapeUp"])
    t = preds.masks["test"]
    up = binary_clf_curve(preds.scores["signal"][t], preds.label[t] == 0, np.abs(preds.extra["weight__bkgShapeUp"][t]))
    assert syst["variations"]["bkgShape"]["up"]["auc"] == pytest.approx(up.auc, abs=1e-12)
    for stem in ("roc_curve_profiled", "rejection_curve_profiled"):
        assert (tmp_path / "b" / f"{stem}.png").stat().st_size > 1000
    assert run(load_script("visualizeMultiClass").main, [*common, "--output", str(tmp_path / "m")]) == 0
    syst = json.loads((tmp_path / "m" / "summary_report.json").read_text())["systematics"]
    assert set(syst) == {"nonprompt", "diboson", "ttX"}
    assert all(s["profiled"]["auc"] <= s["nominal"]["auc"] for s in syst.values())
    assert (tmp_path / "m" / "signal_vs_ttX_roc_curve_profiled.png").exists()


@pytest.mark.parametrize("change, args, message", [
    ({"weight__normUp": "nan"}, ["--syst", "norm"], "'weight__normUp' has 1 NaN/inf"),
    ({"weight__normUp": None}, ["--syst", "all"], "'weight__normDown' has no 'weight__normUp'"),
    ({}, ["--syst", "jes"], "no variation branches for --syst jes; nuisances found: norm"),
    ({}, ["--syst", "all", "--syst-kappa", "0"], "--syst-kappa 0"),
    ({}, ["--score-shift", "background=abc"], "is not a number"),
])  # fmt: skip
def test_bad_variations_are_one_line(tmp_path, capsys, change, args, message):
    cols = contract_columns(n=600, n_classes=2)
    cols["weight__normUp"], cols["weight__normDown"] = cols["weight"] * 1.1, cols["weight"] * 0.9
    for key, value in change.items():
        if value is None:
            cols.pop(key)
        else:
            cols[key] = cols[key].copy()
            cols[key][5] = np.nan
    path = write_ntuple(tmp_path / "v.root", cols)
    assert run(load_script("visualizeBinary").main, ["--predictions", str(path), "--output", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.slow
def test_perfectly_separated_classes_draw_the_profiled_figures(tmp_path):
    """Classes the score separates completely: the background efficiency of every profiled curve is 0
    at every signal efficiency, so the nuisance envelope's rejection is infinite everywhere and the
    band has no point to draw. The evaluation draws the figures without it (it raised a TypeError
    from TGraph(0, [], []) inside the figure, whose half-built canvas then crashed the process when
    the traceback was freed: campaign workers died with SIGSEGV on the demo's best-separated points)."""
    cols = contract_columns(n=600, n_classes=2)
    signal = cols["true_label"] == 0
    assert cols["score_signal"][signal].min() > cols["score_signal"][~signal].max()  # separated
    cols["weight"] = np.abs(cols["weight"]) + 0.1
    cols["weight__normUp"], cols["weight__normDown"] = cols["weight"] * 1.1, cols["weight"] * 0.9
    path = write_ntuple(tmp_path / "v.root", cols)
    out = tmp_path / "o"
    assert run(load_script("visualizeBinary").main, ["--predictions", str(path), "--output", str(out), "--syst", "all",
                                                      "--formats", "png", "--bootstrap", "0", "-q"]) == 0  # fmt: skip
    syst = json.loads((out / "summary_report.json").read_text())["systematics"]
    assert syst["nominal"]["auc"] == syst["profiled"]["auc"] == 1.0
    for stem in ("roc_curve_profiled", "rejection_curve_profiled"):
        assert (out / f"{stem}.png").stat().st_size > 1000
