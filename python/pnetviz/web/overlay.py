"""The overlay page (issue 37, item 2): any models' stored ROC or rejection curves drawn together
by JSROOT, client-side, from their sets' plots.root (no re-evaluation), with a ratio to the first.

The selection is the URL: `overlay.html?curve=roc|rejection&m=<set>&m=<set>...`, each `<set>` a
fold set's `plots.root` relative to the output root, followed by `!<pair>` for a multi-class
model's pair (its graphs are `signal_vs_<pair>/roc_test` and `signal_vs_<pair>/rejection/test`; a
binary set's are `roc/test` and `rejection/test`). The tables of the overview carry a check box per
model (site.js builds the URL); the script is a constant file (no script built from data).

Issue 54: the page draws one canvas as the static ratio figures are drawn (draw.ratio's size,
pads, margins and text sizes; main and ratio pads on one x range), with the CMS label copied from
the first model's stored figure, the ratio on the common grid of the curves' steps (drawn as
steps, never interpolated across a step), every fold or the fold mean and band of each model, and
downloads of the drawing as PDF and SVG made by JSROOT in the browser (web.overlayjs).
"""

from __future__ import annotations

from urllib.parse import quote

from pnetviz.escape import html
from pnetviz.web.overlayjs import OVERLAY_JS

OVERLAY_PAGE = "overlay.html"


def spec(set_rel: str, kind: str, pair: str) -> str:
    """The `m` value of one model: its fold set's plots.root, and the pair for a multi-class set."""
    return f"{set_rel}/plots.root" + (f"!{pair}" if kind == "multiclass" else "")


def overlay_link(prefix: str, specs: list[str], curve: str = "rejection") -> str:
    """A link to the overlay page of these models (from a page `prefix` below the site directory)."""
    query = "&amp;".join(f"m={quote(s, safe='/!')}" for s in specs)
    return f"{prefix}{OVERLAY_PAGE}?curve={curve}&amp;{query}"


def layout(curve: str) -> dict:
    """The overlay canvas's geometry, as draw.ratio.ratio_figure draws a static ratio figure: its
    size, each pad's vertical extent, margins and text scale (ROOT sizes a pad's texts on its
    smaller side), the canvas text sizes, the shared x range; a rejection frame moved right as
    the static one is (room for its log labels)."""
    from pnetviz.draw import ratio  # noqa: PLC0415
    from pnetviz.draw.ratiopanel import READ_FROM_EPS_S  # noqa: PLC0415
    from pnetviz.draw.style import STYLE  # noqa: PLC0415
    from pnetviz.draw.rejection import LOWER_LIMIT  # noqa: PLC0415

    width, height = ratio.RATIO_SIZE
    extra = REJECTION_EXTRA_SPACE if curve == "rejection" else 0.0
    pads = []
    for index, (y1, y2) in enumerate(((ratio.RATIO_HEIGHT, 1.0), (0.0, ratio.RATIO_HEIGHT))):
        scale = min(width, height) / min(width, (y2 - y1) * height)
        pads.append({"y": [y1, y2], "margins": list(ratio.ratio_pad_margins(index, extra_space=extra)), "scale": scale})
    return {"size": [width, height], "pads": pads, "x": [0.0, 1.0], "label": ratio.RATIO_TEXT["label"],
            "title": ratio.RATIO_TEXT["title"], "y_title_offset": ratio.RATIO_TEXT["y_offset"], "x_title_offset": 1.1,
            "label_offset": CMS_LABEL_OFFSET, "tick": CMS_TICK_LENGTH, "legend": STYLE["legend_text_size"],
            "read_from": READ_FROM_EPS_S, "limit_label": LOWER_LIMIT}  # fmt: skip


REJECTION_EXTRA_SPACE = 0.03  # the static rejection figures' frame starts 0.03 further right (labels 10^{2})
CMS_LABEL_OFFSET, CMS_TICK_LENGTH = 0.012, 0.03  # cmsstyle's gStyle label offset and tick length (canvas NDC)


def script(jsroot_base: str, curve: str = "rejection") -> str:
    """overlay.js: the constant script with JSROOT's base and the static figures' layout filled in
    (the layout of `curve`; the page picks the one of its ?curve= at run time)."""
    import json  # noqa: PLC0415

    layouts = {c: layout(c) for c in ("roc", "rejection")}
    return (OVERLAY_JS.replace("@JSROOT@", json.dumps(jsroot_base))
            .replace("@LAYOUT@", f"{json.dumps(layouts)}[new URLSearchParams(window.location.search).get('curve') === 'roc' ? 'roc' : 'rejection']"))  # fmt: skip


def page_body(jsroot_note: str) -> str:
    """The overlay page's body: the curve choice, the drawing (one canvas: the curves over their
    ratio), the models with their fold choice, the downloads, the errors."""
    return ('<p><a href="index.html">overview</a> &middot; curve: <a id="to-roc" href="#">ROC</a> '
            '&middot; <a id="to-rejection" href="#">rejection</a></p><h1>Overlay</h1>'
            '<div id="overlay" style="width: 600px; height: 750px"></div>'
            '<p id="downloads" hidden>Download this figure: <a id="download-pdf" href="#">PDF</a> &middot; '
            '<a id="download-svg" href="#">SVG</a> (drawn by JSROOT in this browser)</p>'
            '<ol id="legend"></ol>'
            f'<p id="error" class="failed"></p><p class="note">{html(jsroot_note)}</p>'
            "<p>Pick models with the check boxes of the overview's tables, then <em>overlay</em>; the address "
            "holds the selection (<code>?curve=roc|rejection&amp;m=&lt;model&gt;/fold-&lt;k&gt;|folds/plots.root[!pair]&amp;m=...</code>); "
            "each model's list entry chooses its fold or the mean over folds with its band. The ratio panel "
            "divides each curve by the first on the common grid of their steps, drawn as steps.</p>")
