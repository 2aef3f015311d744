"""`--column` expressions evaluated over arrays by one compiled loop (no RDataFrame).

When every name an expression uses is a branch of a type the compiled reader reads, the branches
are read with it (in the same pass as the plain columns) and the expressions are evaluated by a
C++ function declared once per process for each distinct set of expressions and branch types:
`auto f(T1 pnetviz_b0, ...) { return CPP; }` per expression, where CPP is written by
`pnetviz.io.grammar.to_cpp` from the expression's parsed tree (the user's text is never compiled;
branches are parameters named by position, so no name of the tree reaches the compiler). It is the
expression RDataFrame's `Define` would compile, so the result type (ROOT's name for it) and the
values are those of `Define`. Measured at 1e6 events (benchmarks/README.md): a second read of the
mapped benchmark file 0.62 -> 0.35 s, the first 8.1 -> 2.8 s (cling compiles 3 small functions,
not RDataFrame's templates). Any other expression (a name that is not a branch, another mapped
expression, a branch of another type) returns None and goes through RDataFrame.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping

import numpy as np

ColumnMap = tuple[tuple[str, str], ...]


@functools.cache
def _kernel(exprs: ColumnMap, inputs: tuple[tuple[str, str], ...]) -> tuple[str, tuple[str, ...]] | None:
    """(namespace, result type per expression) of the declared evaluator, None if cling refuses."""
    from pnetviz.io import grammar  # noqa: PLC0415
    from pnetviz.io.grammar import parsed  # noqa: PLC0415
    from pnetviz.rootenv import silent_stderr  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    grammar.declare_helpers()
    space = "pnetviz_expr_" + hashlib.sha1(repr((exprs, inputs)).encode()).hexdigest()[:16]
    param = {b: f"pnetviz_b{i}" for i, (b, _) in enumerate(inputs)}  # branches by position, not by name
    params = ", ".join(f"{t} {param[b]}" for b, t in inputs)
    casts = "".join(f"const auto *pnetviz_in{i} = reinterpret_cast<const {t} *>(in[{i}]);\n"
                    for i, (_, t) in enumerate(inputs))  # fmt: skip
    args = ", ".join(f"pnetviz_in{i}[pnetviz_e]" for i in range(len(inputs)))
    includes = "".join(f"#include <{h}>\n" for h in ("ROOT/RDF/Utils.hxx", "cstdint", "stdexcept", "string",
                                                     "typeinfo", "utility"))  # fmt: skip
    code = [includes, f"namespace {space} {{"]
    defaults = ", ".join(f"std::declval<{t}>()" for _, t in inputs)
    for k, (name, expr) in enumerate(exprs):
        cpp = grammar.to_cpp(parsed(name, expr), param.__getitem__)
        code.append(f"inline auto f{k}({params}) {{ return {cpp}; }}\n"
                    f"using t{k} = decltype(f{k}({defaults}));\n"
                    f"std::string type{k}() {{ return ROOT::Internal::RDF::TypeID2TypeName(typeid(t{k})); }}")  # fmt: skip
    # one loop per expression: an integer division by zero (std::domain_error) names its expression
    loops = "".join(f"try {{ auto *pnetviz_out = reinterpret_cast<t{k} *>(out[{k}]);\n"
                    f"for (long long pnetviz_e = 0; pnetviz_e < n; ++pnetviz_e) pnetviz_out[pnetviz_e] = f{k}({args});\n"
                    f"}} catch (const std::domain_error &) {{ return {k}; }}\n" for k in range(len(exprs)))  # fmt: skip
    code.append(f"long long eval(long long n, const std::uint64_t *in, const std::uint64_t *out) {{\n{casts}"
                f"{loops}return -1;\n}}\n}}")  # fmt: skip
    with silent_stderr():
        if not ROOT.gInterpreter.Declare("\n".join(code)):
            return None
    ns = getattr(ROOT, space)
    return space, tuple(str(getattr(ns, f"type{k}")()) for k in range(len(exprs)))


def inputs_of(exprs: ColumnMap, types: Mapping[str, str]) -> tuple[tuple[str, str], ...] | None:
    """(branch, type) the expressions read (none for constants), or None when one of their names
    is not a branch of a type the compiled reader reads or is another of the mapped expressions
    (left to RDataFrame)."""
    from pnetviz.io.grammar import used_names  # noqa: PLC0415
    from pnetviz.io.branches import DTYPES  # noqa: PLC0415

    defined = {name for name, _ in exprs}
    # a column's own name in its expression is its branch (Define's Redefine sees the branch)
    if any(b in defined and b != name for name, e in exprs for b in used_names(name, e)):
        return None
    used = dict.fromkeys(b for name, e in exprs for b in used_names(name, e))
    if any(types.get(b) not in DTYPES for b in used):
        return None
    return tuple((b, types[b]) for b in used)


def result_types(exprs: ColumnMap, types: Mapping[str, str]) -> dict[str, str] | None:
    """Column name -> C++ result type of each expression, None when the compiled path cannot
    take them (RDataFrame then compiles them and reports the errors)."""
    from pnetviz.io.branches import DTYPES  # noqa: PLC0415

    inputs = inputs_of(exprs, types)
    kernel = _kernel(tuple(exprs), inputs) if inputs is not None else None
    if kernel is None or any(t not in DTYPES for t in kernel[1]):
        return None
    return {name: t for (name, _), t in zip(exprs, kernel[1])}


def evaluate(exprs: ColumnMap, types: Mapping[str, str], data: Mapping[str, np.ndarray],
             entries: int) -> dict[str, np.ndarray]:  # fmt: skip
    """Column name -> values of each expression over the branch arrays `data` (entry order);
    DividedByZero naming the expression where an integer is divided by zero."""
    from pnetviz.io.branches import DTYPES  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    inputs = inputs_of(exprs, types)
    space, kinds = _kernel(tuple(exprs), inputs)
    arrays = [np.ascontiguousarray(data[b]) for b, _ in inputs]
    out = {name: np.empty(entries, dtype=DTYPES[t]) for (name, _), t in zip(exprs, kinds)}
    if entries:
        # one unused entry when no expression reads a branch (constants: valid_mask=false): cppyy
        # takes no empty array for a pointer
        ins = np.array([a.ctypes.data for a in arrays] or [0], dtype=np.uint64)
        outs = np.array([a.ctypes.data for a in out.values()], dtype=np.uint64)
        failed = int(getattr(root(), space).eval(entries, ins, outs))
        if failed >= 0:
            raise DividedByZero(*exprs[failed])
    return out


class DividedByZero(ArithmeticError):
    """An integer division or modulo by zero in the mapped column (name, expression)."""
