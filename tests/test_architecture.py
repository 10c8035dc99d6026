"""The package's shape: no import cycles between its modules, and no module over 400 lines without
a reason at its top (issue 11)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autotune"
LIMIT = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _top_level_imports(tree: ast.Module):
    """Import statements run when the module is imported: module level, `try` and `if` bodies,
    but not `if TYPE_CHECKING:` blocks nor function bodies."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody + [n for h in node.handlers for n in h.body]


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _top_level_imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_checker_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles():
    graph = import_graph()
    assert "autotune.search.sweep" in graph and graph["autotune.cli.sweep"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_long_modules_say_why_at_their_top():
    unexplained = []
    for name, path in _modules().items():
        lines = path.read_text().splitlines()
        docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
        if len(lines) > LIMIT and "400 lines" not in docstring:
            unexplained.append(f"{name}: {len(lines)} lines")
    assert not unexplained, unexplained


def test_the_command_line_starts_without_scipy():
    """scipy (a third of a second to import) is loaded by the first distance computed, not by
    starting a command: a sweep's workers, which read kept distances, never need it."""
    import subprocess
    import sys

    code = ("import sys, autotune.cli; autotune.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=PACKAGE.parent).stdout.strip()
    assert loaded == "[]"
