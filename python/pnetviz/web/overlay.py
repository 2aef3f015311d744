"""The overlay page (issue 37, item 2): any models' stored ROC or rejection curves drawn together
by JSROOT, client-side, from their sets' plots.root (no re-evaluation), with a ratio to the first.

The selection is the URL: `overlay.html?curve=roc|rejection&m=<set>&m=<set>...`, each `<set>` a
fold set's `plots.root` relative to the output root, followed by `!<pair>` for a multi-class
model's pair (its graphs are `signal_vs_<pair>/roc_test` and `signal_vs_<pair>/rejection/test`; a
binary set's are `roc/test` and `rejection/test`). The tables of the overview carry a check box per
model (site.js builds the URL); the script is a constant file (no script built from data).
"""

from __future__ import annotations

from urllib.parse import quote

from pnetviz.escape import html

OVERLAY_PAGE = "overlay.html"


def spec(set_rel: str, kind: str, pair: str) -> str:
    """The `m` value of one model: its fold set's plots.root, and the pair for a multi-class set."""
    return f"{set_rel}/plots.root" + (f"!{pair}" if kind == "multiclass" else "")


def overlay_link(prefix: str, specs: list[str], curve: str = "rejection") -> str:
    """A link to the overlay page of these models (from a page `prefix` below the site directory)."""
    query = "&amp;".join(f"m={quote(s, safe='/!')}" for s in specs)
    return f"{prefix}{OVERLAY_PAGE}?curve={curve}&amp;{query}"


def page_body(jsroot_note: str) -> str:
    """The overlay page's body: the curve choice, the two drawing areas, the legend, the errors."""
    return ('<p><a href="index.html">overview</a> &middot; curve: <a id="to-roc" href="#">ROC</a> '
            '&middot; <a id="to-rejection" href="#">rejection</a></p><h1>Overlay</h1>'
            '<ol id="legend"></ol><div id="overlay" style="width: 900px; height: 520px"></div>'
            '<div id="ratio" style="width: 900px; height: 260px"></div>'
            f'<p id="error" class="failed"></p><p class="note">{html(jsroot_note)}</p>'
            "<p>Pick models with the check boxes of the overview's tables, then <em>overlay</em>; the address "
            "holds the selection (<code>?curve=roc|rejection&amp;m=&lt;fold set&gt;/plots.root[!pair]&amp;m=...</code>).</p>")


OVERLAY_JS = """// Draw the ROC or rejection curves of several plots.root files together, with a ratio to the first.
// ?curve=roc|rejection&m=<plots.root relative to the output root>[!<pair>]&m=...
const base = @JSROOT@, toRoot = '../../';
const params = new URLSearchParams(window.location.search);
const curve = params.get('curve') === 'roc' ? 'roc' : 'rejection';
const specs = params.getAll('m');
const error = document.getElementById('error'), legend = document.getElementById('legend');
const COLORS = [1, 2, 4, 8, 6, 28, 9, 46, 30, 38];
for (const other of ['roc', 'rejection']) {
  const copy = new URLSearchParams(params);
  copy.set('curve', other);
  document.getElementById('to-' + other).href = '?' + copy.toString();
}
function valid(file) {
  const parts = file.split('/');
  return file && !file.startsWith('/') && !parts.includes('..') && !/^[a-z][a-z0-9+.-]*:/i.test(file) && file.endsWith('.root');
}
function item(pair) {
  if (!pair) return curve === 'roc' ? 'roc/test' : 'rejection/test';
  return 'signal_vs_' + pair + (curve === 'roc' ? '/roc_test' : '/rejection/test');
}
function label(file, pair) {
  const parts = file.split('/');
  return parts.slice(-4, -1).join(' / ') + (pair ? ' [' + pair + ']' : '');
}
// y of graph g at x, linear between its points (its x sorted); NaN outside
function at(g, x) {
  const xs = g.fX, ys = g.fY, n = g.fNpoints;
  for (let i = 1; i < n; i++) {
    const lo = Math.min(xs[i - 1], xs[i]), hi = Math.max(xs[i - 1], xs[i]);
    if (x >= lo && x <= hi) {
      if (hi === lo) return ys[i];
      return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
    }
  }
  return NaN;
}
if (!specs.length) {
  error.textContent = 'no model chosen: tick models in the overview tables and press overlay (or give ?m=<fold set>/plots.root)';
} else {
  try {
    const jsroot = await import(base + 'modules/main.mjs');
    jsroot.settings.SmallPad = null;
    if (jsroot.gStyle) Object.assign(jsroot.gStyle, {fPadBottomMargin: 0.16, fPadLeftMargin: 0.12});
    const graphs = [];
    for (const [i, s] of specs.entries()) {
      const [file, pair] = s.split('!');
      if (!valid(file)) throw new Error('not a .root file under the output directory: ' + file);
      const f = await jsroot.openFile(toRoot + file.split('/').map(encodeURIComponent).join('/'));
      const g = await f.readObject(item(pair));
      g.fLineColor = COLORS[i % COLORS.length];
      g.fLineWidth = 2;
      g.fLineStyle = 1;
      g.fTitle = label(file, pair);
      graphs.push(g);
      const li = document.createElement('li');
      li.textContent = g.fTitle;
      li.style.color = ['black', 'red', 'blue', 'green', 'magenta', 'brown', 'navy', 'maroon', 'olive', 'teal'][i % 10];
      legend.appendChild(li);
    }
    const mg = jsroot.createTMultiGraph(...graphs);
    mg.fTitle = curve === 'roc' ? ';background efficiency;signal efficiency' : ';signal efficiency;background rejection';
    await jsroot.draw('overlay', mg, curve === 'rejection' ? 'A L logy' : 'A L');
    const ratios = graphs.slice(1).map(g => {
      const xs = [], ys = [];
      for (let k = 0; k < g.fNpoints; k++) {
        const ref = at(graphs[0], g.fX[k]);
        if (Number.isFinite(ref) && ref > 0 && Number.isFinite(g.fY[k])) { xs.push(g.fX[k]); ys.push(g.fY[k] / ref); }
      }
      const r = jsroot.createTGraph(xs.length, xs, ys);
      r.fLineColor = g.fLineColor;
      r.fLineWidth = 2;
      return r;
    }).filter(r => r.fNpoints > 1);
    if (ratios.length) {
      const rg = jsroot.createTMultiGraph(...ratios);
      rg.fTitle = ';' + (curve === 'roc' ? 'background efficiency' : 'signal efficiency') + ';ratio to the first';
      await jsroot.draw('ratio', rg, 'A L');
    }
    document.body.dataset.curves = String(graphs.length);
  } catch (err) {
    error.textContent = 'cannot draw the overlay: ' + err + ' (without a local JSROOT: --jsroot DIR, see docs/web-report.md)';
  }
}
"""
