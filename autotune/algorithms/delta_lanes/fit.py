"""Fit the lane-interleaved model's launch on skewed graphs (`autotune.algorithms.delta_lanes.rules`,
rules 3 and 4 where cv(G) >= `inf_skew`) on the `lanes grid` rows of `scripts/probe_delta_grid.py --lanes`:
each graph's prediction at every block size, blocks per SM and Delta of the grid, at its CK.

Fitted: `skew_block_size` and `skew_blocks_per_sm` together, the pair whose rows at rule 1's Delta for
these graphs (INF: the probe's graphs are skewed ones) have the least geometric mean of the slowdowns over
the graphs, each slowdown against the graph's best row of any configuration of the grid; ties: the smaller
block, then the fewer blocks. A graph without a row of a pair counts `MISSING` for it.
`scripts/fit_delta_model.py --lanes-rows` writes them into `algorithms/delta_lanes/lanes.toml`.
"""
from __future__ import annotations

import hashlib
import re
import statistics
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from autotune.files import atomic_write, read_json_lines

CLASSES = ("lanes grid",)
MISSING = 10.0  # the slowdown counted where a graph has no row of a pair
Key = tuple[int, int, object]  # (block size, blocks per SM, Delta)


def read_grid(paths: Sequence[str | Path]) -> dict[str, dict[Key, float]]:
    """Each graph's verified `lanes grid` rows: ms per SSSP by (block size, blocks per SM, Delta)."""
    grid: dict[str, dict[Key, float]] = defaultdict(dict)
    for path in paths:
        for _, row in read_json_lines(Path(path), "lanes grid rows"):
            if row.get("class") not in CLASSES or row.get("status") != "ok" or row.get("ms_per_sssp") is None:
                continue
            config = row["config"]
            params = config["params"]
            key = (int(config["kernels"]["advance"]["block_size"]), int(params["blocks_per_sm"]), params["delta"])
            grid[row["graph"]][key] = float(row["ms_per_sssp"])
    return dict(grid)


def slowdowns(grid: dict[str, dict[Key, float]], size: int, per_sm: int, delta: object = "inf") -> list[float]:
    """Each graph's time at (`size`, `per_sm`, `delta`) over its best of the grid (`MISSING` without that row)."""
    return [rows[(size, per_sm, delta)] / min(rows.values()) if (size, per_sm, delta) in rows else MISSING
            for rows in grid.values()]


def fit(grid: dict[str, dict[Key, float]]) -> tuple[int, int, float]:
    """(skew_block_size, skew_blocks_per_sm, their geometric-mean slowdown) fitted on the graphs' rows.

    Example:
        >>> grid = {"a": {(512, 2, "inf"): 2.0, (1024, 8, "inf"): 1.0, (1024, 8, 512): 0.9},
        ...         "b": {(512, 2, "inf"): 1.0, (1024, 8, "inf"): 1.1}}
        >>> size, per_sm, slowdown = fit(grid)
        >>> size, per_sm, round(slowdown, 3)
        (1024, 8, 1.106)
    """
    pairs = sorted({(size, per_sm) for rows in grid.values() for size, per_sm, _ in rows})
    priced = {pair: statistics.geometric_mean(slowdowns(grid, *pair)) for pair in pairs}
    size, per_sm = min(pairs, key=lambda pair: (priced[pair], pair))
    return size, per_sm, priced[(size, per_sm)]


def write_constants(path: Path, size: int, per_sm: int, slowdown: float, graphs: Sequence[str],
                    files: Sequence[Path], command: str, base: Path = Path(".")) -> None:
    """Rewrite the skewed graphs' launch in the [model] table of the lanes characterization at `path`
    (its `skew_block_size` and `skew_blocks_per_sm` lines and the comment above them), with the rows'
    files (named as given, read from `base`) and the command."""
    text = Path(path).read_text(encoding="utf-8")
    provenance = "\n".join(f"#   {f} sha256 {hashlib.sha256((base / f).read_bytes()).hexdigest()}" for f in files)
    named = textwrap.fill(f"on the lanes-grid rows of {len(graphs)} graphs ({', '.join(graphs)}), the least "
                          f"geometric mean of the slowdowns against each graph's best of its grid ({slowdown:.3f}), of:",
                          100, initial_indent="# ", subsequent_indent="# ")
    block = (f"# Rules 3 and 4 where cv(G) >= inf_skew, fitted by\n#   {command}\n{named}\n{provenance}\n"
             f"skew_block_size = {size}\nskew_blocks_per_sm = {per_sm}\n")
    pattern = re.compile(r"# Rules 3 and 4 where cv\(G\) >= inf_skew.*?skew_blocks_per_sm = \d+\n", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text, count=1)
    else:
        start = text.index("[model]")
        section = text[start:text.index("\n[", start + 1)].rstrip("\n")  # the block goes after its last line
        text = text[:start] + section + "\n" + block + text[start + len(section) + 1:]
    atomic_write(path, text, "the characterization")
