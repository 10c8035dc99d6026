"""The peers of suite `kernels`: Gunrock's SSSP (gunrock/gunrock's `examples/algorithms/sssp`, built
by `scripts/build_gunrock.sh` into `.peers/gunrock-sssp`, which a GPU call carries), run on a suite
graph from the suite's own sources.

The graph is written as a Matrix Market file (1-based, `coordinate real general`: one line an arc,
its integer weight), and the binary runs once over every source (`-s S1,S2,...`): it loads the
file, builds its CSR on the GPU, then solves from each source in turn, timing each solve itself
(`gunrock::sssp::run`: the enactor's loop, its problem's set-up outside it; `process_times` of its
`--export_metrics` JSON). The first solve is its warm-up; the median of the others is its time. With
`--validate` it checks the last source's distances against its own CPU Dijkstra and prints the
number of vertices that differ ("Number of errors"): a peer whose check fails is recorded as wrong,
never as a time to beat.

Example::

    >>> from autotune.graphs.csr import CSRGraph
    >>> import io, numpy as np
    >>> out = io.BytesIO()
    >>> write_market(CSRGraph("g", np.array([0, 1, 1]), np.array([1]), np.array([7])), out)
    >>> print(out.getvalue().decode(), end="")
    %%MatrixMarket matrix coordinate real general
    2 2 1
    1 2 7
"""
from __future__ import annotations

import json
import re
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Sequence

import numpy as np

GUNROCK = Path(__file__).resolve().parents[1] / ".peers" / "gunrock-sssp"  # where scripts/build_gunrock.sh puts it
CHUNK = 1 << 20  # arcs written at a time
POWERS = 10 ** np.arange(1, 10, dtype=np.int64)  # a number's digits: how many of these it reaches, plus 1
ERRORS = re.compile(r"Number of errors\s*:\s*(\d+)")


def write_market(graph: Any, out: BinaryIO) -> None:
    """`graph` (a CSRGraph) as a Matrix Market coordinate file, one line an arc, 1-based (ASCII
    bytes written to a binary stream; `ascii_lines`)."""
    n, m = graph.n_vertices, graph.n_edges
    out.write(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {m}\n".encode())
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.row_offsets)) + 1
    for start in range(0, m, CHUNK):
        part = slice(start, start + CHUNK)
        out.write(ascii_lines((tails[part], graph.columns[part].astype(np.int64) + 1, graph.weights[part])))


def ascii_lines(columns: Sequence[np.ndarray]) -> bytes:
    """Rows of integers in [0, 2^32) as ASCII lines, the columns separated by a space: each column's
    digits laid out at its widest number's width, the leading zeros dropped by one mask over the
    rows (numpy's whole-array steps, not a Python format per number: rmat23's 268M arcs are written
    before Gunrock reads them).

    Example:
        >>> ascii_lines([np.array([1, 10, 0]), np.array([234, 5, 99])])
        b'1 234\\n10 5\\n0 99\\n'
    """
    parts, kept = [], []
    for i, column in enumerate(columns):
        value = np.asarray(column, dtype=np.uint32)[:, None]
        width = int(np.searchsorted(POWERS, int(value.max(initial=0)), side="right")) + 1
        scale = (10 ** np.arange(width - 1, -1, -1, dtype=np.int64)).astype(np.uint32)  # most significant first
        keep = value >= scale
        keep[:, -1] = True  # the units digit, also of a 0
        parts += [(value // scale % np.uint32(10) + 48).astype(np.uint8),
                  np.full((len(value), 1), ord("\n" if i == len(columns) - 1 else " "), dtype=np.uint8)]
        kept += [keep, np.ones((len(value), 1), dtype=bool)]
    return np.concatenate(parts, axis=1)[np.concatenate(kept, axis=1)].tobytes() if parts else b""


def gunrock_command(binary: Path, market: Path, sources: Sequence[int], metrics_dir: Path) -> list[str]:
    """The binary's command line: every source in turn, its metrics JSON, the last source checked."""
    return [str(binary), "-m", str(market), "-s", ",".join(str(int(s)) for s in sources), "--export_metrics",
            "-d", str(metrics_dir), "-f", "metrics.json", "--validate"]


def gunrock_result(stdout: str, metrics: dict[str, Any], sources: Sequence[int]) -> dict[str, Any]:
    """A peer row from the binary's output: its status, its time (the median of its solves after the
    first) and each solve's, and its own check of the last source."""
    times = [float(t) for t in metrics.get("process_times") or ()]
    found = ERRORS.search(stdout)
    errors = int(found.group(1)) if found else None
    row: dict[str, Any] = {"peer": "gunrock", "times_ms": times, "checked_source": int(sources[-1]), "errors": errors}
    if len(times) != len(sources) or errors is None:
        return {**row, "status": "failed", "ms": None,
                "reason": f"{len(times)} times for {len(sources)} sources" if errors is not None else
                "no check of its distances in its output"}
    if errors:
        return {**row, "status": "wrong", "ms": None,
                "reason": f"{errors} vertices' distances differ from its CPU Dijkstra's (source {sources[-1]})"}
    return {**row, "status": "ok", "ms": statistics.median(times[1:] or times)}


def gunrock_row(binary: Path, graph: Any, sources: Sequence[int], timeout_s: float = 300.0) -> dict[str, Any]:
    """Run Gunrock's SSSP on `graph` from `sources` (`gunrock_command`) and read its row
    (`gunrock_result`); a run that fails or times out is a "failed" row with its reason."""
    with tempfile.TemporaryDirectory(prefix="gunrock-") as folder:
        market = Path(folder) / "graph.mtx"
        with open(market, "wb") as out:
            write_market(graph, out)
        try:
            done = subprocess.run(gunrock_command(binary, market, sources, Path(folder)), capture_output=True,
                                  text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return {"peer": "gunrock", "status": "failed", "ms": None, "reason": f"over {timeout_s:.0f} s"}
        metrics_file = Path(folder) / "metrics.json"
        if done.returncode != 0 or not metrics_file.exists():
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            return {"peer": "gunrock", "status": "failed", "ms": None,
                    "reason": f"exit {done.returncode}: {last[0][:200]}"}
        return gunrock_result(done.stdout, json.loads(metrics_file.read_text()), sources)


def peer_binary(path: Path | None) -> Path | None:
    """The Gunrock binary to run: `path` if given, else `GUNROCK` where it was built; None if absent."""
    found = path if path is not None else GUNROCK
    return found if found.is_file() else None


def given_binary(text: str) -> Path:
    """`--gunrock`'s value (argparse's `type`): a file, or a one-line usage error (a binary named
    and not there is a mistake, not a peer left out)."""
    import argparse

    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file (scripts/build_gunrock.sh builds it)")
    return path
