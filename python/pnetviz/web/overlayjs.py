"""overlay.js, the overlay page's constant script (web.overlay): one canvas as the static ratio
figures draw it (draw.ratio.ratio_figure: its size, pads, margins and text sizes, given as
@LAYOUT@), the CMS label copied from the first model's stored figure, the ratio of every curve to
the first evaluated on the common grid of their steps and drawn as steps, every fold or the fold
mean and its band selectable per model, and the drawing as SVG and PDF (JSROOT's own export).
"""

from __future__ import annotations

from pnetviz.web.siteassets import AS_ROOT_DRAWS_JS

OVERLAY_JS = """// Draw the ROC or rejection curves of several plots.root files in one canvas, with a ratio to the first.
// ?curve=roc|rejection&m=<set>/plots.root[!<pair>]&m=..., <set> a model's fold-<k> or folds (mean and band)
const base = @JSROOT@, toRoot = '../../', LAYOUT = @LAYOUT@;
const params = new URLSearchParams(window.location.search);
const curve = params.get('curve') === 'roc' ? 'roc' : 'rejection';
const specs = params.getAll('m');
const error = document.getElementById('error'), legend = document.getElementById('legend');
const COLORS = [1, 2, 4, 8, 6, 28, 9, 46, 30, 38];
const CSS = ['black', 'red', 'blue', 'green', 'magenta', 'brown', 'navy', 'maroon', 'olive', 'teal'];
const HATCHES = [3004, 3005, 3006, 3007, 3013, 3004, 3005, 3006, 3007, 3013];
const XTITLE = curve === 'roc' ? 'Background efficiency (FPR)' : 'Signal efficiency (TPR)';
const YTITLE = curve === 'roc' ? 'Signal efficiency (TPR)' : 'Background rejection 1/#varepsilon_{b}';
for (const other of ['roc', 'rejection']) {
  const copy = new URLSearchParams(params);
  copy.set('curve', other);
  document.getElementById('to-' + other).href = '?' + copy.toString();
}
function valid(file) {
  const parts = file.split('/');
  return file && !file.startsWith('/') && !parts.includes('..') && !/^[a-z][a-z0-9+.-]*:/i.test(file) && file.endsWith('.root');
}
function url(file) { return toRoot + file.split('/').map(encodeURIComponent).join('/'); }
// the objects of one model: its fold's test curve, or the fold mean and band of its folds/ set
function items(file, pair) {
  const folds = file.split('/').slice(-2)[0] === 'folds';
  const rejection = curve === 'rejection';
  if (folds) {
    const dir = pair ? 'signal_vs_' + pair + '_folds/' : 'folds/';
    return {line: dir + curve + '_mean_test', band: dir + curve + '_band_test', limit: rejection ? dir + 'rejection_limit_test' : null};
  }
  const dir = pair ? 'signal_vs_' + pair + '/' : '';
  if (!rejection) return {line: dir + (pair ? 'roc_test' : 'roc/test')};
  return {line: dir + 'rejection/test', limit: dir + 'rejection/test_lower_limit'};
}
function label(file, pair) {
  const parts = file.split('/');
  const set = parts.slice(-2)[0];
  return parts.slice(-4, -2).join(' / ') + (pair ? ' [' + pair + ']' : '') + ' / ' + (set === 'folds' ? 'mean over folds' : set);
}
// the words of each label that not every label shares (the canvas's legend; the page lists the whole names)
function shortLabels(labels) {
  const words = labels.map(l => l.split(/[ /-]+/).filter(Boolean));
  const common = words.length > 1 ? words[0].filter(w => words.every(ws => ws.includes(w))) : [];
  return words.map((ws, i) => {
    const kept = ws.filter(w => !common.includes(w)).join(' ');
    const text = (i + 1) + ': ' + (kept || labels[i]).replace('mean over folds', 'mean #pm std');
    return text.length > 30 ? text.slice(0, 3) + '...' + text.slice(-24) : text;
  });
}
// y of graph (xs, ys) at x: on the segment holding x that is not vertical, linear along it (a step
// curve's flat part: its value); NaN outside the curve
function valueAt(xs, ys, x) {
  for (let i = 1; i < xs.length; i++) {
    const lo = Math.min(xs[i - 1], xs[i]), hi = Math.max(xs[i - 1], xs[i]);
    if (hi > lo && x >= lo && x <= hi) return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
  }
  return NaN;
}
// the common grid of two curves: every x where either steps, and 100 even steps between (sloped parts)
function gridEdges(a, b, lo, hi) {
  const edges = new Set();
  for (const x of [...a, ...b]) if (x >= lo && x <= hi) edges.add(x);
  for (let k = 0; k <= 100; k++) edges.add(lo + (hi - lo) * k / 100);
  return [...edges].sort((p, q) => p - q);
}
// values / reference on each bin of the common grid (at its centre), as steps: [[x, y], ...] runs,
// a run broken where the ratio is undefined (no reference, or outside either curve)
function stepRatio(curveXY, refXY, lo, hi, values = curveXY) {
  const edges = gridEdges(curveXY[0], refXY[0], lo, hi), runs = [];
  let run = [];
  for (let k = 1; k < edges.length; k++) {
    const mid = 0.5 * (edges[k - 1] + edges[k]);
    const ref = valueAt(refXY[0], refXY[1], mid), value = valueAt(values[0], values[1], mid);
    const ratio = Number.isFinite(ref) && ref > 0 && Number.isFinite(value) ? value / ref : NaN;
    if (!Number.isFinite(ratio)) {
      if (run.length) runs.push(run);
      run = [];
      continue;
    }
    run.push([edges[k - 1], ratio], [edges[k], ratio]);
  }
  if (run.length) runs.push(run);
  return runs;
}
// a physical range holding 1 and the ratios from x >= from (1st to 99th percentile), 10% margins,
// ends on a round step (as draw.ratiopanel.ratio_range)
function ratioRange(runs, from) {
  const v = [1];
  for (const run of runs) for (const [x, y] of run) if (x >= from) v.push(y);
  v.sort((p, q) => p - q);
  const pick = q => v[Math.min(v.length - 1, Math.max(0, Math.round(q * (v.length - 1))))];
  let lo = Math.min(pick(0.01), 1), hi = Math.max(pick(0.99), 1);
  const span = Math.max(hi - lo, 0.1);
  lo = Math.max(lo - 0.1 * span, 0);
  hi = hi + 0.1 * span;
  const step = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10].find(s => (hi - lo) / s <= 4);
  if (!step) return [lo, hi];
  return [Math.max(Math.floor(lo / step + 1e-9) * step, 0), Math.ceil(hi / step - 1e-9) * step];
}
// the CMS label of a stored figure of `file` (its TLatex texts above the frame), placed in a pad
// of w x h px as it stands there: same px from the top, from the frame's left edge (left-aligned
// texts) or from the right edge (right-aligned), same px size
async function cmsLabel(jsroot, file, w, h, left) {
  const dir = await file.readDirectory('canvases');
  const names = (dir?.fKeys || []).map(k => k.fName);
  const name = names.find(n => n.endsWith(curve + '_curve')) || names.find(n => n.endsWith(curve + '_curve_folds')) || names[0];
  if (!name) return [];
  const canvas = await file.readObject('canvases/' + name);
  const holders = [canvas, ...(canvas.fPrimitives?.arr || []).filter(p => p._typename === 'TPad')];
  for (const pad of holders) {
    const texts = (pad.fPrimitives?.arr || []).filter(p => p._typename === 'TLatex' && (p.fBits & (1 << 14)));
    const cms = texts.find(t => t.fTitle === 'CMS') || texts.find(t => (t.fTextAlign % 10) === 1 && Math.floor(t.fTextAlign / 10) === 1);
    if (!cms) continue;
    const pw = (pad === canvas ? 1 : pad.fAbsWNDC) * canvas.fCw, ph = (pad === canvas ? 1 : pad.fAbsHNDC) * canvas.fCh;
    const cmsX = cms.fX * pw;
    return texts.map(t => {
      const out = jsroot.create('TLatex');
      Object.assign(out, {fTitle: t.fTitle, fTextFont: t.fTextFont, fTextAlign: t.fTextAlign, fTextColor: t.fTextColor,
                          fTextSize: t.fTextSize * Math.min(pw, ph) / Math.min(w, h), fBits: out.fBits | (1 << 14)});
      out.fX = Math.floor(t.fTextAlign / 10) === 3 ? 1 - (pw - t.fX * pw) / w : left + (t.fX * pw - cmsX) / w;
      out.fY = 1 - (1 - t.fY) * ph / h;
      return out;
    });
  }
  return [];
}
function graph(jsroot, xs, ys, color, width) {
  const g = jsroot.createTGraph(xs.length, xs, ys);
  Object.assign(g, {fLineColor: color, fLineWidth: width, fLineStyle: 1, fMarkerColor: color, fFillColor: color, fFillStyle: 0});
  return g;
}
// an empty frame of x range x and y range y in pad `index` of the layout, with its axis texts
function frame(jsroot, index, x, y, xtitle, ytitle) {
  const L = LAYOUT, pad = L.pads[index];
  const h = jsroot.createHistogram('TH1F', 1);
  Object.assign(h, {fName: 'frame_' + index, fTitle: '', fMinimum: y[0], fMaximum: y[1], fBits: h.fBits | (1 << 9) | (1 << 17)});
  Object.assign(h.fXaxis, {fXmin: x[0], fXmax: x[1], fTitle: xtitle, fNdivisions: 505, fTitleSize: L.title * pad.scale,
                           fLabelSize: xtitle ? L.label * pad.scale : 0, fLabelOffset: L.label_offset * pad.scale,
                           fTitleOffset: L.x_title_offset, fTickLength: L.tick * pad.scale, fLabelFont: 42, fTitleFont: 42});
  Object.assign(h.fYaxis, {fTitle: ytitle, fNdivisions: index ? 504 : 510, fTitleSize: L.title * pad.scale,
                           fLabelSize: L.label * pad.scale, fLabelOffset: L.label_offset, fTitleOffset: L.y_title_offset / pad.scale,
                           fTickLength: L.tick, fLabelFont: 42, fTitleFont: 42});
  return h;
}
function newPad(jsroot, index, logy) {
  const p = LAYOUT.pads[index], pad = jsroot.create('TPad');
  Object.assign(pad, {fName: index ? 'ratio' : 'main', fXlowNDC: 0, fYlowNDC: p.y[0], fWNDC: 1, fHNDC: p.y[1] - p.y[0],
                      fAbsXlowNDC: 0, fAbsYlowNDC: p.y[0], fAbsWNDC: 1, fAbsHNDC: p.y[1] - p.y[0],
                      fLeftMargin: p.margins[0], fRightMargin: p.margins[1], fBottomMargin: p.margins[2], fTopMargin: p.margins[3],
                      fLogy: logy ? 1 : 0, fTickx: 1, fTicky: 1, fFillColor: 0, fBorderMode: 0, fBorderSize: 0,
                      fFrameFillColor: 0, fFrameBorderMode: 0, fFrameLineColor: 1});
  return pad;
}
// the band polygon (upper edge forward, lower back) as its two edges [[xs, ys], [xs, ys]]
function bandEdges(b) {
  const n = Math.floor(b.fNpoints / 2), xs = Array.from(b.fX), ys = Array.from(b.fY);
  return [[xs.slice(0, n), ys.slice(0, n)], [xs.slice(n).reverse(), ys.slice(n).reverse()]];
}
async function folds(modelDir) {  // the folds of a model (its folds/ summary), [] when it has none
  try {
    const response = await fetch(url(modelDir + '/folds/summary_report.json'));
    const list = response.ok ? (await response.json())?.folds : null;
    return Array.isArray(list) ? list.filter(k => Number.isInteger(k)) : [];
  } catch (err) {
    return [];
  }
}
// the model's entry of the page's list: its colour, its whole name, and its set (a fold or the mean) to choose
async function listEntry(i, file, pair) {
  const li = document.createElement('li'), parts = file.split('/'), modelDir = parts.slice(0, -2).join('/');
  li.style.color = CSS[i % CSS.length];
  li.append(label(file, pair) + ' ');
  const select = document.createElement('select');
  select.className = 'fold';
  const known = await folds(modelDir), suffix = pair ? '!' + pair : '';
  const choices = [['folds', 'mean over folds (band: std)'], ...known.map(k => ['fold-' + k, 'fold ' + k])];
  if (!choices.some(([set]) => set === parts.slice(-2)[0])) choices.push([parts.slice(-2)[0], parts.slice(-2)[0]]);
  for (const [set, text] of choices) {
    const chosen = set === parts.slice(-2)[0];
    const option = new Option(text, modelDir + '/' + set + '/plots.root' + suffix, chosen, chosen);
    select.add(option);
  }
  select.addEventListener('change', () => {
    const copy = new URLSearchParams();
    copy.set('curve', curve);
    specs.forEach((s, k) => copy.append('m', k === i ? select.value : s));
    window.location.search = copy.toString();
  });
  li.appendChild(select);
  legend.appendChild(li);
}
function toDataUrl(type, bytes) {
  let text = '';
  const view = new Uint8Array(bytes);
  for (let k = 0; k < view.length; k += 0x8000) text += String.fromCharCode(...view.subarray(k, k + 0x8000));
  return 'data:' + type + ';base64,' + btoa(text);
}
// the page's @font-face rules (ROOT's TeX Gyre Heros for JSROOT's "Arial") with each font file
// inlined: the downloaded SVG draws in ROOT's font on a machine without Arial too
async function embeddedFonts() {
  let rules = [...document.querySelectorAll('style')].map(s => s.textContent).join('\\n');
  for (const href of new Set([...rules.matchAll(/url\\("([^"]+\\.otf)"\\)/g)].map(m => m[1]))) {
    try {
      const response = await fetch(href);
      if (response.ok) rules = rules.split('url("' + href + '")').join('url("' + toDataUrl('font/otf', await response.arrayBuffer()) + '")');
    } catch (err) {
      // that font left out: the viewer's Arial
    }
  }
  return rules;
}
async function downloads(jsroot, canvas) {
  const size = {object: canvas, width: LAYOUT.size[0], height: LAYOUT.size[1]};
  const fonts = await embeddedFonts();
  const svg = (await jsroot.makeImage({...size, format: 'svg'})).replace(/^<svg[^>]*>/, open => open + '<defs><style>' + fonts + '</style></defs>');
  const svgLink = document.getElementById('download-svg');
  svgLink.href = toDataUrl('image/svg+xml', new TextEncoder().encode(svg));
  svgLink.download = 'overlay_' + curve + '.svg';
  // svg2pdf (JSROOT's PDF) loses a rotated title holding a subscript: the PDF's y title in plain text
  const yaxis = canvas.fPrimitives.arr[0].fPrimitives.arr[0].fYaxis, title = yaxis.fTitle;
  yaxis.fTitle = title.replace(' 1/#varepsilon_{b}', '');
  const pdf = await jsroot.makeImage({...size, format: 'pdf', as_buffer: true});
  yaxis.fTitle = title;
  const pdfLink = document.getElementById('download-pdf');
  pdfLink.href = toDataUrl('application/pdf', pdf);
  pdfLink.download = 'overlay_' + curve + '.pdf';
  document.getElementById('downloads').hidden = false;
}
if (!specs.length) {
  error.textContent = 'no model chosen: tick models in the overview tables and press overlay (or give ?m=<fold set>/plots.root)';
} else {
  try {
    const jsroot = await import(base + 'modules/main.mjs');
    jsroot.settings.SmallPad = null;
    Object.assign(jsroot.gStyle, {fOptStat: 0, fOptTitle: 0});
    const loaded = [];
    for (const [i, s] of specs.entries()) {
      const [file, pair] = s.split('!');
      if (!valid(file)) throw new Error('not a .root file under the output directory: ' + file);
      const f = await jsroot.openFile(url(file));
      const names = items(file, pair);
      const line = await f.readObject(names.line);
      const band = names.band ? await f.readObject(names.band) : null;
      // the lower limit where no background event passes (drawn dotted, as the static figures do); a set may have none
      const limit = names.limit ? await f.readObject(names.limit).catch(() => null) : null;
      loaded.push({file, pair, f, line: [Array.from(line.fX), Array.from(line.fY)], band: band ? bandEdges(band) : null,
                   limit: limit ? [Array.from(limit.fX), Array.from(limit.fY)] : null});
      await listEntry(i, file, pair);
    }
    const L = LAYOUT, x = L.x, short = shortLabels(loaded.map(m => label(m.file, m.pair)));
    const canvas = jsroot.create('TCanvas');
    Object.assign(canvas, {fName: 'overlay', fCw: L.size[0], fCh: L.size[1], fFillColor: 0, fBorderMode: 0});
    const main = newPad(jsroot, 0, curve === 'rejection'), ratio = newPad(jsroot, 1, false);
    canvas.fPrimitives.Add(main, '');
    canvas.fPrimitives.Add(ratio, '');
    const all = loaded.flatMap(m => [m.line[1], ...(m.band ? m.band.map(e => e[1]) : [])].flat()).filter(Number.isFinite);
    const yMain = curve === 'roc' ? [0, 1.02] : [1, Math.max(10, ...all) * 3];
    main.fPrimitives.Add(frame(jsroot, 0, x, yMain, '', YTITLE), 'AXIS');
    const leg = jsroot.create('TLegend');
    Object.assign(leg, {fX1NDC: curve === 'roc' ? 0.45 : L.pads[0].margins[0] + 0.03, fX2NDC: curve === 'roc' ? 0.93 : L.pads[0].margins[0] + 0.51, fMargin: 0.2,
                        fY1NDC: 0.05, fY2NDC: 0.05 + 0.06 * loaded.length, fBorderSize: 0, fFillStyle: 0, fTextFont: 42, fTextAlign: 12,
                        fTextSize: L.legend * L.pads[0].scale});
    const ratioRuns = [];
    let limitShown = null;
    for (const [i, m] of loaded.entries()) {
      const color = COLORS[i % COLORS.length];
      if (m.band) {
        const b = graph(jsroot, [...m.band[0][0], ...m.band[1][0].slice().reverse()], [...m.band[0][1], ...m.band[1][1].slice().reverse()], color, 1);
        Object.assign(b, {fFillStyle: HATCHES[i % HATCHES.length], fLineWidth: 0});
        main.fPrimitives.Add(b, 'F');
      }
      if (m.limit) {
        const lim = graph(jsroot, m.limit[0], m.limit[1], color, 1);
        lim.fLineStyle = 3;
        main.fPrimitives.Add(lim, 'L');
        limitShown = limitShown || lim;
      }
      const g = graph(jsroot, m.line[0], m.line[1], color, 2);
      g.fTitle = short[i];
      main.fPrimitives.Add(g, 'L');
      const entry = jsroot.create('TLegendEntry');
      Object.assign(entry, {fLabel: short[i], fObject: g, fOption: 'l', fTextFont: 42, fTextSize: 0});
      leg.fPrimitives.Add(entry, '');
      if (i === 0 && !m.band) continue;
      const ref = loaded[0].line;
      const runs = i === 0 ? [] : stepRatio(m.line, ref, x[0], x[1]);
      ratioRuns.push(...runs.map(run => ({run, color})));
      if (m.band) {  // the band's edges over the reference
        for (const edge of m.band) {
          const edgeRuns = stepRatio(edge, ref, x[0], x[1]);
          ratioRuns.push(...edgeRuns.map(run => ({run, color, edge: true})));
        }
      }
    }
    if (limitShown) {  // one entry says what dotted means
      const entry = jsroot.create('TLegendEntry');
      Object.assign(entry, {fLabel: LAYOUT.limit_label, fObject: limitShown, fOption: 'l', fTextFont: 42, fTextSize: 0});
      leg.fPrimitives.Add(entry, '');
      leg.fY2NDC += 0.06;
    }
    main.fPrimitives.Add(leg, '');
    for (const t of await cmsLabel(jsroot, loaded[0].f, L.size[0], (L.pads[0].y[1] - L.pads[0].y[0]) * L.size[1], L.pads[0].margins[0]))
      main.fPrimitives.Add(t, '');
    const yRatio = ratioRange(ratioRuns.filter(r => !r.edge).map(r => r.run), curve === 'rejection' ? L.read_from : x[0]);
    ratio.fPrimitives.Add(frame(jsroot, 1, x, yRatio, XTITLE, 'Ratio'), 'AXIS');
    const one = graph(jsroot, x, [1, 1], 1, 1);
    one.fLineStyle = 2;
    ratio.fPrimitives.Add(one, 'L');
    const steps = [];
    for (const {run, color, edge} of ratioRuns) {
      const clipped = run.map(([rx, ry]) => [rx, Math.min(Math.max(ry, yRatio[0]), yRatio[1])]);
      const g = graph(jsroot, clipped.map(p => p[0]), clipped.map(p => p[1]), color, edge ? 1 : 2);
      if (edge) g.fLineStyle = 3;
      ratio.fPrimitives.Add(g, 'L');
      if (!edge) steps.push(run);
    }
    document.getElementById('overlay').dataset.ratioSteps = JSON.stringify(steps);
    await asRootDraws(base, canvas);
    const painter = await jsroot.draw('overlay', canvas), drawn = {};
    painter.forEachPainterInPad(pp => {  // the x range each pad's frame was drawn with
      const fp = pp.getFramePainter?.();
      if (fp && pp !== painter) drawn[pp.getPadName()] = [fp.scale_xmin, fp.scale_xmax];
    }, 'pads');
    document.getElementById('overlay').dataset.xRanges = JSON.stringify(drawn);
    document.body.dataset.curves = String(loaded.length);
    await downloads(jsroot, canvas);
  } catch (err) {
    error.textContent = 'cannot draw the overlay: ' + err + ' (without a local JSROOT: --jsroot DIR, see docs/web-report.md)';
  }
}
""" + "\n" + AS_ROOT_DRAWS_JS
