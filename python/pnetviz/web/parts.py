"""The web report's parts that every page uses: the model pages' records, links, numbers, tables,
figure thumbnails and the page frame (web.site assembles the pages; web.siteoverview,
web.sitepages and web.binningsite build sections from these)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit
from pnetviz.summary.latex import interval_digits
from pnetviz.errors import InputError
from pnetviz.web.siteaddress import model_address, signal_address
from pnetviz.web.sitecaptions import caption_html
from pnetviz.web.siteassets import JSROOT_VERSION
from pnetviz.escape import html
from pnetviz.names import name as quantity
from pnetviz.io import readers
from pnetviz.metrics.rounding import pm
from pnetviz.io.layout import root_key
from pnetviz.output.atomic import MARKER
from pnetviz.web.overlay import spec
from pnetviz.rootenv import root


JSROOT_URL = f"https://root.cern/js/{JSROOT_VERSION}/"  # the pinned release on JSROOT's official site
SITE_DIR = "site"  # inside the campaign set
TO_ROOT = "../../"  # from campaign/site/ to the output root


@dataclass
class ModelPage:
    """One model (its output directory holding fold-<k>/ and folds/) of one channel and signal."""

    kind: str
    channel: str
    signal: str
    model: str
    pair: str
    directory: str  # relative to the output root, '/'-separated
    status: str = "done"
    message: str = ""
    rows: list[dict] = field(default_factory=list)  # the campaign's aggregates of this model
    address: str = ""  # set by sitepages.model_addresses (collision-free)
    overlay: str = ""  # its first fold set's curves for the overlay page (overlay.spec), if any

    @property
    def page(self) -> str:
        """Its readable address relative to the site directory (web.siteaddress)."""
        return self.address or model_address(self.channel, self.signal, self.kind, self.model)


def jsroot_source(option: str | None) -> str:
    """The JSROOT base URL for view.html: the pinned official release, or `./jsroot/` (a local copy
    the campaign puts beside view.html)."""
    return "./jsroot/" if option else JSROOT_URL


def csp(jsroot: str) -> str:
    """Content-Security-Policy: scripts, styles, images and fetches from the site only, plus the
    official JSROOT origin when that is the source (JSROOT injects its own styles)."""
    origin = "" if not jsroot.startswith("https://") else " " + "{0.scheme}://{0.netloc}".format(urlsplit(jsroot))
    return (f"default-src 'self'; script-src 'self'{origin}; style-src 'self' 'unsafe-inline'{origin}; "
            f"img-src 'self' data: blob:; connect-src 'self'{origin}; object-src 'none'; base-uri 'none'; "
            "form-action 'none'")  # fmt: skip


def _page(title: str, body: str, jsroot: str, prefix: str = "", scripts: Sequence[str] = ()) -> str:
    tags = "".join(f'<script type="module" src="{prefix}{s}"></script>' for s in scripts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{html(csp(jsroot))}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html(title)}</title><link rel="stylesheet" href="{prefix}site.css">{tags}</head>\n'
            f"<body>\n{body}\n</body></html>\n")  # fmt: skip


def _link(href: str) -> str:
    """A relative link from path components: each quoted (a name may hold '#', '?', spaces)."""
    return "/".join(quote(part, safe="") for part in href.split("/"))


def _number(value, fmt: str = ".4f") -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)) and math.isfinite(value):
        return format(value, fmt)
    return html(value) if isinstance(value, str) else ""


def _mean_std(row: dict, key: str, fmt: str = ".4f") -> str:
    mean, std = row.get(f"{key}_mean"), row.get(f"{key}_std")
    text = _number(mean, fmt)
    if row.get(f"{key}_limit"):
        return f"&gt; {text}"
    return pm(mean, std, "html", fmt) if text else text  # PDG rounding (metrics.rounding)


def _rejection_html(row: dict, key: str, value_key: str | None = None) -> str:
    """A rejection over folds: R<sup>+u</sup><sub>-d</sub> (its asymmetric fold interval, latex.interval_digits),
    "&gt; R" for a lower limit, R alone without interval."""
    value = row.get(value_key or f"{key}_mean")
    if row.get(f"{key}_limit"):
        return f"&gt; {_number(value, '.3g')}"
    parts = interval_digits(value, row.get(f"{key}_lower"), row.get(f"{key}_upper"))
    return f"{parts[0]}<sup>+{parts[1]}</sup><sub>&minus;{parts[2]}</sub>" if parts else _number(value, ".3g")


def view_link(prefix: str, root_file: str, item: str) -> str:
    """view.html?file=<plots.root relative to the output root>&item=<object path>."""
    return f"{prefix}view.html?file={quote(root_file, safe='/')}&amp;item={quote(item, safe='/')}"


# ---------------------------------------------------------------------------------------------
# What the site shows: models from the campaign's job list and aggregates.
# ---------------------------------------------------------------------------------------------

def models(data: dict, plots_root: Path) -> list[ModelPage]:
    """One page per binary or multi-class model directory (and per comparison), from the jobs."""
    pages: dict[str, ModelPage] = {}
    for job in data["jobs"]:
        outputs = [Path(p) for p in job.get("outputs", [])]
        if not outputs:
            continue
        directory = outputs[0].parent
        try:
            rel = directory.resolve().relative_to(plots_root.resolve()).as_posix()
        except ValueError:
            continue
        kind, channel, signal = job.get("kind", ""), job.get("channel", ""), job.get("signal", "")
        page = pages.setdefault(rel, ModelPage(kind, channel, signal, job.get("model") or kind, job.get("pair") or "", rel))
        if job["status"] == "failed":
            page.status, page.message = "failed", job.get("message", "")
    for page in pages.values():
        folds = [d for d in _set_dirs(plots_root / page.directory) if d.name.startswith("fold-") and (d / "plots.root").is_file()]
        if folds and page.kind in ("binary", "multiclass"):
            page.overlay = f"{page.directory}/{folds[0].name}"
    for row in data["aggregates"]:
        for page in pages.values():
            if (page.kind, page.channel, page.signal, page.model) == (row["kind"], row["channel"], row["signal"], row["model"]):
                page.rows.append(row)
    return sorted(pages.values(), key=lambda p: (p.channel, p.signal, p.kind, p.model))


def _set_dirs(model_dir: Path) -> list[Path]:
    """The model's output sets: fold-<k>/, pilot/, folds/ (those holding a marker)."""
    if not model_dir.is_dir():
        return []
    dirs = [d for d in sorted(model_dir.iterdir()) if d.is_dir() and (d / MARKER).is_file() and not d.name.startswith(".")]
    return sorted(dirs, key=lambda d: (d.name == "folds", *_fold_order(d.name)))


