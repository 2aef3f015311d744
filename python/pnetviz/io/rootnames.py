"""Names on disk and in ROOT files: a name as one component of an output path (checked), directory
listings and readability that fail as one line, paths handed to ROOT (a private link where the
path has characters ROOT gives meaning to) and the key names inside a ROOT file."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from pnetviz import escape
from pnetviz.errors import InputError


# --- names that become path components ---


def name_problem(name: object) -> str | None:
    """Why `name` cannot be one component of an output path (None: it can): empty, `.`, `..`,
    containing `/` or NUL, or starting with `-` (it would read as an option in a job's argv)."""
    if not isinstance(name, str) or not name:
        return "it is empty" if isinstance(name, str) or name is None else "it is not a string"
    if "/" in name:
        return "it contains '/'"
    if "\0" in name:
        return "it contains a NUL character"
    if name in (".", ".."):
        return f"'{name}' is not a name"
    if name.startswith("-"):
        return "it starts with '-', which reads as an option"
    if not escape.is_utf8(name):
        return "it is not valid UTF-8: the bytes shown as \\xNN are not text"
    return None


def check_name(name: object, field: str, source: str, fix: str) -> str:
    """`name` if it can be one path component, else InputError naming the field, where the name
    comes from (`source`: a file, a directory or the command line) and the fix."""
    problem = name_problem(name)
    if problem:
        shown = repr(name) if escape.is_utf8(name) else f"'{escape.printable(name)}'"
        raise InputError(f"{escape.printable(source)}: {field} {shown} is not a single path component ({problem}); "
                         f"pnetviz builds output paths from it. Fix: {fix}")  # fmt: skip
    return name  # type: ignore[return-value]


def listing(directory: Path) -> list[Path]:
    """The entries of `directory` ([] if it does not exist or is not a directory); InputError if
    it cannot be read (permissions), so that a chmod-000 directory is not reported as empty."""
    try:
        with os.scandir(directory) as entries:
            return sorted(Path(e.path) for e in entries)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except PermissionError:
        raise InputError(f"{directory}: permission denied (cannot list this directory). Fix: check its permissions "
                         "(chmod u+rx) or run as its owner.") from None  # fmt: skip


def is_dir(path: Path) -> bool:
    """Path.is_dir, but a permission error is an InputError naming the path (never "absent")."""
    try:
        return Path(path).is_dir()
    except PermissionError:
        raise InputError(f"{path}: permission denied (cannot look inside its directory). Fix: check the permissions "
                         "of the directories above it (chmod u+x).") from None  # fmt: skip


def check_readable(path: Path, what: str) -> None:
    """InputError if the file `path` exists but is not a regular file (a FIFO would block ROOT's
    open forever) or cannot be opened for reading (permissions)."""
    from pnetviz.io.readers import check_regular  # noqa: PLC0415 - numpy's import: not for a parser

    check_regular(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except PermissionError:
        raise InputError(f"{path}: permission denied (cannot read the {what}). Fix: check its permissions "
                         "(chmod u+r) or run as its owner.") from None  # fmt: skip
    except OSError:
        return  # absent or otherwise unreadable: the reader names the problem
    os.close(fd)


# --- paths handed to ROOT ---

# ROOT gives meaning to characters in a file name: `#` (anchor: a member of an archive), `?` (URL
# options), `$` and `~` (expanded), `:` (protocol), `|`, spaces, `(` `)` (multi-page PDF), and
# non-ASCII names go through its URL parsing. A path made only of ASCII letters, digits, `_`, `.`,
# `/` and `-` is taken literally.
ROOT_LITERAL = re.compile(r"[A-Za-z0-9_./-]+")
PROC_FD = Path("/proc/self/fd")


def root_literal(text: str) -> bool:
    """True if ROOT takes the path `text` as it is."""
    return bool(ROOT_LITERAL.fullmatch(text))


@contextlib.contextmanager
def root_path(path: Path, directory: bool = False) -> Iterator[str]:
    """A name of the existing file (or `directory`) `path` that ROOT takes literally, valid
    inside the block: the path itself when it has no character ROOT interprets, else
    `/proc/self/fd/<n>` of a descriptor opened here (Linux), else a symbolic link in a private
    temporary directory. ROOT then reads or writes exactly `path` (for a directory: files
    inside it), whatever its name. OSError (e.g. PermissionError) if it cannot be opened."""
    text = os.fspath(path)
    if root_literal(text):
        yield text
        return
    flags = os.O_RDONLY | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)
    fd = os.open(text, flags)
    try:
        alias = PROC_FD / str(fd)
        if _same_file(alias, fd):
            yield str(alias)
            return
        with _private_link(text) as link:
            yield link
    finally:
        os.close(fd)


def _same_file(alias: Path, fd: int) -> bool:
    try:
        return os.path.samestat(os.stat(alias), os.fstat(fd))
    except OSError:
        return False


@contextlib.contextmanager
def _private_link(target: str) -> Iterator[str]:
    """A symbolic link to `target` in a new private (0700) temporary directory whose path ROOT
    takes literally; removed after the block."""
    for base in (None, "/tmp", "/var/tmp"):
        with contextlib.suppress(OSError):
            tmp = tempfile.mkdtemp(prefix="pnetviz-", dir=base)
            if root_literal(tmp):
                break
            os.rmdir(tmp)
    else:
        raise OSError(f"no temporary directory with a plain name to reach {target!r} from ROOT")
    link = os.path.join(tmp, "f")
    try:
        os.symlink(os.path.abspath(target), link)
        yield link
    finally:
        with contextlib.suppress(OSError):
            os.unlink(link)
        with contextlib.suppress(OSError):
            os.rmdir(tmp)


# --- key names inside a ROOT file ---

# TFile::Get("dir/name;cycle"), TDirectory::GetDirectory, uproot's file["dir/name"] and JSROOT's
# readObject give meaning to characters of a key path: `/` separates directories, what follows
# the last `;` is a cycle number, `:` in a directory path names a file ("file.root:/dir"; uproot
# reads it as a TTree's branch), and the components `.` and `..` are a directory and its mother.
# A line break or another non-printable character cannot be typed into a path. `root_key`
# writes each of these characters of a name as `%XX`, the percent-encoding of its UTF-8 bytes
# (as in a URL: `t;tX` -> `t%3BtX`, `non\nprompt` -> `non%0Aprompt`), and `%` itself as `%25`.
# The mapping is one-to-one, so two different names never share a key (nothing to detect or
# overwrite), and `real_name` (urllib.parse.unquote) gives the name back. A name without these
# characters (letters, digits, `_ - . +`, spaces, ...) is its own key.
KEY_SPECIAL = frozenset(";:/%")


def root_key(name: str) -> str:
    """The key name under which an object named `name` is written into a ROOT file (one path
    component): readable with TFile::Get, uproot and JSROOT by path; the title keeps `name`."""
    if name in (".", ".."):
        return name.replace(".", "%2E")
    if name.isprintable() and KEY_SPECIAL.isdisjoint(name):  # the common case, at C speed
        return name
    return "".join(ch if ch not in KEY_SPECIAL and ch.isprintable() else
                   "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")) for ch in name)  # fmt: skip


def root_key_path(path: str) -> str:
    """`dir/sub/name` (components separated by `/`) with each component as `root_key` makes it."""
    return "/".join(root_key(part) for part in path.split("/"))


def real_name(key: str) -> str:
    """The name a key of `root_key` stands for (a key of another writer: itself, mostly)."""
    return unquote(key, errors="surrogatepass") if "%" in key else key

