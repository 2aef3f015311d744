"""Where the contract's columns come from: `--column NAME=EXPR` and `--columns FILE`.

A mapping gives, for a contract column NAME (true_label, weight, score_<class>, train_mask,
test_mask, valid_mask, event_id, or a boolean subset branch), its source EXPR: a branch name of
the tree or an expression of its branches in the grammar of `pnetviz.io.grammar`
(`true_label=isSignal ? 0 : 1`, `test_mask=event % 5 == 3`), parsed where the mapping is parsed
(`parse_columns`, whatever the mapping's source) and again from its text wherever it is compiled:
the C++ is written from the parsed tree, never taken from the text. Columns not mapped are read
from the branch of their own name.

`view_types` gives the types of the columns as the reader will see them (a mapped branch has its
branch's type, an expression the type ROOT deduces for it); `read_view` reads them: when every
column to read is a plain branch of a supported type, with the compiled reader of
`pnetviz.io.ntuple` (renamed); expressions of such branches by one compiled loop over the
branches read in the same pass (`pnetviz.io.expressions`: Define's types and values without
RDataFrame); any other expression in one RDataFrame event loop with a Define per expression. A
file the structural check cannot verify is read in a guarded child either way.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.grammar import _short, option_text, parsed, used_names  # noqa: F401 - callers use columns.*
from pnetviz.rootenv import silent_stderr

ColumnMap = tuple[tuple[str, str], ...]  # (contract column, branch or expression), hashable and picklable
FIX = "correct the mapping (--column NAME=EXPR / --columns FILE; docs/inputs.md, 'Your own ntuple')"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
RDF_COLUMNS = ("rdfentry_", "rdfslot_")  # RDataFrame's own columns, which an expression may read


def parse_columns(pairs: Sequence[str] | None, file: str | Path | None) -> ColumnMap:
    """The mapping of `--columns FILE` (a JSON object NAME -> EXPR, read with the guarded reader)
    then the `--column NAME=EXPR` pairs (these win); InputError naming the option otherwise."""
    from pnetviz.io.readers import read_json  # noqa: PLC0415

    mapping: dict[str, str] = {}
    if file is not None:
        doc = read_json(Path(file), "column mapping", 'write {"<contract column>": "<branch or expression>", ...}',
                        name=f"--columns {file}", unique=True)  # fmt: skip
        for name, expr in doc.items():
            _name(name, f"--columns {file}")
            mapping[name] = _expr(expr, f"--columns {file}: '{name}'")
    seen: set[str] = set()
    for text in pairs or ():
        where = f"--column {_short(text)!r}"
        name, sep, expr = text.partition("=")
        name = name.strip()
        if not sep:
            raise InputError(f"{where}: give NAME=EXPR, e.g. --column true_label=isSignal or "
                             "--column 'true_label=isSignal ? 0 : 1'.")  # fmt: skip
        _name(name, where)
        if name in seen:
            raise InputError(f"{where}: '{name}' is mapped twice. Fix: give one --column per column.")
        seen.add(name)
        mapping[name] = _expr(expr, where)
    return tuple(mapping.items())


def _name(name: object, where: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise InputError(f"{where}: {name!r} is not a column name. Fix: map a contract column (true_label, weight, "
                         "score_<class>, train_mask, test_mask, valid_mask, event_id, a subset name).")  # fmt: skip
    return name


def _expr(expr: object, where: str) -> str:
    """`expr` stripped, once it parses in the expression grammar (InputError naming `where` otherwise)."""
    from pnetviz.io import grammar  # noqa: PLC0415

    if not isinstance(expr, str) or not expr.strip() or not expr.isprintable():
        raise InputError(f"{where}: the source must be a branch name or an expression on one line. Fix: {FIX}.")
    grammar.parse(expr.strip(), where)
    return expr.strip()


def is_plain(expr: str, types: Mapping[str, str]) -> bool:
    """Whether `expr` is a branch of a type the compiled reader reads (a rename, no expression)."""
    from pnetviz.io.branches import DTYPES  # noqa: PLC0415

    return expr in types and types[expr] in DTYPES


def names_in(expr: str) -> list[str]:
    """The names `expr` reads (from its parsed tree): what RDataFrame takes as branch names."""
    return used_names("<column>", expr)


def view_types(path: Path, tree: str, types: dict[str, str], mapping: ColumnMap, verified: bool) -> dict[str, str]:
    """The tree's branch types with the mapped columns' types laid over them (name -> C++ type).
    A mapped plain branch that is missing is one InputError; expressions are compiled by
    RDataFrame (in a guarded child unless `verified`), each failure one InputError naming the
    option and the names that are not branches."""
    from pnetviz.io import grammar  # noqa: PLC0415

    out = dict(types)
    exprs = {}
    for name, expr in mapping:
        if expr in types:
            out[name] = types[expr]
        elif isinstance(parsed(name, expr), grammar.Name):
            raise InputError(f"{path}: {option_text(name, expr)}: branch '{expr}' is missing in tree '{tree}'; "
                             f"branches found: {', '.join(sorted(types))}. Fix: {FIX}.")  # fmt: skip
        else:
            exprs[name] = expr
    if exprs:
        from pnetviz.io import expressions, guard  # noqa: PLC0415

        compiled = expressions.result_types(tuple(exprs.items()), types)
        if compiled is not None:  # the compiled evaluator's types, which are Define's
            return out | compiled
        args = (path, tree, tuple(exprs.items()), tuple(sorted(types)))
        out.update(_expression_types(*args) if verified else guard.run(_expression_types, *args, subject=path))
    return out


def _expression_types(path: Path, tree: str, exprs: ColumnMap, branches: tuple[str, ...]) -> dict[str, str]:
    frame = _frame(path, tree, exprs, branches)
    return {name: str(frame.GetColumnType(name)) for name, _ in exprs}


def _frame(path: Path, tree: str, exprs: ColumnMap, branches: Sequence[str]) -> object:
    """An RDataFrame of `tree` with a Define (Redefine over a branch of that name) per expression.
    Each expression's C++ is written from its parsed tree into a function template declared here,
    its branches parameters named by position; the Define calls it with the column names only. A
    name that is not a branch, an RDataFrame column or an earlier expression is one InputError
    before anything is compiled, and so is a failure (cling's diagnostics kept off the terminal)."""
    from pnetviz.io.layout import root_path  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    check_names(path, tree, exprs, branches)
    ROOT = root()
    space = _declare_templates(exprs)
    with root_path(path) as literal:
        frame = ROOT.RDF.AsRNode(ROOT.RDataFrame(tree, literal))
    for k, (name, expr) in enumerate(exprs):
        call = f"{space}::pnetviz_f{k}({', '.join(used_names(name, expr))})"
        try:
            with silent_stderr():
                frame = ROOT.RDF.AsRNode((frame.Redefine if name in branches else frame.Define)(name, call))
        except Exception:  # noqa: BLE001 - cling's compilation error, raised as a C++ exception
            raise InputError(f"{path}: {option_text(name, expr)}: ROOT cannot compile this expression for the types "
                             f"of its branches (e.g. '%' of a floating-point value). Fix: {FIX}.") from None  # fmt: skip
    return frame


def check_names(path: Path, tree: str, exprs: ColumnMap, branches: Sequence[str]) -> None:
    """InputError for the first expression that reads a name that is neither a branch, an
    RDataFrame column nor an expression defined before it (such a name never reaches cling)."""
    known = {*branches, *RDF_COLUMNS}
    for name, expr in exprs:
        unknown = [t for t in used_names(name, expr) if t not in known]
        if unknown:
            raise InputError(f"{path}: {option_text(name, expr)}: not branches of '{tree}': {', '.join(unknown)}. "
                             f"Fix: {FIX}; branches found: {', '.join(branches)}.")  # fmt: skip
        known.add(name)


@functools.cache
def _declare_templates(exprs: ColumnMap) -> str:
    """The namespace of `template <class T0, ...> auto pnetviz_f<k>(T0 pnetviz_b0, ...)` per
    expression, declared to cling: RDataFrame's Define then compiles only a call of it with column
    names (it rewrites every word that is a column's name, `std` and function names too)."""
    from pnetviz.io import grammar  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    grammar.declare_helpers()
    space = "pnetviz_rdf_" + hashlib.sha1(repr(exprs).encode()).hexdigest()[:16]
    code = [f"namespace {space} {{"]
    for k, (name, expr) in enumerate(exprs):
        used = used_names(name, expr)
        param = {b: f"pnetviz_b{i}" for i, b in enumerate(used)}
        template = f"template <{', '.join(f'class T{i}' for i in range(len(used)))}> " if used else ""
        params = ", ".join(f"T{i} pnetviz_b{i}" for i in range(len(used)))
        cpp = grammar.to_cpp(parsed(name, expr), param.__getitem__)
        code.append(f"{template}inline auto pnetviz_f{k}({params}) {{ return {cpp}; }}")
    code.append("}")
    with silent_stderr():
        if not root().gInterpreter.Declare("\n".join(code)):
            raise InputError(f"{', '.join(option_text(*e) for e in exprs)}: ROOT cannot compile these expressions "
                             f"(e.g. '%' of a floating-point number). Fix: {FIX}.")  # fmt: skip
    return space




def read_view(path: Path, tree: str, mapping: ColumnMap, columns: dict[str, str], types: dict[str, str],
              entries: int, progress: bool, block: Sequence[str]) -> dict[str, np.ndarray]:  # fmt: skip
    """Column name -> array for `columns` (name -> type from `view_types`), in entry order: the
    plain branches with the compiled reader, the expressions in one RDataFrame event loop."""
    from pnetviz.io import expressions, guard, treefile  # noqa: PLC0415
    from pnetviz.io.branches import read_columns  # noqa: PLC0415

    source = dict(mapping)
    wanted = {name: source.get(name, name) for name in columns}
    plain = {name: expr for name, expr in wanted.items() if is_plain(expr, types)}
    exprs = tuple((n, e) for n, e in wanted.items() if n not in plain)
    # expressions of plain branches (or constants): their branches read in the same pass, then one compiled loop
    compiled = bool(exprs) and expressions.result_types(exprs, types) is not None
    inputs = expressions.inputs_of(exprs, types) if compiled else ()
    branches = {expr: types[expr] for expr in dict.fromkeys([*plain.values(), *(b for b, _ in inputs)])}
    data = {}
    if branches:
        data = read_columns(path, tree, branches, entries, progress, block=[plain[b] for b in block if b in plain])
    out = {name: data[expr] for name, expr in plain.items()}
    if compiled:
        try:
            return out | expressions.evaluate(exprs, types, data, entries)
        except expressions.DividedByZero as err:
            raise InputError(divided_by_zero(path, tree, [err.args])) from None
    if not exprs:
        return out
    # the expressions alone through RDataFrame: its just-in-time compilation grows with every column
    # it reads (measured at 1e6 events: 3 boolean columns 4.9 s, the same and 6 renamed branches 10.9 s)
    args = (path, tree, exprs, tuple(n for n, _ in exprs), tuple(sorted(types)), entries)
    if treefile.check_structure(path, tree).verified:
        return out | _read_frame(*args)
    return out | guard.run(_read_frame, *args, subject=path, threads=treefile._implicit_threads())


def divided_by_zero(path: Path, tree: str, exprs: Sequence[tuple[str, str]]) -> str:
    """The message for an integer division or modulo by zero in one of `exprs` (undefined in C++)."""
    which = " or ".join(option_text(n, e) for n, e in exprs) or "a --column expression"
    return (f"{path}: {which}: an integer is divided by zero (/ or %) at an event of tree '{tree}'. Fix: guard the "
            "divisor (e.g. 'fold != 0 ? event / fold : 0') or divide by a floating-point number (event / 5.0).")


def _read_frame(path: Path, tree: str, exprs: ColumnMap, columns: tuple[str, ...], branches: tuple[str, ...],
                entries: int) -> dict[str, np.ndarray]:  # fmt: skip
    """`columns` through RDataFrame (AsNumpy: one event loop), in entry order also with
    implicit multi-threading; every array a plain numpy array of its own."""
    from pnetviz.io import structure, treefile  # noqa: PLC0415
    from pnetviz.io.branches import DTYPES, _cpp_error  # noqa: PLC0415
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    used = {b for n, e in exprs for b in used_names(n, e) if b in branches}
    sizes = {b: np.dtype(DTYPES[t]).itemsize for b, t in treefile.branch_types(path, tree).items()
             if b in used and t in DTYPES}  # fmt: skip
    try:
        structure.check_baskets(path, treefile._basket_tables(path, tree, sizes, entries))
    except structure.Damaged as err:
        raise InputError(f"{path}: not a readable ROOT file (damaged: {err}). {treefile.REMADE}") from None
    frame = _frame(path, tree, exprs, branches)
    names = list(columns) + ["rdfentry_"] * ROOT.IsImplicitMTEnabled()
    try:
        with quiet_root(ROOT.kError):
            data = {k: np.array(v) for k, v in frame.AsNumpy(names).items()}
    except Exception as err:  # noqa: BLE001 - a C++ exception from the event loop
        if "by zero" in str(err):  # an integer / or % of pnetviz.io.grammar's helpers
            from pnetviz.io import grammar  # noqa: PLC0415

            divided = [(n, e) for n, e in exprs if grammar.divides(parsed(n, e))]
            raise InputError(divided_by_zero(path, tree, divided)) from None
        raise InputError(f"{path}: ROOT failed reading it through RDataFrame ({_cpp_error(err)}). "
                         f"Fix: {FIX}.") from None  # fmt: skip
    order = data.pop("rdfentry_", None)
    if order is not None:
        data = {k: v[np.argsort(order, kind="stable")] for k, v in data.items()}
    return data
