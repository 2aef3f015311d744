"""Structural check of a ROOT file before ROOT reads it: pure Python, no ROOT call.

ROOT trusts the bookkeeping of a file: a flipped byte in a key header, the keys list or a basket
header makes it allocate absurd sizes, read past its buffers or loop (measured on byte-flipped
ntuples: std::length_error, segmentation violations, heap corruption, hangs). This module reads
that bookkeeping itself, with every offset and count checked against the file size:

- `check_file` (before ROOT opens the file): the file header, the top directory, every entry of
  the keys lists on the way to the tree, the records of the tree and of the StreamerInfo (their
  key headers, the chain of compressed blocks, and the content checksum: zlib and xz streams are
  decompressed here, lz4 and zstd-with-checksum blocks are verified by ROOT). A record that no
  checksum protects (stored uncompressed, zstd without checksum, ROOT's old "CS") cannot be
  verified: `FileCheck.verified` is then False and the caller reads the file in a guarded
  child process (`pnetviz.io.guard`).
- `check_baskets` (after ROOT has read the tree's metadata, before the event loop): the key header
  of every basket of the branches to read against the tree's own tables (position, size, entry
  range, entry size, end of data, compressed block headers).

Format: ROOT's TFile, TKey, TDirectory and TBasket streamers (big-endian; 8-byte offsets when a
version is above 1000, or 1000000 for the file header). Cost: a few small reads per file and one
per basket (see `pnetviz.io.ntuple` for the measured numbers).
"""

from __future__ import annotations

import lzma
import os
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

# Compressed blocks: 2-byte algorithm, 1 method byte, 3-byte little-endian compressed and
# uncompressed sizes; then the algorithm's stream.
BLOCK_HEADER = 9
ALGORITHMS = {b"ZL": "zlib", b"XZ": "lzma", b"L4": "lz4", b"ZS": "zstd", b"CS": "ROOT's old algorithm"}
METHODS = {b"ZL": {8}, b"CS": {8}, b"XZ": {0}, b"ZS": {1}}  # the method byte ROOT accepts (lz4: any)
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BASKET_FIELDS = struct.Struct(">hiiiib")  # TBasket: version, fBufferSize, fNevBufSize, fNevBuf, fLast, flag
DIRECTORY_CLASSES = {"TDirectory", "TDirectoryFile"}
MAX_NAME = 1 << 16  # longer class names, names or titles in a key are damage
MAX_HEADER = 34 + 3 * (5 + MAX_NAME)  # the longest key header


class Damaged(Exception):
    """The file's bookkeeping is inconsistent; the message says where (no file name)."""


class NotROOT(Damaged):
    """The file does not start like a ROOT file at all."""


@dataclass(frozen=True)
class Key:
    """One TKey header: a record's `nbytes` at `seek` (`keylen` of header, `objlen` of object)."""

    nbytes: int
    version: int
    objlen: int
    keylen: int
    cycle: int
    seek: int
    pdir: int
    class_name: str
    name: str
    title: str
    length: int  # bytes of the header as parsed (the TKey fields and the three strings)

    @property
    def compressed(self) -> bool:
        return self.objlen > self.nbytes - self.keylen


@dataclass(frozen=True)
class FileCheck:
    """What `check_file` found: the file size, the tree's key (None: no such key, ROOT says
    what is there) and whether every record ROOT will deserialise is protected by a checksum."""

    size: int
    tree: Key | None
    verified: bool
    unverified: str = ""  # why not, e.g. "the TTree record 'Events' is stored uncompressed"
    keys: tuple[tuple[str, str], ...] = ()  # (name, class) of the keys where the tree was looked for


@dataclass(frozen=True)
class BranchBaskets:
    """A branch's basket table as the tree records it (from ROOT's TBranch)."""

    name: str
    entry_size: int  # bytes per entry (a flat scalar leaf)
    seeks: Sequence[int]  # file position of each basket written to the file
    nbytes: Sequence[int]  # its record size
    first: Sequence[int]  # first entry of each basket, one more than `seeks` (the end of the last)
    entries: int  # of the tree; entries past the last basket on file are in the tree's record


