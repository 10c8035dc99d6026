"""Read JSON Lines files, plain or gzip-compressed (`.jsonl.gz`: a full exhaustive sweep's records
run to megabytes per graph and compress about tenfold), through `autotune.files`."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from autotune.files import note_torn_tail, read_json_lines

SUFFIXES = (".jsonl", ".jsonl.gz")


def is_json_lines(path: Path) -> bool:
    """Whether the name says JSON Lines (`.jsonl` or `.jsonl.gz`)."""
    return path.name.endswith(SUFFIXES)


def json_lines(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed object) of every line that is neither blank nor a `#` comment; a last
    line cut short (a run killed while appending) is skipped with a note, as a sweep's replay and
    `model fit` skip it.

    Raises:
        InputError: unreadable file, not UTF-8, or invalid JSON with its file:line.
    """
    return list(read_json_lines(path, "JSON Lines file", note_torn_tail))
