"""autotune: tune the launch parameters of GPU shortest-path kernels.

Public API: `Table` (read a tuned table and look up a configuration, see `autotune.table.lookup`),
`LaunchConfig` (the launch configuration value, see `autotune.launch`).
"""
from __future__ import annotations

from autotune._version import __version__

__all__ = ["__version__", "Table", "LaunchConfig"]


def __getattr__(name: str):
    # Imported on first use, so that `import autotune` stays light.
    if name == "Table":
        from autotune.table.lookup import Table

        return Table
    if name == "LaunchConfig":
        from autotune.launch import LaunchConfig

        return LaunchConfig
    raise AttributeError(f"module 'autotune' has no attribute {name!r}")
