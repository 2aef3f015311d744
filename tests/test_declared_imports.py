"""Every module pnetviz imports, at the top of a file or inside a function, is the standard library,
pnetviz itself, ROOT/cppyy (the `root` extra) or a `dependencies` entry of pyproject.toml (issue 49,
item 7: `pnetviz diff` imported scipy, which only the test extra installs). Two optional imports
are allowed where they are guarded: dask_jobqueue (the `batch` extra) in campaign/jobspec.py behind
an ImportError that says how to install it, pandas in api/files.py only when it is importable."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pnetviz

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(pnetviz.__file__).parent
# distribution name (as pyproject.toml spells it) -> the module it is imported as
IMPORT_NAMES = {"numpy": "numpy", "cmsstyle": "cmsstyle", "dask": "dask", "distributed": "distributed", "tqdm": "tqdm",
                "cryptography": "cryptography", "scipy": "scipy", "cloudpickle": "cloudpickle", "psutil": "psutil",
                "zlib-ng": "zlib_ng"}  # fmt: skip
ROOT_EXTRA = {"ROOT", "cppyy"}
GUARDED = {"dask_jobqueue": "campaign/jobspec.py", "pandas": "api/files.py"}  # module -> the one file it may sit in


def dependencies() -> set[str]:
    """The import names of pyproject.toml's `dependencies` (a distribution without a mapping fails)."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.match(r"[A-Za-z0-9_.-]+", spec).group(0).lower() for spec in declared}
    unknown = names - set(IMPORT_NAMES)
    assert not unknown, f"add the import name of {sorted(unknown)} to IMPORT_NAMES"
    return {IMPORT_NAMES[name] for name in names}


def imports(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    """(top-level module, import node) of every absolute import in `tree`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], node) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module.split(".")[0], node))
    return found


def modules() -> dict[str, ast.AST]:
    return {path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(), str(path))
            for path in sorted(PACKAGE.rglob("*.py"))}  # fmt: skip


def test_every_import_is_declared():
    allowed = set(sys.stdlib_module_names) | {"pnetviz"} | ROOT_EXTRA | dependencies()
    undeclared = sorted({f"{name} ({where})" for where, tree in modules().items() for name, _ in imports(tree)
                         if name not in allowed and GUARDED.get(name) != where})  # fmt: skip
    assert not undeclared, f"imports that `pip install pnetviz` does not install: {undeclared}"


def test_diff_and_the_fold_tests_need_no_scipy():
    assert "scipy" not in dependencies()  # what users install; the tests' oracles use the test extra's scipy
    users = sorted(where for where, tree in modules().items() if any(name == "scipy" for name, _ in imports(tree)))
    assert users == []


def test_the_guarded_imports_sit_in_functions_behind_their_guard():
    trees = modules()
    parents = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
    for name, where in GUARDED.items():
        nodes = [node for module, node in imports(trees[where]) if module == name]
        assert nodes, f"{name} is no longer imported in {where}: drop it from GUARDED"
        for node in nodes:
            chain, up = [], node
            while up in parents:
                up = parents[up]
                chain.append(up)
            assert any(isinstance(n, ast.FunctionDef) for n in chain), f"{name} imported at the top of {where}"
            if name == "dask_jobqueue":  # a missing extra is one line saying how to install it
                tries = [n for n in chain if isinstance(n, ast.Try)]
                handlers = [h for t in tries for h in t.handlers if isinstance(h.type, ast.Name) and h.type.id == "ImportError"]
                assert handlers and "pnetviz[batch]" in ast.unparse(handlers[0])
    files = ast.unparse(trees["api/files.py"])
    assert "find_spec('pandas')" in files  # pandas only when importable, else lists of records
