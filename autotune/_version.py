"""autotune's version, in a module of its own that imports nothing (every writer records it)."""
from __future__ import annotations

__version__ = "0.1.0"
