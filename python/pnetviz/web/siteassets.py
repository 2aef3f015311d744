"""The web report's constant files: its style sheet, its table script and the live view's script
(no script is built from data: view.js gets only the JSROOT source and version), and where a
local JSROOT is found without --jsroot (issue 37, item 4)."""

from __future__ import annotations

import os
from pathlib import Path

JSROOT_VERSION = "7.11.2"  # the pinned release (site.JSROOT_VERSION)


def cached_jsroot() -> Path | None:
    """The unpacked npm package of the pinned JSROOT in the cache the README documents
    ($PNETVIZ_JSROOT, else ~/.cache/pnetviz/jsroot-<version>, each holding package/), if there."""
    cache = Path(os.environ.get("PNETVIZ_JSROOT") or Path.home() / ".cache" / "pnetviz" / f"jsroot-{JSROOT_VERSION}")
    package = cache / "package"
    return package if (package / "modules" / "main.mjs").is_file() else None


SITE_CSS = """body { font-family: sans-serif; margin: 1.5em; max-width: 1400px; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }
th[data-sort] { cursor: pointer; background: #eef; }
.thumbs { display: flex; flex-wrap: wrap; gap: 0.8em; }
figure { margin: 0; width: 240px; font-size: 0.8em; overflow-wrap: anywhere; }
img { border: 1px solid #ddd; }
.columns { display: flex; gap: 2em; }
.failed { color: #b00; }
figcaption .caption { color: #444; }
a.noimage { display: flex; width: 240px; height: 120px; border: 1px dashed #aaa; align-items: center; justify-content: center; text-align: center; }
input.filter { width: 30em; margin: 0.3em 0; }
code { font-size: 0.85em; overflow-wrap: anywhere; }
.figures { display: flex; flex-wrap: wrap; gap: 0.8em; align-items: flex-start; }
figure.key { width: auto; max-width: 480px; }
figure.key img { max-width: 100%; height: auto; }
figure.key iframe { max-width: 100%; border: 1px solid #ddd; }
.scrollbox { max-height: 40vh; overflow: auto; margin-bottom: 1em; }
#overlay-picked { position: fixed; right: 1em; bottom: 1em; padding: 0.5em 1em; }
"""

SITE_JS = """// Sort a table by a clicked column; filter a table's rows by the words typed. Reads the DOM only.
for (const th of document.querySelectorAll('table.sortable th[data-sort]')) {
  th.addEventListener('click', () => {
    const table = th.closest('table'), body = table.tBodies[0], col = Number(th.dataset.sort);
    const up = th.dataset.dir !== 'up';
    th.dataset.dir = up ? 'up' : 'down';
    const key = row => {
      const text = row.cells[col] ? row.cells[col].textContent.trim() : '';
      const num = parseFloat(text.replace(/^>\\s*/, ''));
      return Number.isNaN(num) ? text.toLowerCase() : num;
    };
    const rows = Array.from(body.rows).sort((a, b) => {
      const x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
    });
    rows.forEach(r => body.appendChild(r));
  });
}
// the overview's check boxes: the overlay page of the ticked models (their fold sets, overlay.py)
const picked = document.getElementById('overlay-picked');
if (picked) {
  picked.addEventListener('click', () => {
    const query = new URLSearchParams({curve: 'rejection'});
    for (const box of document.querySelectorAll('input.pick:checked')) query.append('m', box.value);
    window.location.href = 'overlay.html?' + query.toString();
  });
}
for (const input of document.querySelectorAll('input.filter')) {
  input.addEventListener('input', () => {
    const words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    for (const row of document.getElementById(input.dataset.table).tBodies[0].rows) {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every(w => text.includes(w));
    }
  });
}
"""