@dataclass(frozen=True)
class _Header:
    version: int
    begin: int
    end: int
    seek_free: int
    nbytes_free: int
    nbytes_name: int
    seek_info: int
    nbytes_info: int


class _File:
    """Positioned reads of an open file, each checked against the file size."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size

    def read(self, offset: int, length: int, what: str) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.size:
            raise Damaged(f"{what} at byte {offset} ({length} bytes) lies outside the file ({self.size} bytes)")
        data = os.pread(self.fd, length, offset)
        if len(data) != length:
            raise Damaged(f"{what} at byte {offset}: the file ends early (it shrank while being read?)")
        return data


def check_file(path: os.PathLike | str, tree: str) -> FileCheck:
    """Check the ROOT file `path` up to the record of `tree` ("dir/name" and ";cycle" allowed).
    Damaged if anything is out of place; OSError (PermissionError, ...) if it cannot be read."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        f = _File(fd, os.fstat(fd).st_size)
        header = _file_header(f)
        seek_dir, seek_keys, nbytes_keys = _top_directory(f, header)
        notes: list[str] = []
        info = _record(f, header, header.seek_info, "the StreamerInfo record", nbytes=header.nbytes_info)
        notes += _verify_payload(f, info, "the StreamerInfo record")
        key, keys = _find(f, header, seek_dir, seek_keys, nbytes_keys, tree)
        if key is not None:
            record = _same_record(f, header, key, f"the record of '{tree}'")
            notes += _verify_payload(f, record, f"the {record.class_name} record '{tree}'")
        return FileCheck(f.size, key, not notes, "; ".join(notes), tuple((k.name, k.class_name) for k in keys))
    finally:
        os.close(fd)


def _file_header(f: _File) -> _Header:
    head = os.pread(f.fd, 64, 0)
    if len(head) < 4 or head[:4] != b"root":
        raise NotROOT("it does not start with 'root', as every ROOT file does")
    if len(head) < 45:
        raise Damaged(f"only {f.size} bytes, shorter than a ROOT file header")
    version, begin = struct.unpack_from(">ii", head, 4)
    if version >= 1_000_000:
        if len(head) < 57:
            raise Damaged(f"only {f.size} bytes, shorter than a ROOT file header")
        end, seek_free, nbytes_free, _nfree, nbytes_name, units, _compress, seek_info, nbytes_info = struct.unpack_from(
            ">qqiiibiqi", head, 12)  # fmt: skip
    else:
        end, seek_free, nbytes_free, _nfree, nbytes_name, units, _compress, seek_info, nbytes_info = struct.unpack_from(
            ">iiiiibiii", head, 12)  # fmt: skip
    if units not in (4, 8) or not 0 < begin < 1 << 20:
        raise Damaged(f"the file header is damaged (pointer size {units}, first record at byte {begin})")
    if end > f.size:
        raise Damaged(f"the header says it ends at byte {end} but it has {f.size} bytes: truncated (an incomplete "
                      "copy, or a job that died while writing it?)")  # fmt: skip
    if end <= begin:
        raise Damaged(f"the file header is damaged (end of data at byte {end}, before its first record)")
    if seek_info == 0 or seek_free == 0:
        raise Damaged("the file was not closed (the job writing it died or is still running)")
    if not (begin <= seek_free and seek_free + nbytes_free <= end and nbytes_free > 0):
        raise Damaged(f"the free-segments record (byte {seek_free}, {nbytes_free} bytes) lies outside the data")
    return _Header(version, begin, end, seek_free, nbytes_free, nbytes_name, seek_info, nbytes_info)


