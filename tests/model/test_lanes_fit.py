"""The lane-interleaved model's fit (autotune/algorithms/delta_lanes/fit.py) and its rows."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

from autotune.algorithms.delta_lanes import fit

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "h200" / "lanes-grid-d0d9efe.jsonl.gz"


def row(graph: str, size: int, per_sm: int, delta: object, ms: float | None, cls: str = "lanes grid") -> dict:
    config = {"algorithm": "delta_lanes", "concurrent_kernels": 1024,
              "kernels": {k: {"block_size": size, "cache": "default"} for k in ("advance", "split")},
              "params": {"blocks_per_sm": per_sm, "delta": delta}}
    return {"graph": graph, "class": cls, "config": config, "status": "ok" if ms else "failed", "ms_per_sssp": ms}


def test_the_fit_takes_the_pair_least_slow_over_the_graphs_at_relaxed_settlement(tmp_path):
    rows = [row("a", 512, 2, "inf", 2.0), row("a", 1024, 8, "inf", 1.2), row("a", 1024, 8, 512, 1.0),
            row("b", 512, 2, "inf", 1.0), row("b", 1024, 8, "inf", 1.1), row("b", 1024, 4, "inf", None),
            row("b", 256, 1, "inf", 0.5, cls="table best")]  # another class, a failure: not read
    path = tmp_path / "rows.jsonl"
    path.write_text("# a header line\n" + "".join(json.dumps(r) + "\n" for r in rows))
    grid = fit.read_grid([path])
    assert sorted(grid) == ["a", "b"] and (1024, 4, "inf") not in grid["b"]
    size, per_sm, slowdown = fit.fit(grid)  # (512, 2): sqrt(2 x 1) = 1.41; (1024, 8): sqrt(1.2 x 1.1) = 1.15
    assert (size, per_sm) == (1024, 8) and abs(slowdown - (1.2 * 1.1) ** 0.5) < 1e-9
    assert fit.slowdowns(grid, 1024, 4) == [fit.MISSING, fit.MISSING]


def test_the_writer_puts_the_pair_after_the_model_s_constants_and_rewrites_it_in_place(tmp_path):
    toml = tmp_path / "lanes.toml"
    toml.write_text('source = "kernels/lanes.cu"\n\n[model]\ninf_skew = 1.0\nblocks_per_sm = 2\n\n'
                    '[kernels.advance]\nregisters_per_thread = 64\n')
    (tmp_path / "rows.jsonl").write_text("")
    for size, per_sm in ((1024, 8), (512, 4)):
        fit.write_constants(toml, size, per_sm, 1.01, ["a", "b"], [Path("rows.jsonl")], "the command", base=tmp_path)
    text = toml.read_text()
    assert text.count("skew_block_size") == 1 and "skew_blocks_per_sm = 4\n\n[kernels.advance]" in text
    assert tomllib.loads(text)["model"] == {"inf_skew": 1.0, "blocks_per_sm": 2, "skew_block_size": 512,
                                            "skew_blocks_per_sm": 4}


def test_the_shipped_constants_are_the_fit_of_the_shipped_rows():
    from autotune.algorithms import get

    size, per_sm, _ = fit.fit(fit.read_grid([DATA]))
    model = get("delta_lanes").characterization.model
    assert (model["skew_block_size"], model["skew_blocks_per_sm"]) == (size, per_sm)