def _fold_order(name: str) -> tuple[bool, int, str]:
    """fold-<k> by k (fold-2 before fold-10: the first is the lowest fold, the one whose key
    figures --images site writes, output.imageset.per_fold), then the other sets by name."""
    number = name.removeprefix("fold-")
    numbered = name.startswith("fold-") and number.isascii() and number.isdigit()
    return (not numbered, int(number) if numbered else 0, name)


def _provenance(directory: Path) -> dict:
    try:
        meta = readers.read_marker(directory / MARKER)
    except InputError:
        return {}
    return meta.get("meta", meta) if isinstance(meta, dict) else {}


# ---------------------------------------------------------------------------------------------
# Pages.
# ---------------------------------------------------------------------------------------------

def _table(table_id: str, head: Sequence[str], rows: Sequence[Sequence[str]], placeholder: str = "") -> str:
    """A sortable table (site.js) of already-escaped cells; with `placeholder`, a filter box above it."""
    header = "".join(f'<th data-sort="{i}">{h}</th>' for i, h in enumerate(head))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" for cells in rows)
    box = (f'<input type="search" class="filter" data-table="{table_id}" placeholder="{html(placeholder)}">'
           if placeholder else "")  # fmt: skip
    return f'{box}<table id="{table_id}" class="sortable"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def _models_table(pages: Sequence[ModelPage]) -> str:
    head = ("Overlay", "Channel", "Signal", "Kind", "Model", "Pair", "Test AUC (mean &plusmn; std)", f"{quantity('rejection', 'html')} at &epsilon;<sub>s</sub> = 0.5",
            "FIP2", "Worst KS p", "Folds", "Status")  # fmt: skip
    rows = []
    for page in pages:
        for row in page.rows or [{}]:
            ks = [row["ks_p_min"]] if isinstance(row.get("ks_p_min"), (int, float)) and math.isfinite(row["ks_p_min"]) else []
            pick = (f'<input type="checkbox" class="pick" value="{html(spec(page.overlay, page.kind, row.get("pair", page.pair)))}">'
                    if page.overlay else "")  # fmt: skip
            cells = (pick, html(page.channel), html(page.signal), html(page.kind),
                     f'<a href="{_link(page.page)}">{html(page.model)}</a>', html(row.get("pair", page.pair)),
                     _mean_std(row, "auc_test"), _rejection_html(row, "rejection_0.5"), _mean_std(row, "fip2", ".3f"),
                     _number(min(ks), ".3f") if ks else "", html(len(row.get("folds", [])) or ""),
                     html(page.status) + (f": {html(page.message)}" if page.message else ""))  # fmt: skip
            rows.append(cells)
    return _table("models", head, rows, "filter (e.g. Run3Mu multiclass)")


