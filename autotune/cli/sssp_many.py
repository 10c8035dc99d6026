"""`autotune sssp --sources all|N [--save-dir DIR]`: shortest paths from many sources on the GPU
(all-pairs as one SSSP per source), in batches of the configuration's CK.

The verification sample (`--verify K` sources, spread over the sources) is solved first and
compared with the CPU oracle before anything else runs or is written, so a wrong configuration
fails in its first batch (exit 1) and saves nothing. One warm-up batch (not counted) precedes the
timed ones. Reported: the wall time of all batches (launches, the device's work and the copy of
the distances to the host: what a program waits for; writing files is timed apart), the CUDA-event
time, milliseconds per SSSP and SSSPs per second.

`--save-dir DIR` writes int64 distances, -1 for unreachable: one matrix `distances.npy` (a row per
source, in the order of `sources.npy`) when it takes at most `MATRIX_BYTES`, else one file per
source, `DIR/<source>.npy`, each written as soon as it is verified-safe: a run interrupted there and
started again with the same options solves only the sources without a file (and the sample, which is
always verified again).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from autotune.cli.distances import save_distances, unreachable_as_minus_one
from autotune.errors import AutotuneError, InputError

MATRIX_BYTES = 256 * 2**20
DEFAULT_VERIFY = 16


def parse_sources(text: str | None) -> int | str | None:
    """`--sources`: a count of at least 1, or `all`."""
    if text is None or text == "all":
        return text
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise InputError(f"--sources: expected a count of at least 1 or 'all', found {text!r}")
    return int(text)


def verification_sample(sources: Sequence[int], count: int) -> list[int]:
    """`count` sources spread evenly over `sources` (all of them when there are fewer)."""
    if count >= len(sources):
        return list(sources)
    picks = np.linspace(0, len(sources) - 1, num=count).round().astype(int)
    return [sources[i] for i in dict.fromkeys(picks.tolist())]


def solve_order(sources: Sequence[int], sample: Sequence[int]) -> list[int]:
    """The sample first (verified before the rest runs), then the other sources in their order."""
    chosen = set(sample)
    return list(sample) + [s for s in sources if s not in chosen]


def batches(order: Sequence[int], ck: int) -> list[tuple[list[int], int]]:
    """Batches of `ck` sources and how many of each are real: the last batch is padded with its
    first source (a solve always runs CK instances)."""
    out = []
    for start in range(0, len(order), ck):
        part = list(order[start:start + ck])
        out.append((part + [part[0]] * (ck - len(part)), len(part)))
    return out


def layout(n_sources: int, n_vertices: int) -> str:
    """"matrix" when the int64 distances of every source fit `MATRIX_BYTES`, else "files"."""
    return "matrix" if n_sources * n_vertices * 8 <= MATRIX_BYTES else "files"


@dataclass
class DistanceWriter:
    """Writes the distances of `--save-dir` (see the module's doc); rows come in any order."""

    directory: Path
    sources: Sequence[int]
    n_vertices: int
    inf: int
    seconds: float = 0.0
    _rows: dict[int, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"--save-dir {self.directory}: {error.strerror or error}") from None
        self.mode = layout(len(self.sources), self.n_vertices)

    def saved(self) -> set[int]:
        """The sources whose file an earlier run already wrote (one file per source only)."""
        if self.mode != "files":
            return set()
        return {s for s in self.sources if (self.directory / f"{s}.npy").exists()}

    def add(self, source: int, distances: np.ndarray) -> None:
        start = time.perf_counter()
        row = unreachable_as_minus_one(distances, self.inf)
        if self.mode == "matrix":
            self._rows[source] = row
        else:
            save_distances(row, self.directory / f"{source}.npy", "--save-dir")
        self.seconds += time.perf_counter() - start

    def close(self) -> None:
        start = time.perf_counter()
        save_distances(np.asarray(self.sources, dtype=np.int64), self.directory / "sources.npy", "--save-dir")
        if self.mode == "matrix":
            matrix = np.stack([self._rows[s] for s in self.sources]) if self.sources else np.empty((0, self.n_vertices))
            save_distances(matrix, self.directory / "distances.npy", "--save-dir")
        self.seconds += time.perf_counter() - start


def solve_many(solver: Any, config: Any, sources: Sequence[int], expected: Mapping[int, np.ndarray],
               writer: DistanceWriter | None = None, inf: int = 2**31 - 1) -> dict[str, Any]:
    """Solve from every source in batches of `config`'s CK: the `expected` (sample) sources first,
    each compared with its reference before the next batch runs. Returns the timings.

    Raises:
        AutotuneError: a sampled source's distances differ from the reference (nothing more is
            solved; a writer has written nothing).
    """
    ck = config.concurrent_kernels
    sample = [s for s in sources if s in expected]
    plan = batches(solve_order(sources, sample), ck)
    sample_batches = -(-len(sample) // ck)
    solver.solve(config, plan[0][0])  # warm-up: compiles, allocates, fills caches
    gpu_ms = 0.0
    held: list[tuple[int, np.ndarray]] = []  # rows solved before the whole sample is verified
    start = time.perf_counter()
    for index, (batch, real) in enumerate(plan):
        result = solver.solve(config, batch)
        gpu_ms += result.elapsed_ms
        for k, source in enumerate(batch[:real]):
            if source in expected:
                differ = np.flatnonzero(result.distances[k] != expected[source])
                if len(differ):
                    raise AutotuneError(f"wrong: from source {source}, {len(differ)} distance(s) differ from the "
                                        f"CPU reference (first at vertex {differ[0]}); nothing saved")
            if writer is not None:
                held.append((source, result.distances[k].copy()))
        if writer is not None and index + 1 >= sample_batches:
            for source, row in held:
                writer.add(source, row)
            held.clear()
    wall_s = time.perf_counter() - start - (writer.seconds if writer is not None else 0.0)
    if writer is not None:
        writer.close()
    count = len(sources)
    return {"sources": count, "batches": len(plan), "concurrent_kernels": ck, "verified_sources": len(expected),
            "wall_s": wall_s, "gpu_ms": gpu_ms, "ms_per_sssp": 1000.0 * wall_s / count if count else 0.0,
            "sssp_per_s": count / wall_s if wall_s > 0 else None,
            "save_seconds": writer.seconds if writer is not None else None,
            "saved": None if writer is None else {"directory": str(writer.directory), "layout": writer.mode}}


def render(summary: Mapping[str, Any], config_text: str) -> str:
    lines = [f"{summary['algorithm']} on {summary['device']}: {summary['graph']}, {summary['sources']:,} sources in "
             f"{summary['batches']:,} batches of CK {summary['concurrent_kernels']}",
             f"  {summary['wall_s']:.3f} s wall ({summary['ms_per_sssp']:.4f} ms per SSSP, "
             f"{summary['sssp_per_s']:,.0f} SSSPs per second), {summary['gpu_ms'] / 1000:.3f} s on the GPU (CUDA events)",
             f"  verified: {summary['verified_sources']} sources equal the CPU reference",
             f"  configuration: {config_text}"]
    if summary.get("already_saved"):
        lines.append(f"  {summary['already_saved']:,} sources skipped: an earlier run had saved them")
    if summary.get("saved"):
        lines.append(f"  saved to {summary['saved']['directory']} ({summary['saved']['layout']}, "
                     f"{summary['save_seconds']:.2f} s)")
    return "\n".join(lines)


def print_summary(summary: Mapping[str, Any], as_json: bool, config_text: str) -> None:
    print(json.dumps(summary, indent=2) if as_json else render(summary, config_text))
