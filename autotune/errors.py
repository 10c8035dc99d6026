"""The one exception hierarchy of autotune.

`cli.main()` catches `AutotuneError` in one place, prints its message as one line and exits with
`exit_status`: 2 for bad input or a usage error, 1 for a run that failed.
"""
from __future__ import annotations


class AutotuneError(Exception):
    """Base class of every error autotune reports to a user."""

    exit_status = 1


class InputError(AutotuneError):
    """Bad input: an unknown spec, a malformed file, a bad option value."""

    exit_status = 2


class OutputError(AutotuneError):
    """An output that cannot be written, or would destroy something: a path that is also an input,
    an existing records file, a directory where a file goes."""

    exit_status = 2


class GpuUnavailable(AutotuneError):
    """No GPU, or no PyCUDA, where a command needs one."""

    exit_status = 2


class LaunchRejected(AutotuneError):
    """The GPU cannot run a launch configuration (too many resources, too large a block, ...).

    Args:
        config: the rejected configuration (a `LaunchConfig`).
        reason: one line saying why.
    """

    def __init__(self, config: object, reason: str) -> None:
        super().__init__(reason)
        self.config = config
        self.reason = reason


class WrongResult(AutotuneError):
    """A GPU solve gave distances that differ from the CPU reference."""