# What view.js (and a notebook figure, api.figure) does to a stored object before JSROOT draws it,
# so that the live view shows what ROOT's PNG shows (issue 33, item 7), given JSROOT's base URL
# and the object.
AS_ROOT_DRAWS_JS = """// ROOT draws every text at 0.93376068 of its size (TTF's kScale: in its PNG, SVG and PDF alike),
// JSROOT at the whole size: 7% wider text ran "Simulation Preliminary" into "CMS" and into the run
// text. The sizes scaled as ROOT draws them (a title's offset, in title sizes, kept in place);
// TLatex commands this JSROOT's plain-text TLatex lacks (#minus, #plus) as their characters; log
// axes labelled as ROOT does (10, 10^{2}: JSROOT writes 100 between 0.3 and 300).
// (function declarations only: view.js calls them above where they stand)
async function asRootDraws(base, obj) {
  const frame = await import(base + 'modules/gpad/TFramePainter.mjs');
  for (const axis of ['x', 'y', 'x2', 'y2'])  // as if 'No exponent' had been chosen as the axis's bit says
    frame.TFramePainter.prototype[axis + '_noexp_changed'] = true;
  rootSizes(obj, new WeakSet());
  // the fonts loaded before JSROOT measures a text (a browser loads a font face when first used:
  // sub- and superscripts were placed by the fallback font's 15% wider text)
  await Promise.all(['', 'bold ', 'italic ', 'bold italic '].map(s => document.fonts.load(s + '20px Arial').catch(() => null)));
}
function rootSizes(obj, seen) {
  const ROOT_TEXT_SCALE = 0.93376068, ROOT_SYMBOLS = [[/#minus/g, '\\u2212'], [/#plus/g, '+']];
  if (!obj || typeof obj !== 'object' || seen.has(obj) || ArrayBuffer.isView(obj)) return;
  seen.add(obj);
  for (const key of ['fTextSize', 'fLabelSize', 'fTitleSize'])
    if (typeof obj[key] === 'number') obj[key] *= ROOT_TEXT_SCALE;
  if (typeof obj.fTitleSize === 'number' && typeof obj.fTitleOffset === 'number') obj.fTitleOffset /= ROOT_TEXT_SCALE;
  for (const key of ['fTitle', 'fLabel', 'fString'])
    if (typeof obj[key] === 'string') for (const [command, text] of ROOT_SYMBOLS) obj[key] = obj[key].replace(command, text);
  for (const value of Object.values(obj)) rootSizes(value, seen);
}
"""

VIEW_JS = """// Draw one object of a plots.root with JSROOT: ?file=<path relative to this page>&item=<key>&opt=<draw option>[&fit=1].
const base = @JSROOT@, VERSION = @VERSION@;
const ALLOWED = new Set(@ALLOWED@), PALETTE_EXECS = @EXECS@;
const params = new URLSearchParams(window.location.search);
const file = params.get('file') || '', item = params.get('item') || '', opt = params.get('opt') || '';
const what = document.getElementById('what'), error = document.getElementById('error');
what.textContent = file + (item ? ' : ' + item : '');
// &fit=1 (a figure framed in a page, sitepages.figure): the drawing alone, filling the frame
const fit = params.get('fit') === '1';
if (fit) {
  document.body.style.margin = '0';
  document.body.style.overflow = 'hidden';
  what.parentElement.hidden = true;
  const div = document.getElementById('drawing');
  div.style.width = '100vw';
  div.style.height = '100vh';
}
// a path under this page: no absolute path, no scheme, '..' refused only as a whole component;
// fetched as a URL of its components each percent-encoded (a '#', '?', '%41' or '\\' is a name)
const parts = file.split('/'), url = parts.map(encodeURIComponent).join('/');
const bad = !file || file.startsWith('/') || parts.includes('..') || /^[a-z][a-z0-9+.-]*:/i.test(file) || !file.endsWith('.root');
if (bad) {
  error.textContent = 'give ?file=<path of a .root file under this directory>&item=<object>';
} else {
  try {
    const jsroot = await import(base + 'modules/main.mjs');
    // every frame drawn whole: JSROOT's 'fast drawing' leaves out the axes of a frame under
    // 100 px high, as a ratio panel's is at its stored size
    jsroot.settings.SmallPad = null;
    if (item) {
      const f = await jsroot.openFile(url);
      const obj = await f.readObject(item);
      const foreign = foreignObject(obj);
      if (foreign)  // JSROOT turns a TF1's formula into JavaScript and runs it: nothing pnetviz never writes is drawn
        throw new Error(`it holds ${foreign}, which pnetviz never writes (the file was changed by someone else?): not drawn`);
      plainDivisions(obj);
      await asRootDraws(base, obj);
      if (obj.fCw && obj.fCh) {  // a stored canvas: drawn at its own size, or framed at its own aspect
        // (JSROOT stretches a canvas to its element: a 600 x 750 ratio figure squeezed into a square
        // frame stacks the ratio panel's labels and runs the two y titles together)
        const scale = fit ? Math.min(window.innerWidth / obj.fCw, window.innerHeight / obj.fCh) : 1;
        const div = document.getElementById('drawing');
        div.style.width = Math.floor(obj.fCw * scale) + 'px';
        div.style.height = Math.floor(obj.fCh * scale) + 'px';
      }
      await jsroot.draw('drawing', obj, opt);
      if (!fit && item.startsWith('canvases/')) await showCaption(parts, item.slice('canvases/'.length));
    } else {
      const h = new jsroot.HierarchyPainter('browser', 'drawing');
      await h.openRootFile(url);
    }
  } catch (err) {
    error.textContent = 'cannot draw ' + file + ' ' + item + ': ' + err +
      (base.startsWith('http') ? ' (offline? JSROOT is loaded from ' + base + ': rerun pnetviz campaign with --jsroot DIR, ' +
       'DIR the unpacked npm package: npm pack jsroot@' + VERSION + ' && tar xzf jsroot-' + VERSION + '.tgz, --jsroot package)' : '');
  }
}

// Under a stored canvas drawn alone: its caption (the context its frame had no room for), as its
// set's summary_report.json records it (figure_captions: figure name -> text), shown as text
async function showCaption(parts, key) {
  let name = key;
  try {
    if (key.includes('%')) name = decodeURIComponent(key);  // io.layout.real_name of the key
    const response = await fetch([...parts.slice(0, -1), 'summary_report.json'].map(encodeURIComponent).join('/'));
    const text = response.ok ? (await response.json())?.figure_captions?.[name] : null;
    if (typeof text !== 'string' || !text) return;
    const caption = document.createElement('p');
    caption.id = 'caption';
    caption.textContent = text;
    document.getElementById('drawing').after(caption);
  } catch (err) {
    // no report or no caption: the drawing alone
  }
}

// The first object `obj` reaches whose class pnetviz never writes (draw.stored.ALLOWED_CLASSES;
// a TExec only as the palette command older sets stored), as text; null when there is none
function foreignObject(obj, seen = new Set()) {
  if (!obj || typeof obj !== 'object' || ArrayBuffer.isView(obj) || seen.has(obj)) return null;
  seen.add(obj);
  const type = obj._typename;
  if (typeof type === 'string' && (type === 'TExec' ? !PALETTE_EXECS.includes(`${obj.fName}\n${obj.fTitle}`) : !ALLOWED.has(type)))
    return `a ${type}`;
  for (const value of Object.values(obj)) {
    const found = foreignObject(value, seen);
    if (found) return found;
  }
  return null;
}

// ROOT keeps an axis's MaxDigits in its fNdivisions (x 1000000, TAttAxis::GetMaxDigits), which
// this JSROOT reads as a third level of divisions (hundreds of ticks): the divisions alone
function plainDivisions(obj) {
  if (!obj || typeof obj !== 'object') return;
  for (const axis of [obj.fXaxis, obj.fYaxis, obj.fZaxis]) {
    if (axis && Math.abs(axis.fNdivisions) >= 1000000)
      axis.fNdivisions -= Math.trunc(axis.fNdivisions / 1000000) * 1000000;
  }
  plainDivisions(obj.fHistogram);
  for (const list of [obj.fPrimitives, obj.fFunctions, obj.fHists])
    for (const inner of list?.arr || []) plainDivisions(inner);
}
""" + "\n" + AS_ROOT_DRAWS_JS


