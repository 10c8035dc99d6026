"""What every command line of the project shares (`autotune`, `python3 -m benchmarks`): a parser
whose usage errors are one line, counts that must be positive, and one-line error messages.

Example:
    >>> parser = OneLineParser(prog="tool")
    >>> _ = parser.add_argument("--rounds", type=positive_int)
    >>> parser.parse_args(["--rounds", "0"])  # doctest: +SKIP
    tool: argument --rounds: 0 is not a positive integer (tool --help lists the options)
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An `ArgumentParser` whose usage errors are one line on stderr (what was wrong, and where
    the options are listed) and exit 2, instead of the usage block and the error; its
    subcommands' parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {one_line(message)} ({self.prog} --help lists the options)\n")


def positive_int(text: str) -> int:
    """An argparse type: a count of at least 1 (a sample, rounds, repetitions)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive integer")
    return value


def device_indices(text: str, count: Callable[[], int] | None = None) -> tuple[int, ...]:
    """`--devices all|0,1,...` (sweep's and sssp's): GPU indexes in the given order; `all` is every
    GPU `count` counts (None: there is nothing to count, and `all` is refused).

    Raises:
        InputError: a malformed list, a repeated GPU, `all` without `count`, or an index past `count`'s.
    """
    from autotune.errors import InputError

    value = text.strip()
    if value == "all":
        if count is None:
            raise InputError("--devices all: there are no GPUs to count here; name them, e.g. --devices 0,1")
        return tuple(range(count()))
    items = [item.strip() for item in value.split(",")]
    if not value or not all(items):
        raise InputError(f"--devices: expected all or GPU indexes like 0,1, found {text!r}")
    devices: list[int] = []
    for item in items:
        if not (item.isascii() and item.isdigit()):
            raise InputError(f"--devices: {item!r} is not a GPU index")
        if int(item) in devices:
            raise InputError(f"--devices: GPU {item} is listed twice")
        devices.append(int(item))
    if count is not None and devices and max(devices) >= (available := count()):
        raise InputError(f"--devices {value}: this machine has {available} GPU(s), 0..{available - 1}")
    return tuple(devices)


BYTE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def byte_size(text: str) -> int:
    """An argparse type: a size in bytes, `80G`, `80GiB`, `512M`, `81920MiB` or a plain count
    (binary units: G is 2^30).

    Example:
        >>> byte_size("80G") == 80 * 2**30 and byte_size("1.5GiB") == 3 * 2**29 and byte_size("4096") == 4096
        True
    """
    value = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = value[-1:] if value[-1:] in BYTE_UNITS else ""
    number = value[:-1] if unit else value
    try:
        size = float(number) * BYTE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 80G, 512M or 81920MiB") from None
    if not size > 0 or size != size or size == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive size")
    return int(size)


def one_line(message: str) -> str:
    """An error message as one printable line: control characters (a newline or carriage return
    inside a file name or a spec, say) are shown escaped.

    Example:
        >>> one_line("unknown graph spec '\\r'")
        "unknown graph spec '\\\\r'"
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


def report(prog: str, message: str) -> None:
    """One error line on stderr, as every command line of the project writes it."""
    print(f"{prog}: {one_line(message)}", file=sys.stderr)