def _top_directory(f: _File, header: _Header) -> tuple[int, int, int]:
    """(seek of the directory, seek and size of its keys list) from the record at fBEGIN."""
    key = _record(f, header, header.begin, "the file's top directory")
    if not key.keylen < header.nbytes_name <= key.nbytes - 18:
        raise Damaged(f"the top directory's name length ({header.nbytes_name} bytes) does not fit its record")
    where = header.begin + header.nbytes_name
    seek_dir, seek_keys, nbytes_keys = _directory(f, header, where, key, "the top directory")
    if seek_dir != header.begin:
        raise Damaged(f"the top directory says it is at byte {seek_dir}, not {header.begin}")
    return seek_dir, seek_keys, nbytes_keys


def _directory(f: _File, header: _Header, at: int, key: Key, what: str) -> tuple[int, int, int]:
    """Parse a TDirectory at byte `at` inside the record of `key`: (fSeekDir, fSeekKeys, fNbytesKeys)."""
    room = key.seek + key.nbytes - at
    data = f.read(at, min(room, 42), what)
    if len(data) < 18:
        raise Damaged(f"{what} (byte {at}) is shorter than a directory")
    version, _ctime, _mtime, nbytes_keys, _nbytes_name = struct.unpack_from(">hIIii", data, 0)
    fmt = ">qqq" if version > 1000 else ">iii"
    if len(data) < 18 + struct.calcsize(fmt):
        raise Damaged(f"{what} (byte {at}) is shorter than a directory")
    seek_dir, _seek_parent, seek_keys = struct.unpack_from(fmt, data, 18)
    if seek_keys == 0:
        raise Damaged("the file was not closed (the job writing it died or is still running)")
    if not (header.begin <= seek_keys and nbytes_keys > 0 and seek_keys + nbytes_keys <= header.end):
        raise Damaged(f"the keys list of {what} (byte {seek_keys}, {nbytes_keys} bytes) lies outside the data")
    return seek_dir, seek_keys, nbytes_keys


def _find(f: _File, header: _Header, seek_dir: int, seek_keys: int, nbytes_keys: int,
          tree: str) -> tuple[Key | None, list[Key]]:  # fmt: skip
    """The key of `tree` (highest cycle unless ";n" is given), walking "a/b/name" through
    directories, and the keys of the last directory looked in; None if a step has no such key
    (then every key of that directory is compared with its record: a damaged name is damage).
    Every keys list on the way is checked."""
    parts = [p for p in tree.split("/") if p] or [tree]
    for depth, part in enumerate(parts):
        name, _, cycle = part.partition(";")
        keys = _keys_list(f, header, seek_dir, seek_keys, nbytes_keys)
        matches = [k for k in keys if k.name == name and (not cycle or str(k.cycle) == cycle)]
        if not matches or (depth < len(parts) - 1 and max(matches, key=lambda k: k.cycle).class_name
                           not in DIRECTORY_CLASSES):  # fmt: skip
            for key in keys:
                _same_record(f, header, key, f"the key '{key.name}'")
            return None, keys
        key = max(matches, key=lambda k: k.cycle)
        if depth == len(parts) - 1:
            return key, keys
        record = _same_record(f, header, key, f"the directory '{name}'")
        seek_dir, seek_keys, nbytes_keys = _directory(f, header, key.seek + record.keylen, record,
                                                      f"the directory '{name}'")  # fmt: skip
        if seek_dir != key.seek:
            raise Damaged(f"the directory '{name}' says it is at byte {seek_dir}, not {key.seek}")
    return None, []


def _same_record(f: _File, header: _Header, key: Key, what: str) -> Key:
    """The record `key` (a keys list entry) points to, which must carry the same header."""
    record = _record(f, header, key.seek, what, nbytes=key.nbytes)
    if (record.class_name, record.name, record.cycle, record.objlen, record.keylen) != (
            key.class_name, key.name, key.cycle, key.objlen, key.keylen):  # fmt: skip
        raise Damaged(f"{what}: the keys list and the record at byte {key.seek} disagree")
    return record


