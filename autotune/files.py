"""The file helpers every writer and reader uses: atomic writes, and text, JSON, JSON Lines and TOML reading.

A result file is written to a temporary file in its directory and `os.replace`d into place, so a
reader (or a process killed mid-write) never sees half a file.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tempfile
import tomllib
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from autotune.errors import InputError, OutputError

GZIP_MAGIC = b"\x1f\x8b"
_NON_FINITE = re.compile(r"-?\b(?:NaN|Infinity)\b")


class _NonFinite(ValueError):
    """A JSON text spelled a number Python's reader takes but JSON has not (NaN, Infinity)."""


def _reject_non_finite(token: str) -> Any:
    raise _NonFinite(token)


def loads(text: str) -> Any:
    """`json.loads` that refuses NaN, Infinity and -Infinity (JSON has none; Python's reader takes
    them, and a table or record holding one would reach a C header or a comparison as a number).

    Raises:
        json.JSONDecodeError: not JSON; `ValueError` (`_NonFinite`) naming the token otherwise.
    """
    return json.loads(text, parse_constant=_reject_non_finite)


def _non_finite_error(path: Any, text: str, token: str, first_line: int = 1) -> InputError:
    match = _NON_FINITE.search(text)
    line = first_line + (text.count("\n", 0, match.start()) if match else 0)
    return InputError(f"{path}:{line}: {token} is not a number JSON allows (a measured or fitted value must be finite)")


