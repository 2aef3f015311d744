"""cmsstyle's TStyle read from the user's cache (draw.style._set_cms_style) is the one its setter
makes: every stored attribute equal (ROOT's JSON of the object), current and forced as after
the setter; a damaged cache file is replaced by the setter's style."""

from __future__ import annotations

import pytest

from pnetviz.draw import style
from pnetviz.rootenv import root


@pytest.fixture
def module(monkeypatch, tmp_path):
    """cmsstyle's module with no style set yet, the cache in tmp_path; cmsstyle's global restored after."""
    style.cmsstyle()
    import cmsstyle.cmsstyle as cms  # noqa: PLC0415

    monkeypatch.setenv("PNETVIZ_CACHE", str(tmp_path))
    saved = cms.cmsStyle
    cms.cmsStyle = None
    yield cms
    cms.cmsStyle = saved
    if saved:
        saved.cd()


def as_json(obj) -> str:
    return str(root().TBufferJSON.ToJSON(obj).Data())


def test_style_read_from_the_cache_is_the_setters(module, tmp_path):
    ROOT = root()
    style._set_cms_style(module)  # no cache yet: the setter, and the style stored
    stored = list(tmp_path.glob("cmsstyle-*.root"))
    assert len(stored) == 1
    made = as_json(module.cmsStyle)
    assert '"fName" : "cmsStyle"' in made
    module.cmsStyle = None
    ROOT.gROOT.SetStyle("Modern")
    style._set_cms_style(module)  # read from the cache
    assert as_json(module.cmsStyle) == made
    assert ROOT.gStyle.GetName() == "cmsStyle" and ROOT.gROOT.GetForceStyle()
    assert ROOT.gStyle.GetPadLeftMargin() == module.cmsStyle.GetPadLeftMargin()
    assert ROOT.gROOT.GetStyle("cmsStyle") == module.cmsStyle


def test_a_damaged_cache_file_gives_the_setters_style(module, tmp_path):
    style._set_cms_style(module)
    made = as_json(module.cmsStyle)
    (path,) = tmp_path.glob("cmsstyle-*.root")
    path.write_bytes(b"not a ROOT file")
    module.cmsStyle = None
    style._set_cms_style(module)
    assert as_json(module.cmsStyle) == made
    assert path.read_bytes()[:4] == b"root"  # stored anew
