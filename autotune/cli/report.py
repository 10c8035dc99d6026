"""`autotune report`: what a sweep gained, whether the model holds on this GPU and whether the
search was worth it, as `DIR/README.md` and PNG figures (matplotlib, the extra `plot`).

    autotune report SWEEPS_DIR --cpu-times cpu-times.jsonl -o REPORT_DIR
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys

from pathlib import Path

from autotune.errors import OutputError
from autotune.files import check_outputs, check_replaceable

REPORT_MARK = "`autotune report` computed every number"  # a line of every report's header


def is_report(path: Path) -> bool:
    """Whether a README was written by `autotune report` (it may then be written again)."""
    try:
        return REPORT_MARK in path.read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return False


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report", help="tables and figures of sweeps: gains, the model against the measurement, search efficiency",
        description="Read sweep tables (.json), their measurement records (.jsonl) and CPU timings, and write "
        "DIR/README.md with the gains over the baseline and the default (thesis Table 4.4), the model against "
        "the measurement, the exhaustive search (thesis Fig. 4.1), the search efficiency and GPU against CPU; "
        "with matplotlib installed (pip install 'autotune[plot]') also the PNG figures it links, in DIR/figures. "
        "A FINDINGS.md in DIR (what the data says, written by hand) is included in the README as section 7, "
        "below the figures; it is read, never written.")
    parser.add_argument("inputs", nargs="+", metavar="TABLE_OR_RECORDS",
                        help="sweep tables (.json), records (.jsonl), CPU timings (.jsonl) or directories holding them")
    parser.add_argument("--output", "-o", metavar="DIR", required=True, help="the report directory")
    parser.add_argument("--cpu-times", metavar="FILE.jsonl", action="append", default=[],
                        help="CPU timings written by scripts/cpu_baseline.py; repeat for several files")
    parser.add_argument("--no-figures", action="store_true", help="write the README only")
    parser.add_argument("--json", action="store_true", help="also print the report's data as JSON on stdout")
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from autotune.report import write_report

    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise OutputError(f"--output {args.output}: is a file; the report is a directory (README.md and figures/)")
    readme = out / "README.md"
    check_outputs({f"--output {args.output}": out}, [("an input", path) for path in (*args.inputs, *args.cpu_times)])
    check_outputs({"the report's README": readme}, [("an input", path) for path in (*args.inputs, *args.cpu_times)])
    check_replaceable(readme, is_report, "a README written by autotune report")
    command = "autotune report " + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["report"] else sys.argv[1:])
    written = write_report(args.inputs, args.output, cpu_paths=args.cpu_times, figures=not args.no_figures,
                           command=command if sys.argv[1:] else None)
    if args.json:
        print(json.dumps(written.report.to_json(), indent=2))
    elif not args.quiet:
        print(f"wrote {written.readme}" + (f" and {len(written.figures)} figure(s)" if written.figures else ""))
        if written.figures_skipped and not args.no_figures:
            print(f"figures skipped: {written.figures_skipped}; pip install 'autotune[plot]' (or matplotlib) to draw "
                  "them", file=sys.stderr)
    return 0
