"""The web report's signal-point and model pages: figures first, then tables (issue 37, item 1).

A figure is its PNG when the run wrote one, else a live view of its stored canvas (view.html in an
iframe; --images none). Addresses: web.siteaddress. Every name from disk is escaped
(escape.html) and every link quoted per component (parts._link).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pnetviz.web import parts
from pnetviz.web.siteaddress import depth_prefix, model_address, signal_address
from pnetviz.web.overlay import overlay_link, spec
from pnetviz.web.sitecaptions import caption_html
from pnetviz.web.sitefolds import fold_table
from pnetviz.escape import html
from pnetviz.output import imageset

GROUPS = (("Curves", ("roc", "rejection", "precision_recall")), ("Scores", ("score", "distribution")),
          ("Training", ("training",)), ("Calibration", ("calibration",)), ("Confusion", ("confusion",)),
          ("Cut scan", ("cut_scan",)))  # fmt: skip
KEY = imageset.KEY  # the key figures: what --images site writes as PNG (output.imageset)


def figure(set_rel: str, stem: str, plots_root: Path, to_root: str, width: int = 460, caption: str = "",
           on_disk: Path | None = None) -> str:  # fmt: skip
    """One figure of the set `set_rel` (relative to the output root; `on_disk`: where it is being
    written, if elsewhere): its PNG linked to itself, or its stored canvas drawn live by view.html
    in a frame; empty if the set holds neither."""
    on_disk = on_disk or plots_root / set_rel
    label = html(caption or stem) + caption_html(on_disk, stem)  # and the context the frame had no room for
    if (on_disk / f"{stem}.png").is_file():
        png = f"{to_root}{parts._link(f'{set_rel}/{stem}.png')}"
        return (f'<figure class="key"><a href="{png}"><img src="{png}" alt="{html(stem)}" width="{width}"></a>'
                f"<figcaption>{label}</figcaption></figure>")  # fmt: skip
    if (on_disk / "plots.root").is_file() and stem in parts._figures(on_disk):
        from pnetviz.io.layout import root_key  # noqa: PLC0415

        live = parts.view_link(to_root, f"{set_rel}/plots.root", f"canvases/{root_key(stem)}")
        return (f'<figure class="key"><iframe src="{live}&amp;fit=1" width="{width}" height="{width}" title="{html(stem)}"></iframe>'
                f'<figcaption>{label} (<a href="{live}">live view</a>)</figcaption></figure>')  # fmt: skip
    return ""


def _point_models(pages: Sequence[parts.ModelPage], channel: str, signal: str, kind: str) -> list[parts.ModelPage]:
    return [p for p in pages if (p.channel, p.signal, p.kind) == (channel, signal, kind)]


def _first_fold(page: parts.ModelPage, plots_root: Path) -> str | None:
    folds = [d.name for d in parts._set_dirs(plots_root / page.directory) if d.name != "folds"]
    return f"{page.directory}/{folds[0]}" if folds else None


def background_figures(channel: str, signal: str, pages: Sequence[parts.ModelPage], compared: Sequence[dict],
                       plots_root: Path, to_root: str) -> str:  # fmt: skip
    """Per background: binary vs multi-class ROC and rejection over folds (the comparison job's
    fold summary), then the score distributions of the binary and the multi-class model (first fold)."""
    mine = [c for c in compared if (c["channel"], c["signal"]) == (channel, signal)]
    binaries = {p.pair: p for p in _point_models(pages, channel, signal, "binary")}
    backgrounds = sorted({*binaries, *(c["background"] for c in mine)})
    comparisons = _point_models(pages, channel, signal, "comparison")
    multis = {p.model: p for p in _point_models(pages, channel, signal, "multiclass")}
    rows = []
    for background in backgrounds:
        row = next((c for c in mine if c["background"] == background), None)
        cls = row["multiclass_class"] if row else background
        figs = [figure(f"{p.directory}/folds", f"signal_vs_{background}_{curve}_curve_folds", plots_root, to_root,
                       caption=f"{curve.upper() if curve == 'roc' else curve}: binary vs multi-class, over folds")
                for p in comparisons for curve in ("rejection", "roc")]  # the HEP view (log rejection) first  # fmt: skip
        if background in binaries and (fold := _first_fold(binaries[background], plots_root)):
            figs.append(figure(fold, "score_distributions", plots_root, to_root, caption=f"binary scores ({fold.rsplit('/', 1)[1]})"))
        multi = multis.get(row["multiclass_model"]) if row else None
        if multi is not None and (fold := _first_fold(multi, plots_root)):
            figs.append(figure(fold, f"signal_vs_{cls}_lr_score_distribution", plots_root, to_root,
                               caption=f"multi-class, LR score ({fold.rsplit('/', 1)[1]})"))  # fmt: skip
        figs = [f for f in figs if f]
        picks = [spec(p.overlay, p.kind, pair) for p, pair in ((binaries.get(background), background), (multi, cls))
                 if p is not None and p.overlay]  # fmt: skip
        if picks:
            figs.append(f'<p><a href="{overlay_link(depth_prefix(signal_address(channel, signal)), picks)}">overlay these '
                        "models (first fold, with a ratio)</a></p>")
        title = html(background) + (f" (multi-class class {html(cls)})" if cls != background else "")
        body = "".join(figs) or "<p>no figure written for this background</p>"
        rows.append(f'<h2 id="bkg-{html(background)}">{title}</h2><div class="figures">{body}</div>')
    return "".join(rows)


def signal_page(channel: str, signal: str, pages: Sequence[parts.ModelPage], compared: Sequence[dict], jsroot: str,
                working_points: Sequence[dict], plots_root: Path) -> str:  # fmt: skip
    """The signal point's page: figures of every background, then the model links and tables."""
    prefix = depth_prefix(signal_address(channel, signal))
    to_root = prefix + parts.TO_ROOT
    mine = [p for p in pages if (p.channel, p.signal) == (channel, signal)]
    columns = []
    for kind in ("binary", "multiclass", "comparison", "ga"):
        items = "".join(f'<li><a href="{prefix}{parts._link(p.page)}">{html(p.model)}</a> ({html(p.status)})</li>'
                        for p in mine if p.kind == kind)  # fmt: skip
        if items:  # no heading for a kind the point has no model of
            columns.append(f'<div class="column"><h3>{html(kind)}</h3><ul>{items}</ul></div>')
    table = parts._compared_table([c for c in compared if (c["channel"], c["signal"]) == (channel, signal)])
    wps = parts._working_points_table([r for r in working_points if (r["channel"], r["signal"]) == (channel, signal)])
    body = (f'<p><a href="{prefix}index.html">overview</a></p><h1>{html(channel)} / {html(signal)}</h1>'
            + background_figures(channel, signal, pages, compared, plots_root, to_root)
            + f'<h2>Binary vs multi-class</h2>{table}<h2>Models</h2><div class="columns">{"".join(columns)}</div>'
            "<h2>Working points (thresholds frozen on one split, applied to the test split)</h2>" + wps)  # fmt: skip
    return parts._page(f"{channel} {signal}", body, jsroot, prefix, scripts=("site.js",))


