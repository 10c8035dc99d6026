"""`python3 -m benchmarks list | run SUITE... | render [--check] | graphs | shapes` (see `benchmarks/__init__.py`)."""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from autotune.arguments import OneLineParser, report
from autotune.errors import AutotuneError
from benchmarks import SUITES
from benchmarks.results import RESULTS_DIR, write

PROG = "python3 -m benchmarks"


def parser() -> argparse.ArgumentParser:
    top = OneLineParser(prog=PROG, description="autotune's benchmark suites")
    commands = top.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the suites, and the GPUs each needs")
    run = commands.add_parser("run", help="run suites; each writes benchmarks/results/<gpu>/<suite>.json")
    run.add_argument("suites", nargs="+", choices=sorted(SUITES), metavar="SUITE")
    run.add_argument("--results", type=Path, default=RESULTS_DIR, help="where results go (default benchmarks/results)")
    for suite in SUITES.values():
        group = run.add_argument_group(f"suite {suite.name}")
        importlib.import_module(suite.module).add_options(group)
    render = commands.add_parser("render", help="write the documents' tables from the newest results")
    render.add_argument("--check", action="store_true", help="write nothing; exit 1 when a document differs")
    render.add_argument("--results", type=Path, default=RESULTS_DIR)
    commands.add_parser("graphs", add_help=False, help="fetch and convert the real-graph suite (python3 -m benchmarks "
                        "graphs --help)")
    commands.add_parser("shapes", add_help=False, help="the shapes of a table's graphs, for fit-choice --shapes "
                        "(python3 -m benchmarks shapes --help)")
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks' command line; the exit status (0 ok, 1 a run failed, 2 bad input), every
    error of the tool's own as one line on stderr."""
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except AutotuneError as error:
        report(PROG, str(error))
        return error.exit_status
    except KeyboardInterrupt:
        report(PROG, "interrupted")
        return 130


def _results_dir(path: Path) -> Path:
    """`--results`, refused before any suite runs when it cannot hold results (a file, say)."""
    from autotune.errors import OutputError

    if path.exists() and not path.is_dir():
        raise OutputError(f"--results {path}: is not a directory; results go to <dir>/<gpu>/<suite>.json")
    return path


def _main(argv: list[str]) -> int:
    if argv[:1] == ["graphs"]:
        from benchmarks import realgraphs

        return realgraphs.main(argv[1:])
    if argv[:1] == ["shapes"]:
        from benchmarks import shapes

        return shapes.main(argv[1:])
    args = parser().parse_args(argv)
    if args.command == "list":
        for suite in SUITES.values():
            needs = {0: "no GPU (committed records)", 1: "one GPU"}.get(suite.gpus, f"{suite.gpus} or more GPUs")
            print(f"{suite.name:<8} {needs:<27} {suite.summary}")
        return 0
    if args.command == "render":
        from benchmarks.render import render_documents

        changed = render_documents(args.results, check=args.check)
        for path in changed:
            print(f"{'differs' if args.check else 'wrote'} {path}")
        return 1 if args.check and changed else 0
    from benchmarks.realgraphs import SuiteError

    _results_dir(args.results)
    for name in dict.fromkeys(args.suites):
        try:
            results = importlib.import_module(SUITES[name].module).run(args)
        except SuiteError as error:  # a real-graph suite graph not fetched: python3 -m benchmarks graphs
            report(PROG, f"run {name}: {error}; fetch it with python3 -m benchmarks graphs")
            return 2
        print(f"{name}: wrote {write(results, args.results)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
