#!/usr/bin/env python3
"""Whether two output trees (the --plots-dir of two campaigns) hold the same outputs (issue 50:
the restructuring changes no byte of the demo round).

    python benchmarks/compare_trees.py A B [--show N]

Compared: the same set of files (relative paths; a symbolic link as its target text); PNG files
by their pixels (`compare_png`: where the bytes differ, every chunk but the compressed image data
IDAT byte for byte (IHDR: size, bit depth, colour type; bKGD, ...), then both files decoded by
ROOT's image library (libpng through TASImage) and the pixels compared exactly: since issue 55
pnetviz deflates the pixels ROOT paints itself (draw.png), so the bytes of two PNGs of the same
image may differ, the pixels may not); every other binary file byte for byte; every `.root` file object by object as ROOT's JSON
(`TBufferJSON::ConvertToJSON`), key by key through its directories (a ROOT file's own bytes hold
its creation time and UUID, so they differ between two writes of the same objects), without the
global colour table and palette a canvas's JSON carries (`without_colour_table`: ROOT writes
its process's table there, not the file's); every text
file (json, csv, tex, txt, html, md, js, css, svg) byte for byte after the normalisation below;
every `.npz` (out_of_fold_events.npz) that differs in its bytes array by array (`compare_npz`:
the same names, shapes, kinds and numbers; a float32 array equals a float64 one holding the same
numbers, as issue 55 stores them, and the zip's compression of a member is not compared).
Prints one line per difference (at most --show per kind, then a count) and exits 1 if there is
one, 0 if none, 2 if A or B is not a directory.

Normalisation, only of what two runs of the same code on the same inputs write differently (found
by running the demo campaign twice with `--images all` into two trees and comparing them; every
other byte was equal), each replaced by a fixed placeholder on both sides before comparing:
  - `*.pnetviz-lock` files: the process id of the writer that held the lock (their content);
  - `.pnetviz-set.json` (an output set's marker): its "pid" and "written" (the publishing
    process and time) fields;
  - JSON files: the value of every "seconds" key (a job's wall time in campaign_summary.json);
  - PDF files: the `/CreationDate (D:...)` and `/ModDate (D:...)` entries ROOT writes, the
    staging directory in the `/Title` (`.<set>.pnetviz-stage-<pid>-<random>`, output.atomic),
    and the byte offsets of the cross-reference table and `startxref` (they move when the
    title's path has another length; every other byte is compared);
  - ROOT objects: names made unique by draw.geometry.unique (`<name>_<8 hex digits>`, a uuid4
    prefix, also inside a clone's `<name>_<8 hex digits>_copy`: ROOT object names are global) in
    the `"fName"` of an object inside a stored canvas;
  - the absolute paths of the two trees (A's and B's --plots-dir, recorded in the sets' command
    lines), and with --results those of the two results directories.
Nothing else is normalised: a difference anywhere else is a difference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

TEXT = frozenset({".json", ".csv", ".tex", ".txt", ".html", ".md", ".js", ".mjs", ".css", ".svg", ".log", ".py"})
LOCK_SUFFIX = ".pnetviz-lock"  # output.atomic's lock files: the holder's pid
MARKER = ".pnetviz-set.json"  # output.atomic's set marker
MARKER_FIELDS = re.compile(rb'("(?:pid|written)"\s*:\s*)(?:-?\d+|"[^"]*")')
SECONDS = re.compile(rb'("seconds"\s*:\s*)-?[0-9][0-9.eE+-]*')
PDF_DATES = re.compile(rb"(/(?:CreationDate|ModDate) \()D:[^)]*(\))")
STAGE = re.compile(rb"\.pnetviz-stage-\d+-[0-9a-f]+")  # output.atomic's staging directories
XREF = re.compile(rb"(?m)^\d{10} (\d{5} [nf])")  # a PDF cross-reference entry: offset, generation, kind
STARTXREF = re.compile(rb"startxref(\s+)\d+")
NAME = re.compile(rb'"fName": "[^"]*"')
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
UNIQUE = re.compile(rb"_[0-9a-f]{8}(?=_|\"$)")  # draw.geometry.unique's suffix inside a name


def files(top: Path) -> dict[str, Path]:
    """Relative path -> path of every file (and symbolic link) under `top`."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        for name in filenames + [d for d in dirnames if (here / d).is_symlink()]:
            out[(here / name).relative_to(top).as_posix()] = here / name
    return out