def _compared_table(compared: Sequence[dict]) -> str:
    head = ("Channel", "Signal", "Background", f"{quantity('binary', 'html')} AUC", f"{quantity('multiclass', 'html')} AUC", "Multi-class &minus; binary",
            "p (corrected t)", "p (Holm)", "q (BH)")  # fmt: skip
    rows = []
    for c in compared:
        cells = (html(c["channel"]), html(c["signal"]), html(c["background"]),
                 pm(c.get("auc_test_binary_mean"), c.get("auc_test_binary_std"), "html"),
                 pm(c.get("auc_test_multiclass_mean"), c.get("auc_test_multiclass_std"), "html"),
                 pm(c.get("auc_diff_mean"), c.get("auc_diff_standard_error"), "html", sign=True),
                 *(_number(c.get(f"auc_diff_{k}"), ".3g") for k in ("p_value", "p_holm", "q_bh")))  # fmt: skip
        rows.append(cells)
    return _table("compared", head, rows)


def _family(data: dict, table: str) -> str:
    """The test and family of a table's p-values (summary families), one paragraph."""
    family = data.get("families", {}).get(table)
    ties = "; rank 1=: compatible with the best (Holm p &gt; 0.05)" if table == "leaderboard" else ""
    return f"<p>p: corrected resampled t over folds (Nadeau-Bengio); {html(family)}{ties}.</p>" if family else ""


def _leaderboard_table(entries: Sequence[dict], picks: dict | None = None) -> str:
    """summary.leaderboard as a sortable, filterable table (best first in each channel, signal
    point and background); `picks`: (channel, signal, kind, model) -> fold set, for the overlay box."""
    head = ("Overlay", "Channel", "Signal", "Background", "Rank", "Kind", "Variant", "Pair", "Test AUC (mean &plusmn; s.e.)",
            "Best &minus; this", "p (corrected t)", "p (Holm)", f"{quantity('rejection', 'html')} at &epsilon;<sub>s</sub> = 0.5", "Folds")  # fmt: skip
    rows = []
    for e in entries:
        best = e.get("position", e.get("rank")) == 1
        p_value = e.get("diff_to_best_p_value")
        where = (picks or {}).get((e["channel"], e["signal"], e["kind"], e.get("model", "")))
        pick = f'<input type="checkbox" class="pick" value="{html(spec(where, e["kind"], e["pair"]))}">' if where else ""
        cells = (pick, html(e["channel"]), html(e["signal"]), html(e["background"]), html(e["rank"]), html(e["kind"]),
                 f'<span title="{html(e.get("model", ""))}">{html(e.get("variant") or "-")}</span>', html(e["pair"]),
                 pm(e.get("auc_test_mean"), e.get("auc_test_standard_error"), "html"),
                 "best" if best else pm(e.get("diff_to_best_mean"), e.get("diff_to_best_standard_error"), "html", sign=True),
                 html(p_value) if isinstance(p_value, str) else _number(p_value, ".3g"), _number(e.get("diff_to_best_p_holm"), ".3g"),
                 _rejection_html(e, "rejection_0.5"), html(e.get("folds", "")))  # fmt: skip
        rows.append(cells)
    return _table("leaderboard", head, rows, "filter (e.g. Run3Mu MHc130_MA90 ttZ)")


