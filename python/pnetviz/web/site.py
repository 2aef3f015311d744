"""The campaign's static web report: plain data in, HTML text out.

Pages live in `<plots>/campaign/site/` (published with the summary, all or nothing); the front
door `<plots>/index.html` and the live view `<plots>/view.html` (JSROOT drawing one object of a
`plots.root`) are static files at the output root. Every link is relative, so the output
directory can be copied to a web space as it is. Safety: every name from disk goes through
`escape.html` (text and attributes) and `urllib.parse.quote` (links); no script is built from
data (the two scripts are constant files); each page carries a Content-Security-Policy that
allows only the site itself and the chosen JSROOT source.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pnetviz.escape import html
from pnetviz.rootenv import root
from pnetviz.web import binningsite, limitssite, overlay, sitedatamc, sitepages
from pnetviz.web.parts import (JSROOT_URL, SITE_DIR, TO_ROOT, ModelPage, _compared_table, _family, _figures,  # noqa: F401 - callers use site.*
                               _fold_order, _leaderboard_table, _link, _mean_std, _models_table, _number, _page,
                               _provenance, _rejection_html, _set_dirs, _table, _thumbs, _working_points_table, csp,
                               jsroot_source, models, view_link)
from pnetviz.web.siteaddress import signal_address
from pnetviz.web.siteassets import JSROOT_VERSION, SITE_CSS, SITE_JS, VIEW_JS, cached_jsroot, font_faces, publish_fonts  # noqa: F401
from pnetviz.web.siteoverview import ga_section, headline, maps_section


def overview(data: dict, pages: Sequence[ModelPage], campaign_files: Sequence[str], jsroot: str, campaign_dir: Path,
             ga: str = "") -> str:  # fmt: skip
    figures = _figures(campaign_dir)
    graphs = [n for n in figures if n.startswith("auc_vs_mA_")]
    failed = [j for j in data["jobs"] if j["status"] == "failed"]
    counts = {k: sum(j["status"] == k for j in data["jobs"]) for k in ("done", "up to date", "failed", "other options")}
    body = [f"<h1>pnetviz campaign</h1><p>{counts['done']} jobs done, {counts['up to date']} up to date, "
            f"{counts['failed']} failed, {counts['other options']} made with other options (listed below, not in the "
            "tables). Downloads: "
            + ", ".join(f'<a href="../{_link(n)}">{html(n)}</a>' for n in sorted(campaign_files)
                        if n.endswith((".csv", ".tex", ".json")) and not n.startswith("."))
            + '. <a href="overlay.html">Overlay</a> models: tick them in <a href="#models">Every model</a>.</p>',
            headline(data, pages),
            "<h2>Leaderboard (best first per channel, signal point and background; variants by the hyperparameters "
            "that differ, full name on hover)</h2>", _family(data, "leaderboard"), _leaderboard_table(data.get("leaderboard", []), {(p.channel, p.signal, p.kind, p.model): p.overlay for p in pages if p.overlay}),
            maps_section(figures, sorted({p.channel for p in pages}), campaign_dir),  # the maps after the numbers
            "<h2>Binary vs multi-class (test AUC, mean &plusmn; std over folds)</h2>", _family(data, "binary_vs_multiclass"),
            _compared_table(data["binary_vs_multiclass"]),
            ga, '<h2>Every model</h2><p><button type="button" id="overlay-picked">overlay the ticked models</button></p>',
            _models_table(pages),
            "<h2>Test AUC vs m(A)</h2>", _thumbs(graphs, "campaign", TO_ROOT, "campaign/campaign.root", campaign_dir)]  # fmt: skip
    if failed:
        body += ["<h2>Failed jobs</h2><ul class=\"failed\">"
                 + "".join(f"<li>{html(j['job'])}: {html(j.get('message') or 'failed')}</li>" for j in failed) + "</ul>"]
    other = [j for j in data["jobs"] if j["status"] == "other options"]
    if other:
        body += ["<h2>Sets made with other options (not in the tables)</h2><ul>"
                 + "".join(f"<li>{html(j['job'])}: {html(j.get('message') or '')}</li>" for j in other) + "</ul>"]
    return _page("pnetviz campaign", "\n".join(body), jsroot, scripts=("site.js",))


def site_files(data: dict, plots_root: Path, campaign_dir: Path, jsroot: str) -> dict[str, str]:
    """Relative path (inside the campaign set) -> text of every page of the site; `campaign_dir`:
    the campaign set being written (its figures and downloads)."""
    pages = models(data, plots_root)
    sitepages.model_addresses(pages)
    working_points = data.get("working_points", [])
    campaign_files = sorted(p.name for p in campaign_dir.iterdir() if p.is_file())
    out = {f"{SITE_DIR}/index.html": overview(data, pages, campaign_files, jsroot, campaign_dir, ga_section(pages, plots_root)),
           f"{SITE_DIR}/site.css": SITE_CSS, f"{SITE_DIR}/site.js": SITE_JS}
    out[f"{SITE_DIR}/index.html"] = limitssite.with_section(binningsite.with_section(out[f"{SITE_DIR}/index.html"], data), data)
    out[f"{SITE_DIR}/index.html"] = sitedatamc.with_section(out[f"{SITE_DIR}/index.html"], plots_root)
    out[f"{SITE_DIR}/{limitssite.PAGE}"] = limitssite.page(data, campaign_dir, jsroot)
    for channel, signal in sorted({(p.channel, p.signal) for p in pages}):
        out[f"{SITE_DIR}/{signal_address(channel, signal)}"] = sitepages.signal_page(
            channel, signal, pages, data["binary_vs_multiclass"], jsroot, working_points, plots_root)
    for page in pages:
        out[f"{SITE_DIR}/{page.page}"] = sitepages.model_page(page, plots_root, jsroot)
    local = not jsroot.startswith("https://")
    note = ("JSROOT: the local copy in jsroot/." if local else f"JSROOT is loaded from {jsroot}; offline, give pnetviz "
            f"campaign --jsroot DIR (the unpacked npm package: npm pack jsroot@{JSROOT_VERSION}).")  # fmt: skip
    out.update({f"{SITE_DIR}/{name}": text for name, text in overlay_files(jsroot, note).items()})
    return out


def overlay_files(jsroot: str, note: str) -> dict[str, str]:
    """overlay.html (its text in ROOT's font, as the live view's) and overlay.js, inside the site directory."""
    local = not jsroot.startswith("https://")
    page = _page("pnetviz overlay", overlay.page_body(note), jsroot, scripts=("overlay.js",))
    return {overlay.OVERLAY_PAGE: page.replace("</head>", f"<style>{font_faces(TO_ROOT + 'fonts/')}</style></head>", 1),
            "overlay.js": overlay.script(TO_ROOT + "jsroot/" if local else jsroot)}


def root_files(jsroot: str) -> dict[str, str]:
    """The output root's static files: the front door and the live view."""
    door = _page("pnetviz", '<p><a href="campaign/site/index.html">The campaign report</a></p>', jsroot, "campaign/site/")
    door = door.replace("<head>", '<head><meta http-equiv="refresh" content="0; url=campaign/site/index.html">', 1)
    body = ('<p><a href="campaign/site/index.html">campaign report</a> &middot; <span id="what"></span></p>'
            '<div id="drawing" style="width: 800px; height: 600px"></div><p id="error" class="failed"></p>')
    view = _page("pnetviz live view", body, jsroot, "campaign/site/", scripts=())
    view = view.replace("</head>", f'<style>{font_faces()}</style><script type="module" src="view.js"></script></head>', 1)
    from pnetviz.draw.stored import ALLOWED_CLASSES, ALLOWED_EXECS  # noqa: PLC0415

    script = (VIEW_JS.replace("@JSROOT@", json.dumps(jsroot)).replace("@VERSION@", json.dumps(JSROOT_VERSION))
              .replace("@ALLOWED@", json.dumps(sorted(ALLOWED_CLASSES)))
              .replace("@EXECS@", json.dumps(sorted(f"{name}\n{command}" for name, command in ALLOWED_EXECS))))  # fmt: skip
    return {"index.html": door, "view.html": view, "view.js": script}


