"""The compiled contraction (`contract.cpp`): built once per machine with the C++ compiler the
kernels' machines have (g++, or `$CXX`), kept in the cache directory, and called through ctypes.

Chosen over numba (llvmlite is a 60 MB wheel, too large to carry to the GPU machine) and over the
registry's contraction libraries (`fast-paths` has no wheel; `routingkit-cch` builds a customizable
hierarchy of nested-dissection order, not the rank, levels and shortcut arcs PHAST sweeps):
docs/notes/phast.md. Where no compiler is found, `available()` says why and the caller falls back
on the Python contraction.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Callable

import numpy as np

SOURCE = Path(__file__).with_name("contract.cpp")
HEADERS = tuple(Path(__file__).with_name(name) for name in (
    "witness.hpp", "rounds.hpp", "core.hpp", "parallel.hpp", "layout.hpp"))  # what SOURCE includes
DENSIFIED, GREW, CAPACITY, STOPPED, CORE, WORK, FORESEEN = 1, 2, 3, 4, 5, 6, 7
PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int)


class CompilerMissing(Exception):
    """No C++ compiler could build the contraction (the message says what was tried)."""


def compiler() -> str | None:
    """`$CXX`, else g++ or c++ on the PATH."""
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def library_path(directory: Path) -> Path:
    """Where the build of this source is kept: named by its and its headers' digest, so an edit rebuilds."""
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in (SOURCE, *HEADERS))).hexdigest()[:16]
    return directory / f"contract-{digest}.so"


@cache
def load(directory: Path) -> ctypes.CDLL:
    """The compiled contraction, built into `directory` first where it is not there.

    Raises:
        CompilerMissing: no compiler, or the build failed (its first error line).
    """
    target = library_path(directory)
    if not target.is_file():
        cxx = compiler()
        if cxx is None:
            raise CompilerMissing("no C++ compiler (g++, c++ or $CXX) to build the contraction")
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".contract-", suffix=".so", dir=directory)
        os.close(handle)
        try:
            command = [cxx, "-O3", "-std=c++17", "-shared", "-fPIC", "-pthread", "-o", temporary, str(SOURCE)]
            done = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            Path(temporary).unlink(missing_ok=True)
            raise CompilerMissing(f"{cxx} could not build the contraction: {error.strerror or error}") from None
        if done.returncode != 0:
            Path(temporary).unlink(missing_ok=True)
            first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:200])
            raise CompilerMissing(f"{cxx} could not build the contraction: {first}")
        os.replace(temporary, target)
    library = ctypes.CDLL(str(target))
    pointer = ctypes.POINTER(ctypes.c_longlong)
    int_pointer = ctypes.POINTER(ctypes.c_int)
    library.ch_contract.restype = ctypes.c_int
    library.ch_contract.argtypes = [
        ctypes.c_int, ctypes.c_longlong, int_pointer, int_pointer, int_pointer, ctypes.c_int, ctypes.c_double,
        ctypes.c_double, ctypes.c_double, ctypes.c_double, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_longlong,
        ctypes.c_int, ctypes.c_longlong, ctypes.c_int, PROGRESS, ctypes.c_int, ctypes.c_int,
        pointer, pointer, pointer, ctypes.c_longlong, pointer, pointer, pointer, pointer, pointer]
    library.ch_upward.restype = ctypes.c_longlong
    library.ch_upward.argtypes = [ctypes.c_longlong, pointer, pointer, pointer, ctypes.c_int]
    library.ch_layout.restype = ctypes.c_int
    library.ch_layout.argtypes = [ctypes.c_int, ctypes.c_longlong, *[pointer] * 5, ctypes.c_int, *[pointer] * 4,
                                  int_pointer, pointer, pointer, int_pointer, pointer, ctypes.c_int]
    return library


