"""The package's modules import each other without a cycle, and each imports on its own.

The graph is read from the source with ``ast``: every import that runs (at module level or
inside a function), not those under ``if TYPE_CHECKING:``, which only type checkers see."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set

PACKAGE = "docstore"
SOURCE = Path(__file__).resolve().parents[1] / "src" / PACKAGE


def module_names() -> List[str]:
    return sorted(PACKAGE if path.stem == "__init__" else f"{PACKAGE}.{path.stem}" for path in SOURCE.glob("*.py"))


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_modules(tree: ast.AST, module: str, known: Set[str]) -> Set[str]:
    """The package's modules that ``module`` imports when it runs."""
    package = module if module == PACKAGE else module.rsplit(".", 1)[0]
    found: Set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base: Optional[str]
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                base = node.module
            if base in known:
                found.add(base)
            for alias in node.names:  # from . import connection
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(module)
    return found


def import_graph() -> Dict[str, Set[str]]:
    known = set(module_names())
    graph = {}
    for module in known:
        path = SOURCE / ("__init__.py" if module == PACKAGE else module.split(".")[-1] + ".py")
        graph[module] = imported_modules(ast.parse(path.read_text(encoding="utf-8")), module, known)
    return graph


def find_cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One cycle of the graph, as a path that ends where it starts, or ``None``."""
    state: Dict[str, str] = {}
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        state[node] = "open"
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle is not None:
                return cycle
    return None


def test_the_modules_of_the_package_import_each_other_without_a_cycle() -> None:
    graph = import_graph()
    assert len(graph) >= 8 and graph["docstore.client"], "the graph was read"
    cycle = find_cycle(graph)
    assert cycle is None, "an import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from .c import C\n"
                     "def f():\n    from .b import B\n")
    known = {"docstore", "docstore.a", "docstore.b", "docstore.c"}
    assert imported_modules(tree, "docstore.a", known) == {"docstore.b"}
    assert find_cycle({"docstore.a": {"docstore.b"}, "docstore.b": {"docstore.a"}}) == ["docstore.a", "docstore.b", "docstore.a"]


def test_each_module_imports_first_in_a_fresh_interpreter() -> None:
    for module in module_names():
        run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(SOURCE.parent)})
        assert run.returncode == 0, f"import {module}: {run.stderr}"