def publish_root_files(plots_root: Path, jsroot_dir: Path | None) -> None:
    """Write index.html, view.html and view.js at the output root (each replaced atomically: they
    are constant, whatever the round) and, with `jsroot_dir` (the unpacked npm package), its
    modules/ as <plots>/jsroot/modules/ (replaced whole when the version differs)."""
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    if jsroot_dir is not None:
        modules = Path(jsroot_dir) / "modules" / "main.mjs"
        if not modules.is_file():
            from pnetviz.errors import InputError  # noqa: PLC0415

            raise InputError(f"--jsroot {jsroot_dir}: no modules/main.mjs. Fix: give the unpacked npm package "
                             f"(npm pack jsroot@{JSROOT_VERSION}; tar xzf jsroot-{JSROOT_VERSION}.tgz; --jsroot package).")  # fmt: skip
        target = plots_root / "jsroot"
        stamp = target / "package.json"
        if not stamp.is_file() or stamp.read_bytes() != (Path(jsroot_dir) / "package.json").read_bytes():
            stage = Path(tempfile.mkdtemp(prefix=".jsroot-", dir=plots_root))
            shutil.copytree(Path(jsroot_dir) / "modules", stage / "modules")
            shutil.copy2(Path(jsroot_dir) / "package.json", stage / "package.json")
            if (Path(jsroot_dir) / "LICENSE").is_file():
                shutil.copy2(Path(jsroot_dir) / "LICENSE", stage / "LICENSE")
            old = plots_root / f".jsroot-old-{os.getpid()}"
            if target.exists():
                os.rename(target, old)
            os.rename(stage, target)
            shutil.rmtree(old, ignore_errors=True)
    publish_fonts(plots_root, Path(str(root().TROOT.GetTTFFontDir())))  # the live view's text in ROOT's font
    for name, text in root_files(jsroot_source(str(jsroot_dir) if jsroot_dir else None)).items():
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=plots_root)
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, plots_root / name)