# The live view's text in ROOT's own font: ROOT draws fonts 42, 62, 52 and 72 (JSROOT's "Arial",
# bold, oblique, both) with TeX Gyre Heros, which a browser seldom has (a headless Chromium
# falls back to DejaVu Sans, 15% wider: "Simulation Preliminary" then runs into "Run 2 (13 TeV)");
# view.html names ROOT's files for that family, copied beside it (publish_fonts)
ROOT_FONTS = {("normal", "normal"): "texgyreheros-regular.otf", ("bold", "normal"): "texgyreheros-bold.otf",
              ("normal", "italic"): "texgyreheros-italic.otf", ("bold", "italic"): "texgyreheros-bolditalic.otf"}  # fmt: skip
FONT_LICENSE = "MANIFEST-TeX-Gyre-Heros.txt"  # the GUST font licence notice ROOT ships with them


def font_faces(prefix: str = "fonts/") -> str:
    """CSS @font-face rules naming ROOT's font files for JSROOT's font family "Arial" (italic and
    oblique both: JSROOT asks for oblique)."""
    rules = []
    for (weight, style), name in ROOT_FONTS.items():
        for shown in ("normal",) if style == "normal" else ("italic", "oblique"):
            rules.append(f'@font-face {{ font-family: "Arial"; font-weight: {weight}; font-style: {shown}; '
                         f'src: url("{prefix}{name}"); }}')  # fmt: skip
    return "\n".join(rules)


def publish_fonts(plots_root: Path, source: Path) -> None:
    """ROOT's font files of font_faces (and their licence notice) into <plots>/fonts/ from
    `source` (ROOT's font directory), each replaced atomically when it differs; nothing when
    this ROOT has none (the live view then uses the browser's Arial)."""
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    names = [n for n in (*ROOT_FONTS.values(), FONT_LICENSE) if (source / n).is_file()]
    if not names:
        return
    target = plots_root / "fonts"
    target.mkdir(exist_ok=True)
    for name in names:
        if (target / name).is_file() and (target / name).read_bytes() == (source / name).read_bytes():
            continue
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=target)
        os.close(fd)
        shutil.copyfile(source / name, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target / name)
