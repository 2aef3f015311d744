"""`--images site` (the campaign's default) writes PNGs only where the web report shows them as
images: the key figures of each model's first fold set and every figure of its fold summary; the
other fold sets hold their canvases in plots.root only (their markers say so), their thumbnails are
live views, and a rerun that would drop images an earlier run put there asks for --replace."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.output import imageset
from pnetviz.output.atomic import MARKER
from pnetviz.output.render import canvas_names, figure_name

pytestmark = pytest.mark.slow  # a demo round and its campaigns

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, Path]:
    """(results, plots): `pnetviz demo` with 3 folds of one signal point, then its campaign."""
    from pnetviz.cli import demo as demo_cli

    results = tmp_path_factory.mktemp("firstfold") / "results"
    assert run(demo_cli.main, ["--output", str(results), "--signals", SIGNAL, "--channels", CHANNEL, "--folds", "3",
                               "--events", "300", "--no-ga"]) == 0  # fmt: skip
    plots = tmp_path_factory.mktemp("firstfold_plots")
    assert campaign(results, plots) == 0
    return results, plots


def campaign(results: Path, plots: Path, *extra: str) -> int:
    return run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                       "--workers", "0", "--bootstrap", "0", "-q", *extra])  # fmt: skip


def figures(directory: Path) -> set[str]:
    return {figure_name(k) for k in canvas_names(directory / "plots.root")}


def pngs(directory: Path) -> set[str]:
    return {p.stem for p in directory.glob("*.png")}


def marker_images(directory: Path) -> dict:
    return json.loads((directory / MARKER).read_text())["images"]


def model_dirs(plots: Path, kind: str) -> list[Path]:
    return sorted(d for d in plots.rglob(f"{CHANNEL}/{kind}/{SIGNAL}/*") if (d / "fold-0").is_dir())


def test_only_the_first_fold_set_holds_the_key_pngs(demo):
    _, plots = demo
    models = {kind: model_dirs(plots, kind) for kind in ("binary", "multiclass", "comparison")}
    assert [len(models[k]) for k in models] == [3, 1, 1]
    for model in (m for ms in models.values() for m in ms):
        first = model / "fold-0"
        key = {f for f in figures(first) if imageset.key_figure(f)}
        assert pngs(first) == key, first
        assert marker_images(first) == {"png": "site"}
        for later in (model / "fold-1", model / "fold-2"):
            assert len(figures(later)) == len(figures(first)) > 5, later  # every canvas is stored all the same
            assert pngs(later) == set() and not list(later.glob("*.pdf")), later
            assert marker_images(later) == {}, later  # the marker says it holds no image
        summary = model / "folds"
        assert pngs(summary) == figures(summary) and len(pngs(summary)) >= 3, summary
        assert marker_images(summary) == {"png": "site"}
    binary = models["binary"][0] / "fold-0"
    assert pngs(binary) == {"roc_curve", "rejection_curve", "score_distributions"}
    multi = models["multiclass"][0] / "fold-0"
    assert {"signal_vs_ttX_roc_curve", "signal_vs_ttX_lr_score_distribution", "signal_score_distribution"} <= pngs(multi)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.noimage: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        found = dict(attrs)
        if tag == "img":
            self.images.append(found.get("src") or "")
        if tag == "a" and "noimage" in (found.get("class") or "").split():
            self.noimage.append(found.get("href") or "")


def _parse(page: Path) -> _Links:
    links = _Links()
    links.feed(page.read_text())
    return links


def test_the_model_pages_show_no_missing_image_and_later_folds_live(demo):
    _, plots = demo
    pages = sorted((plots / "campaign" / "site").rglob("*.html"))
    model_pages = [p for p in pages if p.parent.name in ("binary", "multiclass")]
    assert len(model_pages) == 4
    shown = 0
    for page in pages:
        for src in _parse(page).images:
            target = (page.parent / unquote(urlsplit(src).path)).resolve()
            assert src and target.is_file(), (page, src)  # never a broken <img>
            shown += 1
    assert shown >= 4 * 3
    for page in model_pages:
        links = _parse(page)
        later = [h for h in links.noimage if "/fold-1/plots.root" in unquote(h) or "/fold-2/plots.root" in unquote(h)]
        assert later and all(unquote(h).split("?")[0].endswith("view.html") for h in later), page  # live views
        assert not any("/fold-1/" in unquote(s) or "/fold-2/" in unquote(s) for s in links.images), page
        assert any("/fold-0/" in unquote(s) for s in links.images) and any("/folds/" in unquote(s) for s in links.images)


def test_a_rerun_asks_before_dropping_the_images_of_a_later_fold(demo, capsys):
    """fold-1 evaluated alone (its first fold: key PNGs); a campaign redoing every fold would leave
    fold-1 without them: one line asking for --replace, nothing changed; --dry-run lists them."""
    results, plots = demo
    model = model_dirs(plots, "binary")[0]
    background = model.name.rsplit("-", 1)[1]
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--channel", CHANNEL, "--signal", SIGNAL,
            "--background", background, "--bootstrap", "0", "--images", "site", "--formats", "png", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, [*argv, "--fold", "1"]) == 0
    kept = sorted(p for p in (model / "fold-1").glob("*.png"))
    assert {p.stem for p in kept} == {"roc_curve", "rejection_curve", "score_distributions"}
    assert marker_images(model / "fold-1") == {"png": "site"}
    before = {p: p.read_bytes() for p in sorted(plots.rglob("*")) if p.is_file()}
    capsys.readouterr()
    assert campaign(results, plots, "--force") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--replace" in err[0] and "fold sets after" in err[0] and "fold-1" in err[0], err
    assert run(load_script("visualizeBinary").main, [*argv, "--fold", "all"]) == 2  # the single command too
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--replace" in err[0] and "fold-1" in err[0], err
    assert {p: p.read_bytes() for p in sorted(plots.rglob("*")) if p.is_file()} == before
    assert campaign(results, plots, "--force", "--replace", "--dry-run") == 0
    removed = [line.split("would remove ", 1)[1] for line in capsys.readouterr().out.splitlines() if "would remove" in line]
    assert sorted(map(Path, removed)) == kept
