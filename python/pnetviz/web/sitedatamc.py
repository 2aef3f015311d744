"""The web report's data/MC section: every `pnetviz datamc` set in the plots tree
(`<plots>/datamc/<era>/<masspoint>/<method>/`), its verdict per region and score with the blinding
state, and its figures (thumbnails with PNG, PDF and live-view links), appended to the overview
page by web.site. Sets are read with the guarded JSON reader; an unreadable one is a row saying so."""

from __future__ import annotations

from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import html
from pnetviz.io import readers
from pnetviz.web.parts import TO_ROOT, _number, _table, _thumbs

SET_ROOT = "datamc"
MAX_SETS = 100  # sets listed at most (the first by path)


def set_files(plots_root: Path) -> list[Path]:
    """The datamc.json of every data/MC set under the plots tree, by path."""
    return sorted((Path(plots_root) / SET_ROOT).glob("*/*/*/datamc.json"))[:MAX_SETS]


def _state(region: dict, unblinded: bool) -> str:
    masked = region.get("masked") if isinstance(region.get("masked"), list) else []
    if unblinded and region.get("blind_region"):
        return "<strong>UNBLINDED</strong> (--unblind)"
    return f"{sum(bool(m) for m in masked)} of {len(masked)} bins blinded" if any(masked) else "not blinded"


def section(plots_root: Path) -> str:
    """The section's HTML ('' without any set): one table row per region and score, every cell escaped."""
    rows, figures = [], []
    for path in set_files(plots_root):
        where = path.parent.relative_to(plots_root).as_posix()
        try:
            doc = readers.read_json(path, "data/MC report", finite=False)
        except InputError as err:
            rows.append((html(where), "", "", html(f"unreadable: {err}"), "", ""))
            continue
        regions = doc.get("regions") if isinstance(doc.get("regions"), list) else []
        unblinded = doc.get("unblinded") is True
        for r in (r for r in regions if isinstance(r, dict)):
            chi2 = r.get("chi2") if isinstance(r.get("chi2"), dict) else {}
            rows.append((html(where), html(r.get("channel", "")), html(r.get("score", "")), html(r.get("verdict", "")),
                         _number(chi2.get("p_value"), ".3g"), _state(r, unblinded)))  # fmt: skip
        closure = doc.get("closure") if isinstance(doc.get("closure"), dict) else None
        if closure is not None:  # --closure: the deployed model against its training (simulation only)
            model = html(closure.get("deployed_model", ""))
            rows.append((html(where), html(closure.get("region", "")), f"closure ({model})" if model else "closure",
                         html(closure.get("line", "")), "", "simulation only"))  # fmt: skip
        stems = sorted(p.stem for p in [*path.parent.glob("datamc_*.png"), *path.parent.glob("closure_*.png")])
        if stems:
            figures.append(f"<h3>{html(where)}</h3>" + _thumbs(stems, where, TO_ROOT, f"{where}/plots.root", path.parent))
    if not rows:
        return ""
    head = ("Set", "Region", "Score", "Verdict (Holm over the set's regions and scores)", "p (chi2)", "Blinding")
    return ('<h2 id="data-mc">Data against simulation (pnetviz datamc)</h2><p>The score in data against the stacked '
            "simulation of the analysis' samples: chi2 with the full covariance (MC stat. and one rank-one term per "
            "systematic), Holm-adjusted verdicts; signal-region data blinded unless --unblind; with --closure the "
            "deployed model's scores in the samples against its training's test predictions (docs/datamc.md).</p>"
            + _table("datamc", head, rows, "filter (e.g. WZ3Mu)") + "".join(figures))


def with_section(page: str, plots_root: Path) -> str:
    """The overview page with the section appended at the end of its body (unchanged without sets)."""
    text = section(plots_root)
    head, sep, tail = page.rpartition("\n</body>")
    return f"{head}\n{text}{sep}{tail}" if sep and text else page
