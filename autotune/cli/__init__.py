"""Command line: argparse -> library calls -> exit codes.

Each subcommand lives in its own module of this package, which exposes `register(subparsers)`; the
parser it adds sets `run`, a function taking the parsed arguments and returning an exit status. A
command imports its own module only; the full help (and a mistyped command) imports them all.
Errors derived from `AutotuneError` are reported here, in one place, as one line on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from autotune._version import __version__
from autotune.arguments import OneLineParser
from autotune.arguments import report as report_error  # (autotune.cli.report is the report command)
from autotune.errors import AutotuneError

# Module names under autotune.cli, in the order `autotune --help` lists them.
_COMMAND_MODULES = ("graph", "sssp", "predict", "devices", "sweep", "report", "table", "model")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command's, or with `only` (a module of
    `_COMMAND_MODULES`) that command's alone, whose module alone is then imported."""
    parser = OneLineParser(
        prog="autotune",
        description="Tune the launch parameters of GPU shortest-path (SSSP) kernels.",
    )
    parser.add_argument("--version", action="version", version=f"autotune {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")

    for name in _COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"autotune.cli.{name}").register(subparsers)
    return parser


def _command_module(argv: list[str]) -> str | None:
    """The module of the command `argv` names (its first word that is not an option), so that a
    command imports its own module only, not every command's (the sweep's Optuna among them);
    None when it names none of them (`--help`, a mistyped command: every command is listed)."""
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    module = "sweep" if word == "sweep-worker" else word  # sweep's module registers its worker
    return module if module in _COMMAND_MODULES else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 run failed, 2 bad input)."""
    parser = build_parser(_command_module(list(sys.argv[1:] if argv is None else argv)))
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    from autotune.cli.options import keep_builds

    keep_builds()
    try:
        return int(args.run(args) or 0)
    except AutotuneError as error:
        if args.debug:
            raise
        report_error("autotune", str(error))
        return error.exit_status
    except KeyboardInterrupt:
        report_error("autotune", "interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        lost = storage_lost(error)
        if lost is None or args.debug:
            raise
        report_error("autotune", lost)
        return 1


def storage_lost(error: BaseException) -> str | None:
    """The one line for a study's database that stopped answering in the middle of a command (a
    server restarted or gone: SQLAlchemy's `OperationalError`), or None for any other error.
    Every finished trial is in the storage already; `--resume` takes the sweep up again."""
    exc = sys.modules.get("sqlalchemy.exc")
    if exc is None:
        return None
    cause: BaseException | None = error  # Optuna wraps the driver's error (StorageInternalError)
    while cause is not None and not isinstance(cause, (exc.OperationalError, exc.InterfaceError)):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    reason = (str(getattr(cause, "orig", None) or cause).strip().splitlines() or ["no answer"])[0]
    return (f"the study's storage stopped answering ({reason}); every finished trial is kept there: "
            "run the same command again with --resume once it is back")
