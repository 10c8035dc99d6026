"""autotune: tune the launch parameters of GPU shortest-path kernels."""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
