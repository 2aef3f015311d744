"""benchmarks/compare_trees.py on two tiny output trees: identical trees compare equal (their ROOT
files written twice, so their bytes differ, with the same objects); one byte changed in a PNG,
one bin of a stored histogram, one byte of a text file, a file on one side only: each found and
named; what two runs of the same code write differently (a lock's pid, a set marker's pid and
time, a PDF's dates, draw.geometry.unique's name suffix, the trees' own paths) is not a
difference, and only that."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from pnetviz.rootenv import root

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "compare_trees.py"


@pytest.fixture(scope="module")
def ct():
    spec = importlib.util.spec_from_file_location("compare_trees", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PNG = bytes(range(256)) * 4  # bytes with the PNG suffix: compared byte for byte, never decoded


def write_root(path: Path, bins=(1.0, 2.0, 3.0), unique: str = "0123abcd", title: str = "a line") -> None:
    ROOT = root()
    path.parent.mkdir(parents=True, exist_ok=True)
    f = ROOT.TFile(str(path), "RECREATE")
    directory = f.mkdir("histograms")
    directory.cd()
    h = ROOT.TH1D("scores", "scores;score;events", len(bins), 0.0, 1.0)
    for i, v in enumerate(bins, start=1):
        h.SetBinContent(i, v)
    h.Write()
    f.cd()
    ROOT.TNamed(f"reference_line_{unique}", title).Write("line")
    ROOT.TNamed(f"confusion_{unique}_copy", "a clone").Write("clone")
    f.Close()


def tree(top: Path, *, png: bytes = PNG, csv: str = "a,b\n1,2\n", pid: int = 11, written: str = "2026-01-01T00:00:00",
         pdf_date: str = "20260101000000", seconds: float = 1.5, stage: str = "1a2b3c", **root_args) -> Path:  # fmt: skip
    (top / "set").mkdir(parents=True)
    (top / "set" / "roc.png").write_bytes(png)
    (top / "set" / "table.csv").write_text(csv)
    (top / "set" / ".pnetviz-set.json").write_text(
        f'{{\n "command": ["pnetviz", "binary", "--plots-dir", "{top.resolve()}"],\n "pid": {pid},\n "written": "{written}"\n}}\n')
    (top / ".set.pnetviz-lock").write_text(f"{pid}\n")
    (top / "set" / "roc.pdf").write_bytes(b"%PDF-1.4\n/Creator (ROOT)\n/CreationDate (D:" + pdf_date.encode()
                                          + b"+00'00')\n/ModDate (D:" + pdf_date.encode() + b"+00'00')\n/Title ("
                                          + f"{top.resolve()}/.set.pnetviz-stage-{pid}-{stage}/roc.pdf".encode()
                                          + b")\nbody\nxref\n0 2\n0000000000 65535 f \n"
                                          + f"{90 + len(str(top.resolve())):010d} 00000 n \n".encode()
                                          + f"trailer\nstartxref\n{200 + len(str(top.resolve()))}\n%%EOF\n".encode())  # fmt: skip
    (top / "summary.json").write_text(f'{{"jobs": [{{"job": "binary", "seconds": {seconds}}}]}}\n')
    write_root(top / "set" / "plots.root", **root_args)
    return top


def differences(ct, a: Path, b: Path) -> dict[str, list[str]]:
    return {k: v for k, v in ct.compare(a, b, ct.places_of(a, b, None)).items() if v}


def test_same_outputs_of_two_runs_are_equal(ct, tmp_path):
    a = tree(tmp_path / "A")
    b = tree(tmp_path / "B-longer", pid=22, written="2026-02-02T10:00:00", pdf_date="20260202100000", unique="89abcdef",
             seconds=12.25, stage="ffee01")  # fmt: skip
    assert (a / "set" / "plots.root").read_bytes() != (b / "set" / "plots.root").read_bytes()  # the file's own bytes differ
    assert differences(ct, a, b) == {}
    assert ct.main([str(a), str(b)]) == 0


def test_one_byte_of_a_png_is_found(ct, tmp_path):
    changed = bytearray(PNG)
    changed[300] ^= 1
    found = differences(ct, tree(tmp_path / "A"), tree(tmp_path / "B", png=bytes(changed)))
    assert found == {"bytes": ["set/roc.png: 1024 vs 1024 bytes, first at byte 300"]}


def test_one_bin_of_a_stored_histogram_is_found(ct, tmp_path):
    found = differences(ct, tree(tmp_path / "A"), tree(tmp_path / "B", bins=(1.0, 2.5, 3.0)))
    assert found == {"root": ["set/plots.root: object histograms/scores;1 differs"]}


def test_a_title_is_a_difference_and_a_name_that_is_not_a_unique_suffix_too(ct, tmp_path):
    found = differences(ct, tree(tmp_path / "A"), tree(tmp_path / "B", title="another line"))
    assert found == {"root": ["set/plots.root: object line;1 differs"]}
    found = differences(ct, tree(tmp_path / "C"), tree(tmp_path / "D", unique="0123abcz"))  # not 8 hex digits
    assert found == {"root": ["set/plots.root: object clone;1 differs", "set/plots.root: object line;1 differs"]}


def test_one_byte_of_a_text_file_is_found(ct, tmp_path, capsys):
    a, b = tree(tmp_path / "A"), tree(tmp_path / "B", csv="a,b\n1,3\n")
    assert differences(ct, a, b) == {"text": ["set/table.csv: line 2: b'1,2' vs b'1,3'"]}
    assert ct.main([str(a), str(b)]) == 1
    assert capsys.readouterr().out.splitlines() == ["text: set/table.csv: line 2: b'1,2' vs b'1,3'",
                                                    "7 files in A: 1 differences"]  # fmt: skip


def test_only_the_named_fields_are_normalised(ct, tmp_path):
    a = tree(tmp_path / "A")
    b = tree(tmp_path / "B")
    marker = b / "set" / ".pnetviz-set.json"
    marker.write_text(marker.read_text().replace('"binary"', '"multiclass"'))  # the command, not a pid or a time
    pdf = b / "set" / "roc.pdf"
    pdf.write_bytes(pdf.read_bytes().replace(b"body", b"bodz"))  # a PDF's content, not its dates or stage
    summary = b / "summary.json"
    summary.write_text(summary.read_text().replace('"binary"', '"multiclass"'))  # a JSON's field other than seconds
    found = differences(ct, a, b)
    assert list(found) == ["bytes", "text"]
    assert len(found["bytes"]) == 1 and found["bytes"][0].startswith("set/roc.pdf: ")
    assert [line.split(":")[0] for line in found["text"]] == ["set/.pnetviz-set.json", "summary.json"]


def test_files_on_one_side_only(ct, tmp_path):
    a, b = tree(tmp_path / "A"), tree(tmp_path / "B")
    shutil.copy(a / "set" / "roc.png", a / "set" / "extra.png")
    (b / "set" / "table.csv").unlink()
    assert differences(ct, a, b) == {"only in A": ["set/extra.png", "set/table.csv"]}


def test_not_a_directory_is_one_line_and_exit_2(ct, tmp_path, capsys):
    assert ct.main([str(tmp_path / "missing"), str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (f"compare_trees: {tmp_path / 'missing'}: not a directory. Fix: give the "
                                               "--plots-dir of two runs.")  # fmt: skip


def test_npz_compared_array_by_array(ct, tmp_path):
    """A .npz whose bytes differ is compared by its arrays: float32 and float64 holding the same
    numbers, or a member stored rather than deflated, are equal; another number, a missing array
    or another kind (bool against float) is a difference naming the array."""
    import numpy as np  # noqa: PLC0415

    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    np.savez_compressed(a, w=np.array([0.5, 0.25, 3.0]), flag=np.array([True, False]), meta=np.array('{"format": 1}'))
    np.savez(b, w=np.array([0.5, 0.25, 3.0], np.float32), flag=np.array([True, False]), meta=np.array('{"format": 1}'))
    assert a.read_bytes() != b.read_bytes() and ct.compare_npz("x.npz", a, b) == []
    np.savez(b, w=np.array([0.5, 0.25, 3.5]), flag=np.array([1.0, 0.0]))
    assert ct.compare_npz("x.npz", a, b) == ["x.npz: array meta only in A", "x.npz: array flag differs (bool[2] vs float64[2])",
                                             "x.npz: array w differs (float64[3] vs float64[3])"]  # fmt: skip
    b.write_bytes(b"PK not a zip")
    assert ct.compare_npz("x.npz", a, b)[0].startswith("x.npz: not a readable .npz on one side")


def test_png_compared_by_pixels(ct, tmp_path):
    """Two PNG files of the same image with other bytes (ROOT's writer; draw.png's) are equal;
    one pixel changed is a difference naming its place and both values; another chunk (the
    background) too."""
    import numpy as np  # noqa: PLC0415

    from pnetviz.draw.png import encode_png  # noqa: PLC0415

    ROOT = root()
    canvas = ROOT.TCanvas("compare_png", "", 120, 90)
    ROOT.TLine(0.1, 0.2, 0.9, 0.7).Draw()
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    canvas.SaveAs(str(a))
    canvas.Close()
    words = ct.png_pixels(a)
    rgb = np.stack([(words >> s).astype(np.uint8) for s in (16, 8, 0)], axis=-1)
    b.write_bytes(encode_png(rgb))
    assert a.read_bytes() != b.read_bytes()
    assert ct.compare_png("x.png", a, b, a.read_bytes(), b.read_bytes()) == []
    rgb[5, 7] = (1, 2, 3)
    b.write_bytes(encode_png(rgb))
    assert ct.compare_png("x.png", a, b, a.read_bytes(), b.read_bytes()) == [
        f"x.png: pixels differ (1; first at row 5, column 7: {int(words[5, 7]):08x} vs ff010203)"]
    data = bytearray(b.read_bytes())
    at = data.index(b"bKGD") + 4
    data[at + 1] = 9  # red background 9, its CRC not checked by the comparison
    assert ct.compare_png("x.png", a, b, a.read_bytes(), bytes(data))[0].startswith("x.png: chunks differ: ")
    found = differences(ct, tree(tmp_path / "A", png=a.read_bytes()), tree(tmp_path / "B", png=encode_png(rgb)))
    assert list(found) == ["png"] and found["png"][0].startswith("set/roc.png: pixels differ (1; ")