def _group(stem: str) -> str:
    return next((name for name, words in GROUPS if any(w in stem for w in words)), "Other")


def _command(prov: dict, plots_root: Path) -> str:
    """The recorded command with every absolute path relative to the output root."""
    args = prov.get("command")
    if not isinstance(args, list):
        return ""
    out = []
    for arg in (str(a) for a in args):
        out.append(os.path.relpath(arg, plots_root) if os.path.isabs(arg) else arg)
    return " ".join(out)


def _overlay_links(page: parts.ModelPage, prefix: str) -> str:
    """Links to the overlay page holding this model's curves (its first fold; every pair)."""
    if not page.overlay:
        return ""
    pairs = [r.get("pair", page.pair) for r in page.rows] or [page.pair]
    specs = [spec(page.overlay, page.kind, pair) for pair in dict.fromkeys(pairs)]
    return (f' &middot; overlay: <a href="{overlay_link(prefix, specs, "roc")}">ROC</a>, '
            f'<a href="{overlay_link(prefix, specs)}">rejection</a>')


def model_page(page: parts.ModelPage, plots_root: Path, jsroot: str) -> str:
    """A model's page: key figures (ROC, rejection, scores, the fold summary), the per-fold
    metrics, the mean over folds, the other figures grouped by kind per set, then provenance."""
    prefix = depth_prefix(page.page)
    to_root = prefix + parts.TO_ROOT
    sets = parts._set_dirs(plots_root / page.directory)
    key, rest, provenance = [], [], []
    for set_dir in sorted(sets, key=lambda d: (d.name != "folds", d.name)):
        rel = f"{page.directory}/{set_dir.name}"
        stems = parts._figures(set_dir)
        first = set_dir.name == "folds" or set_dir == next((d for d in sets if d.name != "folds"), None)
        chosen = [s for s in stems if first and (set_dir.name == "folds" or imageset.key_figure(s)) and "bjet" not in s]
        key += [figure(rel, s, plots_root, to_root, 420, f"{set_dir.name}: {s}") for s in chosen]
        root_file = f"{rel}/plots.root" if (set_dir / "plots.root").is_file() else None
        groups: dict[str, list[str]] = {}
        for stem in (s for s in stems if s not in chosen):
            groups.setdefault(_group(stem), []).append(stem)
        reports = " ".join(f'<a href="{to_root}{parts._link(f"{rel}/{n}")}">{html(n)}</a>'
                           for n in ("summary_report.txt", "summary_report.json", "classification_report.txt")
                           if (set_dir / n).is_file())  # fmt: skip
        live = f' &middot; <a href="{parts.view_link(to_root, root_file, "")}">browse plots.root</a>' if root_file else ""
        rest.append(f'<h3 id="{html(set_dir.name)}">{html(set_dir.name)}</h3><p>{reports}{live}</p>'
                    + "".join(f"<h4>{html(g)}</h4>" + parts._thumbs(s, rel, to_root, root_file, set_dir) for g, s in groups.items()))
        prov = parts._provenance(set_dir)
        if command := _command(prov, plots_root):
            provenance.append(f"<li>{html(set_dir.name)}: <code>{html(command)}</code>, pnetviz "
                              f"{html(prov.get('pnetviz_version', '?'))}</li>")  # fmt: skip
    numbers = "".join(f"<tr><td>{html(r.get('pair', ''))}</td><td>{parts._mean_std(r, 'auc_test')}</td>"
                      f"<td>{parts._rejection_html(r, 'rejection_0.5')}</td><td>{parts._mean_std(r, 'fip2', '.3f')}</td></tr>"
                      for r in page.rows)  # fmt: skip
    mean = (f"<h2>Mean over folds</h2><table><thead><tr><th>Pair</th><th>Test AUC</th><th>Rejection at &epsilon;<sub>s</sub> = 0.5"
            f"</th><th>FIP2</th></tr></thead><tbody>{numbers}</tbody></table>") if numbers else ""  # fmt: skip
    status = f'<p class="failed">failed: {html(page.message)}</p>' if page.status == "failed" else ""
    nav = " ".join(f'<a href="#{html(d.name)}">{html(d.name)}</a>' for d in sets)
    body = (f'<p><a href="{prefix}index.html">overview</a> &middot; <a href="../index.html">{html(page.channel)} / '
            f"{html(page.signal)}</a>{_overlay_links(page, prefix)}</p><h1>{html(page.model)}</h1>"
            f"<p>{html(page.kind)}, {html(page.channel)}, {html(page.signal)}</p>{status}"
            f'<div class="figures">{"".join(f for f in key if f)}</div>'
            f"{fold_table(page, sets)}{mean}<h2>All figures</h2><p>{nav}</p>{''.join(rest)}"
            + (f"<h2>Provenance (paths relative to the output directory)</h2><ul class=\"prov\">{''.join(provenance)}</ul>"
               if provenance else ""))  # fmt: skip
    return parts._page(page.model, body, jsroot, prefix, scripts=("site.js",))


def model_addresses(pages: Sequence[parts.ModelPage]) -> None:
    """Give each page its readable address; a second page of the same names (another directory)
    gets its directory's digest appended, so addresses never collide."""
    import hashlib  # noqa: PLC0415

    taken: set[str] = set()
    for page in sorted(pages, key=lambda p: p.directory):
        address = model_address(page.channel, page.signal, page.kind, page.model)
        if address in taken:
            address = address[: -len(".html")] + f"%~{hashlib.sha1(page.directory.encode()).hexdigest()[:12]}.html"
        taken.add(address)
        page.address = address