def _keys_list(f: _File, header: _Header, seek_dir: int, seek_keys: int, nbytes_keys: int) -> list[Key]:
    """Every key of the keys list at `seek_keys`, each within the data and in this directory."""
    data = f.read(seek_keys, nbytes_keys, "the keys list")
    try:
        own = _parse_key(data, 0, "the keys list")
    except _Short:
        raise Damaged(f"the keys list at byte {seek_keys} is shorter than its own header") from None
    _check_key(own, header, seek_keys, "the keys list", nbytes=nbytes_keys)
    if own.keylen + 4 > nbytes_keys:
        raise Damaged(f"the keys list at byte {seek_keys} is shorter than its own header")
    (count,) = struct.unpack_from(">i", data, own.keylen)
    if not 0 <= count <= (nbytes_keys - own.keylen - 4) // 26:
        raise Damaged(f"the keys list at byte {seek_keys} claims {count} keys, more than its {nbytes_keys} bytes hold")
    keys, at = [], own.keylen + 4
    for i in range(count):
        what = f"key {i + 1} of the keys list at byte {seek_keys}"
        try:
            key = _parse_key(data, at, what)
        except _Short:
            raise Damaged(f"{what} runs past the end of the list") from None
        _check_key(key, header, key.seek, f"the key '{key.name}'")
        if key.pdir != seek_dir:
            raise Damaged(f"the key '{key.name}' in the keys list at byte {seek_keys} names another directory")
        keys.append(key)
        at += key.length
    return keys


def _record(f: _File, header: _Header, seek: int, what: str, nbytes: int | None = None) -> Key:
    """The key header at the start of the record at `seek`, checked."""
    if not header.begin <= seek < header.end:
        raise Damaged(f"{what} is said to start at byte {seek}, outside the data (bytes {header.begin}-{header.end})")
    key, _ = _read_key(f, seek, header.end - seek if nbytes is None else min(nbytes, header.end - seek), what)
    _check_key(key, header, seek, what, nbytes=nbytes)
    return key


def _read_key(f: _File, seek: int, limit: int, what: str) -> tuple[Key, bytes]:
    """The key header at `seek` (within `limit` bytes) and the bytes read (at least the header)."""
    for length in dict.fromkeys((min(limit, 256), min(limit, MAX_HEADER))):
        data = f.read(seek, length, what)
        try:
            return _parse_key(data, 0, what), data
        except _Short:
            continue
    raise Damaged(f"{what} (byte {seek}): the key header runs past its record ({limit} bytes)")


class _Short(Exception):
    """The bytes at hand end inside a key header."""


def _parse_key(data: bytes, at: int, what: str) -> Key:
    """The TKey header starting at data[at]; _Short if `data` ends inside it."""
    try:
        nbytes, version, objlen, _datime, keylen, cycle = struct.unpack_from(">ihiIhh", data, at)
        pos = at + 18
        fmt = ">qq" if version > 1000 else ">ii"
        seek, pdir = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        class_name, pos = _tstring(data, pos, what)
        name, pos = _tstring(data, pos, what)
        title, pos = _tstring(data, pos, what)
    except struct.error:
        raise _Short from None
    if not class_name or not all(" " < ch < "\x7f" for ch in class_name):
        raise Damaged(f"{what}: the key header is damaged (class name {class_name[:40]!r})")
    return Key(nbytes, version, objlen, keylen, cycle, seek, pdir, class_name, name, title, pos - at)


def _tstring(data: bytes, pos: int, what: str) -> tuple[str, int]:
    """A ROOT TString at data[pos]: 1 length byte (255: a 4-byte length follows), then the bytes."""
    (length,) = struct.unpack_from(">B", data, pos)
    pos += 1
    if length == 255:
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4
    if not 0 <= length <= MAX_NAME:
        raise Damaged(f"{what}: the key header is damaged (a name of {length} bytes)")
    if pos + length > len(data):
        raise struct.error("short")
    return data[pos : pos + length].decode("latin-1"), pos + length


