"""atomic.transaction: whole sets or nothing, verified files, one writer, no growing litter."""

from __future__ import annotations

import json
import os

import pytest

from pnetviz.output import atomic
from pnetviz.errors import InputError
from pnetviz.output.atomic import MARKER, OutputError, transaction, verify_file, writer_lock

PNG = atomic.PNG_SIGNATURE + (13).to_bytes(4, "big") + b"IHDR" + (10).to_bytes(4, "big") * 2 + b"\0" * 5 + b"\0" * 4 \
    + (0).to_bytes(4, "big") + b"IEND" + b"\xae\x42\x60\x82"  # fmt: skip


def write(stage, **files):
    """write(stage, a_json="{}") writes stage/a.json."""
    for key, content in files.items():
        path = stage / key.replace("_", ".", 1)
        path.write_bytes(content.encode() if isinstance(content, str) else content)


def names(directory):
    return sorted(p.name for p in directory.iterdir())


def test_publish_replaces_the_whole_set(tmp_path):
    out = tmp_path / "out"
    with transaction([out]) as stages:
        write(stages[out], a_json='{"run": 1}', old_txt="only in the first set")
    assert names(out) == [MARKER, "a.json", "old.txt"]
    assert json.loads((out / MARKER).read_text())["files"] == ["a.json", "old.txt"]
    with transaction([out], meta={"options": "x"}) as stages:
        write(stages[out], a_json='{"run": 2}')
    assert names(out) == [MARKER, "a.json"]  # nothing of the old set stays beside the new one
    assert json.loads((out / "a.json").read_text()) == {"run": 2}
    assert json.loads((out / MARKER).read_text())["options"] == "x"
    assert names(tmp_path) == [".out.pnetviz-lock", "out"]


def test_error_keeps_the_old_set_and_leaves_no_stage(tmp_path):
    out = tmp_path / "out"
    with transaction([out]) as stages:
        write(stages[out], a_json='{"run": 1}')
    with pytest.raises(RuntimeError):
        with transaction([out]) as stages:
            write(stages[out], a_json='{"run": 2}')
            raise RuntimeError("boom")
    assert json.loads((out / "a.json").read_text()) == {"run": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.pnetviz-lock", "out"]


@pytest.mark.parametrize("name, content, problem", [
    ("p.png", PNG[:-8], "truncated PNG"),
    ("p.png", b"GIF89a", "not a PNG"),
    ("p.pdf", b"%PDF-1.4\n1 0 obj", "not a complete PDF"),
    ("r.json", b'{"a": ', "JSON"),
    ("r.txt", b"\xff\xfe\xfa", "UTF-8"),
    ("e.png", b"", "empty"),
])  # fmt: skip
def test_a_damaged_file_stops_the_publication(tmp_path, name, content, problem):
    out = tmp_path / "out"
    with transaction([out]) as stages:
        write(stages[out], a_json="{}", p_png=PNG)
    before = {n: (out / n).read_bytes() for n in names(out)}
    with pytest.raises(OutputError, match=problem):
        with transaction([out]) as stages:
            (stages[out] / name).write_bytes(content)
    assert {n: (out / n).read_bytes() for n in names(out)} == before
    assert verify_file(out / "p.png") is None


def test_root_file_truncated_or_unclosed_is_caught(tmp_path):
    from pnetviz.rootenv import root

    ROOT = root()
    path = tmp_path / "f.root"
    f = ROOT.TFile.Open(str(path), "RECREATE")
    for i in range(20):
        f.WriteObject(ROOT.TH1D(f"h{i}", "", 100, 0, 1), f"h{i}")
    f.Close()
    assert verify_file(path) is None
    data = path.read_bytes()
    path.write_bytes(data[:-200])
    assert "recover" in verify_file(path) or "truncated" in verify_file(path)
    path.write_bytes(data[: len(data) // 2])
    assert verify_file(path) is not None


def test_refuses_to_replace_what_pnetviz_did_not_write(tmp_path):
    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(InputError, match="non-empty directory that pnetviz did not write"):
        with transaction([foreign]):
            pass
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="exists and is not a directory"):
        with transaction([blocker]):
            pass
    out = tmp_path / "out"
    with transaction([out]) as stages:
        write(stages[out], a_json="{}")
    (out / "inputs.root").write_text("an input the user put there")
    with pytest.raises(InputError, match="inside the output directory"):
        with transaction([out], inputs=[out / "inputs.root"]):
            pass
    assert (foreign / "thesis.tex").read_text() == "precious" and (out / "inputs.root").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with transaction([empty]) as stages:
        write(stages[empty], a_json="{}")
    assert names(empty) == [MARKER, "a.json"]


def test_second_writer_stops_naming_the_holder(tmp_path):
    out = tmp_path / "out"
    with writer_lock(out, wait=False):
        with pytest.raises(InputError, match=rf"another pnetviz run \(pid {os.getpid()}\).*--wait"):
            with transaction([out]):
                pass
    with transaction([out]) as stages:  # released
        write(stages[out], a_json="{}")


def test_stale_stage_and_old_sets_are_removed_by_the_next_run(tmp_path):
    out = tmp_path / "out"
    for stale in (".out.pnetviz-stage-1-abc", ".out.pnetviz-old-2-def"):
        (tmp_path / stale).mkdir()
        (tmp_path / stale / "x.png").write_bytes(PNG)
    (tmp_path / ".other.pnetviz-stage-3-x").mkdir()  # another directory's: not ours to remove
    with transaction([out]) as stages:
        write(stages[out], a_json="{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.pnetviz-stage-3-x", ".out.pnetviz-lock", "out"]


def test_failure_during_the_swap_keeps_the_old_set(tmp_path, monkeypatch):
    out = tmp_path / "out"
    with transaction([out]) as stages:
        write(stages[out], a_json='{"run": 1}')

    def broken(a, b):
        raise PermissionError(13, "Permission denied", str(b))

    monkeypatch.setattr(atomic, "_exchange", broken)
    with pytest.raises(PermissionError):
        with transaction([out]) as stages:
            write(stages[out], a_json='{"run": 2}')
    assert json.loads((out / "a.json").read_text()) == {"run": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.pnetviz-lock", "out"]
