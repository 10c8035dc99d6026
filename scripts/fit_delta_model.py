"""Fit the Δ-stepping model's constants (rules 1 and 5 of autotune/model/delta_rules.py) on
benchmark rows and write them into a characterization: a maintainer's command. The fit and its
leave-one-graph-out check are `autotune/model/delta_fit.py`; the benchmark suite `model` reports the
check.

    python3 scripts/fit_delta_model.py benchmarks/data/h100/delta-grid.jsonl.gz --write characterizations/delta.toml
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.model import delta_fit  # noqa: E402
from benchmarks.data import spec  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, nargs="+", help="benchmark rows (JSON Lines, plain or gzip)")
    parser.add_argument("--write", type=Path, default=None, help="rewrite this characterization's [model] constants")
    args = parser.parse_args(argv)
    rows = delta_fit.read_rows(args.rows)
    graphs = {name: delta_fit.features(spec(name)) for name in sorted(rows)}
    constants, size = delta_fit.fit(rows, graphs)
    files = [path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path for path in args.rows]
    print(f"{len(rows)} graphs: delta_scale = {constants[0]:g}, delta_skew = {constants[1]:g}, "
          f"delta_spread = {constants[2]:g}, block_size = {size}")
    if args.write is not None:
        command = "python3 scripts/fit_delta_model.py " + " ".join(str(f) for f in files)
        delta_fit.write_constants(args.write, constants, size, files, command, base=ROOT)
        print(f"wrote the [model] constants of {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