def _working_points_table(rows: Sequence[dict]) -> str:
    """summary.workingpoints rows of one signal point: thresholds frozen on the wp-from split and
    the test efficiencies and rejection they give, over folds."""
    head = ("Kind", "Model", "Pair", "Target &epsilon;<sub>s</sub>", "From", "Threshold (mean &plusmn; std)",
            "Test &epsilon;<sub>s</sub>", "Test &epsilon;<sub>b</sub>", "Test rejection (train-chosen cut)", "Folds")  # fmt: skip
    cells = []
    for r in rows:
        rejection = _rejection_html(r, "rejection_test", "rejection_test")
        cells.append((html(r["kind"]), html(r["model"]), html(r["pair"]), _number(r.get("target_eps_s"), ".2f"),
                      html(r.get("wp_from", "")), _mean_std(r, "threshold", ".4f"), _mean_std(r, "eps_s_test", ".3f"),
                      _mean_std(r, "eps_b_test", ".4f"), rejection, html(r.get("folds", ""))))  # fmt: skip
    return _table("working-points", head, cells)


def _figures(directory: Path) -> list[str]:
    """Figure names of an output set: its stored canvases (plots.root or campaign.root), else its
    PNGs. A canvas's key is its figure's name made readable by path (layout.root_key: `;` as
    `%3B`); the names are those of the figures and their images (render.figure_name)."""
    root_file = next((directory / n for n in ("plots.root", "campaign.root") if (directory / n).is_file()), None)
    if root_file is not None:
        from pnetviz.output.render import canvas_names, figure_name  # noqa: PLC0415

        try:  # figure_name: a key whose name is no plain file name ("..%2Fx") stays the key
            return sorted(figure_name(key) for key in canvas_names(root_file))
        except Exception:  # noqa: BLE001 - a set the site cannot read: its PNGs, as before
            pass
    return sorted(p.stem for p in directory.glob("*.png"))


def _thumbs(stems: Iterable[str], directory: str, prefix: str, root_file: str | None, on_disk: Path) -> str:
    """A thumbnail per figure of the set `directory` (relative to the output root; `on_disk` is
    it): the lazy PNG when written, with its PNG, PDF and live-view links (only the live view when
    the run wrote no images: --images none)."""
    items = []
    for stem in stems:
        png = f"{prefix}{_link(f'{directory}/{stem}.png')}"
        links = []
        if (on_disk / f"{stem}.png").is_file():
            links.append(f'<a href="{png}">PNG</a>')
        if (on_disk / f"{stem}.pdf").is_file():
            links.append(f'<a href="{prefix}{_link(f"{directory}/{stem}.pdf")}">PDF</a>')
        live = view_link(prefix, root_file, f"canvases/{root_key(stem)}") if root_file else None
        if live:
            links.append(f'<a href="{live}">live</a>')
        picture = (f'<a href="{png}"><img loading="lazy" src="{png}" alt="{html(stem)}" width="240" height="240"></a>'
                   if (on_disk / f"{stem}.png").is_file() else
                   f'<a class="noimage" href="{live or "#"}">{html(stem)}<br>(no image written: live view)</a>')  # fmt: skip
        items.append(f'<figure>{picture}<figcaption>{html(stem)}<br>{" &middot; ".join(links)}{caption_html(on_disk, stem)}</figcaption></figure>')
    return f'<div class="thumbs">{"".join(items)}</div>'

