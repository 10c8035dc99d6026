"""Fit the Δ-stepping model's constants (rules 1 and 5 of autotune/algorithms/delta/rules.py) on
benchmark rows and write them into a characterization: a maintainer's command. The fit and its
leave-one-graph-out check are `autotune/algorithms/delta/fit.py`; the benchmark suite `model` reports the
check. `--width-rows` (scripts/probe_batch_bins.py's records) fits rule 5's ladder of block sizes
by level width, and `--wide-rows` (scripts/probe_batch_ck.py's) rule 4's one instance per SM from a
level width on, the widths read from `--shapes`; the suite `classout` checks them by class.

    python3 scripts/fit_delta_model.py benchmarks/data/h100/delta-grid.jsonl.gz \
        benchmarks/data/h100/delta-grid-power-3415118.jsonl.gz \
        --width-rows benchmarks/data/h100/bins-grid-4d19028.jsonl.gz \
        --wide-rows benchmarks/data/h100/ck-bs-grid-e6e4b8e.jsonl.gz --write autotune/algorithms/delta/delta.toml

The graphs' features are the shipped H100 table's (`benchmarks.classout.record_features`).

`--lanes-rows` fits the lane-interleaved model's launch on skewed graphs instead
(`autotune/algorithms/delta_lanes/fit.py`, on `scripts/probe_delta_grid.py --lanes` rows):

    python3 scripts/fit_delta_model.py --lanes-rows benchmarks/data/h200/lanes-grid-d0d9efe.jsonl.gz \
        --write autotune/algorithms/delta_lanes/lanes.toml
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune import algorithms  # noqa: E402
from autotune.algorithms.delta import fit as delta_fit  # noqa: E402
from autotune.algorithms.delta_lanes import fit as lanes_fit  # noqa: E402
from autotune.algorithms.delta.rules import per_sm  # noqa: E402
from autotune.model.device import load_device  # noqa: E402
from benchmarks.classout import ladder_taken, record_features, shapes_in  # noqa: E402
from benchmarks.data import graph_class  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=Path, nargs="*", help="benchmark rows (JSON Lines, plain or gzip)")
    parser.add_argument("--lanes-rows", type=Path, nargs="+", default=[],
                        help="lanes-grid rows: fit the lane-interleaved model's launch on skewed graphs instead")
    parser.add_argument("--width-rows", type=Path, nargs="*", default=[],
                        help="block-size rows (`bins grid`) to fit rule 5's ladder by level width on")
    parser.add_argument("--wide-rows", type=Path, nargs="*", default=[],
                        help="CK and block-size rows (`ck grid`, the H100's) to fit rule 4's one instance per SM on "
                        "(with --width-rows)")
    parser.add_argument("--shapes", type=Path, default=ROOT / "benchmarks" / "data" / "shapes.json",
                        help="the graphs' level widths (default benchmarks/data/shapes.json)")
    parser.add_argument("--write", type=Path, default=None, help="rewrite this characterization's [model] constants")
    args = parser.parse_args(argv)
    if args.lanes_rows:
        return fit_lanes(args.lanes_rows, args.write)
    if not args.rows:
        parser.error("give the benchmark rows (or --lanes-rows)")
    rows = delta_fit.read_rows(args.rows)
    graphs = {name: record_features(name) for name in sorted(rows)}
    constants, size = delta_fit.fit(rows, graphs)
    ladder = wide = None
    if args.wide_rows and not args.width_rows:
        parser.error("--wide-rows needs --width-rows: the narrow shape it is priced against takes the ladder")
    if args.width_rows:
        widths = {name: shape["level_width"] for name, shape in shapes_in(args.shapes).items()}
        ladder = delta_fit.fit_block_widths(delta_fit.read_rows(args.width_rows, delta_fit.WIDTH_CLASSES), widths,
                                            ladder_taken(), graph_class)
    if args.wide_rows:
        per_sm_ck = per_sm(algorithms.get("delta").concurrent_kernels, load_device("hopper-h100"))  # the records' GPU
        wide = delta_fit.fit_wide(delta_fit.read_rows(args.wide_rows, delta_fit.WIDE_CLASSES), widths, ladder, per_sm_ck)
    named = [*args.rows, *args.width_rows, *args.wide_rows]
    files = in_repository(named)
    print(f"{len(rows)} graphs: delta_scale = {constants[0]:g}, delta_skew = {constants[1]:g}, "
          f"delta_spread = {constants[2]:g}, block_size = {size}" +
          ("" if ladder is None else "; block sizes " + ", ".join(f"{s} from level width {w:g}"
                                                                 for s, w in sorted(ladder.items()))) +
          ("" if wide is None else f"; one instance per SM, blocks of {wide[1]}, from level width {wide[0]:g}"))
    if args.write is not None:
        given = files[:len(args.rows)]
        width_files = files[len(args.rows):len(args.rows) + len(args.width_rows)]
        wide_files = files[len(args.rows) + len(args.width_rows):]
        command = "python3 scripts/fit_delta_model.py " + " ".join(str(f) for f in given) + (
            " --width-rows " + " ".join(str(f) for f in width_files) if width_files else "") + (
            " --wide-rows " + " ".join(str(f) for f in wide_files) if wide_files else "")
        delta_fit.write_constants(args.write, constants, size, files, command, base=ROOT, ladder=ladder, wide=wide)
        print(f"wrote the [model] constants of {args.write}")
    return 0


def in_repository(paths: list[Path]) -> list[Path]:
    """`paths` relative to the repository's root where they lie in it (as the characterization names them)."""
    return [p.resolve().relative_to(ROOT) if p.resolve().is_relative_to(ROOT) else p for p in paths]


def fit_lanes(paths: list[Path], write: Path | None) -> int:
    """The lane-interleaved model's skewed-graph launch fitted on `paths`, written into `write` where given."""
    grid = lanes_fit.read_grid(paths)
    size, per_sm, slowdown = lanes_fit.fit(grid)
    print(f"{len(grid)} graphs: skew_block_size = {size}, skew_blocks_per_sm = {per_sm} "
          f"(geometric-mean slowdown {slowdown:.3f} against each graph's best of the grid)")
    if write is not None:
        files = in_repository(paths)
        command = "python3 scripts/fit_delta_model.py --lanes-rows " + " ".join(str(f) for f in files)
        lanes_fit.write_constants(write, size, per_sm, slowdown, sorted(grid), files, command, base=ROOT)
        print(f"wrote the skewed graphs' launch into {write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
