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
from typing import NoReturn


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
