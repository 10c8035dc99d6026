"""What a conditional algorithm needs per graph before its trials (PHAST's hierarchy:
`Algorithm.admits`), made in a thread beside the sweep's measurements of the other algorithms.

A sweep used to wait for it: grid22's hierarchy took 48.8 s of its 101.8-s default sweep on the
H200's host, and its first measurement came at 58 s (9335681). Now the other algorithms' studies take
their turns while it is built, and the studies that need it take theirs as soon as it is ready, or
once the others are done (`order.first_turns`). The build leaves the measurements cores
(`hierarchy.build.CORES_LEFT`) and stops when the sweep ends; an algorithm left out is said on stderr.
"""
from __future__ import annotations

import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class Preparations:
    """One thread that makes the preparations in the order they are asked for (two builds at once
    would share the same cores); `close` stops the one under way and drops those not begun."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autotune-prepare")
        self._ended = threading.Event()

    def start(self, graph: Any, entry: Any, within_s: float | None) -> Future:
        """Begin `entry.admits(graph, prepare=True, within_s)` beside the sweep; the future's result
        is why auto leaves the algorithm out on the graph (said on stderr), or None."""
        return self._pool.submit(self._admits, graph, entry, within_s)

    def _admits(self, graph: Any, entry: Any, within_s: float | None) -> str | None:
        why = entry.admits(graph, True, within_s, beside=self._ended)
        if why is not None and not self._ended.is_set():  # once the sweep ended, the build's own line said it
            print(f"autotune: {graph.name}: auto leaves {entry.name} out: {why}", file=sys.stderr, flush=True)
        return why

    def close(self) -> None:
        self._ended.set()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Preparations:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ready(prepared: Future | None) -> bool:
    """Whether a study's preparation (None: it needs none) has ended, so that its turn waits for nothing."""
    return prepared is None or prepared.done()


def admitted(prepared: Future | None) -> bool:
    """Whether a study may take its turn: it needs no preparation, or its preparation (waited for)
    admitted its algorithm."""
    return prepared is None or prepared.result() is None


__all__ = ["Preparations", "admitted", "ready"]
