"""Read JSON Lines files, plain or gzip-compressed (`.jsonl.gz`: a full exhaustive sweep's records
run to megabytes per graph and compress about tenfold)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from autotune.errors import InputError

SUFFIXES = (".jsonl", ".jsonl.gz")


def is_json_lines(path: Path) -> bool:
    """Whether the name says JSON Lines (`.jsonl` or `.jsonl.gz`)."""
    return path.name.endswith(SUFFIXES)


def read_text(path: Path) -> str:
    """The file's text, decompressed when its name ends in `.gz`.

    Raises:
        InputError: unreadable, or not gzip data.
    """
    try:
        if path.name.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8") as stream:
                return stream.read()
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason})") from None


def json_lines(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed object) of every line that is neither blank nor a `#` comment.

    Raises:
        InputError: unreadable file, or invalid JSON with its file:line.
    """
    out = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            out.append((number, json.loads(stripped)))
        except json.JSONDecodeError as error:
            raise InputError(f"{path}:{number}: invalid JSON: {error.msg}") from None
    return out