def normalised(data: bytes, places: list[tuple[bytes, bytes]], kind: str = "") -> bytes:
    """`data` with the fields two runs write differently replaced (see the module's docstring);
    `kind`: "marker", "json", "pdf" or "root" for the fields of those files, "" for the paths only."""
    if kind == "marker":
        data = MARKER_FIELDS.sub(rb"\g<1>0", data)
    if kind in ("marker", "json"):
        data = SECONDS.sub(rb"\g<1>0", data)
    elif kind == "pdf":
        data = STAGE.sub(b".pnetviz-stage-0-0", PDF_DATES.sub(rb"\g<1>D:0\g<2>", data))
        data = STARTXREF.sub(rb"startxref\g<1>0", XREF.sub(rb"0000000000 \g<1>", data))
    elif kind == "root":
        data = NAME.sub(lambda m: UNIQUE.sub(b"_00000000", m.group(0)), data)
    for place, token in places:
        data = data.replace(place, token)
    return data


GLOBAL_ARRAYS = ("ListOfColors", "CurrentColorPalette")


def without_colour_table(text: str) -> bytes:
    """ROOT's JSON of an object without the `ListOfColors` and `CurrentColorPalette` arrays that
    TCanvas's streamer adds: it writes ROOT's whole global colour table and palette, and only when
    colours were defined since its last write, so they tell what the comparing process did
    before, not what the file holds. The colours a canvas stores are not compared: reading it
    merges them into ROOT's global table, whose new entries get indices that depend on what the
    process read before (read twice, the same canvas gives another table); the colour index of
    every drawn object is compared."""

    def is_global(v) -> bool:
        return isinstance(v, dict) and v.get("_typename") == "TObjArray" and v.get("name") in GLOBAL_ARRAYS

    def strip(node):
        if isinstance(node, list):
            return [strip(v) for v in node if not is_global(v)]
        if not isinstance(node, dict):
            return node
        out = {k: strip(v) for k, v in node.items()}
        arr, opt = node.get("arr"), node.get("opt")
        if isinstance(arr, list) and isinstance(opt, list) and len(arr) == len(opt):  # a TList: its options too
            out["opt"] = [o for a, o in zip(arr, opt) if not is_global(a)]
        return out

    return json.dumps(strip(json.loads(text)), indent=0).encode()


def root_keys(tfile) -> dict[str, str]:
    """'dir/name;cycle' -> class name of every key of a ROOT file, its directories walked."""
    out = {}

    def walk(directory, prefix: str) -> None:
        for key in directory.GetListOfKeys():
            name = f"{prefix}{key.GetName()};{key.GetCycle()}"
            if key.IsFolder() and key.GetClassName().startswith("TDirectory"):
                walk(directory.Get(key.GetName()), f"{prefix}{key.GetName()}/")
            else:
                out[name] = key.GetClassName()

    walk(tfile, "")
    return out


def compare_root(rel: str, pa: Path, pb: Path, side_a: list, side_b: list) -> list[str]:
    """The objects of two ROOT files compared key by key as ROOT's JSON, normalised as the module
    says and without the global colour table (`without_colour_table`)."""
    from pnetviz.rootenv import root  # noqa: PLC0415 - ROOT only for trees that hold .root files

    ROOT = root()
    fa, fb = ROOT.TFile.Open(str(pa), "READ"), ROOT.TFile.Open(str(pb), "READ")
    try:
        if not fa or fa.IsZombie() or not fb or fb.IsZombie():
            return [f"{rel}: not readable by ROOT on {'A' if not fa or fa.IsZombie() else 'B'}"]
        ka, kb = root_keys(fa), root_keys(fb)
        out = [f"{rel}: object {k} only in {'A' if k in ka else 'B'}" for k in sorted(set(ka) ^ set(kb))]
        for key in sorted(set(ka) & set(kb)):
            if ka[key] != kb[key]:
                out.append(f"{rel}: object {key} is a {ka[key]} in A, a {kb[key]} in B")
                continue
            oa, ob = fa.Get(key), fb.Get(key)
            ja = normalised(without_colour_table(str(ROOT.TBufferJSON.ConvertToJSON(oa, oa.IsA()))), side_a, "root")
            jb = normalised(without_colour_table(str(ROOT.TBufferJSON.ConvertToJSON(ob, ob.IsA()))), side_b, "root")
            if ja != jb:
                out.append(f"{rel}: object {key} differs")
        return out
    finally:
        for f in (fa, fb):
            if f:
                f.Close()


