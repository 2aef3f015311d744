"""Draw every stored histogram and graph of ROOT files alone in ROOT's default canvas, as TBrowser's
double-click or `obj.Draw()` in a plain session does, and measure its axis texts by their ink.

Run in its own plain ROOT process (no pnetviz, no cmsstyle: cmsstyle turns on gROOT's ForceStyle,
which would restyle every object read): `python alonecheck.py FILE...` prints ALONE-JSON: and
{"checked": objects checked, "violations": [{file, key, what, detail}]}.

Per object: the default canvas (700 x 500 asked, 696 x 472 drawn in batch, margins 0.1) rendered
three times, as drawn, with both axis titles in a fully transparent colour, with both axes' labels
transparent; the pixels that change are the titles' and the labels' ink. A TH2 is drawn
"colz text" (how one looks at a matrix), anything else with its own option.
- the x title must draw ink below the frame and the y title left of it (not off the canvas);
- no title or label ink (a TH2's palette labels too) may reach the image's edge (cut off: "gnal"
  for "Signal");
- the titles' ink must keep clear of the labels' (TOUCH_PX label pixels within GAP_PX at most).
"""

from __future__ import annotations

import json
import sys

import numpy as np

MARGIN = 0.1  # the default canvas's margins
INK_STEP = 40  # a channel changing by more than this: ink
GAP_PX, TOUCH_PX = 1, 12


def _objects(ROOT, directory, prefix: str = ""):
    for key in directory.GetListOfKeys():
        obj = key.ReadObj()
        name = prefix + key.GetName()
        if obj.InheritsFrom("TDirectory"):
            yield from _objects(ROOT, obj, name + "/")
        elif (obj.InheritsFrom("TH1") or obj.InheritsFrom("TGraph")) and not obj.InheritsFrom("TPad"):
            yield name, obj


def signature(obj) -> tuple:
    """What decides how `obj` draws alone: its class, option, axis titles and whether its axes
    carry bin labels (their widths); objects alike are checked once per file."""
    hist = obj.GetHistogram() if obj.InheritsFrom("TGraph") else obj
    axes = (hist.GetXaxis(), hist.GetYaxis())
    labels = tuple(tuple(a.GetBinLabel(i) for i in range(1, a.GetNbins() + 1)) if a.GetLabels() else () for a in axes)
    option = obj.GetOption() if obj.InheritsFrom("TH1") else ""
    return (obj.ClassName(), option, *(a.GetTitle() for a in axes), labels)


def _render(ROOT, canvas) -> np.ndarray:
    canvas.Modified()
    canvas.Update()
    image = ROOT.TImage.Create()
    image.FromPad(canvas)
    w, h = int(image.GetWidth()), int(image.GetHeight())
    argb = np.frombuffer(image.GetArgbArray(), dtype=np.uint32, count=w * h).reshape(h, w)
    return np.stack([(argb >> 16) & 255, (argb >> 8) & 255, argb & 255], axis=2).astype(np.int16)


def _ink(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b).max(axis=2) > INK_STEP


def _touches_edge(ink: np.ndarray) -> bool:
    return bool(ink[0].any() or ink[-1].any() or ink[:, 0].any() or ink[:, -1].any())


def check_object(ROOT, canvas, obj) -> list[tuple[str, str]]:
    """(what, detail) of each defect of `obj` drawn alone in `canvas`."""
    canvas.Clear()
    canvas.cd()
    option = "colz text" if obj.InheritsFrom("TH2") else (obj.GetOption() if obj.InheritsFrom("TH1") else "")
    obj.Draw(option)
    hist = obj.GetHistogram() if obj.InheritsFrom("TGraph") else obj
    axes = {"x": hist.GetXaxis(), "y": hist.GetYaxis()}
    clear = ROOT.TColor.GetColorTransparent(1, 0.0)
    base = _render(ROOT, canvas)
    colours = {n: (a.GetTitleColor(), a.GetLabelColor()) for n, a in axes.items()}
    for a in axes.values():
        a.SetTitleColor(clear)
    no_titles = _render(ROOT, canvas)
    labelled = {**axes, "z": hist.GetZaxis()} if hist.GetDimension() == 2 else axes  # a TH2's palette: the z labels
    colours["z"] = (0, hist.GetZaxis().GetLabelColor())
    for n, a in axes.items():
        a.SetTitleColor(colours[n][0])
    for a in labelled.values():
        a.SetLabelColor(clear)
    no_labels = _render(ROOT, canvas)
    for n, a in labelled.items():
        a.SetLabelColor(colours[n][1])
    titles, labels = _ink(base, no_titles), _ink(base, no_labels)
    h, w = titles.shape
    out = []
    below, left = titles.copy(), titles.copy()
    below[: int((1 - MARGIN) * h)] = False
    left[:, int(MARGIN * w):] = False
    for name, ink in (("x", below), ("y", left)):
        if axes[name].GetTitle() and not ink.any():
            out.append((f"{name} title", f"'{axes[name].GetTitle()}' draws no ink on the canvas (off the pad)"))
    if _touches_edge(titles):
        out.append(("title", "an axis title reaches the canvas edge (cut off)"))
    if _touches_edge(labels):
        out.append(("labels", "axis labels reach the canvas edge (cut off)"))
    near = titles.copy()
    for dy in range(-GAP_PX, GAP_PX + 1):
        for dx in range(-GAP_PX, GAP_PX + 1):
            near |= np.roll(np.roll(titles, dy, axis=0), dx, axis=1)
    touching = int((near & labels).sum())
    if touching > TOUCH_PX:
        out.append(("overlap", f"an axis title runs into the labels ({touching} label px)"))
    return out


def main(paths: list[str]) -> int:
    import ROOT  # noqa: PLC0415 - a plain session, in this process only

    ROOT.gROOT.SetBatch(True)
    ROOT.gErrorIgnoreLevel = ROOT.kWarning
    canvas = ROOT.TCanvas("c1")  # ROOT's default canvas, as TBrowser makes it
    found, checked = [], 0
    for path in paths:
        f = ROOT.TFile.Open(path)
        seen = set()
        for key, obj in _objects(ROOT, f):
            kind = signature(obj)
            if kind in seen:  # drawn alike: the same class, axis titles and kind of labels
                continue
            seen.add(kind)
            checked += 1
            found += [{"file": path, "key": key, "what": what, "detail": detail} for what, detail in check_object(ROOT, canvas, obj)]
        f.Close()
    print("ALONE-JSON:" + json.dumps({"checked": checked, "violations": found}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
