"""`python3 -m benchmarks list | run SUITE... | render [--check] | graphs | shapes` (see `benchmarks/__init__.py`)."""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from benchmarks import SUITES
from benchmarks.results import RESULTS_DIR, write


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python3 -m benchmarks", description="autotune's benchmark suites")
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
    argv = sys.argv[1:] if argv is None else argv
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

    for name in dict.fromkeys(args.suites):
        try:
            results = importlib.import_module(SUITES[name].module).run(args)
        except SuiteError as error:  # a real-graph suite graph not fetched: python3 -m benchmarks graphs
            print(f"benchmarks run {name}: {error}; fetch it with python3 -m benchmarks graphs", file=sys.stderr)
            return 2
        print(f"{name}: wrote {write(results, args.results)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