def _check_key(key: Key, header: _Header, seek: int, what: str, nbytes: int | None = None) -> None:
    """A key header consistent with itself and the file: lengths, position, extent."""
    if key.version % 1000 < 1 or key.keylen != key.length or key.objlen < 0 or key.nbytes < key.keylen:
        raise Damaged(f"{what} (byte {seek}): the key header is damaged (version {key.version}, header "
                      f"{key.keylen} bytes, record {key.nbytes}, object {key.objlen})")  # fmt: skip
    if key.seek != seek or (nbytes is not None and key.nbytes != nbytes):
        raise Damaged(f"{what}: the key header at byte {seek} describes another record (byte {key.seek}, "
                      f"{key.nbytes} bytes)")  # fmt: skip
    if not header.begin <= seek or seek + key.nbytes > header.end:
        raise Damaged(f"{what} (byte {seek}, {key.nbytes} bytes) runs past the end of the data (byte {header.end})")
    if key.objlen < key.nbytes - key.keylen:
        raise Damaged(f"{what} (byte {seek}): {key.nbytes - key.keylen} bytes stored for a {key.objlen}-byte object")


def _blocks(read: Callable[[int, int], bytes], length: int, objlen: int, what: str) -> Iterator[tuple[bytes, int, int]]:
    """(algorithm, start, compressed size) of each compressed block of a record's payload of
    `length` bytes (`read(offset, n)` gives its bytes), checking that the block sizes add up to
    the payload and to the object's length. Reads only the 9-byte block headers."""
    at = out = 0
    while at < length:
        if at + BLOCK_HEADER > length:
            raise Damaged(f"{what}: a compressed block header runs past the record")
        head = read(at, BLOCK_HEADER)
        alg = head[:2]
        c_size = int.from_bytes(head[3:6], "little")
        u_size = int.from_bytes(head[6:9], "little")
        if (alg not in ALGORITHMS or head[2] not in METHODS.get(alg, {head[2]}) or u_size == 0
                or at + BLOCK_HEADER + c_size > length):  # fmt: skip
            raise Damaged(f"{what}: damaged compressed block at payload byte {at}")
        yield alg, at + BLOCK_HEADER, c_size
        at += BLOCK_HEADER + c_size
        out += u_size
    if out != objlen:
        raise Damaged(f"{what}: the compressed blocks hold {out} bytes, the object {objlen}")


def _verify_payload(f: _File, key: Key, what: str) -> list[str]:
    """Check the payload of a record ROOT deserialises: its compressed blocks decompress with
    a valid checksum. Returns notes on what no checksum protects (empty: verified)."""
    if not key.compressed:
        return [f"{what} is stored uncompressed (no checksum)"]
    data = f.read(key.seek + key.keylen, key.nbytes - key.keylen, what)
    notes = []
    for alg, start, size in _blocks(lambda at, n: data[at : at + n], len(data), key.objlen, what):
        block = data[start : start + size]
        try:
            if alg == b"ZL":
                stream = zlib.decompressobj()
                stream.decompress(block)
                if not stream.eof:
                    raise zlib.error("incomplete stream")
            elif alg == b"XZ":
                lzma.decompress(block)
        except (zlib.error, lzma.LZMAError) as err:
            raise Damaged(f"{what} (byte {key.seek}): its {ALGORITHMS[alg]} data are damaged ({err})") from None
        if alg == b"CS" or (alg == b"ZS" and not (block[:4] == ZSTD_MAGIC and len(block) > 4 and block[4] & 0x04)):
            notes.append(f"{what} is compressed with {ALGORITHMS[alg]} without a checksum")
    return notes[:1]


