"""Hierarchies built once per graph and kept on disk, content-addressed by the graph's sha256:
`<directory>/<sha256>.npz` (written atomically), or `<sha256>.unsuited`, the one line of why the
graph gets none, so that no sweep builds it twice; `<sha256>.stopped` holds the time limit at which
a build stopped, until one ends. The default directory is versioned, in the
cache directory (`$AUTOTUNE_CACHE_DIR/hierarchies/<VERSION>` when that is set). The last hierarchy
read or built is kept in the process too, for as long as its file is unchanged: a sweep's
PHAST timers each open it (grid22's file took 2.9 s to read and check on this VM).

Example:
    >>> import tempfile
    >>> import numpy as np
    >>> from autotune.graphs import build_csr
    >>> g = build_csr("g", 3, np.array([0, 1]), np.array([1, 2]), np.array([4, 0]))
    >>> store = HierarchyStore(tempfile.mkdtemp())
    >>> store.hierarchy(g).levels == store.hierarchy(g).levels, store.built
    (True, 1)
"""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Callable

from autotune.files import atomic_write, note
from autotune.graphs.csr import CSRGraph
from autotune.hierarchy.contraction import (DENSE_CORE, EARLY_WORK, FIRST_WORK, LEVEL_WEIGHT, MAX_GROWTH, MAX_WORK,
                                            SETTLE, Unsuited, contract)
from autotune.hierarchy.layout import Hierarchy
from autotune.hierarchy.rounds import rounds_for

_log = logging.getLogger(__name__)

# The kept hierarchies' version: the layout's format and the contraction's bounds (a new procedure
# bumps the leading number; v2: witnesses by tentative distances, one search per pair of a symmetric graph;
# v3: a vertex's key raised with its level; v4: a graph of `ROUNDS_FROM` vertices or more contracted in rounds
# where it may use more than one core; v5: a dense core of at most `DENSE_CORE` vertices contracted at once;
# v6: in rounds, a vertex within a level's weight of its neighbours' keys contracted, those of a round ranked by
# id; v7: in order, a vertex within half a level's weight of the next key contracted (`contraction.LAZY_SLACK`); a
# bound's change is a new version too, so that a graph's verdict is the same for every run). A large graph
# contracts in rounds on one core too since v6 (a one-core build in order kept before is still a hierarchy).
VERSION = f"v7-settle{SETTLE}-levels{LEVEL_WEIGHT:g}-growth{MAX_GROWTH:g}-work{MAX_WORK}-{EARLY_WORK}-{FIRST_WORK}" \
    f"-core{DENSE_CORE}"


_recent: dict[Path, tuple[tuple[int, int, int], Hierarchy]] = {}  # the last file read or written: its stat, hierarchy


def _stat(path: Path) -> tuple[int, int, int]:
    status = path.stat()
    return status.st_ino, status.st_mtime_ns, status.st_size


def default_directory() -> Path:
    """`hierarchies/<VERSION>` in the cache directory (`graphs.cache.kept_dir_from_env`): a change of
    the contraction's procedure or bounds is a new version, whose hierarchies are built afresh."""
    from autotune.graphs.cache import kept_dir_from_env

    return kept_dir_from_env(os.environ, "hierarchies") / VERSION


class HierarchyStore:
    """The hierarchies of the module docstring; `directory` None keeps nothing (builds each time)."""

    def __init__(self, directory: str | os.PathLike[str] | None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.built = 0  # hierarchies this object built (the rest were read)

    def _path(self, graph: CSRGraph, suffix: str) -> Path | None:
        return None if self.directory is None else self.directory / f"{graph.sha256}{suffix}"

    def kept(self, graph: CSRGraph) -> bool:
        """Whether the graph's hierarchy is kept (readable without building)."""
        path = self._path(graph, ".npz")
        return path is not None and path.is_file()

    def refusal(self, graph: CSRGraph) -> str | None:
        """Why an earlier build gave the graph no hierarchy, if one did."""
        path = self._path(graph, ".unsuited")
        return path.read_text().strip() if path is not None and path.is_file() else None

    def stopped_within(self, graph: CSRGraph) -> float | None:
        """The time limit (s) at which an earlier build of the graph stopped, if one did and none ended since."""
        path = self._path(graph, ".stopped")
        try:
            return float(path.read_text()) if path is not None and path.is_file() else None
        except (OSError, ValueError):
            return None

    def note_stopped(self, graph: CSRGraph, within_s: float) -> None:
        """Keep that a build of the graph stopped at a limit of `within_s` seconds (`build.build_kept`
        tries no build under a limit as short again; one without a limit, or a longer one, does)."""
        path = self._path(graph, ".stopped")
        if path is not None:
            atomic_write(path, f"{within_s:g}\n".encode(), "stopped build's note")

    def hierarchy(self, graph: CSRGraph, progress: Callable[[int, int], bool | None] | None = None,
                  cores: int | None = None) -> Hierarchy:
        """The graph's hierarchy: read where kept, else built and kept (on `cores` cores where given,
        else on every core this process may use: `rounds.rounds_for`); a build logs its progress,
        and calls `progress(contracted, n)` every `contraction.PROGRESS_EVERY` vertices when given,
        which stops it by returning true (nothing is kept then, neither a hierarchy nor a verdict).

        Raises:
            Unsuited: the graph gets none (also when a build said so before).
            Stopped: `progress` stopped the build.
        """
        kept, refused = self._path(graph, ".npz"), self._path(graph, ".unsuited")
        if (why := self.refusal(graph)) is not None:
            raise Unsuited(why)
        if kept is not None and kept.is_file():
            try:
                if kept in _recent and _recent[kept][0] == _stat(kept):
                    return _recent[kept][1]
                return _remember(kept, Hierarchy.from_file(kept, graph.n_vertices))
            except (OSError, ValueError) as error:
                note(f"{kept}: {error}; building it again")
        start = time.perf_counter()
        _log.info("%s: building its contraction hierarchy (%d vertices; kept for later runs)",
                  graph.name, graph.n_vertices)

        def report(done: int, n: int) -> bool:
            _log.info("%s: %d of %d vertices contracted", graph.name, done, n)
            return progress is not None and bool(progress(done, n))

        stopped = self._path(graph, ".stopped")
        rounds = rounds_for(graph, cores)  # on every core this process may use where cores is None
        try:
            built = contract(graph, progress=report, rounds=rounds)
        except Unsuited as why:
            if refused is not None:
                atomic_write(refused, f"{why}\n".encode(), "hierarchy refusal")
                stopped.unlink(missing_ok=True)
            raise
        h = Hierarchy.from_contraction(*built, threads=rounds)  # laid out on the contraction's threads (0: one)
        self.built += 1
        _log.info("%s: hierarchy of %d levels and %d arcs built in %.1f s", graph.name, h.levels, h.n_arcs,
                  time.perf_counter() - start)
        if kept is not None:
            atomic_write(kept, h.to_bytes(), "hierarchy")
            stopped.unlink(missing_ok=True)
            _remember(kept, h)
        return h


def _remember(path: Path, h: Hierarchy) -> Hierarchy:
    """Keep `h` as the process's last hierarchy, read from or written to `path`."""
    _recent.clear()
    _recent[path] = (_stat(path), h)
    return h
