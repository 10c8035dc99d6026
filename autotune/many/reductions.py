"""Per-source reductions (`sssp --sources ... --reduce NAME[,NAME]`): one number per source in place
of its row of n distances.

Each row is first summarized as three integers (on the GPU by `autotune.gpu.summary`, or here from
rows on the host): the vertices it reaches (the source included), the largest finite distance and
the sum of the finite distances. From them:

* `reached`: the vertices reachable from the source, itself included.
* `eccentricity`: the largest distance to a vertex the source reaches (0 when it reaches none else).
* `closeness`: (reached - 1) / (sum of the distances to them), the closeness centrality of the
  source over the vertices it reaches (out-distances; 0 when it reaches none else). For a strongly
  connected graph this is the classic (n - 1) / sum; scale by (reached - 1) / (n - 1) for
  Wasserman and Faust's variant on graphs that are not.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from autotune.errors import InputError

NAMES = ("reached", "eccentricity", "closeness")
SUMMARY_COLUMNS = ("reached", "farthest", "total")


def parse_reductions(text: str) -> tuple[str, ...]:
    """`--reduce`: names from `NAMES`, comma-separated, in `NAMES`' order.

    Raises:
        InputError: an unknown name.
    """
    asked = [part.strip() for part in text.split(",")]
    unknown = [name for name in asked if name not in NAMES]
    if unknown or not asked:
        raise InputError(f"--reduce: unknown reduction {', '.join(map(repr, unknown)) or repr(text)}; "
                         f"choose from {', '.join(NAMES)} (comma-separated)")
    return tuple(name for name in NAMES if name in asked)


def summarize_rows(rows: np.ndarray, inf: int) -> np.ndarray:
    """(k, 3) int64 summaries (reached, farthest, total) of (k, n) distance rows, `inf` unreachable."""
    finite = rows != inf
    values = np.where(finite, rows, 0).astype(np.int64)
    return np.stack([finite.sum(axis=1), values.max(axis=1, initial=0), values.sum(axis=1)], axis=1).astype(np.int64)


def reduce_summaries(summaries: np.ndarray, names: Sequence[str] = NAMES) -> np.ndarray:
    """(k, len(names)) float64: each named reduction of (k, 3) summaries, a column each."""
    reached = summaries[:, 0].astype(np.float64)
    farthest = summaries[:, 1].astype(np.float64)
    total = summaries[:, 2].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        closeness = np.where(total > 0, (reached - 1) / total, 0.0)
    columns = {"reached": reached, "eccentricity": farthest, "closeness": closeness}
    return np.stack([columns[name] for name in names], axis=1) if names else np.empty((len(summaries), 0))


__all__ = ["NAMES", "SUMMARY_COLUMNS", "parse_reductions", "reduce_summaries", "summarize_rows"]
