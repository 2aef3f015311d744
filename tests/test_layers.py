"""The package's layers: every module imports only from its own layer or the layers below
(the order in docs/architecture.md), so there are no circular imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pnetviz

PACKAGE = Path(pnetviz.__file__).parent
# bottom to top; `base` is the package's own top-level modules
LAYERS = ["base", "io", "metrics", "limits", "draw", "output", "jobs", "demo", "campaign", "summary", "web", "rounds", "cli", "api"]
SAME_FLOOR = {"demo": 5}  # the demo writers sit beside the jobs (they use io and rootenv only)


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in LAYERS else "base"


def rank(layer: str) -> int:
    return SAME_FLOOR.get(layer, LAYERS.index(layer))


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pnetviz"):
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("pnetviz")}
    return found


def test_layers_import_only_downwards():
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        if module in ("pnetviz.__main__",):
            continue
        if module == "pnetviz":  # the package's facade: re-exports the API lazily (PEP 562 __getattr__)
            assert imports(path) <= {"pnetviz.api"}, imports(path)
            continue
        own = layer_of(module + ".x" if path.name == "__init__.py" else module)  # a subpackage's __init__: its layer
        for target in imports(path):
            other = layer_of(target)
            if other != own and rank(other) >= rank(own) and not (own == "base" and other == "base"):
                offences.append(f"{module} ({own}) imports {target} ({other})")
    assert not offences, "\n".join(offences)


def test_every_layer_is_a_subpackage():
    for layer in LAYERS[1:]:
        assert (PACKAGE / layer / "__init__.py").is_file()
    assert {p.name for p in PACKAGE.glob("*.py")} == {"__init__.py", "__main__.py", "errors.py", "escape.py", "names.py", "rootenv.py"}
