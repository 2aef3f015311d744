"""The key walk of a staged ROOT file's verification (output.atomic): every key, directories
walked, must have its record inside the file. One C++ call a file: the PyROOT loop it replaces made
four calls a key (~10 us each; a multi-class plots.root has ~330 keys)."""

from __future__ import annotations

import functools

from pnetviz.draw import native
from pnetviz.rootenv import compiled


@functools.cache
def _kernel():
    """The compiled library's walk (draw.native), else macros/root_keys.h declared to cling."""
    built = native.kernels()
    return built.unreadable if built is not None else compiled('#include "root_keys.h"', "root_keys.h").pnetviz_rootkeys.unreadable


def unreadable_keys(directory, size: int) -> list[str]:
    """Paths ("dir/name") of the keys of the open ROOT `directory` whose record ends beyond byte
    `size` of the file, or that name a directory which does not read back (walked otherwise)."""
    return [str(name) for name in _kernel()(directory, size)]