def compare(a: Path, b: Path, places: list[tuple[bytes, bytes]] = ()) -> dict[str, list[str]]:
    """Kind of difference -> its lines ('only in A', 'only in B', 'bytes', 'text', 'root')."""
    fa, fb = files(a), files(b)
    side_a, side_b = list(places[0::2]), list(places[1::2])
    out: dict[str, list[str]] = {"only in A": sorted(set(fa) - set(fb)), "only in B": sorted(set(fb) - set(fa)),
                                 "bytes": [], "text": [], "root": [], "npz": [], "png": []}  # fmt: skip
    for rel in sorted(set(fa) & set(fb)):
        pa, pb = fa[rel], fb[rel]
        if pa.is_symlink() or pb.is_symlink():
            if not (pa.is_symlink() and pb.is_symlink() and os.readlink(pa) == os.readlink(pb)):
                out["bytes"].append(f"{rel}: symbolic link differs")
            continue
        da, db = pa.read_bytes(), pb.read_bytes()
        if da == db or rel.endswith(LOCK_SUFFIX):
            continue
        suffix = pa.suffix.lower()
        if suffix == ".root":
            out["root"] += compare_root(rel, pa, pb, side_a, side_b)
        elif suffix in TEXT:
            kind = "marker" if pa.name == MARKER else "json" if suffix == ".json" else ""
            na, nb = normalised(da, side_a, kind), normalised(db, side_b, kind)
            if na != nb:
                out["text"].append(f"{rel}: {first_difference(na, nb)}")
        elif suffix == ".npz":
            out["npz"] += compare_npz(rel, pa, pb)
        elif suffix == ".png" and da.startswith(PNG_SIGNATURE) and db.startswith(PNG_SIGNATURE):
            out["png"] += compare_png(rel, pa, pb, da, db)
        elif suffix == ".pdf" and normalised(da, side_a, "pdf") == normalised(db, side_b, "pdf"):
            continue
        else:
            out["bytes"].append(f"{rel}: {len(da)} vs {len(db)} bytes" + ("" if len(da) != len(db) else
                                f", first at byte {next(i for i, (x, y) in enumerate(zip(da, db)) if x != y)}"))
    return out


def compare_npz(rel: str, pa: Path, pb: Path) -> list[str]:
    """Two .npz files array by array: the same names, and per array the same shape, kind (float,
    bool, integer, text) and numbers (np.array_equal: float32 and float64 compare by value)."""
    import numpy as np  # noqa: PLC0415 - only for trees that hold .npz files

    try:
        with np.load(pa, allow_pickle=False) as za, np.load(pb, allow_pickle=False) as zb:
            na, nb = set(za.files), set(zb.files)
            out = [f"{rel}: array {n} only in {'A' if n in na else 'B'}" for n in sorted(na ^ nb)]
            for name in sorted(na & nb):
                x, y = za[name], zb[name]
                if x.shape != y.shape or x.dtype.kind != y.dtype.kind or not np.array_equal(x, y):
                    out.append(f"{rel}: array {name} differs ({x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)})")
            return out
    except (OSError, ValueError) as err:
        return [f"{rel}: not a readable .npz on one side ({err})"]


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of each chunk of a PNG file, in order, the IDAT chunks left out (how the
    compressed stream is cut into chunks is the writer's choice, not the image's)."""
    out, at = [], len(PNG_SIGNATURE)
    while at + 8 <= len(data):
        size, kind = int.from_bytes(data[at : at + 4], "big"), data[at + 4 : at + 8]
        if kind != b"IDAT":
            out.append((kind, data[at + 8 : at + 8 + size]))
        at += 12 + size
    return out


def png_pixels(path: Path):
    """The ARGB words of a PNG file as ROOT's image library decodes it (libpng), or None."""
    import numpy as np  # noqa: PLC0415 - only for trees that hold PNG files that differ in their bytes
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    image = ROOT.TImage.Open(str(path))
    if not image or not image.IsValid():
        return None
    ROOT.SetOwnership(image, True)
    width, height = int(image.GetWidth()), int(image.GetHeight())
    words = image.GetArgbArray()
    words.reshape((width * height,))
    return np.frombuffer(words, dtype=np.uint32, count=width * height).reshape(height, width).copy()


