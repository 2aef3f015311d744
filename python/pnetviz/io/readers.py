"""The one way pnetviz reads a JSON, CSV or yields file from disk: guarded against what a file can do.

Every reader takes regular files only (a FIFO, a device or a directory is refused from its status,
opened without blocking: never a hang), up to a size cap, then parses with limits: JSON nested at
most MAX_DEPTH deep, every number finite and representable as a float (an integer of 5000 digits
or 10**400 is a bad value naming its field, not a crash), NaN and Infinity only where a file may
hold them (`finite=False`), the top level an object; CSV cells within csv's field limit, rows as
strings. Each failure is a BadFile (an InputError): one line naming the file, the field and the
fix. The typed field helpers (`finite_float`, `int_in`, `text`, `text_list`) check values the
callers take from a parsed file in the same one-line form.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import jsonkeys

MiB = 1 << 20
MAX_JSON_BYTES = 64 * MiB  # the largest pnetviz writes (a fold's curves) is a few MB; the trainer's, kB
MAX_CSV_BYTES = 16 * MiB  # model_info.csv: one row per model of an iteration
MAX_SMALL_BYTES = 16 * MiB  # the set marker, the yields table
MAX_DEPTH = 64  # the deepest file pnetviz reads or writes nests 6 levels
MAX_INT_DIGITS = 400  # beyond float's range anyway (1.8e308); Python refuses int() of 4300 digits
DEFAULT_FIX = "re-write the file"
MARKER_FIX = "re-run the command that wrote this output set (or delete the directory)"
YIELDS_FIX = 'write {"<channel>": {"<signal>": {"signal": S, "<class>": B, ...}}} with finite numbers'


class BadFile(InputError):
    """A file pnetviz cannot use: `problem` says why (without the file name and the fix), so that
    a caller can word the error its own way; str() is the whole one-line message."""

    def __init__(self, name: str, problem: str, fix: str) -> None:
        super().__init__(f"{name}: {problem}. Fix: {fix.rstrip('.')}.")
        self.name, self.problem, self.fix = name, problem, fix

    def __reduce__(self) -> tuple:  # pickles (a campaign's worker hands it back) with its parts
        return (type(self), (self.name, self.problem, self.fix))


# --- regular files, without blocking ---

KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))  # fmt: skip


def special_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)", ...), None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in KINDS if test(mode)), "a special file")


def check_regular(path: Path, what: str, name: str | None = None, fix: str | None = None) -> None:
    """BadFile if `path` exists and is not a regular file (after links), from its status only:
    nothing is opened, so a FIFO or device cannot block. An absent file is left to the reader."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    kind = special_kind(mode)
    if kind is not None:
        raise BadFile(name or str(path), f"{kind}, not a regular file: the {what} must be a file",
                      fix or f"give the path of a regular file for the {what}")  # fmt: skip


