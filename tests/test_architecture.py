"""The packages' shape: no import cycles between their modules (imports inside functions and
`TYPE_CHECKING` blocks count: a deferred import is still a dependency), and no module over 400
lines (issues 11 and 30)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (ROOT / "autotune", ROOT / "benchmarks")
LIMIT = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for package in PACKAGES if package.is_dir() for path in package.rglob("*.py")}


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The module an imported name lives in: the longest prefix of it that is a module."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports, wherever in it the import statement stands."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [_target(alias.name, modules) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [_target(f"{base}.{alias.name}", modules) for alias in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t is not None and t != name}
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


def test_the_graph_counts_imports_inside_functions():
    graph = import_graph()
    assert "autotune.lookup" in graph["autotune"]  # `autotune.__getattr__` imports it when asked


def test_no_module_is_over_400_lines():
    long = [f"{name}: {n} lines" for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT]
    assert not long, long


def test_the_command_line_starts_without_scipy():
    """scipy (a third of a second to import) is loaded by the first distance computed, not by
    starting a command: a sweep's workers, which read kept distances, never need it."""
    import subprocess
    import sys

    code = ("import sys, autotune.cli; autotune.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=ROOT).stdout.strip()
    assert loaded == "[]"