def compare_png(rel: str, pa: Path, pb: Path, da: bytes, db: bytes) -> list[str]:
    """Two PNG files with other bytes: the same chunks but IDAT (byte for byte, in order), and the
    same pixels (both decoded by ROOT, png_pixels; compared exactly)."""
    import numpy as np  # noqa: PLC0415

    ca, cb = png_chunks(da), png_chunks(db)
    if ca != cb:
        shown = [[(kind.decode("latin-1"), data.hex()) for kind, data in side] for side in (ca, cb)]
        return [f"{rel}: chunks differ: {shown[0]} vs {shown[1]}"]
    xa, xb = png_pixels(pa), png_pixels(pb)
    if xa is None or xb is None:
        return [f"{rel}: not decoded by ROOT on {'A' if xa is None else 'B'}"]
    if xa.shape != xb.shape:
        return [f"{rel}: {xa.shape[1]} x {xa.shape[0]} vs {xb.shape[1]} x {xb.shape[0]} pixels"]
    if not np.array_equal(xa, xb):
        row, col = (int(v[0]) for v in np.nonzero(xa != xb))
        return [f"{rel}: pixels differ ({int(np.count_nonzero(xa != xb))}; first at row {row}, column {col}: "
                f"{int(xa[row, col]):08x} vs {int(xb[row, col]):08x})"]
    return []


def first_difference(a: bytes, b: bytes) -> str:
    """Where two texts part, with a little of each side."""
    line = 1 + a[: next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))].count(b"\n")
    la, lb = (a.split(b"\n") + [b""])[line - 1], (b.split(b"\n") + [b""])[line - 1]
    return f"line {line}: {la[:100]!r} vs {lb[:100]!r}"


def places_of(a: Path, b: Path, results: list[Path] | None) -> list[tuple[bytes, bytes]]:
    """(A's place, token), (B's place, token), ... in the order compare() takes them: the trees'
    absolute paths, then the results directories', each side with its own."""
    pairs = [(a, b)] + ([tuple(results)] if results else [])
    out = []
    for i, (pa, pb) in enumerate(pairs):
        token = f"<tree-{i}>".encode()
        out += [(str(Path(pa).resolve()).encode(), token), (str(Path(pb).resolve()).encode(), token)]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--results", type=Path, nargs=2, metavar=("A_RESULTS", "B_RESULTS"),
                        help="the results directories of the two runs, when they differ (normalised like the trees)")
    parser.add_argument("--show", type=int, default=20, help="differences shown per kind (default: %(default)s)")
    args = parser.parse_args(argv)
    for top in (args.a, args.b):
        if not top.is_dir():
            print(f"compare_trees: {top}: not a directory. Fix: give the --plots-dir of two runs.", file=sys.stderr)
            return 2
    found = compare(args.a, args.b, places_of(args.a, args.b, args.results))
    count = sum(map(len, found.values()))
    for kind, lines in found.items():
        for line in lines[: args.show]:
            print(f"{kind}: {line}")
        if len(lines) > args.show:
            print(f"{kind}: ... {len(lines) - args.show} more")
    total = len(files(args.a))
    print(f"{total} files in A: " + ("identical" if not count else f"{count} differences"))
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