@contextlib.contextmanager
def open_regular(path: Path, what: str, limit: int, name: str | None = None, fix: str = DEFAULT_FIX) -> Iterator[BinaryIO]:
    """The regular file `path` opened for reading (binary), at most `limit` bytes; BadFile if it
    is absent, unreadable, special (checked on the open descriptor: O_NONBLOCK, so a FIFO never
    blocks the open) or larger than `limit`."""
    name = name or str(path)
    check_regular(path, what, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise BadFile(name, "missing", fix) from None
    except OSError as err:
        raise BadFile(name, f"cannot be read ({err.strerror})", fix) from None
    try:
        info = os.fstat(fd)
        kind = special_kind(info.st_mode)
        if kind is not None:  # replaced between the stat and the open
            raise BadFile(name, f"{kind}, not a regular file: the {what} must be a file",
                          f"give the path of a regular file for the {what}")  # fmt: skip
        if info.st_size > limit:
            raise BadFile(name, f"{info.st_size} bytes, more than the {limit // MiB} MiB a {what} may have "
                                "(not such a file, or damaged)", fix)  # fmt: skip
        os.set_blocking(fd, True)
        stream = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with stream:
        yield stream


def read_bytes(path: Path, what: str, limit: int, name: str | None = None, fix: str = DEFAULT_FIX) -> bytes:
    """The content of the regular file `path` (see open_regular); BadFile if it grows past `limit`."""
    with open_regular(path, what, limit, name, fix) as stream:
        try:
            data = stream.read(limit + 1)
        except OSError as err:
            raise BadFile(name or str(path), f"cannot be read ({err.strerror})", fix) from None
    if len(data) > limit:
        raise BadFile(name or str(path), f"more than the {limit // MiB} MiB a {what} may have", fix)
    return data


# --- JSON ---


class _BadNumber:
    """A number literal that is no finite float (1e400, a 5000-digit integer), or NaN/Infinity
    where refused; found with its field by `_check_tree`."""

    def __init__(self, text: str) -> None:
        self.text = text


def _parse_int(text: str) -> int | _BadNumber:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return _BadNumber(text)
    value = int(text)
    try:
        float(value)
    except OverflowError:
        return _BadNumber(text)
    return value


def _parse_float(text: str) -> float | _BadNumber:
    value = float(text)
    return value if math.isfinite(value) else _BadNumber(text)


def _field(parent: str, key: object) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _tree_ok(doc: Any) -> bool:
    """True when `doc` holds no bad number and no container MAX_DEPTH deep: the common case, found
    level by level from each container's set of value types (one C-level pass over a list of
    numbers, no field names built); _check_tree names the problem otherwise."""
    if isinstance(doc, _BadNumber):
        return False
    level, depth = ([doc] if isinstance(doc, (dict, list)) else []), 0
    while level:
        if depth >= MAX_DEPTH:
            return False
        nested = []
        for value in level:
            items = value.values() if isinstance(value, dict) else value
            kinds = set(map(type, items))
            if kinds <= _SCALARS:
                continue
            if _BadNumber in kinds:
                return False
            nested.extend(v for v in items if isinstance(v, (dict, list)))
        level, depth = nested, depth + 1
    return True


def _check_tree(doc: Any, name: str, fix: str) -> None:
    """BadFile for a bad number or a nesting deeper than MAX_DEPTH anywhere in `doc` (iterative:
    no recursion, whatever the depth)."""
    if _tree_ok(doc):
        return
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, _BadNumber):
            shown = value.text if len(value.text) <= 24 else f"{value.text[:12]}...({len(value.text)} characters)"
            raise BadFile(name, f"{where or 'the top level'}: {shown} is not a finite number in a float's range", fix)
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise BadFile(name, f"nested deeper than {MAX_DEPTH} levels (not such a file, or damaged)", fix)
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((v, _field(where, k), depth + 1) for k, v in items)


