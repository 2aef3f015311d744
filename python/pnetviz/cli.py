"""Wiring shared by the user-facing scripts: error reporting, exit codes, staged output."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .errors import InputError, PnetvizWarning

EXIT_USER_ERROR = 2


def run(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run a script's `main`; a user mistake becomes one message on stderr and exit code 2."""
    warnings.simplefilter("always", PnetvizWarning)
    warnings.formatwarning = lambda msg, cat, *a, **k: f"pnetviz: warning: {msg}\n"
    try:
        return int(main(argv) or 0)
    except InputError as err:
        print(f"pnetviz: error: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("pnetviz: interrupted", file=sys.stderr)
        return 130


@contextlib.contextmanager
def staged_output(directory: Path | str) -> Iterator[Path]:
    """Write into a hidden staging directory; move the files into `directory` only on success.

    On any error the staging directory is removed and `directory` is left as it was: no
    half-written output set, and nothing already there is lost.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".pnetviz-stage-", dir=directory))
    except OSError as err:
        raise InputError(
            f"{directory}: cannot write the output directory ({err.strerror}). Fix: choose another --output."
        ) from None
    try:
        yield stage
        for item in sorted(stage.iterdir()):
            target = directory / item.name
            if target.is_dir() and not item.is_dir():
                raise InputError(f"{target} is a directory; cannot replace it with a file. Fix: remove it.")
            os.replace(item, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
