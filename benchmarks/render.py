"""The documents' numbers, written from the newest results files: the README's blocks between
`<!-- bench:SUITE -->` and `<!-- /bench:SUITE -->`, and `docs/benchmarks.md` whole (every suite,
every GPU). `python3 -m benchmarks render --check` (and the tests) compare instead of writing."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

from benchmarks import SUITES
from benchmarks.results import ROOT, newest

README = ROOT / "README.md"
BENCHMARKS_DOC = ROOT / "docs" / "benchmarks.md"
BLOCK = re.compile(r"(<!-- bench:(?P<suite>[a-z]+) -->\n)(?P<body>.*?)(<!-- /bench:(?P=suite) -->)", re.S)


def suite_lines(name: str, results_dir: Path) -> list[str]:
    found = newest(name, results_dir)
    if not found:
        return [f"Not measured yet: `python3 -m benchmarks run {name}`.", ""]
    return importlib.import_module(SUITES[name].module).render(found)


def readme_text(text: str, results_dir: Path) -> str:
    """The README with every bench block rewritten from the results."""
    return BLOCK.sub(lambda m: m.group(1) + "\n".join(suite_lines(m.group("suite"), results_dir)) + "\n"
                     + m.group(4), text)


def benchmarks_doc(results_dir: Path) -> str:
    lines = ["# Benchmarks", "",
             "Written by `python3 -m benchmarks render` from `benchmarks/results/<gpu>/<suite>.json`; do not edit. "
             "Each suite's results file holds every measurement behind these lines, with its command, GPU, driver, "
             "commit and date. Run a suite again with `python3 -m benchmarks run SUITE` (`list` names them).", ""]
    for suite in SUITES.values():
        lines += [f"## {suite.name}: {suite.summary}", "", *suite_lines(suite.name, results_dir)]
    return "\n".join(lines).rstrip() + "\n"


def render_documents(results_dir: Path, check: bool = False) -> list[Path]:
    """Write (or with `check`, compare) the documents; returns those that changed (or differ)."""
    changed = []
    for path, text in ((README, readme_text(README.read_text(encoding="utf-8"), results_dir)),
                       (BENCHMARKS_DOC, benchmarks_doc(results_dir))):
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            changed.append(path)
            if not check:
                path.write_text(text, encoding="utf-8")
    return changed