JSON_TYPES = {list: "list", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def parse_json(data: bytes, name: str, fix: str = DEFAULT_FIX, finite: bool = True, unique: bool = False) -> Any:
    """The JSON document in `data` (any top-level type), checked as `read_json` does; `unique`:
    a key given twice in an object is a bad file (a record others can edit: a reader sees the
    first value, json keeps the last)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadFile(name, f"not valid JSON ({err})", fix) from None
    constant = _BadNumber if finite else float
    hook = jsonkeys.unique_object if unique else None
    try:
        doc = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=constant,
                         object_pairs_hook=hook)  # fmt: skip
    except jsonkeys.Duplicate as err:
        raise BadFile(name, f"the key {str(err.args[0])[:80]!r} is given twice in one object", fix) from None
    except json.JSONDecodeError as err:
        raise BadFile(name, f"not valid JSON ({' '.join(str(err).split())[:120]})", fix) from None
    except RecursionError:
        raise BadFile(name, f"nested deeper than {MAX_DEPTH} levels (not such a file, or damaged)", fix) from None
    _check_tree(doc, name, fix)
    return doc


def read_json(path: Path, what: str, fix: str = DEFAULT_FIX, finite: bool = True, limit: int = MAX_JSON_BYTES,
              name: str | None = None, missing_ok: bool = False, unique: bool = False) -> dict | None:  # fmt: skip
    """The JSON object in the file `path` (`what` names it in errors: "training history"; `name`
    replaces the path there, e.g. "--expected-yields FILE"). `finite=False` lets NaN/Infinity
    through (files that record a diverged training). None if absent and `missing_ok`."""
    name = name or str(path)
    if missing_ok and not os.path.lexists(path):
        return None
    doc = parse_json(read_bytes(path, what, limit, name, fix), name, fix, finite, unique)
    if not isinstance(doc, dict):
        raise BadFile(name, f"a JSON {JSON_TYPES.get(type(doc), 'value')}, not an object", fix)
    return doc


def read_marker(path: Path) -> dict:
    """The output set marker (`<set>/.pnetviz-set.json`) at `path`: an object whose `files` (if
    given) is a list of names."""
    doc = read_json(path, "output set marker", MARKER_FIX, limit=MAX_SMALL_BYTES, unique=True)
    if "files" in doc:
        text_list(doc["files"], str(path), "files", MARKER_FIX)
    return doc


def read_yields(path: Path, name: str) -> dict:
    """The expected-yields table (channel -> signal -> class -> events) in `path`; `name` is how
    errors name it ("--expected-yields FILE")."""
    return read_json(path, "yields table", YIELDS_FIX, limit=MAX_SMALL_BYTES, name=name)


# --- CSV ---


def read_csv(path: Path, what: str, fix: str = DEFAULT_FIX, limit: int = MAX_CSV_BYTES) -> tuple[list[str], list[dict[str, str]]]:
    """(header, rows) of the CSV file `path`, each non-empty row a dict of header -> cell text
    (missing cells ""); BadFile if unreadable, not UTF-8 or not CSV (a cell over csv's field limit)."""
    name = str(path)
    data = read_bytes(path, what, limit, name, fix)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadFile(name, f"not UTF-8 text (byte {err.start})", fix) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, [])
        rows = [dict(zip(header, [*row, *[""] * (len(header) - len(row))])) for row in reader if row]
    except csv.Error as err:
        raise BadFile(name, f"line {reader.line_num}: not valid CSV ({err})", fix) from None
    return header, rows


# --- numpy archives (.npz), sized from their headers ---

# An .npz is a zip of .npy members; zeros deflate 1000:1, so a 2.5 MB file can hold 1e8 events.
# What its members inflate to, from their headers, must fit NPZ_BASE plus NPZ_PER_BYTE per byte
# of the file (measured: real scores compress < 3:1) and never more than NPZ_MAX.
NPZ_BASE = 256 * MiB
NPZ_PER_BYTE = 64
NPZ_MAX = 4 << 30
NPY_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def npz_budget(size: int) -> int:
    """Bytes the arrays of an .npz file of `size` bytes may inflate to."""
    return min(NPZ_MAX, NPZ_BASE + NPZ_PER_BYTE * size)


def _npy_header(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> tuple[tuple[int, ...], np.dtype]:
    with archive.open(member) as stream:
        version = np.lib.format.read_magic(stream)
        if version not in NPY_READERS:
            raise ValueError(f"{member.filename}: .npy format {version[0]}.{version[1]}")
        shape, _, dtype = NPY_READERS[version](stream)
    return shape, dtype


def read_npz(path: Path, what: str, fix: str, check: Callable[[dict[str, tuple[int, ...]]], None]) -> dict[str, np.ndarray]:
    """The arrays of the .npz file `path` (no pickled objects). The members' shapes and types are
    read from their headers first: BadFile if they would inflate beyond `npz_budget`, or if
    `check(name -> shape)` raises; only then are the arrays inflated."""
    name = str(path)
    with open_regular(path, what, NPZ_MAX, name, fix) as stream:
        size = os.fstat(stream.fileno()).st_size
        try:
            with zipfile.ZipFile(stream) as archive:
                headers = {m.filename.removesuffix(".npy"): _npy_header(archive, m) for m in archive.infolist()}
            total = sum(math.prod(shape) * dtype.itemsize for shape, dtype in headers.values())
            if any(dtype.hasobject for _, dtype in headers.values()):
                raise ValueError("it holds Python objects (pickled), not numbers")
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as err:
            raise BadFile(name, f"not a readable .npz file ({' '.join(str(err).split())[:120]})", fix) from None
        if total > npz_budget(size):
            raise BadFile(name, f"its arrays would inflate to {total / MiB:.0f} MiB from a {size / MiB:.1f} MiB file, more "
                                f"than the {npz_budget(size) / MiB:.0f} MiB allowed (a damaged or forged file)", fix)  # fmt: skip
        check({key: shape for key, (shape, _) in headers.items()})
        stream.seek(0)
        try:
            with np.load(stream, allow_pickle=False) as npz:
                return {key: np.asarray(npz[key]) for key in npz.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as err:
            raise BadFile(name, f"not a readable .npz file ({' '.join(str(err).split())[:120]})", fix) from None


# --- typed fields ---


def _bad(name: str, field: str, value: object, expected: str, fix: str) -> BadFile:
    big = isinstance(value, int) and value.bit_length() > 1000  # repr() of 4300 digits raises
    shown = f"(an integer of {value.bit_length()} bits)" if big else repr(value)  # type: ignore[union-attr]
    shown = shown if len(shown) <= 40 else f"{shown[:37]}..."
    return BadFile(name, f"{field} {shown} is not {expected}", fix)


def finite_float(value: object, name: str, field: str, low: float = -math.inf, high: float = math.inf,
                 fix: str = DEFAULT_FIX) -> float:  # fmt: skip
    """`value` as a float: a JSON number (not a bool), finite, in [low, high]."""
    number = math.nan
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):
            number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise _bad(name, field, value, f"a finite number from {low:g} to {high:g}", fix)
    return number


def int_in(value: object, name: str, field: str, low: int, high: int, fix: str = DEFAULT_FIX) -> int:
    """`value` as an int: a JSON integer (not a bool) in [low, high]."""
    if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
        raise _bad(name, field, value, f"a whole number from {low} to {high}", fix)
    return value


def text(value: object, name: str, field: str, fix: str = DEFAULT_FIX) -> str:
    """`value` as a string."""
    if not isinstance(value, str):
        raise _bad(name, field, value, "a string", fix)
    return value


def text_list(value: object, name: str, field: str, fix: str = DEFAULT_FIX) -> list[str]:
    """`value` as a list of strings."""
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise _bad(name, field, value, "a list of strings", fix)
    return value


def optional_text(value: object, name: str, field: str, fix: str = DEFAULT_FIX) -> str | None:
    """`value` as a string, or None for a JSON null (a list, number or object is a bad value)."""
    return None if value is None else text(value, name, field, fix)


def object_list(value: object, name: str, field: str, fix: str = DEFAULT_FIX) -> list[dict]:
    """`value` as a list of JSON objects (a string, an object, or a list holding anything else is
    a bad value naming the first wrong entry)."""
    if not isinstance(value, list):
        raise _bad(name, field, value, "a list of objects", fix)
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise _bad(name, f"{field}[{index}]", item, "an object", fix)
    return value


def name_part(value: object, name: str, field: str, fix: str = DEFAULT_FIX) -> str:
    """`value` as a name that is one path component: a non-empty string without '/' or NUL, not
    '.' or '..' (a channel, signal point or model directory recorded in a summary)."""
    part = text(value, name, field, fix)
    if not part or "/" in part or "\0" in part or part in (".", ".."):
        raise _bad(name, field, value, "a directory name (no '/', not empty, '.' or '..')", fix)
    return part


def number_cell(cell: str, name: str, field: str, fix: str = DEFAULT_FIX) -> float:
    """A CSV cell as a finite float: a bad value naming `field` if it is no number, or one too
    long or too large for a float (1e400, an integer of 400 digits)."""
    value = cell.strip()
    number = math.nan
    if len(value.lstrip("+-")) <= MAX_INT_DIGITS:
        with contextlib.suppress(ValueError, OverflowError):
            number = float(value)
    if not math.isfinite(number):
        raise _bad(name, field, cell if len(cell) <= 40 else f"{cell[:12]}...({len(cell)} characters)",
                   "a finite number in a float's range", fix)  # fmt: skip
    return number


def fits_float(value: object) -> bool:
    """True for a finite int or float (not a bool) that a float holds: an integer of 400 digits,
    which float() cannot convert, is not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False
