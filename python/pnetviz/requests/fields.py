"""The typed fields of a request: each value checked against its field's type (Path, str, int,
float, bool, a tuple of them, a Literal's choices, or None where allowed), and a parsed
command-line namespace turned into those types once (lists as tuples, paths as Path).

A request is built either from the command line (`from_namespace`, after the parser and its
post-parse checks) or by the Python API from its keyword arguments (through the same parser), so
both give equal requests; a value of the wrong type given straight to a request is one InputError
line naming the field and the fix.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import printable

# the options whose empty text would become Path('.') (the current directory): refused as the
# command refused them before they were paths
EMPTY_FIX = {"plots_dir": "give a directory", "output": "give a directory"}


def flag(name: str) -> str:
    """The command-line flag of a field (the fields are named as the options' argparse dests)."""
    return f"--{name.replace('_', '-')}"


def _accepts(hint: object, value: object) -> bool:
    """Whether `value` is of the type `hint` (a field's resolved annotation)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None):
        return value is None
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(a, value) for a in args)
    if origin is typing.Literal:
        return isinstance(value, str) and value in args
    if origin is tuple:
        return isinstance(value, tuple) and all(_accepts(args[0], v) for v in value)
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, hint)  # str, Path


def _describe(hint: object) -> str:
    """What a field takes, for the one line of a wrong value."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in args)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is tuple:
        return f"a tuple of {_describe(args[0])}"
    return {type(None): "None", bool: "True or False", int: "a whole number", float: "a finite number",
            str: "a string", Path: "a pathlib.Path"}.get(hint, getattr(hint, "__name__", str(hint)))  # fmt: skip


@functools.cache
def hints(cls: type) -> dict[str, object]:
    """The resolved field types of a request class."""
    return typing.get_type_hints(cls)


def check(request: object) -> None:
    """InputError, one line naming the field, unless every field holds a value of its type; a
    whole number in a float field is stored as a float (13 and 13.0 are one energy)."""
    types_of = hints(type(request))
    for item in dataclasses.fields(request):
        value, hint = getattr(request, item.name), types_of[item.name]
        if not _accepts(hint, value):
            shown = printable(repr(value))
            shown = shown if len(shown) <= 80 else f"{shown[:77]}..."
            raise InputError(f"{type(request).__name__}.{item.name} ({flag(item.name)}) = {shown}: not "
                             f"{_describe(hint)}. Fix: give {_describe(hint)}.")  # fmt: skip
        members = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        if float in members and int not in members and isinstance(value, int) and not isinstance(value, bool):
            object.__setattr__(request, item.name, float(value))  # frozen: the one change, in __post_init__


def convert(name: str, hint: object, value: object) -> object:
    """A namespace's value as the field's type: a list as a tuple, a text as a Path (an empty one
    refused as the command refuses it)."""
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(value)
    if _accepts(hint, Path("x")) and not isinstance(value, Path):
        if not str(value).strip():
            raise InputError(f"{flag(name)} '': {EMPTY_FIX.get(name, 'give a path')}.")
        return Path(value)
    return value


def from_namespace(cls: type, namespace: object):
    """The request of class `cls` from a parsed namespace: every field taken from the attribute of
    the same name (the option's dest), converted to the field's type; attributes that are no
    field are not taken."""
    types_of = hints(cls)
    values = {f.name: convert(f.name, types_of[f.name], getattr(namespace, f.name))
              for f in dataclasses.fields(cls) if hasattr(namespace, f.name)}  # fmt: skip
    return cls(**values)


def evolve(request, **raw: object):
    """A new request with some fields replaced by values in the namespace's form (as the parser
    gives them, e.g. remembered options), converted as from_namespace converts them."""
    types_of = hints(type(request))
    return dataclasses.replace(request, **{k: convert(k, types_of[k], v) for k, v in raw.items()})
