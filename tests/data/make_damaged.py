"""Re-make the damaged-ntuple corpus in tests/data/damaged/ (see tests/data/README.md).

    .venv/bin/python tests/data/make_damaged.py [OUTPUT_DIR]

A small valid binary-model ntuple (the trainer's layout, pnetviz.demo.trainertree, 200 pool
events -> 127 entries) is copied under a short name, once as written (zlib) and once
uncompressed, and one byte of each copy is flipped (xor 0xFF) at a place located from the file's
own structure, so that the flips hit the same field whatever ROOT writes around it. Each flip is
one failure class that pnetviz before issue 22 (commit 6853c9a) turned into a traceback, a ROOT
crash or a hang; `EXPECTED` says which, as measured with `pnetviz binary --predictions FILE
--output DIR`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.io import structure
from pnetviz.rootenv import root

HERE = Path(__file__).resolve().parent
EXPECTED = {  # file -> what the flipped byte is; what happened before the structural check and the guard
    "keyname_traceback.root": ("first letter of the tree's name in the keys list",
                               "TypeError traceback listing the keys (exit 1)"),
    "streamerinfo_length_error.root": ("high byte of the header's StreamerInfo length (fNbytesInfo)",
                                       "std::length_error in TFile::Open: traceback, then ROOT crash (exit 129)"),
    "keyslist_heap_corruption.root": ("second byte of the tree key's size in the keys list",
                                      "malloc(): invalid size, abort, hang in ROOT's crash handler (killed)"),
    "basket_version_segv.root": ("high byte of the TBasket version of score_signal's basket",
                                 "segmentation violation (exit 129)"),
    "basket_title_bad_array.root": ("length byte of the title in weight's basket key",
                                    "std::bad_array_new_length traceback (exit 1)"),
    "uncompressed_tree_segv.root": ("byte 229 of the TTree record's object in an uncompressed copy",
                                    "segmentation violation (exit 129); no checksum: read in the guarded child"),
}  # fmt: skip


def valid_ntuple(work: Path, name: str, compression: int) -> Path:
    """The trainer's binary ntuple for one fold, copied to `work`/`name` with `compression`."""
    ROOT = root()
    model = ModelSpec("binary", "nonprompt")
    (source,) = write_trainer_fold(work / "trainer", "Run3Mu", "MHc130_MA90", 0, models=(model,), events=200)
    old = Path.cwd()
    os.chdir(work)  # the file's name is stored inside it: keep it short
    try:
        src = ROOT.TFile.Open(str(source), "READ")
        out = ROOT.TFile(name, "RECREATE", "", compression)
        src.Get("Events").CloneTree(-1).Write()
        out.Close()
        src.Close()
    finally:
        os.chdir(old)
    return work / name


def _layout(path: Path) -> dict[str, int]:
    """Positions of the fields the corpus flips, from the file's own structure."""
    data = path.read_bytes()
    fd = os.open(path, os.O_RDONLY)
    try:
        file = structure._File(fd, len(data))
        header = structure._file_header(file)
        _, seek_keys, _ = structure._top_directory(file, header)
    finally:
        os.close(fd)
    fixed = 26  # a key header's fixed part with 4-byte offsets; 34 with 8-byte ones
    own = structure._parse_key(data, seek_keys, "keys list")
    first_key = seek_keys + own.keylen + 4
    key = structure._parse_key(data, first_key, "key")
    key_fixed = 34 if key.version > 1000 else fixed
    ROOT = root()
    tfile = ROOT.TFile.Open(str(path), "READ")
    tree = tfile.Get("Events")
    seeks = {b: int(tree.GetBranch(b).GetBasketSeek(0)) for b in ("score_signal", "weight")}
    tfile.Close()
    signal = structure._parse_key(data, seeks["score_signal"], "basket")
    weight = structure._parse_key(data, seeks["weight"], "basket")
    weight_fixed = 34 if weight.version > 1000 else fixed
    return {
        "nbytes_info": 41 if header.version < 1_000_000 else 53,
        "key_name": first_key + key_fixed + 1 + len(key.class_name) + 1,
        "key_nbytes": first_key + 1,
        "basket_version": seeks["score_signal"] + signal.length,
        "basket_title": seeks["weight"] + weight_fixed + 1 + len(weight.class_name) + 1 + len(weight.name),
        "tree_object": key.seek + key.keylen,
    }


def flipped(path: Path, offset: int, out: Path) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    out.write_bytes(bytes(data))


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        zlib, raw = valid_ntuple(work, "ntuple.root", 101), valid_ntuple(work, "ntuple_raw.root", 0)
        at, at_raw = _layout(zlib), _layout(raw)
        flipped(zlib, at["key_name"], out / "keyname_traceback.root")
        flipped(zlib, at["nbytes_info"], out / "streamerinfo_length_error.root")
        flipped(zlib, at["key_nbytes"], out / "keyslist_heap_corruption.root")
        flipped(zlib, at["basket_version"], out / "basket_version_segv.root")
        flipped(zlib, at["basket_title"], out / "basket_title_bad_array.root")
        flipped(raw, at_raw["tree_object"] + 229, out / "uncompressed_tree_segv.root")
    for name, (where, before) in EXPECTED.items():
        print(f"{out / name}: {where}; before: {before}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "damaged")
