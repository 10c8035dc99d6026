"""The packages' shape, as `docs/architecture.md` draws it:

- the import-linter contracts of `pyproject.toml` ([tool.importlinter]) hold: the layers of
  `autotune` (a module imports only from the layers below its own, imports inside functions
  included), no package or module that imports another which imports it back (at any depth),
  PyCUDA imported by `autotune.gpu` alone, and the benchmarks never through the command line;
- no code outside `autotune/algorithms/` tests an algorithm's name: it asks the registry;
- no code outside `autotune/table/` reads a table entry's keys: it reads `table.Entry` values;
- starting a command does not load scipy.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Where algorithm names may be tested: the algorithms' own packages and the registry.
ALGORITHMS = ROOT / "autotune" / "algorithms"
TABLE = ROOT / "autotune" / "table"
# A table's and an entry's keys that only `autotune.table` reads (the benchmarks' result rows have
# keys of their own, some of the same names: there only these two).
ENTRY_KEYS = {"entries", "curve", "best", "predicted", "by_algorithm", "x-top"}
BENCHMARK_ENTRY_KEYS = {"entries", "by_algorithm"}


def test_the_import_linter_contracts_hold(capsys):
    pytest.importorskip("importlinter")
    from importlinter.cli import lint_imports

    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    out = capsys.readouterr().out
    assert status == 0 and "BROKEN" not in out, out
    assert " 0 broken." in out


def registered_names() -> set[str]:
    from autotune import algorithms

    return set(algorithms.names())


def name_branches(source: str, names: set[str]) -> list[tuple[int, str]]:
    """Where `source` compares something with an algorithm's name (`==`, `!=`, `in`, a tuple of
    names) or falls back on one (`x or "name"`, `d.get(key, "name")`, a parameter's default): the
    lines and the code."""
    found = []
    for node in ast.walk(ast.parse(source)):
        literals: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                literals += side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
        elif isinstance(node, ast.BoolOp):
            literals = list(node.values)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            literals = list(node.args[1:2])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            literals = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            literals = [node.value]
        if any(isinstance(e, ast.Constant) and e.value in names for e in literals):
            found.append((node.lineno, ast.unparse(node).splitlines()[0][:100]))
    return sorted(found)


def test_the_branch_finder_finds_tests_of_names():
    names = {"delta", "crauser"}
    source = ('if config.algorithm == "delta": pass\n'
              'x = name in ("crauser", "other")\n'
              'y = args.algorithm or "crauser"\n'
              'z = entry.get("algorithm", "delta")\n'
              'def f(algorithm="crauser"): pass\n'
              'w = params["delta"]\n'  # a parameter named delta, not the algorithm
              'v = algorithms.get(name).engine\n')
    assert sorted(line for line, _ in name_branches(source, names)) == [1, 2, 3, 4, 5]


def test_no_code_outside_the_algorithms_tests_an_algorithm_s_name():
    names = registered_names()
    found = [f"{path.relative_to(ROOT)}:{line}: {code}"
             for package in (ROOT / "autotune", ROOT / "benchmarks") for path in sorted(package.rglob("*.py"))
             if not path.is_relative_to(ALGORITHMS)
             for line, code in name_branches(path.read_text(encoding="utf-8"), names)]
    assert not found, "\n".join(found)


def entry_reads(source: str, keys: set[str]) -> list[tuple[int, str]]:
    """Where `source` reads one of `keys` from a mapping: `x["key"]` (not an assignment to it) or
    `x.get("key", ...)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        if key in keys:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_entry_finder_finds_reads_not_writes():
    source = 'a = t["entries"]\nb = e.get("curve", ())\nrow["curve"] = []\nc = e.curve\nd = r["wall_s"]\n'
    assert [line for line, _ in entry_reads(source, ENTRY_KEYS)] == [1, 2]


def test_no_code_outside_the_table_reads_an_entry_s_keys():
    found = [f"{path.relative_to(ROOT)}:{line}: {code}"
             for package, keys in ((ROOT / "autotune", ENTRY_KEYS), (ROOT / "benchmarks", BENCHMARK_ENTRY_KEYS),
                                   (ROOT / "scripts", BENCHMARK_ENTRY_KEYS))
             for path in sorted(package.rglob("*.py")) if not path.is_relative_to(TABLE)
             for line, code in entry_reads(path.read_text(encoding="utf-8"), keys)]
    assert not found, "\n".join(found)


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