def contract_compiled(n: int, tails: np.ndarray, heads: np.ndarray, weights: np.ndarray, settle: int,
                      level_weight: float, lazy_slack: float, max_growth: float, max_core: float,
                      max_work: tuple[int, int, int], sample: int, max_pairs: int, directory: Path,
                      progress: Callable[[int, int], bool] | None, every: int, rounds: int = 0, dense_core: int = 0,
                      old_ids: np.ndarray | None = None) -> tuple[int, tuple[np.ndarray, ...] | tuple[int, ...]]:
    """Run `ch_contract`: (0, (rank, level, tails, heads, weights)) when done, else (code, info) with the
    refusal's numbers (`contract.cpp`); `max_work`: the arcs its witness searches may scan in all, after
    the first estimates early on, and in the first estimates, foreseen from those of `sample` vertices.
    `progress(contracted, n)`, called every `every` contractions (and with 0 every `every` first
    estimates) where given, returns True to stop. `rounds` 0: one vertex at a time, in order
    (`contract_python`'s procedure: one computed again is put back where its importance passes the next
    key by more than `lazy_slack` x `level_weight`); more: in rounds of independent vertices on that
    many threads (`rounds.hpp`; the same hierarchy for any number). A vertex of more than `max_pairs`
    pairs of neighbours refuses the graph unless at most `dense_core` vertices (and a 64th of them) are
    left, which are then contracted as a dense core (`core.hpp`). The arcs name their ends by `old_ids`
    where given (each vertex's id in the graph's own ids: the graph was renumbered), else as given; rank
    and level stay by the ids given.

    Raises:
        CompilerMissing: as `load`.
    """
    library = load(directory)
    m = len(tails)
    as_int = [np.ascontiguousarray(a, dtype=np.int32) for a in (tails, heads, weights)]
    capacity = int(max_growth * max(m, 1)) + 1
    rank, level = np.empty(n, np.int64), np.empty(n, np.int64)
    out = [np.empty(capacity, np.int64) for _ in range(3)]
    count, info = np.zeros(1, np.int64), np.zeros(3, np.int64)
    ids = None if old_ids is None else np.ascontiguousarray(old_ids, dtype=np.int64)

    def ptr(array: np.ndarray, kind=ctypes.c_longlong):
        return array.ctypes.data_as(ctypes.POINTER(kind))

    callback = PROGRESS(lambda done, total: int(bool(progress(done, total))) if progress else 0)
    status = library.ch_contract(n, m, *(ptr(a, ctypes.c_int) for a in as_int), settle, level_weight, lazy_slack,
                                 max_growth, max_core, *max_work, sample, max_pairs, dense_core, callback,
                                 every if progress else 0, rounds, None if ids is None else ptr(ids),
                                 ptr(rank), ptr(level), capacity,
                                 *(ptr(a) for a in out), ptr(count), ptr(info))
    if status != 0:
        return status, tuple(int(x) for x in info)
    k = int(count[0])
    # views, not copies (grid24's 174M arcs would be 4.2 GB more): the pages past the k arcs were never touched, so
    # they hold no memory
    return 0, (rank, level, out[0][:k], out[1][:k], out[2][:k])


def layout_compiled(rank: np.ndarray, level: np.ndarray, tails: np.ndarray, heads: np.ndarray, weights: np.ndarray,
                    directory: Path, threads: int = 1) -> tuple[np.ndarray, ...] | None:
    """`Hierarchy.from_contraction`'s arrays by `ch_layout` (`layout.hpp`; new_of, old_of, level_start,
    then the upward and the downward CSR), or None where `rank` is not a permutation of the vertices;
    the arcs' passes on `threads` threads (the same arrays for any number).

    Raises:
        CompilerMissing: as `load`.
    """
    library = load(directory)
    n, m = len(rank), len(tails)
    rank, level, tails, heads, weights = (np.ascontiguousarray(a, dtype=np.int64)
                                          for a in (rank, level, tails, heads, weights))
    levels = int(level.max()) + 1 if n else 0

    def ptr(array: np.ndarray, kind=ctypes.c_longlong):
        return array.ctypes.data_as(ctypes.POINTER(kind))

    up = int(library.ch_upward(m, ptr(rank), ptr(tails), ptr(heads), threads))
    new_of, old_of, level_start = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(levels + 1, np.int64)
    up_offsets, down_offsets = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
    up_heads, up_weights = np.empty(up, np.int32), np.empty(up, np.int64)
    down_tails, down_weights = np.empty(m - up, np.int32), np.empty(m - up, np.int64)
    status = library.ch_layout(n, m, ptr(rank), ptr(level), ptr(tails), ptr(heads), ptr(weights), levels, ptr(new_of),
                               ptr(old_of), ptr(level_start), ptr(up_offsets), ptr(up_heads, ctypes.c_int),
                               ptr(up_weights), ptr(down_offsets), ptr(down_tails, ctypes.c_int), ptr(down_weights),
                               threads)
    if status != 0:
        return None
    return new_of, old_of, level_start, up_offsets, up_heads, up_weights, down_offsets, down_tails, down_weights