def check_baskets(path: os.PathLike | str, branches: Sequence[BranchBaskets]) -> None:
    """Check the key header of every basket of `branches` against the tree's tables: a TBasket
    of that size at that position, holding exactly its entries of `entry_size` bytes with no
    offset table, its compressed blocks adding up. Damaged otherwise. The headers are read in
    file order (one pass forward: the kernel's read-ahead serves a cold file)."""
    baskets = sorted(basket for branch in branches for basket in _baskets(branch))
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        f = _File(fd, os.fstat(fd).st_size)
        for seek, nbytes, entries, size, what in baskets:
            _check_on_file(f, seek, nbytes, entries, size, what)
    finally:
        os.close(fd)


def _baskets(branch: BranchBaskets) -> list[tuple[int, int, int, int, str]]:
    """(seek, bytes, entries, entry size, description) of each basket of `branch` on file,
    after checking the table itself (entry ranges from 0, in order, within the tree)."""
    n = len(branch.seeks)
    first = list(branch.first)
    if (len(first) != n + 1 or len(branch.nbytes) != n or first[0] != 0 or first[-1] > branch.entries
            or any(b < a for a, b in zip(first, first[1:]))):  # fmt: skip
        raise Damaged(f"branch '{branch.name}': the tree's table of baskets is damaged (entry ranges {first[:6]})")
    return [(seek, nbytes, first[i + 1] - first[i], branch.entry_size, f"basket {i} of branch '{branch.name}'")
            for i, (seek, nbytes) in enumerate(zip(branch.seeks, branch.nbytes))]  # fmt: skip


def _check_on_file(f: _File, seek: int, nbytes: int, entries: int, size: int, what: str) -> None:
    if not 0 < seek or nbytes <= 0 or seek + nbytes > f.size:
        raise Damaged(f"{what} is said to be at byte {seek} ({nbytes} bytes), outside the file ({f.size} bytes)")
    key, data = _read_key(f, seek, nbytes, what)
    try:
        fields = BASKET_FIELDS.unpack_from(data, key.length)
    except struct.error:
        raise Damaged(f"{what} (byte {seek}): its header runs past its {nbytes} bytes") from None
    _check_basket(key, fields, seek, nbytes, entries, size, what)
    if key.compressed:
        for _ in _blocks(lambda at, n: _part(f, data, key.keylen + at, n, seek, what), nbytes - key.keylen,
                         key.objlen, what):  # fmt: skip
            pass


def _part(f: _File, data: bytes, at: int, n: int, seek: int, what: str) -> bytes:
    """Bytes [at, at + n) of the record at `seek`: from `data` (its first bytes) if there, else read."""
    return data[at : at + n] if at + n <= len(data) else f.read(seek + at, n, what)


def _check_basket(key: Key, fields: tuple[int, ...], seek: int, nbytes: int, entries: int, size: int,
                  what: str) -> None:  # fmt: skip
    version, _buffer, entry_size, nevbuf, last, flag = fields
    data = entries * size
    if key.class_name != "TBasket" or key.seek != seek or key.nbytes != nbytes:
        raise Damaged(f"{what}: the record at byte {seek} is not that basket ({key.class_name}, byte {key.seek}, "
                      f"{key.nbytes} bytes instead of {nbytes})")  # fmt: skip
    if key.keylen != key.length + BASKET_FIELDS.size or key.version % 1000 < 1 or version < 1 or flag != 0:
        raise Damaged(f"{what} (byte {seek}): its header is damaged (header {key.keylen} bytes, versions "
                      f"{key.version}/{version}, flag {flag})")  # fmt: skip
    if nevbuf != entries or entry_size != size or last != key.keylen + data or key.objlen != data:
        raise Damaged(f"{what} (byte {seek}): it says {nevbuf} entries of {entry_size} bytes ending at {last} "
                      f"({key.objlen} bytes), the tree {entries} entries of {size} bytes")  # fmt: skip
    if key.objlen < key.nbytes - key.keylen:
        raise Damaged(f"{what} (byte {seek}): {key.nbytes - key.keylen} bytes stored for {key.objlen}")
