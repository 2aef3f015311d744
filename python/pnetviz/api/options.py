"""Keyword arguments of the API as a subcommand's command line, typed as the command line is.

`to_argv(parser, options)` turns `working_points=[0.5, 0.8]` into `--working-points 0.5,0.8`:
the options whose command-line value is a comma list (LIST_OPTIONS) take a list or tuple (and
the `name=value` ones a dict too, MAPPINGS); the repeatable `--column` takes one string, a list of
`NAME=EXPR` strings (one `--column` each, never joined: a comma inside an expression is C++'s
comma operator) or a dict {name: expression}; a flag takes True or False; every other option one
value (a string, a number or a path). A list, dict or set given to a single-value option, or an
item of a list that is not a plain value, is a TypeError naming the keyword; a list item holding
the comma that separates items is an InputError. The parser then checks every value as it
checks the command line's (ranges, NaN, TLatex bounds, choices): InputError, one line.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Mapping

from pnetviz.errors import InputError
from pnetviz.escape import text_line

# the options whose command-line value is a comma-separated list (cli/common.py, cli/campaign.py)
LIST_OPTIONS = frozenset({"classes", "channels", "expected_yields", "fold", "folds", "formats", "kinds", "labels",
                          "observe", "pair", "score_shift", "signals", "syst", "working_points"})  # fmt: skip
# those of them made of pairs, and the separator of a pair (a dict {key: value} is accepted)
MAPPINGS = {"labels": "=", "score_shift": "=", "expected_yields": "=", "pair": ":"}
SCALARS = (str, int, float, os.PathLike)


def _scalar(key: str, value: object, what: str = "value") -> str:
    """A single value as its command-line text; TypeError naming `key` unless a string, number or path."""
    if isinstance(value, bool) or not isinstance(value, SCALARS):
        raise TypeError(f"{key}=: a {type(value).__name__} is not a {what} of this option; give a string or a "
                        "number (a list only where the option takes a comma list)")  # fmt: skip
    if isinstance(value, float) and not math.isfinite(value):  # str() would be 'nan'/'inf': a branch name in column=
        raise InputError(f"{key}=: {value} is not a finite number. Fix: give a finite number.")
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _items(key: str, value: object) -> list[str]:
    """The items of a list option's value (a list or tuple, or a dict for MAPPINGS) as texts."""
    if isinstance(value, Mapping) and key in MAPPINGS:
        items = [f"{_scalar(key, k, 'key')}{MAPPINGS[key]}{_scalar(key, v)}" for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [_scalar(key, item, "list item") for item in value]
    else:
        raise TypeError(f"{key}=: a {type(value).__name__}; give a list (or a comma-separated string)"
                        + (" or a dict" if key in MAPPINGS else ""))  # fmt: skip
    for item in items:
        if "," in item:
            raise InputError(f"{key}=: the item {text_line(item)!r} holds a comma, which separates the items. "
                             "Fix: give each item as its own list entry.")  # fmt: skip
    return items


def _repeated(flag: str, key: str, value: object) -> list[str]:
    """A repeatable option (--column): one flag per string, per list item or per dict entry."""
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, Mapping):
        items = [f"{_scalar(key, k, 'name')}={_scalar(key, v, 'expression')}" for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [_scalar(key, item, "list item") for item in value]
    else:
        raise TypeError(f"{key}=: a {type(value).__name__}; give a string, a list of NAME=EXPR strings or a dict "
                        "{name: expression}")  # fmt: skip
    return [part for item in items for part in _pair(flag, item)]


def _pair(flag: str, text: str) -> list[str]:
    """[flag, text], or [flag=text] for a text that starts with '-' (argparse would take it for an option)."""
    return [f"{flag}={text}"] if text.startswith("-") else [flag, text]


def to_argv(parser: argparse.ArgumentParser, options: Mapping[str, object]) -> list[str]:
    """Keyword arguments as the command line of `parser` (see the module's text): name -> --name
    (underscores as dashes), True for a flag, None (or False) left out. TypeError for a name the
    command does not have, or a value of the wrong kind."""
    actions = {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}
    argv: list[str] = []
    for key, value in options.items():
        if key not in actions:
            raise TypeError(f"unknown option {key!r}; the options are: {', '.join(sorted(actions))}")
        action, flag = actions[key], actions[key].option_strings[-1]
        if value is None or value is False:
            continue
        if action.nargs == 0:  # store_true
            if value is not True:
                raise TypeError(f"{key}=: give True or False (given: {type(value).__name__})")
            argv.append(flag)
        elif isinstance(action, argparse._AppendAction):
            argv += _repeated(flag, key, value)
        elif key in LIST_OPTIONS and not isinstance(value, SCALARS):
            argv += _pair(flag, ",".join(_items(key, value)))
        else:
            argv += _pair(flag, _scalar(key, value))
    return argv
