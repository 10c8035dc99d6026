"""The two file helpers every writer and reader uses: atomic writes and JSON Lines reading.

A result file is written to a temporary file in its directory and `os.replace`d into place, so a
reader (or a process killed mid-write) never sees half a file.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterator

from autotune.errors import AutotuneError, InputError


def atomic_write(path: str | os.PathLike[str], data: str | bytes, what: str = "the file") -> Path:
    """Write `data` to `path` through a temporary file and `os.replace` (a path that exists and is
    not a regular file, such as /dev/null, is written to directly, never replaced).

    Args:
        path: the file to write (its directory is created).
        data: text (written as UTF-8) or bytes.
        what: what the file is, for the error message.

    Returns:
        The path written.

    Raises:
        AutotuneError: the file cannot be written (naming it and why).

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "t.json"
        >>> atomic_write(target, "{}").read_text()
        '{}'
    """
    path = Path(path)
    if path.exists() and not path.is_file():  # /dev/null, a pipe: written to, never replaced
        try:
            with open(path, "wb") as stream:
                stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as error:
            raise AutotuneError(f"{path}: cannot write {what}: {error.strerror or error}") from None
        return path
    directory = path.parent if str(path.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise AutotuneError(f"{path}: cannot write {what}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 is not what a plain write gives
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise AutotuneError(f"{path}: cannot write {what}: {error.strerror or error}") from None
        raise
    return path


def read_json_lines(path: str | os.PathLike[str], what: str = "records") -> Iterator[tuple[int, Any]]:
    """The objects of a JSON Lines file with their line numbers; blank and `#` lines are skipped.

    Raises:
        InputError: the file cannot be read, or a line is not JSON (naming the file and line).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what}: {error.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            yield number, json.loads(stripped)
        except json.JSONDecodeError as error:
            raise InputError(f"{path}:{number}: invalid JSON: {error.msg}") from None


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """One JSON document.

    Raises:
        InputError: unreadable, or not JSON (with the line of the error).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what}: {error.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}: invalid JSON: {error.msg}") from None


def slug(text: str, empty: str = "x", limit: int = 64) -> str:
    """`text` as a file-name part: lower-case letters, digits and dashes, at most `limit` long.

    Example:
        >>> slug("NVIDIA H100 80GB HBM3")
        'nvidia-h100-80gb-hbm3'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].strip("-") or empty
