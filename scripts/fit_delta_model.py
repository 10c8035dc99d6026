"""Fit the Δ-stepping model's constants (rules 1 and 5 of autotune/model/delta_rules.py) on
benchmark rows and write them into a characterization: a maintainer's command. The fit and its
leave-one-graph-out check are `autotune/model/delta_fit.py`; the benchmark suite `model` reports the
check. `--width-rows` (scripts/probe_batch_bins.py's records) fits rule 5's ladder of block sizes
by level width, the widths read from `--shapes`; the suite `classout` checks it by class.

    python3 scripts/fit_delta_model.py benchmarks/data/h100/delta-grid.jsonl.gz \
        --width-rows benchmarks/data/h100/bins-grid-d16ea63.jsonl.gz --write characterizations/delta.toml
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.files import read_json  # noqa: E402
from autotune.model import delta_fit  # noqa: E402
from benchmarks.data import spec  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, nargs="+", help="benchmark rows (JSON Lines, plain or gzip)")
    parser.add_argument("--width-rows", type=Path, nargs="*", default=[],
                        help="block-size rows (`bins grid`) to fit rule 5's ladder by level width on")
    parser.add_argument("--shapes", type=Path, default=ROOT / "benchmarks" / "data" / "shapes.json",
                        help="the graphs' level widths (default benchmarks/data/shapes.json)")
    parser.add_argument("--write", type=Path, default=None, help="rewrite this characterization's [model] constants")
    args = parser.parse_args(argv)
    rows = delta_fit.read_rows(args.rows)
    graphs = {name: delta_fit.features(spec(name)) for name in sorted(rows)}
    constants, size = delta_fit.fit(rows, graphs)
    ladder = None
    if args.width_rows:
        shapes = read_json(args.shapes)["shapes"]
        ladder = delta_fit.fit_block_widths(delta_fit.read_rows(args.width_rows, delta_fit.WIDTH_CLASSES),
                                            {g: s["level_width"] for g, s in shapes.items()})
    named = [*args.rows, *args.width_rows]
    files = [path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path for path in named]
    print(f"{len(rows)} graphs: delta_scale = {constants[0]:g}, delta_skew = {constants[1]:g}, "
          f"delta_spread = {constants[2]:g}, block_size = {size}" +
          ("" if ladder is None else "; block sizes " + ", ".join(f"{s} from level width {w:g}"
                                                                 for s, w in sorted(ladder.items()))))
    if args.write is not None:
        given, widths = files[:len(args.rows)], files[len(args.rows):]
        command = "python3 scripts/fit_delta_model.py " + " ".join(str(f) for f in given) + (
            " --width-rows " + " ".join(str(f) for f in widths) if widths else "")
        delta_fit.write_constants(args.write, constants, size, files, command, base=ROOT, ladder=ladder)
        print(f"wrote the [model] constants of {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