def atomic_write(path: str | os.PathLike[str], data: str | bytes, what: str = "the file") -> Path:
    """Write `data` to `path` through a temporary file and `os.replace` (a path that exists and is
    not a regular file, such as /dev/null, is written to directly, never replaced); gzip-compressed
    where the name ends in `.gz` and the data is not gzip already, as `read_data` reads such a name.

    Args:
        path: the file to write (its directory is created).
        data: text (written as UTF-8) or bytes.
        what: what the file is, for the error message.

    Returns:
        The path written.

    Raises:
        OutputError: the file cannot be written (naming it and why).

    Example:
        >>> import tempfile, pathlib
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "t.json"
        >>> atomic_write(target, "{}").read_text()
        '{}'
    """
    path = Path(path)
    data = data.encode("utf-8") if isinstance(data, str) else data
    if path.name.endswith(".gz") and not data.startswith(GZIP_MAGIC):
        data = gzip.compress(data, mtime=0)
    if path.exists() and not path.is_file():  # /dev/null, a pipe: written to, never replaced
        try:
            with open(path, "wb") as stream:
                stream.write(data)
        except OSError as error:
            raise OutputError(f"{path}: cannot write {what}: {error.strerror or error}") from None
        return path
    directory = path.parent if str(path.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise OutputError(f"{path}: cannot write {what}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 is not what a plain write gives
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise OutputError(f"{path}: cannot write {what}: {error.strerror or error}") from None
        raise
    return path


def unfinished_writes(directory: str | os.PathLike[str]) -> list[Path]:
    """The temporary files `atomic_write` left in `directory` where its process was killed before
    renaming them into place (never whole: safe to remove).

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = atomic_write(d / "a.json", "{}"); _ = (d / ".a.json.x1y2.tmp").write_text("{")
        >>> [p.name for p in unfinished_writes(d)]
        ['.a.json.x1y2.tmp']
    """
    return sorted(Path(directory).glob(".*.tmp"))


def read_data(path: str | os.PathLike[str], what: str = "file") -> bytes:
    """A file's bytes, decompressed first when it is gzip (its magic bytes, whatever its name).

    Raises:
        InputError: the file cannot be read, its gzip stream is corrupt or truncated, or it is
            named `.gz` but is not gzip.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what}: {error.strerror or error}") from None
    if data.startswith(GZIP_MAGIC):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(f"{path}: the gzip data is corrupt or truncated ({error}). Download it again.") from None
    if path.name.endswith(".gz") and data:
        raise InputError(f"{path}: named .gz but not gzip data (it starts with {data[:8]!r})")
    return data


def read_text(path: str | os.PathLike[str], what: str = "file") -> str:
    """A file's text: UTF-8, decompressed first when it is gzip (`read_data`).

    Every reader of autotune reads through here or `read_data`, so that a file that cannot be
    read, a binary file or a UTF-16 one (what a Windows shell's `>` writes) is one line naming the
    file, never a traceback.

    Raises:
        InputError: the file cannot be read, is corrupt gzip, or is not UTF-8 text.

    Example:
        >>> import tempfile, pathlib
        >>> bad = pathlib.Path(tempfile.mkdtemp()) / "t.json"
        >>> _ = bad.write_bytes(b"\\xff\\xfe{\\x00}\\x00")
        >>> read_text(bad, "table")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        autotune.errors.InputError: ...t.json: not UTF-8 text (it looks like UTF-16); save the table as UTF-8
    """
    data = read_data(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        guess = " (it looks like UTF-16)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise InputError(f"{path}: not UTF-8 text{guess}; save the {what} as UTF-8"
                         + ("" if guess else f" (byte {data[error.start]:#04x} at offset {error.start})")) from None


def read_json_lines(path: str | os.PathLike[str], what: str = "records",
                    torn_tail: Callable[[str], None] | None = None) -> Iterator[tuple[int, Any]]:
    """The objects of a JSON Lines file (plain or gzip) with their line numbers; blank and `#`
    lines are skipped.

    Args:
        path: the file.
        what: what the file is, for errors.
        torn_tail: where a last line cut short (no newline after it, after at least one good
            line: what a process killed while appending leaves) is not an error but reported
            here, and skipped; None: an error.

    Raises:
        InputError: the file cannot be read, or a line is not JSON (naming the file and line).
    """
    text = read_text(path, what)
    lines = text.splitlines()
    read_one = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            data = loads(stripped)
        except _NonFinite as error:
            raise _non_finite_error(path, stripped, str(error), number) from None
        except (json.JSONDecodeError, RecursionError) as error:
            torn = read_one and number == len(lines) and not text.endswith("\n")
            if torn_tail is not None and torn:
                torn_tail(f"{path}:{number}: the last line is cut short (a run stopped while writing it?); skipped")
                return
            raise InputError(f"{path}:{number}: invalid JSON: {getattr(error, 'msg', 'nested too deeply')}") from None
        read_one = True
        yield number, data


def note(message: str) -> None:
    """A note to the user on stderr, `autotune: MESSAGE` (not a log record: a library's logging
    set-up, such as Alembic's under Optuna's RDB storages, cannot silence it)."""
    import sys

    print(f"autotune: {message}", file=sys.stderr, flush=True)


def note_torn_tail(message: str) -> None:
    """Where a reader of records skips a last line cut short (`read_json_lines`' `torn_tail`): a
    note on stderr, the same for every reader (a sweep's replay, `model fit`, `report`)."""
    note(message)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, read in blocks (a shard of distances can take gigabytes)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(2**24), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """One JSON document.

    Raises:
        InputError: unreadable, not UTF-8, or not JSON (with the line of the error).
    """
    text = read_text(path, what)
    try:
        return loads(text)
    except _NonFinite as error:
        raise _non_finite_error(path, text, str(error)) from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}: invalid JSON: {error.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: the JSON nests too deeply to be a {what}") from None


def read_toml(path: str | os.PathLike[str], what: str = "file") -> dict[str, Any]:
    """One TOML document.

    Raises:
        InputError: unreadable, not UTF-8, or not TOML.
    """
    text = read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{path}: invalid TOML: {error}") from None


def slug(text: str, empty: str = "x", limit: int = 64) -> str:
    """`text` as a file-name part: lower-case letters, digits and dashes, at most `limit` long.

    Example:
        >>> slug("NVIDIA H100 80GB HBM3")
        'nvidia-h100-80gb-hbm3'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].strip("-") or empty


def _same_path(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_outputs(outputs: Mapping[str, str | os.PathLike[str] | None],
                  inputs: Mapping[str, str | os.PathLike[str] | None] | Iterable[tuple[str, Any]] = ()) -> None:
    """Refuse, before anything is read or written, an output path that is also an input, or two
    outputs on one path: an output never replaces what a command reads.

    Args:
        outputs: option (as the user wrote it) -> path; None entries are skipped.
        inputs: option -> path (or pairs, for an option given several times); None skipped.

    Raises:
        OutputError: naming both options.

    Example:
        >>> check_outputs({"-o": "rec.jsonl"}, {"--replay": "rec.jsonl"})
        Traceback (most recent call last):
        autotune.errors.OutputError: -o rec.jsonl: that file is also --replay; an output never replaces an input: give another path
    """
    given_inputs = list(inputs.items() if isinstance(inputs, Mapping) else inputs)
    seen: list[tuple[str, Path]] = []
    for option, path in outputs.items():
        if path is None:
            continue
        out = Path(path)
        for other, input_path in given_inputs:
            if input_path is not None and _same_path(out, Path(input_path)):
                raise OutputError(f"{option} {path}: that file is also {other}; an output never replaces an input: "
                                  "give another path")
        for other, earlier in seen:
            if _same_path(out, earlier):
                raise OutputError(f"{option} {path}: {other} writes there too; give each output its own path")
        seen.append((option, out))


def check_replaceable(path: str | os.PathLike[str], is_kind: Callable[[Path], bool], what: str) -> None:
    """Refuse to write `what` over an existing file that is not one (a table over records, say) or
    over a directory. A file of the same kind may be replaced (it is rewritten as a whole).

    Raises:
        OutputError: naming the file.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path}: is a directory; give the path of {what} file")
    if path.is_file() and path.stat().st_size and not is_kind(path):
        raise OutputError(f"{path}: exists and is not {what}; it is left as it is: give another path, or remove it")


def is_json_with(path: Path, key: str, prefix: str) -> bool:
    """Whether `path` holds a JSON object whose `key` is a string starting with `prefix` (what
    `check_replaceable` asks of an autotune table or results file)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and str(data.get(key, "")).startswith(prefix)


def starts_with(path: Path, prefix: bytes) -> bool:
    """Whether the file's first bytes are `prefix` (an export's header line, a format's magic)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(prefix)) == prefix
    except OSError:
        return False


def is_toml_with(path: Path, key: str, prefix: str) -> bool:
    """Whether `path` holds TOML whose `key` is a string starting with `prefix` (a fitted model's
    `format`, say: what `check_replaceable` asks of one)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return str(data.get(key, "")).startswith(prefix)


NPY_MAGIC = b"\x93NUMPY"  # numpy's .npy files begin so (`sssp --save`'s distances)

