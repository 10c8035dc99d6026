"""Fast parsing of whitespace-separated integer text, with file:line errors.

The fast path never loops over lines in Python: numpy finds token and line boundaries in the raw
bytes and `np.fromstring` converts the numbers. Only when something is wrong does a slow path walk
the lines to name the first bad one. The checks the readers share (ids in range, integer weights, a header's
vertex count) are here too.
"""
from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from autotune.errors import InputError
from autotune.files import read_data
from autotune.graphs.options import INT32_MAX

SATURATED = float(2**63 - 1)  # what numpy's text parser gives for an integer past int64



def read_bytes(path: Path) -> bytes:
    """Return the content of `path`, decompressed when it is gzip (`files.read_data`), refused
    when it is not the ASCII or UTF-8 text every graph format is (UTF-16 or UTF-32, or binary).

    Raises:
        InputError: if the file cannot be read, its gzip stream is corrupt or truncated, or it is
            not text (saying which, and where).
    """
    data = read_data(path, "file")
    where = display_name(path)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or data[1:2] == b"\x00" != data[:1]:
        raise InputError(f"{where}: is UTF-16 or UTF-32 text; graph files are ASCII (or UTF-8): convert it, "
                         f"e.g. iconv -f UTF-16 -t UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(f"{where}:{line}: binary data (a NUL byte at byte {nul}): "
                         "not a text graph file (.gr, .graph, .mtx, .txt/.el/.wel; .csr.npz for autotune's own)")
    return data


def blank_lines(data: bytes, pattern: bytes) -> bytes:
    """Empty every line matching the regex `pattern` (anchored at line start), keeping line numbers."""
    return re.sub(rb"(?m)^(?:" + pattern + rb")[^\n]*", b"", data)


def shown(line: bytes, limit: int = 60) -> str:
    """A line as quoted in error messages: decoded, stripped, shortened."""
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


@dataclass(frozen=True)
class Tokens:
    """Where the tokens of a text lie: line index (0-based) of each token, tokens per line."""

    token_lines: np.ndarray
    line_counts: np.ndarray


def tokenize(data: bytes) -> Tokens:
    """Find the tokens (runs of bytes above space) of `data` and their 0-based line indices."""
    a = np.frombuffer(data, dtype=np.uint8)
    space = a <= 32
    starts = np.flatnonzero(~space[1:] & space[:-1]) + 1
    if len(a) and not space[0]:
        starts = np.concatenate(([0], starts))
    newlines = np.flatnonzero(a == 10)
    token_lines = np.searchsorted(newlines, starts)
    n_lines = len(newlines) + (1 if len(a) and a[-1] != 10 else 0)
    return Tokens(token_lines, np.bincount(token_lines, minlength=n_lines))


def numbers(data: bytes, n_tokens: int, dtype: type) -> np.ndarray | None:
    """Convert all whitespace-separated numbers of `data`, or return None if any is malformed."""
    if n_tokens == 0:
        return np.empty(0, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(data, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    return values if len(values) == n_tokens else None


LineCheck = Callable[[bytes], str | None]


def first_bad_line(data: bytes, check: LineCheck) -> tuple[int, bytes, str] | None:
    """Slow path: the first line (1-based number, text, problem) for which `check` returns a problem."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        problem = check(line)
        if problem is not None:
            return number, line, problem
    return None


def is_int(token: bytes) -> bool:
    return token.isdigit() or (token[:1] in (b"-", b"+") and token[1:].isdigit())


def is_number(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def display_name(path: os.PathLike | str) -> str:
    """The file name as errors show it: the path as the user gave it."""
    return os.fspath(path)


def line_at(data: bytes, index: int) -> bytes:
    """Line `index` (0-based) of `data`."""
    lines = data.split(b"\n", index + 1)
    return lines[index] if index < len(lines) else b""


@dataclass(frozen=True)
class Rows:
    """Rows of numbers parsed from a text: `values[i]` came from line `lines[i]` (1-based)."""

    values: np.ndarray
    lines: np.ndarray

    def line_of(self, row: int) -> int:
        return int(self.lines[row])


def parse_rows(
    body: bytes,
    where: str,
    *,
    widths: tuple[int, ...],
    dtype: type,
    expected: str,
    check: LineCheck,
    original: bytes | None = None,
    first_line: int = 1,
) -> Rows:
    """Parse the non-blank lines of `body` as rows of numbers, all of one width from `widths`.

    Args:
        body: the text, with lines that are not rows (comments, headers) blanked; line `i` of
            `body` is line `first_line + i` of the file.
        where: the file name for errors.
        widths: allowed numbers of tokens per row; the first row fixes the width.
        dtype: np.int64 or np.float64.
        expected: what a row looks like, for errors (e.g. "an arc line 'a u v w'").
        check: slow-path check of one line of `original`, returning a problem or None.
        original: the unblanked text (defaults to `body`), quoted in errors.
        first_line: the file's line number of `body`'s first line.

    Raises:
        InputError: `file:line: expected ..., found '...'` for the first malformed line.
    """
    original = body if original is None else original
    tokens = tokenize(body)
    counts = tokens.line_counts
    nonblank = np.flatnonzero(counts)
    width = int(counts[nonblank[0]]) if len(nonblank) else widths[0]
    bad = np.flatnonzero((counts != 0) & (counts != width))
    if width not in widths:
        bad = nonblank[:1]
    if len(bad):
        index = int(bad[0])
        raise InputError(
            f"{where}:{first_line + index}: expected {expected}, "
            f"found {shown(line_at(original, index))}"
        )
    values = numbers(body, len(tokens.token_lines), dtype)
    if values is None:
        found = first_bad_line(original, check)
        if found is None:  # cannot happen for a consistent `check`; still say something useful
            raise InputError(f"{where}: expected only {expected} lines, found other text")
        number, line, problem = found
        raise InputError(f"{where}:{first_line + number - 1}: {problem}, found {shown(line)}")
    return Rows(values.reshape(-1, width), tokens.token_lines[::width] + first_line)


def check_ids(where: str, rows: Rows, columns: slice, lo: int, hi: int, what: str) -> None:
    ids = rows.values[:, columns]
    bad = np.flatnonzero(((ids < lo) | (ids > hi)).any(axis=1))
    if len(bad):
        row = int(bad[0])
        value = next(int(v) for v in ids[row] if not lo <= v <= hi)
        raise InputError(
            f"{where}:{rows.line_of(row)}: vertex id {value} is outside {lo}..{hi} ({what})"
        )


def check_weights(where: str, rows: Rows, column: int) -> np.ndarray:
    weights = rows.values[:, column]
    bad = np.flatnonzero(~np.isfinite(weights) | (weights != np.floor(weights)))
    if len(bad):
        row = int(bad[0])
        raise InputError(
            f"{where}:{rows.line_of(row)}: weight {weights[row]} is not an integer. "
            "Use --weights LO-HI to draw integer weights instead."
        )
    bad = np.flatnonzero((weights < 0) | (weights > INT32_MAX))
    if len(bad):
        row = int(bad[0])
        value = weights[row]
        if abs(value) >= SATURATED:  # the parser saturates numbers past int64: their digits are lost
            shown_value = "(past 64 bits)"
        else:
            shown_value = f"{value:.0f}"
        kind = "negative weight" if value < 0 else "weight too large"
        raise InputError(
            f"{where}:{rows.line_of(row)}: {kind} {shown_value}; "
            f"weights must be in 0..{INT32_MAX}"
        )
    return weights.astype(np.int64)


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


ISOLATED_LIMIT = 1 << 20  # vertices that no arc can touch, beyond which a count is taken for a mistake


def check_declared_sizes(where: str, n_vertices: int, n_items: int, item: str, min_item_bytes: int,
                         file_bytes: int, stated: str = "the header says") -> None:
    """A header's counts against the file that states them, before anything is allocated: its
    `n_items` lines (arcs, entries) of at least `min_item_bytes` each must fit in the file, and
    at most `ISOLATED_LIMIT` vertices may be beyond what those items can touch (two ends each).

    Raises:
        InputError: naming the header's line (`where`), what it says and what the file holds.

    Example:
        >>> check_declared_sizes("g.gr:1", 2**31 - 1, 0, "arcs", 8, 23)
        Traceback (most recent call last):
        autotune.errors.InputError: g.gr:1: the header says 2147483647 vertices and 0 arcs: at least 2147483647 vertices would have no arc (at most 1048576 may); is the file mistyped?
    """
    if n_items * min_item_bytes > file_bytes:
        raise InputError(f"{where}: {stated} {n_items} {item}, but a file of {file_bytes:,} bytes holds at "
                         f"most {file_bytes // min_item_bytes:,}: the file is truncated, or the header mistyped")
    isolated = n_vertices - 2 * n_items
    if isolated > ISOLATED_LIMIT:
        raise InputError(f"{where}: {stated} {n_vertices} vertices and {n_items} {item}: at least {isolated} "
                         f"vertices would have no arc (at most {ISOLATED_LIMIT} may); is the file mistyped?")


def check_vertex_count(where: str, n_vertices: int) -> None:
    """A header's vertex count must be positive and fit the CSR's int32 ids (`where` is file:line)."""
    if n_vertices < 1:
        raise InputError(f"{where}: the header says {n_vertices} vertices: an empty graph")
    if n_vertices > INT32_MAX:
        raise InputError(f"{where}: {n_vertices} vertices do not fit int32 vertex ids (at most {INT32_MAX})")
